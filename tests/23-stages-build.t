#!/bin/bash
# Bisectability: every stage builds with CONFIG_SMP=n, and no stage adds a
# W=1 or sparse finding to kernel/sched against pristine. A stage whose
# patch touches only tools/ (the selftest; lib.sh's stage_changes_kernel)
# compiles the same sources as the stage before it, so it is not built
# again (scripts/build-stage.sh gives it a copy of that stage's kernel).
. "$(dirname "$0")/lib.sh"
stages=$(for s in $(stage_names); do ! stage_changes_kernel "$s" || echo "$s"; done)
t_diag "kernel stages: $(echo "$stages" | paste -sd " "); tools-only stages: $(comm -13 <(echo "$stages" | sort) <(stage_names | sort) | paste -sd ' ')"
t_plan $((2 * $(echo "$stages" | wc -l) - 1))
"$TOP/scripts/prepare-tree.sh" >/dev/null 2>&1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for stage in $stages; do
	rc=0
	out=$( { "$TOP/scripts/apply-stage.sh" "$stage" &&
		 "$TOP/scripts/build-kernel.sh" "$stage" nosmp; } 2>&1) || rc=$?
	t_ok "$rc" "stage $stage builds with CONFIG_SMP=n"
	[ "$rc" = 0 ] || t_diag "$(echo "$out" | tail -n 3)"
done

for stage in $stages; do
	"$TOP/scripts/apply-stage.sh" "$stage" >/dev/null 2>&1
	if ! "$TOP/scripts/lint-stage.sh" "$stage" >"$tmp/$stage" 2>"$tmp/$stage.err"; then
		t_ok 1 "stage $stage: W=1/sparse build"
		t_diag "$(cat "$tmp/$stage.err")"
		continue
	fi
	[ "$stage" = pristine ] && { t_diag "pristine: $(wc -l <"$tmp/pristine") W=1/sparse findings"; continue; }
	new=$(comm -13 "$tmp/pristine" "$tmp/$stage")
	t_is "${new:-none}" none "stage $stage: no new W=1 or sparse findings in kernel/sched"
done
"$TOP/scripts/apply-stage.sh" pristine >/dev/null 2>&1
