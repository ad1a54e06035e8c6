#!/bin/bash
# Analyse a results run's measurement: the analyser (C, libtracecmd) over
# every workload's trace.dat, then scripts/metrics.py over everything the
# boots left, into the run's one table of figures, metrics.tsv.
# usage: analyse.sh RUNDIR
# Output next to each trace.dat: trace.txt (placement, latency, residency)
# and timeline.dat; RUNDIR/metrics.tsv (format in scripts/metrics.py).
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
	mv "$d/timeline.dat.tmp" "$d/timeline.dat"
	mv "$d/trace.txt.tmp" "$d/trace.txt"
}

n=0
# The measurement boots, from the run's boots.tsv; in each, one folder per
# scan policy and workload.
while IFS=$'\t' read -r _ boot; do
	for d in "$boot"/guest/*/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		# hackbench runs leave times and no trace.
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
python3 "$TOP/scripts/metrics.py" "$rundir"
