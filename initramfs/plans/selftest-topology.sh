# shellcheck shell=sh
# The SCHED_IDLE selftest skips, naming the CPU, where CPUs 0..N-1 (N
# online) are not all allowed to it: under an affinity that leaves out the
# last CPU, as a cpuset or isolcpus would, and with a hole in the CPU
# numbers (CPU1 offline). It also skips where they do not all share CPU0's
# last-level cache (a guest with two sockets; tests/33 boots one). Were it
# to run there, it would pin hogs to CPUs it may not use or that a wakeup
# scan does not reach, and fail for the machine's sake.
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh

LOG=/tmp/sched_idle_test.log

need_selftest
hold_tracepoints

# Run the selftest behind "$@"; it must exit 4 (KSFT_SKIP) with a SKIP
# line that names CPU $1 and says ($2) why.
skips_naming()
{
	_cpu=$1
	_why=$2
	shift 2
	"$@" sched_idle_test >"$LOG" 2>&1
	_rc=$?
	[ "$_rc" = 4 ] && grep -q "# SKIP CPU$_cpu of .*$_why" "$LOG" && return 0
	echo "exit $_rc, want 4 (KSFT_SKIP) naming CPU$_cpu and '$_why': $(tail -n 3 "$LOG" | tr '\n' ' ')"
	return 1
}

affinity()
{
	_last=$(($(nproc) - 1))
	[ "$_last" -ge 2 ] || {
		echo "needs 3 CPUs or more"
		return 4
	}
	skips_naming "$_last" "is not allowed" taskset -c "0-$((_last - 1))"
}

hole()
{
	echo 0 >/sys/devices/system/cpu/cpu1/online || {
		echo "cannot take CPU1 offline"
		return 1
	}
	skips_naming 1 "is not allowed"
	_r=$?
	echo 1 >/sys/devices/system/cpu/cpu1/online || {
		echo "cannot bring CPU1 back"
		return 1
	}
	return "$_r"
}

# The shared_cpu_list of CPU0's highest-level cache, as the selftest
# reads it; empty when the kernel lists no cache.
cpu0_llc()
{
	_top=0
	_list=""
	for _d in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ -r "$_d/level" ] || continue
		_l=$(cat "$_d/level")
		[ "$_l" -gt "$_top" ] || continue
		_top=$_l
		_list=$(cat "$_d/shared_cpu_list")
	done
	echo "$_list"
}

# With two LLCs the selftest must skip, naming the first CPU outside
# CPU0's. One LLC, the usual guest, leaves nothing to check.
two_llcs()
{
	_llc=$(cpu0_llc)
	_last=$(($(nproc) - 1))
	case $_llc in
	"") echo "the kernel lists no cache"; return 4 ;;
	"0-$_last") echo "one LLC (CPUs $_llc): boot with two sockets"; return 4 ;;
	0) _first=1 ;;
	*,*) echo "CPU0's LLC is CPUs $_llc, not 0-M"; return 1 ;;
	0-*) _first=$((${_llc#0-} + 1)) ;;
	*) echo "CPU0's LLC is CPUs $_llc, not 0-M"; return 1 ;;
	esac
	skips_naming "$_first" "is not in CPU0's last-level cache"
}

ktap_begin 3
ktap_check skips_under_affinity affinity
ktap_check skips_with_a_hole hole
ktap_check skips_across_llcs two_llcs
ktap_end
