#!/bin/bash
# The main job: prepare the tree, build every stage's kernel, boot each in
# QEMU and run a plan on it, then print a per-stage summary.
# env: STAGE, PLAN, SMP, KDIR, TIMEOUT, DRY_RUN, MEASURE and the
#      measurement's variables (scripts/variables); internal: FLAVOUR
#      (default smp), RUN_ID (name of the results run), SELFTEST_MATRIX
#      (default tests/selftest-matrix, or tests/selftest-matrix-6.12 for
#      TREE=6.12).
# A PLAN=selftest boot of the packaged tree is judged against the expected
# matrix: a subtest that fails where the matrix says so is an expected
# failure, and the run exits 0 when every stage is as the matrix says.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

check_settings
plan=$(setting PLAN)
flavour=${FLAVOUR:-smp}
stages=$(setting STAGE)
[ -n "$stages" ] || stages=$(stage_names)
nstages=$(echo "$stages" | wc -w)

# Refused here, before any build, when SMP does not suit the plan.
plan_smp "$plan" >/dev/null

# The matrix was written for the packaged tree: a KDIR= tree of another
# release of the same line gets "no expectation", never a silent pass.
# PLAN=selftest-fork boots are judged by the matrix's selftest-fork rows.
expect=()
if [ "$plan" = selftest ] || [ "$plan" = selftest-fork ]; then
	if [ "$KDIR" = "$DEFAULT_KDIR" ]; then
		expect=(--expect "$SELFTEST_MATRIX")
		[ -f "${expect[1]}" ] || die "no expected matrix ${expect[1]}"
	else
		expect=(--expect none)
	fi
fi

# The measurement compares the baseline with the reproduced stages, so
# it needs at least two of them among the stages built here. It belongs
# to the main job: another PLAN is a run of that plan only.
measure_stages=""
if [ "$(setting MEASURE)" != 0 ] && [ "$plan" = smoke ]; then
	for s in $(setting MEASURE_STAGES); do
		! echo "$stages" | tr ' ' '\n' | grep -qx "$s" || measure_stages="$measure_stages $s"
	done
	[ "$(echo "$measure_stages" | wc -w)" -ge 2 ] || measure_stages=""
fi

if [ "$(setting DRY_RUN)" = 1 ]; then
	for stage in $stages; do
		echo "# stage $stage, plan $plan"
		"$TOP/scripts/run-qemu.sh" --timeout "$(setting TIMEOUT)" "${expect[@]}" \
			"$stage" "$(kernel_dir "$stage" "$flavour")/bzImage" "$plan" \
			"$RESULTS/RUN/$stage/$plan"
	done
	[ -z "$measure_stages" ] ||
		MEASURE_STAGES=${measure_stages# } FLAVOUR=$flavour "$TOP/scripts/measure.sh" "$RESULTS/RUN"
	exit 0
fi

take_lock
total=$((4 + 2 * nstages + (${#measure_stages} > 0)))
n=0
next()
{
	n=$((n + 1))
	info "[$n/$total] $*"
}

next "checking packages"
"$TOP/scripts/deps.sh" run
next "preparing the kernel tree"
"$TOP/scripts/prepare-tree.sh"

run=${RUN_ID:-$(date -u +%Y%m%d-%H%M%S)-$$}
rundir=$RESULTS/$run
begin_run "$rundir"
summary=$rundir/summary.txt
printf '%-12s %-8s %-10s %5s  %s\n' stage kernel plan boot_s verdict >"$summary"
worst=0

declare -A built
for stage in $stages; do
	next "stage $stage: $flavour kernel"
	built[$stage]=$("$TOP/scripts/build-stage.sh" "$stage" "$flavour")
done

next "building the selftest"
if stage_names | grep -qx selftest; then
	"$TOP/scripts/build-selftest.sh"
else
	info "the series has no selftest stage"
fi
next "building the initramfs"
"$TOP/scripts/build-initramfs.sh"

for stage in $stages; do
	next "booting stage $stage (plan $plan)"
	rc=0
	out=$rundir/$stage/$plan
	"$TOP/scripts/run-qemu.sh" --timeout "$(setting TIMEOUT)" "${expect[@]}" \
		"$stage" "$(kernel_dir "$stage" "$flavour")/bzImage" "$plan" "$out" || rc=$?
	record_boot "$rundir" "$stage" "$plan" "$out" "$rc"
	if [ -f "$out/result.json" ]; then
		verdict=$(python3 "$TOP/scripts/judge.py" --show "$out/result.json" summary)
		boot=$(python3 "$TOP/scripts/judge.py" --show "$out/result.json" boot_seconds)
	else
		verdict="exit $rc, no result.json" boot=""
	fi
	printf '%-12s %-8s %-10s %5s  %s\n' "$stage" "${built[$stage]}" "$plan" "${boot:--}" \
		"$verdict" >>"$summary"
	[ "$worst" != 0 ] || worst=$rc
done

if [ -n "$measure_stages" ]; then
	next "measuring:$measure_stages"
	rc=0
	MEASURE_STAGES=${measure_stages# } FLAVOUR=$flavour "$TOP/scripts/measure.sh" "$rundir" || rc=$?
	[ "$worst" != 0 ] || worst=$rc
fi

# Only a run that reached every stage, each as expected, is complete and
# becomes results/latest; make patches takes only a complete run.
if [ "$worst" = 0 ]; then
	echo complete >"$rundir/status"
	ln -sfn "$run" "$RESULTS/latest"
else
	echo failed >"$rundir/status"
fi
info ""
cat "$summary" >&2
if [ -f "$rundir/main-table.md" ]; then
	info ""
	cat "$rundir/main-table.md" >&2
	info "report: $rundir/report.md"
fi
info "results: $rundir"
exit "$worst"
