# shellcheck shell=sh
# The SCHED_IDLE selftest skips, naming the CPU, where CPUs 0..N-1 (N
# online) are not all allowed to it: under an affinity that leaves out the
# last CPU, as a cpuset or isolcpus would, and with a hole in the CPU
# numbers (CPU1 offline). It also skips where they do not all share CPU0's
# last-level cache (a guest with two sockets; tests/33 boots one), but for
# four CPUs in two LLCs of two, where it runs its fork group subtest and
# only that. Were it to run elsewhere, it would pin hogs to CPUs it may
# not use or that a wakeup scan does not reach, and fail for the
# machine's sake.
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

# Run "$@" with CPU $1 offline, and bring it back; the status of "$@".
# Its own names: POSIX sh has no locals, and skips_naming sets _cpu.
offline_while()
{
	_off_cpu=$1
	shift
	echo 0 >"/sys/devices/system/cpu/cpu$_off_cpu/online" || {
		echo "cannot take CPU$_off_cpu offline"
		return 1
	}
	"$@"
	_r=$?
	echo 1 >"/sys/devices/system/cpu/cpu$_off_cpu/online" || {
		echo "cannot bring CPU$_off_cpu back"
		return 1
	}
	return "$_r"
}

hole()
{
	offline_while 1 skips_naming 1 "is not allowed"
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

# Whether this guest is four CPUs in two LLCs of two, CPUs 0-1 and 2-3.
four_in_two_llcs()
{
	[ "$(nproc)" = 4 ] && [ "$(cpu0_llc)" = 0-1 ] && return 0
	echo "$(nproc) CPUs, CPU0's LLC CPUs $(cpu0_llc): boot with SMP=4,sockets=2,cores=2,threads=1"
	return 4
}

# With CPU3 offline the LLCs are CPUs 0-1 and 2: the selftest must skip,
# naming CPU2, the first CPU outside CPU0's.
across_llcs()
{
	four_in_two_llcs || return
	offline_while 3 skips_naming 2 "is not in CPU0's last-level cache"
}

# With all four, it runs the fork group subtest and nothing else.
fork_groups_only()
{
	four_in_two_llcs || return
	sched_idle_test >"$LOG" 2>&1
	_got="$(grep -m1 '^1\.\.' "$LOG") $(sed -n 's/^\(not \)\{0,1\}ok [0-9]* \([a-z_]*\).*/\2/p' "$LOG" | tr '\n' ' ')"
	[ "$_got" = "1..1 fork_group_idle " ] && return 0
	echo "plan and subtests '$_got', want '1..1 fork_group_idle'"
	return 1
}

ktap_begin 4
ktap_check skips_under_affinity affinity
ktap_check skips_with_a_hole hole
ktap_check skips_across_llcs across_llcs
ktap_check fork_groups_only fork_groups_only
ktap_end
