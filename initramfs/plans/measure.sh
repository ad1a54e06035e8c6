# shellcheck shell=sh
# Measurement plan (make qemu-test): the seed's rt-app workloads, scaled
# to this guest's CPU count, under each scan policy in turn, each workload
# in WINDOWS windows. A window starts its own rt-app and hogs, so windows
# are replicates within the boot; their order alternates (t1 t2 t2 t1 for
# two windows of t1,t2: ABBA), so a drift through the boot hits every
# workload alike. Each window leaves a trace.dat (trace-cmd), the rt-app
# logs and the tid-to-policy map the host's analyser needs under
# $RESULTS_DIR/POLICY/WORKLOAD.N/.
# hp, ht, hf and hi are hackbench (rt-tests) runs for the no-regression
# check, all over pipes: between processes, between threads, hp's forks
# beside SCHED_IDLE hogs on every CPU, and hp with every task SCHED_IDLE.
# They leave hackbench.txt, one time_s line per run, and no trace.
# Nothing here judges latency: a subtest fails only when a workload did
# not run as specified (rt-app or hackbench failed, a SCHED_IDLE thread had
# another policy, no trace).
# shellcheck source=initramfs/lib/ktap.sh
. /lib/ktap.sh
# shellcheck source=initramfs/lib/workload.sh
. /lib/workload.sh

FEATURES=/sys/kernel/debug/sched/features
# Only kernels with the LOCAL scan-statistics patch have it.
SIS_STATS=/sys/kernel/debug/sched/sis_stats
DURATION=$(cmdline_arg duration)
need_arg duration "$DURATION"
POLICIES=$(cmdline_arg policies | tr ',' ' ')
need_arg policies "$POLICIES"
WORKLOADS=$(cmdline_arg workloads | tr ',' ' ')
need_arg workloads "$WORKLOADS"
WINDOWS=$(cmdline_arg windows)
need_arg windows "$WINDOWS"
NCPU=$(nproc)
ALL_CPUS="[$(seq -s , 0 $((NCPU - 1)))]"
# The seed ran 8 CFS and 5 SCHED_IDLE tasks on 8 CPUs: keep the ratios.
NCFS=$NCPU
NIDLE=$(((5 * NCPU + 4) / 8))
# About a second per hackbench run under TCG at -smp 4; three runs each.
HB_GROUPS=4
HB_LOOPS=$(cmdline_arg hackbench_loops)
need_arg hackbench_loops "$HB_LOOPS"
HB_RUNS=$(cmdline_arg hackbench_runs)
need_arg hackbench_runs "$HB_RUNS"

# The shape of workload $1: "cfs_tasks cfs_cpus run period hogs hog_cpus".
# t1/t2 are 001's Tests 1 and 2, p1-p3 are 005's Tests 1-3: the pinned
# task on CPU1, its SCHED_IDLE neighbour on CPU2, or on CPU0 in a guest of
# two CPUs (the measurement's size on a 2-CPU host).
NEIGHBOUR=$((NCPU > 2 ? 2 : 0))
shape()
{
	case $1 in
	t1) echo "$NCFS $ALL_CPUS 5333 7777 0 -" ;;
	t2 | n2) echo "$NCFS $ALL_CPUS 5333 7777 $NIDLE $ALL_CPUS" ;;
	p1 | p2 | p3 | n3)
		[ "$NCPU" -ge 2 ] || { echo "$1 needs 2 CPUs or more; this guest has $NCPU"; return 1; }
		case $1 in
		p1) echo "1 [1] 2333 7777 0 -" ;;
		p2) echo "1 [1] 2333 7777 1 [$NEIGHBOUR]" ;;
		p3 | n3) echo "1 [1] 2333 7777 $NCPU $ALL_CPUS" ;;
		esac ;;
	*) return 1 ;;
	esac
}

# The defaults are whatever the kernel booted with. The 5.4-era policy
# (6.1) is SIS_PROP's proportional scan without SIS_UTIL's utilization
# cut-off; 6.12 has no SIS_PROP, and no-sis-util scans the whole LLC.
set_policy()
{
	case $1 in
	defaults) ;;
	v5.4-scan)
		echo NO_SIS_UTIL >"$FEATURES" && echo SIS_PROP >"$FEATURES" ;;
	no-sis-util)
		echo NO_SIS_UTIL >"$FEATURES" ;;
	*) echo "unknown scan policy $1"; return 1 ;;
	esac
}

# Back to the boot-time features; SIS_PROP exists only before v6.7.
restore_policy()
{
	echo SIS_UTIL >"$FEATURES"
	! grep -qw SIS_PROP "$FEATURES" || echo NO_SIS_PROP >"$FEATURES"
}

sis_snapshot()
{
	[ -r "$SIS_STATS" ] || return 0
	cat "$SIS_STATS" >"$1"
}

# The select_idle_cpu() counters' change between snapshots $1 and $2, and
# the scan budget at the end, as "name value" lines in $3.
sis_delta()
{
	[ -s "$1" ] || return 0
	awk 'NR == FNR { before[$1] = $2; next }
		$1 ~ /^llc/ { print $1 "_" $2, $3; next }
		($1 in before) { print $1, $2 - before[$1] }' "$1" "$2" >"$3"
}

start_hogs()
{
	render /workloads/hog.json /tmp/hog.json "$1" "$2" 0 0 \
		$((DURATION + 60)) hog
	chrt --idle 0 rt-app /tmp/hog.json >/tmp/hog.out 2>&1 &
	HOG_PID=$!
	wait_threads "$HOG_PID" $(($1 + 1)) ||
		{ rtapp_error /tmp/hog.out "started no threads"; return 1; }
	check_policy "$HOG_PID" "$SCHED_IDLE"
}

stop_hogs()
{
	[ -n "$HOG_PID" ] || return 0
	kill "$HOG_PID" 2>/dev/null
	wait "$HOG_PID" 2>/dev/null
	HOG_PID=
	! [ -d "$NEST" ] || rmdir "$NEST/idle" "$NEST"
}

# n2 and n3 are t2 and p3 with the hogs, SCHED_IDLE still, in a cpu.idle=1
# cgroup below a normal one, as in Abel Wu's kubepods case. The measured
# tasks stay in the root cgroup, so on a hog's CPU they meet the normal
# parent, which they do not preempt at once.
NEST=/sys/fs/cgroup/nest
nest_hogs()
{
	grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control ||
		echo +cpu >/sys/fs/cgroup/cgroup.subtree_control ||
		{ echo "no cpu controller in the root cgroup"; return 1; }
	{ mkdir "$NEST" && echo +cpu >"$NEST/cgroup.subtree_control" &&
		mkdir "$NEST/idle" && echo 1 >"$NEST/idle/cpu.idle"; } ||
		{ echo "cannot make $NEST/idle with cpu.idle=1"; return 1; }
	echo "$1" >"$NEST/idle/cgroup.procs" ||
		{ echo "cannot move the hogs to $NEST/idle"; return 1; }
	for _t in /proc/"$1"/task/*; do
		grep -qx '0::/nest/idle' "$_t/cgroup" ||
			{ echo "hog thread ${_t##*/} is not in /nest/idle"; return 1; }
	done
}

# The map in $1 must hold $2 SCHED_OTHER "cfs" threads and $3 SCHED_IDLE
# "idle_hog" threads, and no thread of either with another policy.
check_classes()
{
	awk -v cfs="$2" -v idle="$3" -v other=$SCHED_OTHER -v sidle=$SCHED_IDLE '
		$3 ~ /^cfs/ { if ($2 != other) bad = bad " " $1; else c++ }
		$3 ~ /^idle_hog/ { if ($2 != sidle) bad = bad " " $1; else i++ }
		END {
			if (bad != "") { print "threads with the wrong policy:" bad; exit 1 }
			if (c != cfs || i != idle) {
				printf "saw %d cfs and %d idle threads, want %d and %d\n", c, i, cfs, idle
				exit 1
			}
		}' "$1"
}

hackbench_args()
{
	case $1 in
	hp | hf | hi) echo "-P -p -g $HB_GROUPS -l $HB_LOOPS" ;;
	# Pipes for threads too: tinyconfig has no AF_UNIX sockets.
	ht) echo "-T -p -g $HB_GROUPS -l $HB_LOOPS" ;;
	*) return 1 ;;
	esac
}

# hackbench with the arguments after $1, for workload $1. hi runs every
# hackbench task SCHED_IDLE: they inherit the policy of the shell that
# execs hackbench, which checks its own first (field 41 of
# /proc/PID/stat; 5 is SCHED_IDLE).
run_hackbench()
{
	if [ "$1" != hi ]; then
		shift
		hackbench "$@"
		return
	fi
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	chrt --idle 0 sh -c '[ "$(cut -d" " -f41 /proc/$$/stat)" = 5 ] ||
		{ echo "hackbench is not SCHED_IDLE"; exit 1; }
		exec hackbench "$@"' sh "$@"
}

# Run hackbench workload $2 under scan policy $1 into $3, window $4.
measure_hackbench()
{
	_args=$(hackbench_args "$2")
	_dir=$3
	HOG_PID=
	rm -rf /tmp/rt-app-hog
	mkdir -p /tmp/rt-app-hog "$_dir"
	: >"$_dir/tasks.txt"
	: >"$_dir/hackbench.txt"
	if [ "$2" = hf ]; then
		start_hogs "$NCPU" "$ALL_CPUS" || return 1
		list_threads "$HOG_PID" >"$_dir/tasks.txt"
		check_classes "$_dir/tasks.txt" 0 "$NCPU" || return 1
	fi
	sis_snapshot /tmp/sis-before
	mark begin "$1:$2.$4"
	for _i in $(seq "$HB_RUNS"); do
		# shellcheck disable=SC2086 # one word per option
		if ! run_hackbench "$2" $_args >/tmp/hackbench.out 2>&1; then
			echo "hackbench $_args failed: $(tail -n 1 /tmp/hackbench.out)"
			return 1
		fi
		_t=$(sed -n 's/^Time: *//p' /tmp/hackbench.out)
		[ -n "$_t" ] || { echo "hackbench printed no time: $(tail -n 1 /tmp/hackbench.out)"; return 1; }
		echo "time_s=$_t" >>"$_dir/hackbench.txt"
	done
	mark end "$1:$2.$4"
	sis_snapshot /tmp/sis-after
	sis_delta /tmp/sis-before /tmp/sis-after "$_dir/sis.txt"
	stop_hogs
	{
		echo "workload=$2"
		echo "window=$4"
		echo "scan_policy=$1"
		echo "hackbench=$_args"
		echo "runs=$HB_RUNS"
		case $2 in
		hf) echo "idle_tasks=$NCPU" ;;
		hi) echo "idle_tasks=all" ;;
		*) echo "idle_tasks=0" ;;
		esac
		echo "cpus=$NCPU"
		echo "features=$(cat "$FEATURES")"
	} >"$_dir/workload.txt"
	echo "$2 under $1: $(tr '\n' ' ' <"$_dir/hackbench.txt")"
}

# "# window begin|end POLICY:WORKLOAD.N" on the console, at once: at these
# lines the host reads its vCPU threads' schedstat (scripts/vcpu-steal.py),
# its interference in the window where the workload runs.
mark()
{
	echo "# window $1 $2" >&3
}

# Run workload $2 under scan policy $1 into $3, window $4.
measure()
{
	_shape=$(shape "$2") || { echo "$_shape"; return 1; }
	_win=$4
	# shellcheck disable=SC2086 # one word per field
	set -- "$1" "$2" "$3" $_shape
	_dir=$3
	HOG_PID=
	rm -rf /tmp/rt-app /tmp/rt-app-hog
	mkdir -p /tmp/rt-app /tmp/rt-app-hog "$_dir"
	if [ "$8" -gt 0 ]; then
		start_hogs "$8" "$9" || return 1
		# Moved first: the map records whether each hog is preempted at
		# once, which its cgroup decides.
		case $2 in n?) nest_hogs "$HOG_PID" || return 1 ;; esac
		list_threads "$HOG_PID" >"$_dir/tasks.txt"
	fi
	render /workloads/periodic.json /tmp/cfs.json "$4" "$5" "$6" "$7" \
		"$DURATION" "$2"
	trace_start || return 1
	sis_snapshot /tmp/sis-before
	rt-app /tmp/cfs.json >/tmp/cfs.out 2>&1 &
	_pid=$!
	if wait_threads "$_pid" $(($4 + 1)); then
		list_threads "$_pid" >>"$_dir/tasks.txt"
	fi
	# From here the workload runs: rt-app's start-up stays outside.
	mark begin "$1:$2.$_win"
	wait "$_pid"
	_rc=$?
	mark end "$1:$2.$_win"
	sis_snapshot /tmp/sis-after
	sis_delta /tmp/sis-before /tmp/sis-after "$_dir/sis.txt"
	trace_extract "$_dir/trace.dat" || return 1
	stop_hogs
	cp /tmp/rt-app/*.log "$_dir/" 2>/dev/null
	{
		echo "workload=$2"
		echo "window=$_win"
		echo "scan_policy=$1"
		printf 'cfs_tasks=%s\ncfs_cpus=%s\nrun_us=%s\nperiod_us=%s\n' "$4" "$5" "$6" "$7"
		printf 'idle_tasks=%s\nidle_cpus=%s\n' "$8" "$9"
		case $2 in n?) echo "idle_cgroup=/nest/idle (cpu.idle=1) below /nest (normal)" ;; esac
		printf 'duration_s=%s\ncpus=%s\n' "$DURATION" "$NCPU"
		echo "features=$(cat "$FEATURES")"
	} >"$_dir/workload.txt"
	[ "$_rc" = 0 ] || { rtapp_error /tmp/cfs.out "exited $_rc"; return 1; }
	check_classes "$_dir/tasks.txt" "$4" "$8" || return 1
	ls "$_dir"/*-cfs-*.log >/dev/null 2>&1 || { echo "rt-app wrote no log"; return 1; }
	[ -s "$_dir/trace.dat" ] || { echo "empty trace.dat"; return 1; }
	echo "$2 under $1: $(cat "$_dir"/*-cfs-*.log | grep -vc '^#') activations"
}

# Window $3 of workload $2 under scan policy $1.
measure_one()
{
	set_policy "$1" || return 1
	_out=0
	if hackbench_args "$2" >/dev/null; then
		measure_hackbench "$1" "$2" "$RESULTS_DIR/$1/$2.$3" "$3" || _out=1
	else
		measure "$1" "$2" "$RESULTS_DIR/$1/$2.$3" "$3" || _out=1
	fi
	stop_hogs
	restore_policy
	return $_out
}

[ -n "$RESULTS_DIR" ] || { echo "sched-idle: infra: nowhere to write results"; exit 1; }
# The console, for the window marks: ktap_check captures the output of
# the checks it runs, and the host must see a mark when it is printed.
exec 3>&1
ktap_begin $(($(echo "$POLICIES" | wc -w) * $(echo "$WORKLOADS" | wc -w) * WINDOWS))
ktap_diag "cpus=$NCPU cfs=$NCFS idle=$NIDLE duration=${DURATION}s windows=$WINDOWS"
# The workloads forwards in odd windows and backwards in even ones.
REVERSED=$(echo "$WORKLOADS" | tr ' ' '\n' | sed -n '1!G;h;$p' | tr '\n' ' ')
for policy in $POLICIES; do
	for k in $(seq "$WINDOWS"); do
		order=$WORKLOADS
		[ $((k % 2)) = 1 ] || order=$REVERSED
		for w in $order; do
			ktap_check "$policy:$w.$k" measure_one "$policy" "$w" "$k"
		done
	done
done
ktap_end
