#!/bin/bash
# Boot the measurement plan on each stage, interleaved and repeated, into
# an existing results run; then analyse it and write its report.
# usage: measure.sh RUNDIR
# env: MEASURE_STAGES (default "baseline consistent balance"), REPEAT (2),
#      MEASURE_DURATION (s per workload, 4), WORKLOADS (t1,t2,p1,p2,p3),
#      POLICIES (defaults,v5.4-scan), HACKBENCH_RUNS (3 per workload and
#      boot), HACKBENCH_LOOPS (50), FLAVOUR (smp), SMP, TIMEOUT
# The kernels must be built; scripts/qemu-test.sh builds them first.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: measure.sh RUNDIR"
rundir=$1
stages=${MEASURE_STAGES:-baseline consistent balance}
repeat=${REPEAT:-2}
duration=${MEASURE_DURATION:-4}
workloads=${WORKLOADS:-t1,t2,p1,p2,p3}
policies=${POLICIES:-defaults,v5.4-scan}
flavour=${FLAVOUR:-smp}
hb_runs=${HACKBENCH_RUNS:-3}
hb_loops=${HACKBENCH_LOOPS:-50}
case $repeat in ''|*[!0-9]*|0) die "REPEAT=$repeat: want a count of 1 or more" ;; esac
case $duration in ''|*[!0-9]*|0) die "MEASURE_DURATION=$duration: want seconds" ;; esac
for n in "$hb_runs" "$hb_loops"; do
	case $n in ''|*[!0-9]*|0) die "HACKBENCH_RUNS=$hb_runs HACKBENCH_LOOPS=$hb_loops: want counts of 1 or more" ;; esac
done
for stage in $stages; do
	kernel_is_current "$stage" "$flavour" ||
		die "stage $stage has no current $flavour kernel; run make qemu-test"
done
nw=$(echo "$workloads" | tr ',' ' ' | wc -w)
np=$(echo "$policies" | tr ',' ' ' | wc -w)
# Each workload takes its duration plus about 4 s of set-up and capture,
# or for hackbench about 2 s a run; allow that twice over on top of the boot.
per=$((duration + 6 > 3 * hb_runs ? duration + 6 : 3 * hb_runs))
timeout=${TIMEOUT:-$((120 + nw * np * per * 2))}
nboots=$(($(echo "$stages" | wc -w) * repeat))
echo "$stages" >"$rundir/measure-stages"

# Interleaved: a slow spell of the host then hits every stage alike.
n=0
worst=0
for r in $(seq 1 "$repeat"); do
	for stage in $stages; do
		n=$((n + 1))
		info "  measure [$n/$nboots] stage $stage, repeat $r ($nw workloads x $np scan policies)"
		rc=0
		STAGE=$stage TIMEOUT=$timeout \
			APPEND="$TRACE_CMDLINE sched_idle.duration=$duration sched_idle.workloads=$workloads sched_idle.policies=$policies sched_idle.hackbench_runs=$hb_runs sched_idle.hackbench_loops=$hb_loops ${APPEND:-}" \
			"$TOP/scripts/run-qemu.sh" "$(kernel_dir "$stage" "$flavour")/bzImage" \
			measure "$rundir/$stage/measure-r$r" || rc=$?
		[ "$worst" != 0 ] || worst=$rc
	done
done
[ "$worst" = 0 ] || die "measurement boots failed; no report written"
"$TOP/scripts/analyse.sh" "$rundir"
"$TOP/scripts/report.sh" "$rundir"
