#!/bin/bash
# The series applies stage by stage, each stage holds what its patch says,
# and after the reproduction part kernel/ and include/ equal the packaged
# tree byte for byte, with the series' BASE fixes (6.12's e08d007f9d81).
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 14
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
t_ok $? "tree prepared, no patch applied"

# has STAGE PATTERN: does the stage's fair.c/sched.h/debug.c match?
at()
{
	"$TOP/scripts/apply-stage.sh" "$1" >/dev/null 2>&1
}
count()
{
	grep -c -E "$1" "$KDIR/kernel/sched/fair.c" "$KDIR/kernel/sched/sched.h" \
		"$KDIR/kernel/sched/debug.c" | awk -F: '{ n += $2 } END { print n }'
}

defs='static int se_is_idle|static bool sched_idle_cfs_rq'
at pristine
pristine_defs=$(count "$defs")
at baseline
t_is "$(count 'idle_h_nr_running|sched_idle_rq|sched_idle_cpu')" 0 \
	"baseline: no idle_h_nr_running, sched_idle_rq() or sched_idle_cpu()"
t_is "$(count 'idle_nr_running' | awk '$1 > 0 { print "kept" }')" kept \
	"baseline: cgroup cpu.idle accounting (idle_nr_running) kept"
t_is "$(count "$defs")" "$pristine_defs" \
	"baseline: se_is_idle() and sched_idle_cfs_rq() kept"
at tracking
t_is "$(count 'sched_idle_cpu|sched_idle_rq')" 0 "tracking: counter only, no selection change"
t_is "$(count 'idle_h_nr_running' | awk '$1 >= 20 { print "counted" }')" counted \
	"tracking: idle_h_nr_running maintained"
at fallback
t_is "$(count 'si_cpu = cpu|si_cpu = i' | awk '$1 >= 4 { print "fallback" }')" fallback \
	"fallback: separate sched-idle fallback in the scans"
at consistent
t_is "$(count 'si_cpu')" 0 "consistent: no separate fallback left"
t_is "$(count 'sched_idle_rq')" 0 "consistent: load balancer untouched"
at balance

# The packaged tree, straight from the tarball, with the series' BASE
# fixes (patches every stage carries, none on 6.1) applied by patch(1).
tar -C "$tmp" -xf "$TARBALL" --strip-components=1 --wildcards \
	'*/kernel/*' '*/include/*'
for p in $(base_patches); do
	patch -s -d "$tmp" -p1 --fuzz=0 <"$PATCHES/$p"
done
out=$(diff -r "$tmp/kernel" "$KDIR/kernel" && diff -r "$tmp/include" "$KDIR/include")
t_ok $? "after the reproduction part, kernel/ and include/ equal the packaged tree with the BASE fixes"
[ -z "$out" ] || t_diag "$(echo "$out" | head -n 20)"
# packaged is the tarball itself, pristine the tarball with the BASE fixes.
at packaged
out=$(tar -xOf "$TARBALL" --wildcards '*/kernel/sched/debug.c' | diff - "$KDIR/kernel/sched/debug.c")
t_ok $? "packaged: kernel/sched/debug.c is the tarball's"
at pristine
t_is "$( (cd "$KDIR" && quilt applied 2>/dev/null) | sed 's|.*/||' | paste -sd ' ')" "$(base_patches | paste -sd ' ')" \
	"pristine: exactly the BASE patches applied"

# Seeds 004 and 006.
t_like "$(grep -E '^#define SCHED_IDLE[[:space:]]' "$KDIR/include/uapi/linux/sched.h")" \
	'SCHED_IDLE[[:space:]]+5$' "uapi SCHED_IDLE is 5 (seed 004)"
t_is "$(grep -c 'linux/stop_machine.h' "$KDIR/kernel/rcu/tree.c" "$KDIR/kernel/rcu/tree.h" | awk -F: '{ n += $2 } END { print n }')" 0 \
	"kernel/rcu/tree.[ch] do not include stop_machine.h (seed 006)"
