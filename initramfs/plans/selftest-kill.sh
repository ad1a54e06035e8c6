# shellcheck shell=sh
# Kill the SCHED_IDLE selftest in the middle of its run, once at each point
# where it has changed the machine, and check that it put everything back.
# The kselftest runner's timeout ends a test with SIGTERM, and the next
# test must find the machine as it was.
#
# sched_idle.signal= chooses the signal: TERM, sent to the test's whole
# process group as the runner's timeout does, or STOP, which freezes the
# test with its change in place, as a test without a clean-up would leave
# it. Under STOP every check must fail on the change it was stopped at
# (the stopped process itself is left out of the comparison), which
# shows that the checks can fail.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh

sig=$(cmdline_arg signal)
need_arg signal "$sig"
case $sig in
TERM | STOP) ;;
*)
	echo "sched-idle: infra: sched_idle.signal=$sig: TERM or STOP"
	exit 1
	;;
esac

FEATURES=/sys/kernel/debug/sched/features
INSTANCE=/sys/kernel/tracing/instances/sched_idle_test
CGROUP=/sys/fs/cgroup/sched_idle_test
CONTROL=/sys/fs/cgroup/cgroup.subtree_control
ONLINE=/sys/devices/system/cpu/online
LOG=/tmp/sched_idle_test.log
POINTS="trace_instance trace_read sis_util_off cgroup cpu_offline"

need_selftest
hold_tracepoints

# What the selftest may change, as one comparable text: the features,
# the root's controllers, the online CPUs, the test's own cgroup and
# trace instance, and its processes.
state()
{
	echo "features: $(cat "$FEATURES")"
	echo "root subtree_control: $(cat "$CONTROL")"
	echo "online CPUs: $(cat "$ONLINE")"
	[ ! -d "$CGROUP" ] || echo "left behind: $CGROUP"
	[ ! -d "$INSTANCE" ] || echo "left behind: $INSTANCE"
	_n=$(pidof sched_idle_test | wc -w)
	[ "$_n" = 0 ] || echo "left running: $_n sched_idle_test processes"
}

BEFORE=$(state)
read -r FIRST_ONLINE <"$ONLINE"
read -r FIRST_FEATURES <"$FEATURES"
read -r FIRST_CONTROL <"$CONTROL"

# Whether the change at point $1 is in place. Shell builtins only: the
# loop that polls it must see a change that lasts a few milliseconds.
# (An offline CPU shows in the online mask; cpuN/online itself waits
# for the hotplug lock while a CPU goes down.)
changed()
{
	case $1 in
	trace_instance) [ -d "$INSTANCE" ] ;;
	trace_read)
		# trace_collect() reads the trace through the descriptor
		# that tracing_on had, 3, with the instance still there.
		[ -d "$INSTANCE" ] || return 1
		while read -r _k _v; do
			[ "$_k" = flags: ] || continue
			case $_v in *0) return 0 ;; esac
			return 1
		done 2>/dev/null <"/proc/$PID/fdinfo/3"
		return 1
		;;
	sis_util_off)
		read -r _f <"$FEATURES"
		[ "$_f" != "$FIRST_FEATURES" ]
		;;
	cgroup) [ -d "$CGROUP" ] ;;
	cpu_offline)
		read -r _o <"$ONLINE"
		[ "$_o" != "$FIRST_ONLINE" ]
		;;
	esac
}

# Put back what a stopped (or badly behaved) test left, so that the next
# point starts from the state the first one saw.
undo()
{
	for _p in $(pidof sched_idle_test); do
		kill -KILL "$_p" 2>/dev/null
	done
	_i=0
	while [ -n "$(pidof sched_idle_test)" ] && [ "$_i" -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	for _c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$_c")" = 1 ] || echo 1 >"$_c"
	done
	case " $FIRST_FEATURES " in
	*" NO_SIS_UTIL "*) ;;
	*) echo SIS_UTIL >"$FEATURES" ;;
	esac
	[ ! -d "$INSTANCE" ] || rmdir "$INSTANCE"
	# The nested subtests make children in the test's cgroup, and a test
	# stopped between their mkdir and its own clean-up leaves them: a
	# cgroup goes only after its children.
	for _c in "$CGROUP"/*/; do
		[ ! -d "$_c" ] || rmdir "$_c"
	done
	[ ! -d "$CGROUP" ] || rmdir "$CGROUP"
	case " $FIRST_CONTROL " in
	*" cpu "*) ;;
	*) echo -cpu >"$CONTROL" ;;
	esac
}

# Start the selftest in a process group of its own, wait until point $1
# is in place, then signal it. Returns 1 if the test ended first.
kill_at()
{
	setsid sched_idle_test >"$LOG" 2>&1 &
	PID=$!
	while ! changed "$1"; do
		# A zombie keeps its /proc entry until it is reaped.
		read -r _s 2>/dev/null <"/proc/$PID/stat" || return 1
		case $_s in *") Z "*) return 1 ;; esac
	done
	if [ "$sig" = TERM ]; then
		kill -TERM -"$PID"
	else
		kill -STOP "$PID"
	fi
	return 0
}

# One check: kill the test at point $1 (three tries, should a run finish
# before the poll sees the point), then compare the machine with BEFORE.
check_point()
{
	_try=1
	while ! kill_at "$1"; do
		wait "$PID"
		if [ "$_try" = 3 ]; then
			echo "sched_idle_test never reached it in 3 runs"
			return 1
		fi
		_try=$((_try + 1))
	done
	if [ "$sig" = STOP ]; then
		# The time a dying test gets, then the state it froze in.
		sleep 1
		_after=$(state | grep -v '^left running: ')
		[ "$_after" = "$BEFORE" ] && return 0
		echo "stopped at try $_try; before: $BEFORE; after: $_after" | tr '\n' ' '
		return 1
	fi
	wait "$PID"
	_rc=$?
	_after=$(state)
	# Exit 1 alone could be a run that ended with a failed subtest;
	# only a finished run prints its totals.
	_finished=$(grep -c '^# Totals' "$LOG")
	[ "$_after" = "$BEFORE" ] && [ "$_rc" = 1 ] && [ "$_finished" = 0 ] && return 0
	echo "killed at try $_try, exit $_rc (want 1, KSFT_FAIL), totals printed $_finished" \
		"times (want 0); before: $BEFORE; after: $_after; test's last lines:" \
		"$(tail -n 3 "$LOG")" | tr '\n' ' '
	return 1
}

ktap_begin 5
for point in $POINTS; do
	ktap_check "killed_at_$point" check_point "$point"
	undo
	[ "$(state)" = "$BEFORE" ] || {
		echo "sched-idle: infra: cannot restore the machine after $point: $(state)"
		exit 1
	}
done
ktap_end
