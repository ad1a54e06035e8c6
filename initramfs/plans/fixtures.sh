# shellcheck shell=sh
# Fixtures for the analyser's tests (scripts/record-fixtures.sh): pinned
# scenarios whose placement is known in advance, traced as the
# measurement plan traces. A normal spinner holds CPU1 and a SCHED_IDLE
# spinner CPU2; a periodic rt-app task wakes 200 times, pinned
#   stack:   to CPU1, so every wakeup is "avoidable stacking";
#   spread:  to CPU3, which is free, so none is, and its waits end on an
#            idle CPU;
#   preempt: to CPU2, whose SCHED_IDLE spinner it preempts at once;
#   wait:    to CPU1 as in stack, but with the scheduler feature
#            WAKEUP_PREEMPTION off: no wakeup preempts, and each wait
#            ends at a tick.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh
# shellcheck source=initramfs/lib/workload.sh
. /lib/workload.sh

# A spinner pinned to CPU $1; prints its pid. Its output goes elsewhere,
# or the $(spin) that reads the pid would wait for it to end.
spin()
{
	taskset -c "$1" sh -c 'while :; do :; done' >/dev/null 2>&1 &
	echo $!
}

scenario()
{
	_rc=0
	record "$@" || _rc=1
	kill "$_normal" "$_idle" 2>/dev/null
	[ "${3:-}" != no_wakeup_preemption ] || echo WAKEUP_PREEMPTION >"$FEATURES"
	return $_rc
}

record()
{
	_dir=$RESULTS_DIR/$1
	mkdir -p "$_dir" /tmp/rt-app
	rm -f /tmp/rt-app/*
	_normal=$(spin 1)
	_idle=$(spin 2)
	chrt --idle -p 0 "$_idle" || return 1
	{
		echo "$_normal $(thread_policy /proc/"$_normal") spinner"
		echo "$_idle $(thread_policy /proc/"$_idle") spinner"
	} >"$_dir/tasks.txt"
	check_policy "$_idle" "$SCHED_IDLE" || return 1
	render /workloads/periodic.json /tmp/fix.json 1 "[$2]" 500 5000 1 "$1"
	if [ "${3:-}" = no_wakeup_preemption ]; then
		echo NO_WAKEUP_PREEMPTION >"$FEATURES" || return 1
	fi
	trace_start || return 1
	rt-app /tmp/fix.json >/tmp/fix.out 2>&1 &
	_pid=$!
	wait_threads "$_pid" 2 && list_threads "$_pid" >>"$_dir/tasks.txt"
	wait "$_pid" || { rtapp_error /tmp/fix.out "exited $?"; return 1; }
	trace_extract "$_dir/trace.dat" || return 1
	cp /tmp/rt-app/*.log "$_dir/"
	echo "$1: $(grep -vc '^#' "$_dir"/*.log) activations"
}

FEATURES=/sys/kernel/debug/sched/features

# Keep this shell, and what it forks, off the CPUs under test.
taskset -p -c 0 $$ >/dev/null
ktap_begin 4
ktap_check stack scenario stack 1
ktap_check spread scenario spread 3
ktap_check preempt scenario preempt 2
ktap_check wait scenario wait 1 no_wakeup_preemption
ktap_end
