#!/bin/bash
# The main job: prepare the tree, build every stage's kernel, boot each in
# QEMU and run a plan on it, then print a per-stage summary.
# env: STAGE (stages, space-separated; default all), PLAN (default smoke), SMP, KDIR,
#      TIMEOUT, FLAVOUR (default smp), RUN_ID (name of the results run),
#      MEASURE=0 to skip the measurement (scripts/measure.sh: MEASURE_STAGES,
#      REPEAT, MEASURE_DURATION, WORKLOADS, POLICIES)
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

plan=${PLAN:-smoke}
flavour=${FLAVOUR:-smp}
take_lock

if [ -n "${STAGE:-}" ]; then
	for stage in $STAGE; do
		stage_patch "$stage" >/dev/null
	done
	stages=$STAGE
else
	stages=$(stage_names)
fi
nstages=$(echo "$stages" | wc -w)
# The measurement compares the baseline with the reproduced stages, so
# it needs at least two of them among the stages built here. It belongs
# to the main job: another PLAN is a run of that plan only.
measure_stages=""
if [ "${MEASURE:-1}" != 0 ] && [ "$plan" = smoke ]; then
	for s in ${MEASURE_STAGES:-baseline consistent balance}; do
		! echo "$stages" | tr ' ' '\n' | grep -qx "$s" || measure_stages="$measure_stages $s"
	done
	[ "$(echo "$measure_stages" | wc -w)" -ge 2 ] || measure_stages=""
fi
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
mkdir -p "$rundir"
echo running >"$rundir/status"
# A run that stops early says so; only a complete one becomes latest.
trap '[ "$(cat "$rundir/status" 2>/dev/null)" = complete ] || echo failed >"$rundir/status"' EXIT
summary=$rundir/summary.txt
printf '%-12s %-8s %-10s %5s  %s\n' stage kernel plan boot_s verdict >"$summary"
worst=0

declare -A built
for stage in $stages; do
	if kernel_is_current "$stage" "$flavour"; then
		next "stage $stage: kernel is current"
		built[$stage]=cached
	else
		next "building stage $stage"
		"$TOP/scripts/apply-stage.sh" "$stage"
		"$TOP/scripts/build-kernel.sh" "$stage" "$flavour"
		built[$stage]=built
	fi
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
	STAGE=$stage "$TOP/scripts/run-qemu.sh" \
		"$(kernel_dir "$stage" "$flavour")/bzImage" "$plan" \
		"$rundir/$stage/$plan" || rc=$?
	verdict=$(cat "$rundir/$stage/$plan/verdict" 2>/dev/null || echo "exit $rc")
	boot=$(sed -n 's/^boot_seconds=//p' "$rundir/$stage/$plan/provenance" 2>/dev/null || true)
	printf '%-12s %-8s %-10s %5s  %s\n' "$stage" "${built[$stage]}" "$plan" "${boot:--}" \
		"${verdict%%:*}" >>"$summary"
	[ "$worst" != 0 ] || worst=$rc
done

if [ -n "$measure_stages" ]; then
	next "measuring:$measure_stages"
	rc=0
	MEASURE_STAGES=${measure_stages# } FLAVOUR=$flavour "$TOP/scripts/measure.sh" "$rundir" || rc=$?
	[ "$worst" != 0 ] || worst=$rc
fi

# Only a run that reached every stage becomes results/latest.
echo complete >"$rundir/status"
ln -sfn "$run" "$RESULTS/latest"
info ""
cat "$summary" >&2
if [ -f "$rundir/main-table.md" ]; then
	info ""
	cat "$rundir/main-table.md" >&2
	info "report: $rundir/report.md"
fi
info "results: $rundir"
exit "$worst"
