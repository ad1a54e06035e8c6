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
	SERIES=$tmp/series PATCHES=$tmp/patches "$TOP/scripts/apply-stage.sh" pristine >/dev/null 2>&1
	rm -rf "$tmp" "$(kernel_dir mutant smp)"
}
trap cleanup EXIT
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
"$TOP/scripts/apply-stage.sh" "$(stage_names | tail -n1)" >/dev/null 2>&1

# The mutant: the first throttle_cfs_rq() loop no longer updates the count.
mkdir -p "$tmp/a/kernel/sched" "$tmp/b/kernel/sched" "$tmp/patches"
cp "$KDIR/kernel/sched/fair.c" "$tmp/a/kernel/sched/"
awk '/qcfs_rq->idle_h_nr_running -= idle_task_delta;/ && !done { done = 1; next } { print }' \
	"$tmp/a/kernel/sched/fair.c" >"$tmp/b/kernel/sched/fair.c"
(cd "$tmp" && diff -u a/kernel/sched/fair.c b/kernel/sched/fair.c) >"$tmp/patches/9999-mutant.patch"
t_is "$(grep -c '^-.*idle_h_nr_running -= idle_task_delta' "$tmp/patches/9999-mutant.patch")" 1 \
	"mutant patch drops one throttle update"
cp "$PATCHES"/*.patch "$tmp/patches/"
cp "$SERIES" "$tmp/series"
echo "9999-mutant.patch # stage: mutant" >>"$tmp/series"

export SERIES=$tmp/series PATCHES=$tmp/patches
out=$( { "$TOP/scripts/apply-stage.sh" mutant && "$TOP/scripts/build-kernel.sh" mutant smp; } 2>&1)
t_ok $? "mutant kernel builds"
[ -f "$(kernel_dir mutant smp)/bzImage" ] || t_diag "$out"
"$TOP/scripts/build-initramfs.sh" >/dev/null 2>&1
"$TOP/scripts/run-qemu.sh" mutant "$(kernel_dir mutant smp)/bzImage" selftest "$tmp/run" >/dev/null 2>&1
t_is "$(t_subtest "$tmp/run" accounting_throttle)" fail "accounting_throttle fails on the mutant"
t_is "$(t_subtest "$tmp/run" accounting_zero)" fail "and the leaked count is seen after all tasks are gone"
