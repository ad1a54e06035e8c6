#!/bin/bash
# Compile the scheduler objects of the stage $KDIR is at with W=1 and
# sparse (C=2), and print their findings, one per line, without line
# numbers, so that stages can be compared with pristine.
# usage: lint-stage.sh STAGE
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: lint-stage.sh STAGE"
# The stage kernels' own object directory: kbuild rebuilds the two objects
# because W=1 and C=2 change their command lines, and rebuilds them again
# for the next normal build, which is cheaper than preparing a second one.
obj=$BUILD/obj/smp
log=$BUILD/logs/lint-$1.log
mkdir -p "$obj" "$BUILD/logs"
"$TOP/scripts/build-kernel.sh" --config-only "$obj" smp
# fair.c, and build_utility.c, which includes debug.c.
if ! kmake -C "$KDIR" O="$obj" W=1 C=2 -j"$(($(nproc) + 1))" \
	kernel/sched/fair.o kernel/sched/build_utility.o >"$log" 2>&1; then
	die "W=1 build of kernel/sched on stage $1 failed: $(grep -m1 -E 'error:' "$log" || tail -n1 "$log")"
fi
grep -E ': (warning|error):' "$log" | sed -E 's/:[0-9]+:[0-9]+: /: /; s/:[0-9]+: /: /' | sort -u
