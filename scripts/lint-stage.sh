#!/bin/bash
# Compile the scheduler objects of the stage $KDIR is at with W=1 and
# sparse (C=2), and print their findings, one per line, without line
# numbers, so that stages can be compared with pristine.
# usage: lint-stage.sh STAGE [FLAVOUR]   (flavours: smp nosmp)
#   smp:   fair.o, and build_utility.o, which includes debug.c.
#   nosmp: every object of kernel/sched/, with CONFIG_SMP=n: for a patch
#          that changes only kernel/sched/, its CONFIG_SMP=n compile,
#          without the rest of the kernel and without a link (tests/23
#          builds the whole kernel for a patch that reaches further).
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 1 ] || die "usage: lint-stage.sh STAGE [FLAVOUR]"
flavour=${2:-smp}
case $flavour in
smp) targets="kernel/sched/fair.o kernel/sched/build_utility.o" ;;
nosmp) targets="kernel/sched/" ;;
*) die "lint-stage.sh: no flavour '$flavour' (smp or nosmp)" ;;
esac
# The flavour's own object directory. For smp it is the stage kernels':
# kbuild rebuilds the two objects because W=1 and C=2 change their command
# lines, and rebuilds them again for the next normal build, which is
# cheaper than preparing a second one. nosmp's is shared with
# build-kernel.sh's CONFIG_SMP=n kernels.
obj=$BUILD/obj/$flavour
log=$BUILD/logs/lint-$flavour-$1.log
mkdir -p "$obj" "$BUILD/logs"
"$TOP/scripts/build-kernel.sh" --config-only "$obj" "$flavour"
# The compiler's first error: sparse prints "error:" too, for findings
# pristine already has, but only gcc quotes the source line below it.
first_error()
{
	awk '/: error:/ { if (e == "") e = $0; prev = $0; next }
		prev != "" && /^ *[0-9]+ \|/ { print prev; found = 1; exit }
		{ prev = "" }
		END { if (!found) print (e != "" ? e : last) }
		{ last = $0 }' "$log"
}

# shellcheck disable=SC2086 # one word per target
if ! kmake -C "$KDIR" O="$obj" W=1 C=2 -j"$(($(nproc) + 1))" $targets >"$log" 2>&1; then
	die "W=1 build of kernel/sched ($flavour) on stage $1 failed: $(first_error)"
fi
grep -E ': (warning|error):' "$log" | sed -E 's/:[0-9]+:[0-9]+: /: /; s/:[0-9]+: /: /' | sort -u
