#!/bin/bash
# Build the SCHED_IDLE selftest statically, with the kselftest Makefile of
# the tree at the last stage, for the initramfs: patches after the one that
# adds it extend it, and every stage runs the same, complete test.
# Output: build/selftest/sched/sched_idle_test
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/selftest/sched
log=$BUILD/logs/selftest.log
src=$KDIR/tools/testing/selftests/sched
last=$(stage_names | tail -n1)
mkdir -p "$out" "$BUILD/logs"
"$TOP/scripts/apply-stage.sh" "$last"
[ -f "$src/sched_idle_test.c" ] || die "no $src/sched_idle_test.c at stage $last"
rm -f "$out/sched_idle_test"
if ! make -C "$src" OUTPUT="$out" LDFLAGS=-static "$out/sched_idle_test" >"$log" 2>&1; then
	die "selftest build failed: $(grep -m1 -E 'error' "$log" || tail -n1 "$log")"
fi
info "selftest: $out/sched_idle_test"
