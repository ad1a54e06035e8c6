#!/bin/bash
# Run the analyser over every measurement a results run holds: per boot,
# the trace (placement, latency, residency) and the rt-app logs; per
# stage, the rt-app logs of all repeats pooled.
# usage: analyse.sh RUNDIR
# Output next to each trace.dat: trace.txt, rtapp.txt, timeline.dat; and
# RUNDIR/analysis/POLICY/WORKLOAD/STAGE.{rtapp.txt,cdf.dat}
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: analyse.sh RUNDIR"
rundir=$1
tool=$BUILD/tools/sched-idle-analyse
# The timeline window, seconds after the trace's start: inside the
# workload, short enough to show single switches.
window=${TIMELINE_WINDOW:-1.0,0.1}
"$TOP/scripts/build-analyser.sh"

analyse_one()
{
	local d=$1

	"$tool" trace -t "$d/tasks.txt" -T "$d/timeline.dat.tmp" -w "$window" \
		"$d/trace.dat" >"$d/trace.txt.tmp" ||
		die "analyser failed on $d/trace.dat"
	"$tool" rtapp "$d"/*-cfs-*.log >"$d/rtapp.txt.tmp" ||
		die "analyser failed on the rt-app logs in $d"
	mv "$d/timeline.dat.tmp" "$d/timeline.dat"
	mv "$d/trace.txt.tmp" "$d/trace.txt"
	mv "$d/rtapp.txt.tmp" "$d/rtapp.txt"
}

n=0
# The measurement boots, from the run's boots.tsv; in each, one folder per
# scan policy and workload.
while IFS=$'\t' read -r _ boot; do
	for d in "$boot"/guest/*/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		# hackbench runs leave times, read by report.sh, and no trace.
		if [ -f "$d/hackbench.txt" ]; then
			n=$((n + 1))
			continue
		fi
		[ -f "$d/trace.dat" ] || die "no trace.dat in $d"
		analyse_one "$d"
		n=$((n + 1))
	done
done < <(run_boots "$rundir" measure)
[ "$n" -gt 0 ] || die "no measurements in $rundir"
info "  analysed $n measurements"

read -ra stages <"$rundir/measure-stages"
for stage in "${stages[@]}"; do
	for p in "$rundir/$stage"/measure-r1/guest/*/; do
		policy=$(basename "$p")
		for w in "$p"*/; do
			w=$(basename "$w")
			[ ! -f "$p$w/hackbench.txt" ] || continue
			out=$rundir/analysis/$policy/$w
			mkdir -p "$out"
			"$tool" rtapp -c "$out/$stage.cdf.dat" \
				"$rundir/$stage"/measure-r*/guest/"$policy/$w"/*-cfs-*.log \
				>"$out/$stage.rtapp.txt.tmp"
			mv "$out/$stage.rtapp.txt.tmp" "$out/$stage.rtapp.txt"
		done
	done
done
