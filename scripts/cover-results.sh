#!/bin/bash
# Summarise one results run for the cover letter: the provenance, a
# per-stage table of the plan's verdicts with the selftest's own figures,
# and, for a run that measured, its main table (from metrics.tsv).
# usage: cover-results.sh RUNDIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: cover-results.sh RUNDIR"
run=$(cd "$1" 2>/dev/null && pwd -P) || die "no results run at $1"
[ "$(cat "$run/status" 2>/dev/null)" = complete ] ||
	die "results run $run is not complete; run 'make qemu-test' first"

# The run's boots of the short plans (smoke, selftest), each judged into
# result.json by scripts/judge.py; the measurement has its own report.
mapfile -t dirs < <(run_boots "$run" | awk -F'\t' '$2 !~ /\/measure-r[0-9]+$/ { print $2 }')
[ ${#dirs[@]} -gt 0 ] || die "results run $run has no judged stage results"

prov()
{
	sed -n "s/^$2=//p" "$1/provenance" | head -n1
}

# In the order they ran, which is the series' order.
order()
{
	printf '%s\n' "${dirs[@]}"
}

# What a stage is, in the numbering of PART's mails: the packaged tree
# (with its BASE fixes, "pkg+fix"), a LOCAL baseline or aid, the tree
# after mail k/m, or a patch of the other series: an upstream commit
# re-applied, or the new work.
declare -A label
label[pristine]=packaged
[ -z "$(base_patches)" ] || label[pristine]=pkg+fix
locals=$(local_patches)
upstream=$(upstream_patches)
mailed=$(mailed_patches)
total=$(grep -c . <<<"$mailed" || true)
k=0
while read -r patch stage; do
	if [ "$stage" = pristine ]; then
		continue
	elif grep -qxF "$patch" <<<"$locals"; then
		label[$stage]=LOCAL
	elif grep -qxF "$patch" <<<"$mailed"; then
		k=$((k + 1))
		label[$stage]="$k/$total"
	elif grep -qxF "$patch" <<<"$upstream"; then
		label[$stage]=upstream
	else
		label[$stage]=new
	fi
done < <(series_patches)

first=${dirs[0]}
# A run of the other tree would label its stages with this series' mails.
# Boots recorded before provenance named the tree are all the default's.
run_tree=$(prov "$first" tree)
run_tree=${run_tree:-${TREES%% *}}
[ "$run_tree" = "$TREE_VERSION" ] ||
	die "results run $run is of the $run_tree tree, not of $TREE_VERSION"
echo "Measured in QEMU ($(prov "$first" qemu | sed 's/ (Debian.*//'), accelerator"
echo "$(prov "$first" accel), -smp $(prov "$first" smp), results run"
echo "$(basename "$run"), series $(prov "$first" series_hash). Guest times under"
echo "TCG follow the host's load; the decisions are what the tests assert."
echo
echo "Verdicts compare each subtest with the expected matrix: \"expected"
echo "fail\" is a subtest that fails on that tree as the matrix predicts."
echo
printf '  %-12s %-8s %-8s %4s %4s %4s  %s\n' stage tree plan pass fail skip verdict
for d in $(order); do
	stage=$(basename "$(dirname "$d")")
	plan=$(basename "$d")
	read -r pass fail skip < <(python3 "$TOP/scripts/judge.py" --subtests "$d/result.json" |
		awk -F'\t' '{ n[$2]++ } END { print n["pass"] + 0, n["fail"] + 0, n["skip"] + 0 }')
	printf '  %-12s %-8s %-8s %4s %4s %4s  %s\n' "$stage" "${label[$stage]:-?}" "$plan" \
		"$pass" "$fail" "$skip" "$(python3 "$TOP/scripts/judge.py" --show "$d/result.json" summary)"
done
echo
echo "Selftest figures:"
for d in $(order); do
	notes=$(python3 "$TOP/scripts/judge.py" --diagnostics "$d/result.json" | sed -n \
		-e 's/^\(fast_path[a-z_]*\): \([0-9]* of [0-9]*\) wakeups stacked.*/\1 stacked \2/p' \
		-e 's/^load_balance: pulled in [0-9]* of [0-9]* trials, after (ms): */pulled after (ms) /p' |
		paste -sd ';' | sed 's/;/; /g')
	[ -z "$notes" ] || printf '  %-12s %s\n' "$(basename "$(dirname "$d")")" "$notes"
done

# A run with a measurement: its main table, which scripts/report.py drew
# from the run's metrics.tsv like every figure of its report.
if [ -f "$run/main-table.md" ] && [ -f "$run/metrics.tsv" ]; then
	echo
	echo "Measurement (results/$(basename "$run")/report.md has the rest, with the"
	echo "host's interference and the seed's claims judged):"
	echo
	sed 's/^/  /' "$run/main-table.md"
fi
