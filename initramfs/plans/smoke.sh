# shellcheck shell=sh
# Smoke plan: the guest has the topology the host asked for, an LLC
# domain to scan, and rt-app runs both a periodic task and a SCHED_IDLE
# task started under chrt --idle 0. Its workloads give rt-app a fixed
# calibration and wall-clock runtime events, as the measurement's do:
# calibrating on a TCG vCPU took 13 s of a 22 s boot, and a smoke test
# needs no exact load: idle_runs shows that the SCHED_IDLE task ran, not
# how much.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh
# shellcheck source=initramfs/lib/workload.sh
. /lib/workload.sh

LOGDIR=/tmp/rt-app

check_topology()
{
	# cpus,sockets,threads (scripts/lib.sh smp_topology)
	_want=${TOPO%%,*}
	_t=${TOPO##*,}
	_s=${TOPO#*,}
	_s=${_s%,*}
	_cpus=$(nproc)
	_pkgs=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id |
		sort -u | wc -l)
	_thr=$(tr ',' '\n' </sys/devices/system/cpu/cpu0/topology/thread_siblings_list |
		wc -l)
	echo "cpus=$_cpus packages=$_pkgs threads_per_core=$_thr, want $_want,$_s,$_t"
	[ "$_cpus" = "$_want" ] && [ "$_pkgs" = "$_s" ] && [ "$_thr" = "$_t" ]
}

# With more than one core per package the scheduler builds an MC domain:
# the LLC that select_idle_sibling() scans.
check_llc_domain()
{
	_d=/sys/kernel/debug/sched/domains/cpu0
	[ "$(nproc)" -gt 1 ] || { echo "one CPU"; return 4; }
	# 6.12 lists the domains only in the scheduler's verbose debug mode,
	# and turning it on builds the directory; 6.1 lists them always.
	[ -d "$_d/domain0" ] || echo Y >/sys/kernel/debug/sched/verbose
	_names=$(cat "$_d"/domain*/name 2>/dev/null | tr '\n' ' ')
	echo "cpu0 domains: $_names"
	case " $_names" in
	*" MC "*|*" SMT "*) return 0 ;;
	*) return 1 ;;
	esac
}

# The rt-app log has a header and one line per activation.
log_lines()
{
	grep -vc '^#' "$1" 2>/dev/null || echo 0
}

start_idle_hog()
{
	chrt --idle 0 rt-app /workloads/smoke-idle.json >/tmp/idle.out 2>&1 &
	IDLE_PID=$!
	# A hog that never gets its thread is check_idle_policy's to report.
	wait_threads "$IDLE_PID" 2 || true
}

check_idle_policy()
{
	kill -0 "$IDLE_PID" 2>/dev/null || { rtapp_error /tmp/idle.out "is gone"; return 1; }
	check_policy "$IDLE_PID" "$SCHED_IDLE" || return 1
	echo "all threads of rt-app $IDLE_PID run SCHED_IDLE"
}

check_periodic()
{
	run_rtapp /workloads/smoke-periodic.json /tmp/periodic.out || return 1
	_n=$(log_lines "$LOGDIR"/smoke-periodic-*.log)
	echo "periodic task logged $_n activations"
	[ "$_n" -gt 0 ]
}

# ktap_check runs checks in a subshell, which cannot wait for our child.
check_idle_done()
{
	[ "$IDLE_RC" = 0 ] || { rtapp_error /tmp/idle.out "exited $IDLE_RC"; return 1; }
	_n=$(log_lines "$LOGDIR"/smoke-idle-*.log)
	echo "idle task logged $_n activations"
	[ "$_n" -gt 0 ]
}

mkdir -p "$LOGDIR"
ktap_begin 5
ktap_check topology check_topology
ktap_check llc_domain check_llc_domain
start_idle_hog
ktap_check idle_policy check_idle_policy
ktap_check periodic check_periodic
wait "$IDLE_PID"
IDLE_RC=$?
ktap_check idle_runs check_idle_done
[ -z "$RESULTS_DIR" ] || cp -r "$LOGDIR" "$RESULTS_DIR/"
ktap_end
