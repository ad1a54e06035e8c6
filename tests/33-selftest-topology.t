#!/bin/bash
# The selftest skips rather than fails where CPUs 0..N-1 are not all its
# own (initramfs/plans/selftest-topology.sh): under an affinity without
# the last CPU, as a cpuset or isolcpus gives, with CPU1 offline, and
# where they span two last-level caches (CPUs 0-1 and 2, CPU3 offline);
# in four CPUs of two LLCs it runs its fork group subtest and no other.
# The guest has two sockets of two CPUs, so that CPUs 2-3 share no cache
# with CPU0.
. "$(dirname "$0")/lib.sh"
t_plan 5
t_selftest_guest

rc=0
out=$(SMP=sockets=2,cores=2,threads=1 "$TOP/scripts/run-qemu.sh" pristine "$T_KERNEL" \
	selftest-topology "$RESULTS/run" 2>&1 </dev/null) || rc=$?
t_is "$rc" 0 "the run passes"
[ "$rc" = 0 ] || t_diag "$out"
for check in skips_under_affinity skips_with_a_hole skips_across_llcs fork_groups_only; do
	result=$(t_subtest "$RESULTS/run" "$check")
	t_is "$result" pass "$check"
	[ "$result" = pass ] ||
		t_diag "$(grep "^# $check: " "$RESULTS/run/console.log" 2>/dev/null | head -n 2)"
done
