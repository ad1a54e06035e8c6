#!/bin/bash
# A bounded make stress on the reproduced stages: the debug kernels
# (lockdep, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_PREEMPT) survive the mix
# without a splat, every loop of the mix did work, idle_h_nr_running
# drains to 0 and the guest still answers.
. "$(dirname "$0")/lib.sh"
# 20 s of the mix per stage: tests/51 shows that 20 s is enough for the
# drain check to catch a leaking kernel; make stress runs 300 s by default.
duration=${STRESS_DURATION:-20}
# The first and the last stage the series reproduces (after the LOCAL
# baseline, before the selftest): tracking adds the counter on its own,
# and balance's kernel holds all four patches. The two between add no
# state and take no lock: they change which CPU a wakeup picks, and
# balance's kernel runs their final form. Past the selftest, sis-util changes only
# what the load balancer's statistics feed the scan budget, and the
# budget only steers wakeups.
mapfile -t stages < <(series_patches | grep -vF -f <(local_patches) |
	awk '$2 == "selftest" { exit } { s[++n] = $2 }
		END { if (n) print s[1]; if (n > 1) print s[n] }')
t_plan $((5 * ${#stages[@]}))

out=$(DURATION=$duration STAGE="${stages[*]}" "$TOP/scripts/stress.sh" 2>&1)
rc=$?
run=$(echo "$out" | sed -n 's/^stress: results in //p')
[ "$rc" = 0 ] || t_diag "$(echo "$out" | grep -E '^error:|^  \| ' | head -n 20)"
for stage in "${stages[@]}"; do
	line=$(echo "$out" | grep "^stress $stage: ")
	t_like "$line" "; pass$" "stage $stage: no splat, every check of the stress plan passes"
	t_like "$line" "policy_flips=[1-9][0-9]* cgroup_toggles=[1-9][0-9]* hotplug_cycles=[1-9][0-9]* forks=[1-9]" \
		"stage $stage: every loop did work ($(echo "$line" | sed 's/^[^:]*: //; s/;.*//'))"
	dir=$run/$stage/stress
	t_is "$(t_subtest "$dir" lockdep)" pass "stage $stage: the kernel runs lockdep"
	t_is "$(t_subtest "$dir" lockdep_after)" pass "stage $stage: and lockdep is still on after the mix"
	t_is "$(t_subtest "$dir" idle_h_nr_running_drained)" pass \
		"stage $stage: idle_h_nr_running back to 0 on every CPU"
done
