#!/bin/bash
# The analyser against answers known in advance: trace.dat fixtures
# recorded in the guest from pinned scenarios (scripts/record-fixtures.sh),
# and rt-app logs whose statistics are worked out by hand.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 18

fix=$TOP/tests/fixtures
tool=$BUILD/tools/sched-idle-analyse
"$TOP/scripts/build-analyser.sh" >&2
val() { sed -n "s/^$2=//p" <<<"$1"; }
# Activations after which the task slept, so that a wakeup followed.
slept() { awk '!/^#/ && $11 > 0' "$1"/*-cfs-*.log | wc -l; }
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; exit !(d * d <= (b * p / 100) ^ 2) }'; }
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

out=$("$tool" trace -t "$fix/stack/tasks.txt" "$fix/stack/trace.dat")
t_ok $? "trace: the stack fixture parses"
p=$(val "$out" placements)
t_is "$(val "$out" stacked)" "$p" "stack: every placement of the task pinned beside a normal spinner is avoidable stacking"
within "$p" "$(slept "$fix/stack")" 5
t_ok $? "stack: placements ($p) match the rt-app task's sleeps ($(slept "$fix/stack")) within 5%"
at_least "$(val "$out" cpu2_sched_idle_pct)" 95
t_ok $? "stack: CPU2, home of the SCHED_IDLE spinner, is SCHED_IDLE-busy ($(val "$out" cpu2_sched_idle_pct)%)"
at_least "$(val "$out" cpu1_normal_pct)" 95
t_ok $? "stack: CPU1, home of the normal spinner, is normal-busy ($(val "$out" cpu1_normal_pct)%)"
t_is "$(val "$out" lat_normal_n)" "$((p + $(val "$out" placements_unknown_target)))" \
	"stack: one latency sample per wakeup, those onto a CPU not yet seen switching included"

out=$("$tool" trace -t "$fix/spread/tasks.txt" "$fix/spread/trace.dat")
p=$(val "$out" placements)
within "$p" "$(slept "$fix/spread")" 5
t_ok $? "spread: placements ($p) match the task's sleeps ($(slept "$fix/spread")) within 5%"
# A kthread passing through CPU3 is stacking too: allow 1%.
at_least "$(awk -v p="$p" 'BEGIN { print p / 100 }')" "$(val "$out" stacked)"
t_ok $? "spread: a task pinned to a free CPU is not stacked ($(val "$out" stacked) of $p)"

out=$("$tool" trace "$fix/stack/trace.dat")
t_is "$(val "$out" placements)" 0 "without the task map no wakeup is a workload's"

"$tool" trace -t "$fix/stack/tasks.txt" -T "$BUILD/timeline.test" -w 0.5,0.1 "$fix/stack/trace.dat" >/dev/null
bad=$(awk '$2 < 0.5 || $3 > 0.6 + 1e-9 || $3 < $2 || $4 !~ /^(normal|sched_idle|idle)$/' "$BUILD/timeline.test" | head -n1)
t_is "${bad:-none} $(grep -c . "$BUILD/timeline.test" | awk '{ print ($1 > 0) }')" "none 1" "timeline: segments inside the window, one class each"

err=$("$tool" trace "$fix/no-such.dat" 2>&1)
t_is "$? $(echo "$err" | wc -l)" "1 1" "a missing trace is one error line and exit 1"

out=$("$tool" rtapp "$fix/rtapp/known.log")
# wu_lat 50 150 250 1050 0: N 5, sum 1500, mean 300, sample stddev
# sqrt((250^2 + 150^2 + 50^2 + 750^2 + 300^2) / 4) = sqrt(185000) = 430.116.
t_is "$(val "$out" wu_lat_n) $(val "$out" wu_lat_min) $(val "$out" wu_lat_max) $(val "$out" wu_lat_sum)" \
	"5 0.000 1050.000 1500.000" "rtapp: N, min, max, sum"
t_is "$(val "$out" wu_lat_mean) $(val "$out" wu_lat_stddev) $(val "$out" wu_lat_median)" \
	"300.000 430.116 150.000" "rtapp: mean, stddev (n-1), median"
t_is "$(val "$out" wu_lat_hist_0_100) $(val "$out" wu_lat_hist_100_200) $(val "$out" wu_lat_hist_200_300) $(val "$out" wu_lat_hist_over_1000)" \
	"2 1 1 1" "rtapp: the seed's 100 us buckets and >1000"
lo=$(val "$out" wu_lat_median_lo) hi=$(val "$out" wu_lat_median_hi)
awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(l <= 150 && 150 <= h && l >= 0 && h <= 1050) }'
t_ok $? "rtapp: the bootstrap interval [$lo, $hi] holds the median and stays in the data"
t_is "$("$tool" rtapp "$fix/rtapp/known.log" | sha1sum)" "$(echo "$out" | sha1sum)" "rtapp: the interval is reproducible (fixed seed)"

err=$("$tool" rtapp "$fix/rtapp/truncated.log" 2>&1)
t_like "$? $err" "^1 .*truncated.log:3: not an rt-app 1.0 log line$" "rtapp: a truncated log names its file and line"

[ -f "$KDIR/scripts/checkpatch.pl" ] || "$TOP/scripts/prepare-tree.sh" >&2
# Kernel coding style, as for the patches (run outside the checkout: checkpatch looks for .git).
out=$(cd /tmp && perl "$KDIR/scripts/checkpatch.pl" --no-tree --strict -q -f "$TOP/scripts/sched-idle-analyse.c" 2>&1)
t_ok $? "the analyser is checkpatch --strict clean"
[ -z "$out" ] || t_diag "$out"
