# shellcheck shell=sh
# The SCHED_IDLE selftest skips, naming the CPU, where CPUs 0..N-1 (N
# online) are not all allowed to it: under an affinity that leaves out the
# last CPU, as a cpuset or isolcpus would, and with a hole in the CPU
# numbers (CPU1 offline). Were it to run there, it would pin hogs to CPUs
# it may not use and fail for the machine's sake.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh

LOG=/tmp/sched_idle_test.log

need_selftest
hold_tracepoints

# Run the selftest behind "$@"; it must exit 4 (KSFT_SKIP) with a SKIP
# line that names CPU $1.
skips_naming()
{
	_cpu=$1
	shift
	"$@" sched_idle_test >"$LOG" 2>&1
	_rc=$?
	[ "$_rc" = 4 ] && grep -q "# SKIP CPU$_cpu of " "$LOG" && return 0
	echo "exit $_rc, want 4 (KSFT_SKIP) naming CPU$_cpu: $(tail -n 3 "$LOG" | tr '\n' ' ')"
	return 1
}

affinity()
{
	_last=$(($(nproc) - 1))
	[ "$_last" -ge 2 ] || {
		echo "needs 3 CPUs or more"
		return 4
	}
	skips_naming "$_last" taskset -c "0-$((_last - 1))"
}

hole()
{
	echo 0 >/sys/devices/system/cpu/cpu1/online || {
		echo "cannot take CPU1 offline"
		return 1
	}
	skips_naming 1
	_r=$?
	echo 1 >/sys/devices/system/cpu/cpu1/online || {
		echo "cannot bring CPU1 back"
		return 1
	}
	return "$_r"
}

ktap_begin 2
ktap_check skips_under_affinity affinity
ktap_check skips_with_a_hole hole
ktap_end
