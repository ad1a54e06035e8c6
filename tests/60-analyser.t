#!/bin/bash
# The analyser against answers known in advance: trace.dat fixtures
# recorded in the guest from pinned scenarios (scripts/record-fixtures.sh).
# The rt-app logs' statistics are scripts/metrics.py's (tests/62).
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 23

fix=$TOP/tests/fixtures
tool=$BUILD/tools/sched-idle-analyse
"$TOP/scripts/build-analyser.sh" >&2
# KEY's value in the analyser's output OUT, or "no KEY=" when OUT has no
# such line: an empty value would equal another missing key's, and awk
# would take it for 0 or compare it as a string ("9.35" >= "" is true).
val()
{
	if grep -q "^$2=" <<<"$1"; then
		sed -n "s/^$2=//p" <<<"$1"
	else
		echo "no $2="
	fi
}
# Whether every argument is one number, so that the comparisons below
# fail on a missing key, or a key printed twice, instead of reading 0.
nums()
{
	local x

	for x in "$@"; do
		[[ $x =~ ^-?[0-9]+(\.[0-9]+)?$ ]] || return 1
	done
}
# Activations after which the task slept, so that a wakeup followed.
slept() { awk '!/^#/ && $11 > 0' "$1"/*-cfs-*.log | wc -l; }
within() { nums "$1" "$2" "$3" && awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; exit !(d * d <= (b * p / 100) ^ 2) }'; }
at_least() { nums "$1" "$2" && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

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
u=$(val "$out" placements_unknown_target)
# Added only when both are numbers: $((p + u)) of a missing key is an
# arithmetic error, which would end the file short of its plan.
t_is "$(val "$out" lat_normal_n)" "$(if nums "$p" "$u"; then echo $((p + u)); else echo "$p + $u"; fi)" \
	"stack: one latency sample per wakeup, those onto a CPU not yet seen switching included"

out=$("$tool" trace -t "$fix/spread/tasks.txt" "$fix/spread/trace.dat")
p=$(val "$out" placements)
within "$p" "$(slept "$fix/spread")" 5
t_ok $? "spread: placements ($p) match the task's sleeps ($(slept "$fix/spread")) within 5%"
# A kthread passing through CPU3 is stacking too: allow 5% (rcu_sched,
# which is not pinned, ran there 53 times during the recorded 187 wakeups).
nums "$p" && at_least "$(awk -v p="$p" 'BEGIN { print p / 20 }')" "$(val "$out" stacked)"
t_ok $? "spread: a task pinned to a free CPU is not stacked ($(val "$out" stacked) of $p, at most 5%)"

out=$("$tool" trace "$fix/stack/trace.dat")
t_is "$(val "$out" placements)" 0 "without the task map no wakeup is a workload's"

# The map's at_once column on the same trace: whether a woken normal task
# preempts a SCHED_IDLE thread at once (0 for one below a normal cgroup on
# 6.12). The stack fixture's threads, in its map's order: the normal
# spinner on the cfs task's CPU, the SCHED_IDLE spinner on CPU2, the cfs
# task.
read -r normal idle cfs < <(awk '{ print $1 }' "$fix/stack/tasks.txt" | paste -sd' ')
map=$(mktemp)
out=$("$tool" trace -t "$fix/stack/tasks.txt" "$fix/stack/trace.dat")
t_is "$(val "$out" misplaced)" 0 "stack: a map without at_once misplaces nothing (the cfs task's CPU runs normal work)"
printf '%s 0 spinner 0\n%s 5 spinner 0\n%s 0 cfs 0\n' "$normal" "$idle" "$cfs" >"$map"
out=$("$tool" trace -t "$map" "$fix/stack/trace.dat")
t_is "$(val "$out" stacked) $(val "$out" misplaced)" "0 0" \
	"stack: with CPU2's SCHED_IDLE spinner not preempted at once, no CPU is free and no wakeup is stacked"
# Relabel the normal spinner as a SCHED_IDLE thread that is not preempted
# at once: every wakeup then lands on a CPU a policy count calls
# sched-idle, while CPU2 is free.
printf '%s 5 spinner 0\n%s 5 spinner 1\n%s 0 cfs 0\n' "$normal" "$idle" "$cfs" >"$map"
out=$("$tool" trace -t "$map" "$fix/stack/trace.dat")
p=$(val "$out" placements)
mp=$(val "$out" misplaced)
# A kthread passing through the cfs task's CPU makes one of them not
# misplaced: allow 1%, as for spread.
[ "$(val "$out" stacked)" = "$p" ] && at_least "$mp" "$(awk -v p="$p" 'BEGIN { print p * 0.99 }')"
t_ok $? "stack, relabelled: every placement ($p) is stacked, and $mp of them misplaced (at least 99%)"
printf '%s 5 spinner 2\n' "$normal" >"$map"
err=$("$tool" trace -t "$map" "$fix/stack/trace.dat" 2>&1)
t_is "$? $(echo "$err" | wc -l)" "1 1" "an at_once other than 0 or 1 is one error line and exit 1"
printf '%s 5\n' "$normal" >"$map"
err=$("$tool" trace -t "$map" "$fix/stack/trace.dat" 2>&1)
t_is "$? $(echo "$err" | wc -l)" "1 1" "a map line without comm is one error line and exit 1"
rm -f "$map"

# How each wait ended, on scenarios whose answer is known: CPU3 free
# (spread), the wakee beside a SCHED_IDLE spinner, which it preempts at
# once (preempt), beside a normal spinner with WAKEUP_PREEMPTION off, so
# that only a tick lets it in (wait). A kthread passing through may take
# a wakeup (see spread's stacking above): allow 10%.
share() { nums "$1" "$2" && awk -v a="$1" -v p="$2" -v pct="$3" 'BEGIN { exit !(p > 0 && 100 * a >= pct * p) }'; }
waits() { awk -F= '/^wait_[a-z_]*_n=/ { s += $2 } END { print s + 0 }' <<<"$1"; }
for s in spread:idle preempt:at_once wait:tick; do
	out=$("$tool" trace -t "$fix/${s%:*}/tasks.txt" "$fix/${s%:*}/trace.dat")
	p=$(val "$out" placements)
	n=$(val "$out" "wait_${s#*:}_n")
	[ "$(val "$out" wait_split_tick)" = 1 ] && [ "$(waits "$out")" = "$p" ] && share "$n" "$p" 90
	t_ok $? "${s%:*}: every wait classified once, and $n of $p placements end ${s#*:} (at least 90%)"
done
# In preempt the wakeup's own need_resched flag, not the absence of a
# tick, must be what puts the waits in at_once; in wait, with no wakeup
# preemption, at most 2% may be at_once.
out=$("$tool" trace -t "$fix/preempt/tasks.txt" "$fix/preempt/trace.dat")
share "$(val "$out" resched_at_once_n)" "$(val "$out" placements)" 90
t_ok $? "preempt: $(val "$out" resched_at_once_n) of $(val "$out" placements) waits credited to the wakeup's need_resched (at least 90%)"
out=$("$tool" trace -t "$fix/wait/tasks.txt" "$fix/wait/trace.dat")
a=$(val "$out" wait_at_once_n)
p=$(val "$out" placements)
nums "$a" "$p" && awk -v a="$a" -v p="$p" 'BEGIN { exit !(p > 0 && 100 * a <= 2 * p) }'
t_ok $? "wait: $a of $p waits at_once without wakeup preemption (at most 2%)"
# The unsplit classes, on a trace recorded before the tick was traced.
out=$("$tool" trace -t "$fix/stack-sched-only/tasks.txt" "$fix/stack-sched-only/trace.dat")
t_is "$(val "$out" wait_split_tick):$(val "$out" wait_at_once_n):$(val "$out" wait_tick_n):$(waits "$out")" \
	"0:no wait_at_once_n=:no wait_tick_n=:$(val "$out" placements)" "a trace without the tick's hrtimer: no at_once or tick, every wait in the other classes"

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
