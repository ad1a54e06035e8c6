#!/bin/bash
# The analyser against answers known in advance: trace.dat fixtures
# recorded in the guest from pinned scenarios (scripts/record-fixtures.sh).
# The rt-app logs' statistics are scripts/metrics.py's (tests/62).
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 12

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

[ -f "$KDIR/scripts/checkpatch.pl" ] || "$TOP/scripts/prepare-tree.sh" >&2
# Kernel coding style, as for the patches (run outside the checkout: checkpatch looks for .git).
out=$(cd /tmp && perl "$KDIR/scripts/checkpatch.pl" --no-tree --strict -q -f "$TOP/scripts/sched-idle-analyse.c" 2>&1)
t_ok $? "the analyser is checkpatch --strict clean"
[ -z "$out" ] || t_diag "$out"
