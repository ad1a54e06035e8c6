# shellcheck shell=sh
# KTAP output for guest plans (Documentation/dev-tools/ktap.rst).
# Sourced by the plans in /plans.

KTAP_N=0
KTAP_FAILED=0

ktap_begin()
{
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_diag()
{
	echo "# $*"
}

ktap_ok()
{
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1"
}

ktap_fail()
{
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAILED=$((KTAP_FAILED + 1))
	echo "# $1: $2"
	echo "not ok $KTAP_N $1"
}

ktap_skip()
{
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1 # SKIP $2"
}

# Run one check: "ktap_check NAME FUNCTION". The function prints the reason
# of a failure on stdout and returns non-zero; KSFT_SKIP (4) means skip.
ktap_check()
{
	_name=$1
	shift
	_out=$("$@" 2>&1)
	case $? in
	0) ktap_ok "$_name" ;;
	4) ktap_skip "$_name" "$_out" ;;
	*) ktap_fail "$_name" "$(echo "$_out" | tr '\n' ' ')" ;;
	esac
}

ktap_end()
{
	[ "$KTAP_FAILED" = 0 ]
}

# Policy numbers as /proc/TID/stat reports them (include/uapi/linux/sched.h).
# shellcheck disable=SC2034 # for the plans that source this
SCHED_OTHER=0 SCHED_IDLE=5

# The scheduling policy of a thread, from field 41 of /proc/TID/stat.
# The command name in field 2 may hold spaces, so cut after its ")".
thread_policy()
{
	sed 's/.*) //' "$1/stat" | cut -d' ' -f39
}

# Check that every thread of PID runs under POLICY (a number, 5 for
# SCHED_IDLE); print the offender otherwise.
check_policy()
{
	_pid=$1
	_want=$2
	_seen=0
	for _t in /proc/"$_pid"/task/*; do
		_p=$(thread_policy "$_t")
		[ "$_p" = "$_want" ] || {
			echo "thread ${_t##*/} of $_pid has policy $_p, want $_want"
			return 1
		}
		_seen=$((_seen + 1))
	done
	[ "$_seen" -gt 0 ] || { echo "no threads for pid $_pid"; return 1; }
}

# rt-app's own complaint from its output in $1, after what happened to it
# ($2, e.g. "exited 2"): its first <error> or <crit> line, or its last.
rtapp_error()
{
	_msg=$(grep -m1 -E '<(error|crit)>' "$1" 2>/dev/null || tail -n1 "$1" 2>/dev/null)
	echo "rt-app $2: ${_msg:-no output}"
}

# Run rt-app on workload $1, output in $2; on failure say why, in its words.
run_rtapp()
{
	rt-app "$1" >"$2" 2>&1 || {
		rtapp_error "$2" "exited $?"
		return 1
	}
}

# For the plans that run the selftest: without it in the initramfs, one
# failed test that says so, and the plan ends.
need_selftest()
{
	[ -x /bin/sched_idle_test ] && return 0
	ktap_begin 1
	ktap_fail selftest "the initramfs has no sched_idle_test"
	exit 1
}

# Keep two probes on each tracepoint the selftest traces (sched_wakeup,
# sched_wakeup_new) for the rest of the boot: one in the top-level trace
# buffer and one in an instance of its own, both with tracing off. The
# selftest's own instance then moves a tracepoint between two and three
# probes, which changes no kernel text. From none to one probe, and
# from one to two, the kernel patches the tracepoint's static key and
# call site while other CPUs run it. Boots of the selftest-kill plan,
# which does that about ten times, now and then died of "int3: 0000
# [#1] SMP" at trace_sched_wakeup with the call site already patched
# back: a vCPU ran the int3 of a patch that was complete (at least two
# boots, pristine 6.1 and 6.12 kernels, each in a run of 6 to 27). A
# TCG artefact is the likeliest reading; it is not proven. Here the
# patching happens twice, before the selftest starts.
hold_tracepoints()
{
	for _dir in /sys/kernel/tracing /sys/kernel/tracing/instances/sched_idle_hold; do
		[ -d "$_dir" ] || mkdir "$_dir" 2>/dev/null || return 0
		echo 0 >"$_dir/tracing_on"
		for _ev in sched_wakeup sched_wakeup_new; do
			[ ! -f "$_dir/events/sched/$_ev/enable" ] ||
				echo 1 >"$_dir/events/sched/$_ev/enable"
		done
	done
}

# The value of sched_idle.$1= on the kernel command line, if any.
cmdline_arg()
{
	sed -n "s/.*sched_idle\.$1=\([^ ]*\).*/\1/p" /proc/cmdline
}

# The plans keep no defaults of their own: the host passes every setting
# (scripts/variables holds the defaults), and a missing one is the host's
# mistake, an infrastructure error. usage: need_arg NAME VALUE
need_arg()
{
	[ -n "$2" ] && return 0
	echo "sched-idle: infra: no sched_idle.$1= on the kernel command line"
	exit 1
}
