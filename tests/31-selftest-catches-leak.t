#!/bin/bash
# The accounting subtests can fail: a kernel that forgets to take a
# throttled group's SCHED_IDLE tasks out of idle_h_nr_running (the class
# of bug 5ab297bab984 fixed) must fail accounting_throttle and leave a
# non-zero count behind.
. "$(dirname "$0")/lib.sh"
t_plan 4
tmp=$(mktemp -d)
cleanup()
{
	t_series_restore "$tmp"
	rm -rf "$tmp" "$(kernel_dir mutant smp)"
}
trap cleanup EXIT
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1

# The mutant (T_LEAK, tests/lib.sh), on top of the whole series.
t_mutant_series "$tmp" "$(stage_names | tail -n1)" mutant "$T_LEAK"
t_is "$(grep -c '^-.*idle_h_nr_running -= idle_task_delta' "$tmp/patches/9999-mutant.patch")" 1 \
	"mutant patch drops one throttle update"

export SERIES=$tmp/series PATCHES=$tmp/patches
out=$( { "$TOP/scripts/apply-stage.sh" mutant && "$TOP/scripts/build-kernel.sh" mutant smp; } 2>&1)
t_ok $? "mutant kernel builds"
[ -f "$(kernel_dir mutant smp)/bzImage" ] || t_diag "$out"
"$TOP/scripts/build-initramfs.sh" >/dev/null 2>&1
"$TOP/scripts/run-qemu.sh" mutant "$(kernel_dir mutant smp)/bzImage" selftest "$tmp/run" >/dev/null 2>&1
t_is "$(t_subtest "$tmp/run" accounting_throttle)" fail "accounting_throttle fails on the mutant"
t_is "$(t_subtest "$tmp/run" accounting_zero)" fail "and the leaked count is seen after all tasks are gone"
