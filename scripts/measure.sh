#!/bin/bash
# Boot the measurement plan on each stage, REPEAT blocks of boots that
# each hold every stage once in a shuffled order, into an existing results
# run; then analyse it and write its report.
# usage: measure.sh RUNDIR
# env: MEASURE_STAGES, REPEAT, WINDOWS, ORDER_SEED, MEASURE_DURATION,
#      WORKLOADS, POLICIES, HACKBENCH_RUNS, HACKBENCH_LOOPS,
#      MEASURE_TIMEOUT, SMP (defaults and meanings in scripts/variables);
#      internal: FLAVOUR (smp)
# RUNDIR/measure-order records the seed and each block's order.
# The guest gets one vCPU per host CPU unless SMP= says otherwise
# (measure_smp in lib.sh).
# The kernels must be built; scripts/qemu-test.sh builds them first.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

check_settings
[ $# = 1 ] || die "usage: measure.sh RUNDIR"
rundir=$1
stages=$(setting MEASURE_STAGES)
repeat=$(setting REPEAT)
windows=$(setting WINDOWS)
seed=$(setting ORDER_SEED)
[ -n "$seed" ] || seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
duration=$(setting MEASURE_DURATION)
workloads=$(setting WORKLOADS)
policies=$(setting POLICIES)
[ -n "$policies" ] || policies=$(tree_policies | tr ' ' ',')
flavour=${FLAVOUR:-smp}
hb_runs=$(setting HACKBENCH_RUNS)
hb_loops=$(setting HACKBENCH_LOOPS)
dry=$(setting DRY_RUN)
for stage in $stages; do
	[ "$dry" = 1 ] || kernel_is_current "$stage" "$flavour" ||
		die "stage $stage has no current $flavour kernel; run make qemu-test"
done
nw=$(echo "$workloads" | tr ',' ' ' | wc -w)
np=$(echo "$policies" | tr ',' ' ' | wc -w)
# Each workload takes its duration plus about 4 s of set-up and capture,
# or for hackbench about 2 s a run; allow that twice over on top of the boot.
per=$((duration + 6 > 3 * hb_runs ? duration + 6 : 3 * hb_runs))
# Its own limit: TIMEOUT is for the short plans' boots.
timeout=$(setting MEASURE_TIMEOUT)
[ -n "$timeout" ] || timeout=$((120 + nw * np * windows * per * 2))
nboots=$(($(echo "$stages" | wc -w) * repeat))
smp=$(measure_smp "$(nproc)")
[ "$(oversubscribed "$smp" "$(nproc)")" = 0 ] ||
	info "warning: SMP=$smp: more vCPUs than the $(nproc) host CPUs this run may use; latency is not comparable, decisions still count"
[ "$dry" = 1 ] || echo "$stages" >"$rundir/measure-stages"

# Blocks of every stage once, each block in its own order: a slow spell of
# the host, or a drift through the run, then falls on no stage more than
# on another, and no stage always follows the same one. The order comes
# from a seed the run records, so that it can be repeated.
# shellcheck disable=SC2086 # one word per stage
order=$(python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    block = sys.argv[3:]
    rng.shuffle(block)
    print(" ".join(block))' "$seed" "$repeat" $stages)
[ "$dry" = 1 ] || { echo "seed $seed"; echo "$order" | awk '{ print "block " NR ": " $0 }'; } >"$rundir/measure-order"
n=0
worst=0
for r in $(seq 1 "$repeat"); do
	for stage in $(echo "$order" | sed -n "${r}p"); do
		n=$((n + 1))
		if [ "$dry" = 1 ]; then
			echo "# measurement boot $n/$nboots: stage $stage, repeat $r (order seed $seed)"
		else
			info "  measure [$n/$nboots] stage $stage, repeat $r ($nw workloads x $np scan policies x $windows windows)"
		fi
		rc=0
		SMP=$smp APPEND="$TRACE_CMDLINE sched_idle.duration=$duration sched_idle.workloads=$workloads sched_idle.windows=$windows sched_idle.policies=$policies sched_idle.hackbench_runs=$hb_runs sched_idle.hackbench_loops=$hb_loops${APPEND:+ $APPEND}" \
			"$TOP/scripts/run-qemu.sh" --timeout "$timeout" --steal "$stage" \
			"$(kernel_dir "$stage" "$flavour")/bzImage" measure \
			"$rundir/$stage/measure-r$r" || rc=$?
		[ "$dry" = 1 ] || record_boot "$rundir" "$stage" measure "$rundir/$stage/measure-r$r" "$rc"
		[ "$worst" != 0 ] || worst=$rc
	done
done
[ "$dry" = 0 ] || exit 0
[ "$worst" = 0 ] || die "measurement boots failed; no report written"
"$TOP/scripts/analyse.sh" "$rundir"
python3 "$TOP/scripts/report.py" "$rundir"
