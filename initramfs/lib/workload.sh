# shellcheck shell=sh
# Helpers for plans that run rt-app workloads from the templates in
# /workloads and trace them with trace-cmd. Sourced after /lib/ktap.sh.

EVENTS="sched_switch sched_wakeup sched_wakeup_new sched_migrate_task"

# Render template $1 into $2: "@KEY@" placeholders, quoted so that the
# template itself stays valid JSON for the host's check.
render()
{
	sed -e "s/\"@N@\"/$3/" -e "s/\"@CPUS@\"/$4/" -e "s/\"@RUN@\"/$5/" \
	    -e "s/\"@PERIOD@\"/$6/" -e "s/\"@DURATION@\"/$7/" \
	    -e "s/@NAME@/$8/" "$1" >"$2"
}

# Wait until process $1 has at least $2 threads (rt-app's main thread
# plus one per task instance).
wait_threads()
{
	_i=0
	while [ "$(find /proc/"$1"/task -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" -lt "$2" ]; do
		kill -0 "$1" 2>/dev/null || return 1
		[ $_i -lt 100 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}

# 1 when a woken normal task of the root cgroup preempts thread $1 (a
# /proc/PID/task/TID directory) at once, 0 when it does not. Their
# entities meet at the root: a thread below a top-level cgroup with
# cpu.idle=1 is preempted there. Since faa42d29419d (in 6.12, not in 6.1)
# a SCHED_IDLE thread elsewhere is preempted only where its own entity is
# idle, so below a normal cgroup it is not; on 6.1 its policy suffices.
# The analyser's "stacked" and "misplaced" read this.
at_once()
{
	_cg=$(sed -n 's/^0:://p' "$1/cgroup")
	_top=${_cg#/}
	_top=${_top%%/*}
	# Without the cpu controller there, the thread is scheduled as the
	# root's.
	[ -e "/sys/fs/cgroup/$_top/cpu.idle" ] || _top=
	if [ -n "$_top" ] && [ "$(cat "/sys/fs/cgroup/$_top/cpu.idle")" = 1 ]; then
		echo 1
	elif [ "$(thread_policy "$1")" != "$SCHED_IDLE" ]; then
		echo 0
	elif [ -z "$_top" ]; then
		echo 1
	else
		case $(uname -r) in
		6.1.*) echo 1 ;;
		*) echo 0 ;;
		esac
	fi
}

# "tid policy comm at_once" for every thread of process $1 but its main
# thread, which only waits for the others.
list_threads()
{
	for _t in /proc/"$1"/task/*; do
		[ "${_t##*/}" != "$1" ] || continue
		echo "${_t##*/} $(thread_policy "$_t") $(cat "$_t/comm") $(at_once "$_t")"
	done
}

TRACEFS=/sys/kernel/tracing

# Start recording the sched events into the ring buffers; no recorder
# process runs beside the workload (trace-cmd extract copies them later).
# The events were enabled on the kernel command line (TRACE_CMDLINE in
# scripts/lib.sh), before the other CPUs came up: enabling a tracepoint at
# run time patches kernel text under the other vCPUs' feet, and a TCG guest
# took an int3 oops in __schedule() doing so (stage baseline, trace-cmd
# start while SCHED_IDLE hogs ran). Here only tracing_on moves.
trace_start()
{
	for _e in $EVENTS; do
		[ "$(cat "$TRACEFS/events/sched/$_e/enable" 2>/dev/null)" = 1 ] || {
			echo "sched:$_e is not enabled; boot with trace_event= (TRACE_CMDLINE)"
			return 1
		}
	done
	echo 0 >"$TRACEFS/tracing_on" && : >"$TRACEFS/trace" &&
		echo 1 >"$TRACEFS/tracing_on"
}

# Stop tracing and write what the buffers hold to $1; -k keeps the events
# enabled (without it extract resets them, patching text again).
trace_extract()
{
	echo 0 >"$TRACEFS/tracing_on"
	trace-cmd extract -k -o "$1" >/tmp/trace.out 2>&1 ||
		{ echo "trace-cmd extract: $(tail -n1 /tmp/trace.out)"; return 1; }
}

# Boot-time events record from early boot on; keep only what a plan asks.
echo 0 >"$TRACEFS/tracing_on" 2>/dev/null
