#!/bin/bash
# The selftest puts the machine back when the kselftest runner's timeout
# kills it: initramfs/plans/selftest-kill.sh sends SIGTERM to its process
# group once at each point where it has changed something (the trace
# instance made, its trace being read, SIS_UTIL off, its cgroup, an
# offline CPU) and finds features, controllers, CPUs, its cgroup and
# trace instance as they were. The same plan with SIGSTOP, which freezes
# the test with the change in place, must fail every check on that very
# change (6.1 only: the plan and its checks are the same for both trees).
. "$(dirname "$0")/lib.sh"
points="trace_instance trace_read sis_util_off cgroup cpu_offline"
sigs="TERM"
[ "$TREE_VERSION" != 6.1 ] || sigs="TERM STOP"
npoints=$(wc -w <<<"$points")
# Per signal the exit and a result per point; under STOP also the change.
nstop=0
[[ $sigs != *STOP* ]] || nstop=$npoints
t_plan $(($(wc -w <<<"$sigs") * (1 + npoints) + nstop))
t_selftest_guest
kernel=$T_KERNEL

# Whether the failure line of point $1, "... before: ...; after: ...",
# shows the change that point stopped the test at.
shows_change()
{
	local before=${2#*before: } after=${2#*after: }

	before=${before%%; after: *}
	case $1 in
	trace_instance | trace_read) [[ $after == *"left behind: /sys/kernel/tracing/instances/"* ]] ;;
	cgroup) [[ $after == *"left behind: /sys/fs/cgroup/"* ]] ;;
	sis_util_off) [[ $after == *NO_SIS_UTIL* && $before != *NO_SIS_UTIL* ]] ;;
	cpu_offline) [ "$(grep -o 'online CPUs: [^ ]*' <<<"$before")" != "$(grep -o 'online CPUs: [^ ]*' <<<"$after")" ] ;;
	esac
}

for sig in $sigs; do
	# In build/test-results/, so that a failed boot keeps its console.
	dir=$RESULTS/$sig
	rc=0
	out=$(APPEND="sched_idle.signal=$sig" "$TOP/scripts/run-qemu.sh" pristine "$kernel" \
		selftest-kill "$dir" 2>&1 </dev/null) || rc=$?
	if [ "$sig" = TERM ]; then
		want=pass wantrc=0
		t_is "$rc" 0 "SIGTERM at every point: the run passes"
	else
		want=fail wantrc=1
		t_is "$rc" 1 "SIGSTOP at every point: the run fails, and only as a test failure"
	fi
	[ "$rc" = "$wantrc" ] || t_diag "$out"
	for point in $points; do
		result=$(t_subtest "$dir" "killed_at_$point")
		line=$(grep -m1 "^# killed_at_$point: " "$dir/console.log" 2>/dev/null)
		t_is "$result" "$want" "SIG$sig at $point: killed_at_$point is $want"
		[ "$result" = "$want" ] || t_diag "${line:-no failure line}"
		if [ "$sig" = STOP ]; then
			shown=0
			shows_change "$point" "$line" || shown=$?
			t_ok "$shown" "SIGSTOP at $point: the failure shows that change"
			[ "$shown" = 0 ] || t_diag "${line:-no failure line}"
		fi
	done
done
