#!/bin/bash
# Write RUNDIR/report.md and its plots from what scripts/analyse.sh left,
# and print the main table. Every figure is read from this run's analyser
# output; the seed's figures are the only constants, and they are labelled.
# usage: report.sh RUNDIR
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: report.sh RUNDIR"
rundir=$1
out=$rundir/report.md
plots=$rundir/plots
read -ra stage_list <"$rundir/measure-stages"
stages=${stage_list[*]}
first_stage=${stages%% *}
last_stage=${stages##* }
mkdir -p "$plots"

# KEY's value in an analyser output file, or "-".
val()
{
	local v

	v=$(sed -n "s/^$2=//p" "$1" 2>/dev/null | head -n1)
	echo "${v:--}"
}

# The measurement boots of stage $1, from the run's boots.tsv.
reps()
{
	run_boots "$rundir" measure | awk -F'\t' -v s="$1" '$1 == s { print $2 }' | sort
}

policies()
{
	find "$rundir/$first_stage/measure-r1/guest" -mindepth 1 -maxdepth 1 -type d \
		-printf '%f\n' | sort
}

has_workload()
{
	[ -f "$rundir/analysis/$1/$2/$first_stage.rtapp.txt" ]
}

# Stacking of workload $3 on stage $2 under policy $1, all repeats pooled:
# "placements stacked pct ms_stacked per-repeat-pcts".
stacking()
{
	local f sum_p=0 sum_s=0 sum_us=0 each=""

	for r in $(reps "$2"); do
		f=$r/guest/$1/$3/trace.txt
		sum_p=$((sum_p + $(val "$f" placements)))
		sum_s=$((sum_s + $(val "$f" stacked)))
		sum_us=$(awk -v a="$sum_us" -v b="$(val "$f" stacked_us)" 'BEGIN { print a + b }')
		each="$each${each:+ / }$(val "$f" stacked_pct)"
	done
	awk -v p="$sum_p" -v s="$sum_s" -v us="$sum_us" -v each="$each" 'BEGIN {
		printf "%d %d %.2f %.1f %s\n", p, s, p ? 100 * s / p : 0, us / 1000, each
	}'
}

pct_over()
{
	awk -v o="$(val "$1" wu_lat_hist_over_1000)" -v n="$(val "$1" wu_lat_n)" \
		'BEGIN { printf "%.1f%% (%d)", n ? 100 * o / n : 0, o }'
}

ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'
}

stacking_table()
{
	local policy=$1 s

	echo "| stage | placements | stacked | stacked % | per repeat % | time stacked (ms) |"
	echo "|---|---|---|---|---|---|"
	for s in "${stage_list[@]}"; do
		# shellcheck disable=SC2046 # fields
		set -- $(stacking "$policy" "$s" t2)
		echo "| $s | $1 | $2 | **$3** | ${*:5} | $4 |"
	done
}

# The main table: the decision metric and Test 2 against Test 1.
main_table()
{
	local policy s f1 f2

	echo "| scan policy | stage | t2 stacked % | t2 wu_lat mean (us) | t1 wu_lat mean (us) | t2/t1 |"
	echo "|---|---|---|---|---|---|"
	for policy in $(policies); do
		has_workload "$policy" t2 || continue
		for s in "${stage_list[@]}"; do
			f2=$rundir/analysis/$policy/t2/$s.rtapp.txt
			f1=$rundir/analysis/$policy/t1/$s.rtapp.txt
			echo "| $policy | $s | $(stacking "$policy" "$s" t2 | cut -d' ' -f3) |" \
				"$(val "$f2" wu_lat_mean) | $(val "$f1" wu_lat_mean) |" \
				"$(ratio "$(val "$f2" wu_lat_mean)" "$(val "$f1" wu_lat_mean)") |"
		done
	done
}

# 001 Test 2 (and Test 1) as the seed's st printed it, seed columns first.
wulat_table()
{
	local policy=$1 w=$2 s f row key
	local -A seed_a seed_b
	local -A label=([median]="median of woken activations [95% CI]"
		[wmean]="mean of woken activations" [over]="over 1000 us"
		[overran]="overran its period (wu_lat 0)")

	if [ "$w" = t2 ]; then
		echo "| | seed without | seed with |$(printf ' %s |' "${stage_list[@]}")"
		echo "|---|---|---|$(printf -- '---|%.0s' "${stage_list[@]}")"
		seed_a=([N]=4710 [mean]=1116.68 [stddev]=2315.09 [max]=67664 [over]="34% (1218)" [median]=-)
		seed_b=([N]=5095 [mean]=102.683 [stddev]=475.482 [max]=7773 [over]="0.8% (40)" [median]=-)
	else
		echo "| | seed |$(printf ' %s |' "${stage_list[@]}")"
		echo "|---|---|$(printf -- '---|%.0s' "${stage_list[@]}")"
		seed_a=([N]=5136 [mean]=104.358 [stddev]=104.585 [max]=2452 [over]="0.3% (17)" [median]=-)
	fi
	seed_a[overran]=- seed_a[wmean]=-
	seed_b[overran]=- seed_b[wmean]=-
	for row in N mean stddev max over overran wmean median; do
		printf '| %s | %s |' "${label[$row]:-$row}" "${seed_a[$row]}"
		[ "$w" != t2 ] || printf ' %s |' "${seed_b[$row]}"
		for s in "${stage_list[@]}"; do
			f=$rundir/analysis/$policy/$w/$s.rtapp.txt
			case $row in
			N) key=wu_lat_n ;;
			overran) key=wu_lat_zero ;;
			over) printf ' %s |' "$(pct_over "$f")"; continue ;;
			median) printf ' %s [%s, %s] |' "$(val "$f" woken_median)" \
				"$(val "$f" woken_median_lo)" "$(val "$f" woken_median_hi)"
				continue ;;
			wmean) key=woken_mean ;;
			*) key=wu_lat_$row ;;
			esac
			printf ' %s |' "$(val "$f" "$key")"
		done
		echo
	done
	if [ "$w" = t2 ]; then
		printf '| ratio to the first column | 1 | %s |' "$(ratio 102.683 1116.68)"
		for s in "${stage_list[@]}"; do
			printf ' %s |' "$(ratio "$(val "$rundir/analysis/$policy/t2/$s.rtapp.txt" wu_lat_mean)" \
				"$(val "$rundir/analysis/$policy/t2/$first_stage.rtapp.txt" wu_lat_mean)")"
		done
		echo
	fi
}

pinned_table()
{
	local policy=$1 w s
	local -A seed=([p1]=307.134 [p2]=177.336 [p3]=64.3297)
	local -A what=([p1]="alone" [p2]="+1 SCHED_IDLE pinned next door" [p3]="+N unpinned SCHED_IDLE")

	echo "| 005 case | seed mean |$(printf ' %s mean |' "${stage_list[@]}")"
	echo "|---|---|$(printf -- '---|%.0s' "${stage_list[@]}")"
	for w in p1 p2 p3; do
		has_workload "$policy" "$w" || continue
		printf '| %s: %s | %s |' "$w" "${what[$w]}" "${seed[$w]}"
		for s in "${stage_list[@]}"; do
			printf ' %s |' "$(val "$rundir/analysis/$policy/$w/$s.rtapp.txt" wu_lat_mean)"
		done
		echo
	done
}

# A/A: the same stage booted twice; its spread is what a difference
# between stages must beat.
noise_table()
{
	local policy=$1 s f a b
	local -a r

	[ "$(reps "$first_stage" | wc -l)" -ge 2 ] ||
		{ echo "One boot per stage (REPEAT=1): no A/A comparison in this run."; return 0; }
	echo "| stage | t2 stacked % per repeat | t2 wu_lat mean per repeat (us) | spread of the mean |"
	echo "|---|---|---|---|"
	for s in "${stage_list[@]}"; do
		mapfile -t r < <(reps "$s")
		[ "${#r[@]}" -ge 2 ] || continue
		a=$(val "${r[0]}/guest/$policy/t2/rtapp.txt" wu_lat_mean)
		b=$(val "${r[1]}/guest/$policy/t2/rtapp.txt" wu_lat_mean)
		echo "| $s | $(stacking "$policy" "$s" t2 | cut -d' ' -f5-) | $a / $b |" \
			"$(awk -v a="$a" -v b="$b" 'BEGIN { m = (a + b) / 2; d = a > b ? a - b : b - a; printf "%.0f%%", m ? 100 * d / m : 0 }') |"
	done
}

# The median of the numbers on stdin, one per line.
median()
{
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) print "-"
		else printf "%.3f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	}'
}

hb_times()
{
	sed -n 's/^time_s=//p' "$@" 2>/dev/null
}

has_hackbench()
{
	compgen -G "$rundir/$first_stage/measure-r*/guest/$1/$2/hackbench.txt" >/dev/null
}

# The spread of per-boot medians, "a / b / c", as a share of their mean.
aa_spread()
{
	tr '/' '\n' | awk 'NF {
		v = $1 + 0; if (n++ == 0 || v < lo) lo = v; if (v > hi) hi = v; sum += v }
		END { if (n < 2 || sum == 0) print "-"; else printf "%.0f%%", 100 * (hi - lo) / (sum / n) }'
}

# hackbench: per stage the median time of all runs, the per-boot medians
# (their spread is this machine's noise floor) and the change against the
# first stage.
hackbench_table()
{
	local policy=$1 w s r m ref each times

	echo "| workload | stage | runs | median (s) | per boot | A/A spread | vs $first_stage |"
	echo "|---|---|---|---|---|---|---|"
	for w in hp ht hf; do
		has_hackbench "$policy" "$w" || continue
		ref=""
		for s in "${stage_list[@]}"; do
			times=$(hb_times "$rundir/$s"/measure-r*/guest/"$policy/$w"/hackbench.txt)
			m=$(printf "%s" "$times" | median)
			ref=${ref:-$m}
			each=""
			for r in $(reps "$s"); do
				each="$each${each:+ / }$(hb_times "$r/guest/$policy/$w/hackbench.txt" | median)"
			done
			echo "| $w | $s | $(printf "%s" "$times" | grep -c .) |" \
				"$m | $each | $(echo "$each" | aa_spread) |" \
				"$(awk -v a="$m" -v b="$ref" 'BEGIN { if (b > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "-" }') |"
		done
	done
}

# select_idle_cpu() as the LOCAL scan-statistics patch counts it, all
# repeats pooled, on the stages that have the counters.
scan_table()
{
	local policy=$1 w s f any=""

	for s in "${stage_list[@]}"; do
		compgen -G "$rundir/$s/measure-r*/guest/$policy/*/sis.txt" >/dev/null && any=1
	done
	[ -n "$any" ] || { echo "No stage of this run has the scan counters (LOCAL scan-stats patch)."; return 0; }
	echo "| workload | stage | select_idle_cpu() calls | ended by SIS_UTIL | CPUs scanned per call | found a CPU |"
	echo "|---|---|---|---|---|---|"
	for w in t1 t2 p1 p2 p3 hp ht hf; do
		for s in "${stage_list[@]}"; do
			f=$(compgen -G "$rundir/$s/measure-r*/guest/$policy/$w/sis.txt") || continue
			# shellcheck disable=SC2086 # one file per repeat
			awk -v w="$w" -v s="$s" '
				{ v[$1] += $2 }
				END {
					c = v["calls"]
					printf "| %s | %s | %d | %.1f%% | %.2f | %.1f%% |\n", w, s, c,
						c ? 100 * v["util_skip"] / c : 0, c ? v["scanned"] / c : 0,
						c ? 100 * v["found"] / c : 0
				}' $f
		done
	done
}

residency_table()
{
	local policy=$1 s f

	echo "| stage | normal % | SCHED_IDLE % | idle % |"
	echo "|---|---|---|---|"
	for s in "${stage_list[@]}"; do
		f=$(reps "$s" | head -n1)/guest/$policy/t2/trace.txt
		awk -F= -v s="$s" '
			/^cpu[0-9]+_normal_pct=/ { n += $2; c++ }
			/^cpu[0-9]+_sched_idle_pct=/ { i += $2 }
			/^cpu[0-9]+_idle_pct=/ { z += $2 }
			END { if (c) printf "| %s | %.1f | %.1f | %.1f |\n", s, n / c, i / c, z / c }' "$f"
	done
}

plot_cdf()
{
	local policy=$1 w=$2 png=$plots/cdf-$1-$2.png cmd="" s

	for s in "${stage_list[@]}"; do
		cmd="$cmd${cmd:+, }'$rundir/analysis/$policy/$w/$s.cdf.dat' using 1:2 with lines lw 2 title '$s'"
	done
	gnuplot -e "set terminal png size 800,500; set output '$png';
		set title 'wu\\_lat CDF of woken activations, workload $w, scan policy $policy';
		set xlabel 'wu\\_lat (us)'; set ylabel 'fraction of activations';
		set logscale x; set xrange [1:100000]; set key bottom right; set grid;
		plot $cmd" 2>"$plots/gnuplot.log" || die "gnuplot failed: $(tail -n1 "$plots/gnuplot.log")"
}

# Per-CPU timeline by task class over the same window, baseline on top.
plot_timeline()
{
	local policy=$1 png=$plots/timeline-$1.png s f i=0 n

	n=$(echo "$first_stage $last_stage" | wc -w)
	{
		echo "set terminal png size 1000,$((220 * n + 60)); set output '$png'"
		echo "set multiplot layout $n,1 title 'per-CPU timeline, t2, scan policy $policy (red normal, blue SCHED\\_IDLE, grey idle)'"
		echo "set ylabel 'CPU'; set xlabel 'seconds since trace start'; set ytics 1"
		for s in $first_stage $last_stage; do
			f=$(reps "$s" | head -n1)/guest/$policy/t2/timeline.dat
			echo "set title '$s'; set yrange [-0.6:*]"
			printf '%s' "plot '$f' using (\$2+\$3)/2:1:(\$2):(\$3):(\$1-0.4):(\$1+0.4):(strcol(4) eq 'normal' ? 0xdd2222 : strcol(4) eq 'sched_idle' ? 0x2255dd : 0xbbbbbb)"
			echo " with boxxyerror fs solid lc rgb variable notitle"
			i=$((i + 1))
		done
		echo "unset multiplot"
	} >"$plots/timeline-$policy.gp"
	gnuplot "$plots/timeline-$policy.gp" 2>"$plots/gnuplot.log" ||
		die "gnuplot failed: $(tail -n1 "$plots/gnuplot.log")"
}

# Which scan policy shows the seed's effect: the larger baseline-to-series
# drop in stacking.
verdict()
{
	local policy b l s line

	for policy in $(policies); do
		has_workload "$policy" t2 || continue
		b=$(stacking "$policy" "$first_stage" t2 | cut -d' ' -f3)
		line="- **$policy**: $first_stage stacks $b% of t2 wakeups"
		line="$line (target at least 10%: $(awk -v x="$b" 'BEGIN { print (x >= 10 ? "met" : "not met") }'))"
		for s in "${stage_list[@]:1}"; do
			l=$(stacking "$policy" "$s" t2 | cut -d' ' -f3)
			line="$line; $s $l% (target at most 1%: $(awk -v x="$l" 'BEGIN { print (x <= 1 ? "met" : "not met") }'))"
		done
		echo "$line."
	done
	echo
	best_policy
}

# The policy with the largest drop from the first stage to the mean of the
# others: the one under which the seed's effect shows.
best_policy()
{
	local policy s b sum n best="" best_drop=-1000 drop

	for policy in $(policies); do
		has_workload "$policy" t2 || continue
		b=$(stacking "$policy" "$first_stage" t2 | cut -d' ' -f3)
		sum=0 n=0
		for s in "${stage_list[@]:1}"; do
			sum=$(awk -v a="$sum" -v b="$(stacking "$policy" "$s" t2 | cut -d' ' -f3)" 'BEGIN { print a + b }')
			n=$((n + 1))
		done
		[ "$n" -gt 0 ] || return 0
		drop=$(awk -v b="$b" -v s="$sum" -v n="$n" 'BEGIN { printf "%.2f", b - s / n }')
		if awk -v d="$drop" -v m="$best_drop" 'BEGIN { exit !(d > m) }'; then
			best=$policy best_drop=$drop
		fi
	done
	[ -n "$best" ] || return 0
	echo "The seed's effect is a drop from $first_stage to the series. It is largest under" \
		"**$best** ($best_drop points, against the mean of the other stages): that is the" \
		"scan policy that reproduces the seed here. Under 6.1 defaults SIS_UTIL (v6.0) cuts" \
		"the idle-CPU scan short once SCHED_IDLE hogs make the LLC look busy, so the series" \
		"can only act where the scan still runs."
}

provenance()
{
	local s p

	echo "| stage | boots | series_hash | kernel .config hash | accel | smp |"
	echo "|---|---|---|---|---|---|"
	for s in "${stage_list[@]}"; do
		p=$(reps "$s" | head -n1)/provenance
		echo "| $s | $(reps "$s" | wc -l) | $(val "$p" series_hash | cut -c1-12) |" \
			"$(val "$p" kernel_config_hash | cut -c1-12) | $(val "$p" accel) | $(val "$p" smp) |"
	done
	echo
	echo "QEMU: $(val "$(reps "$first_stage" | head -n1)/provenance" qemu)." \
		"Workload shape: $(grep -h '^cfs_tasks\|^idle_tasks\|^duration_s' \
		"$(reps "$first_stage" | head -n1)"/guest/*/t2/workload.txt 2>/dev/null | sort -u | tr '\n' ' ')"
}

trace_links()
{
	local f

	find "$rundir" -name trace.dat | sort | while read -r f; do
		echo "- [${f#"$rundir"/}](${f#"$rundir"/})"
	done
}

write_report()
{
	local policy

	echo "# SCHED_IDLE CPU selection: measured effect"
	echo
	echo "Run \`$(basename "$rundir")\`, stages: $stages; boots interleaved in that order," \
		"$(reps "$first_stage" | wc -l) repeat(s). Latency is wall-clock time in a TCG guest on" \
		"an oversubscribed host: compare stages within this run, never with the seed's absolute figures."
	echo
	echo "## Provenance"
	provenance
	echo
	echo "## Main table"
	main_table
	echo
	echo "## Which scan policy reproduces the seed"
	verdict
	echo
	for policy in $(policies); do
		echo "## Scan policy: $policy"
		echo
		if has_workload "$policy" t2; then
			echo "### Avoidable stacking, t2 (decision metric)"
			echo "A normal task's wakeup placed on a CPU that already ran or queued another" \
				"normal task while another CPU of the LLC had only SCHED_IDLE tasks."
			echo
			stacking_table "$policy"
			echo
			echo "### 001 Test 2: $(val "$(reps "$first_stage" | head -n1)/guest/$policy/t2/workload.txt" cfs_tasks) CFS + SCHED_IDLE hogs, wu_lat (us)"
			wulat_table "$policy" t2
			echo
			plot_cdf "$policy" t2
			echo "![wu_lat CDF t2](plots/cdf-$policy-t2.png)"
			echo
			plot_timeline "$policy"
			echo "![timeline](plots/timeline-$policy.png)"
			echo
			echo "### Residency by class, t2, first repeat (mean over CPUs)"
			residency_table "$policy"
			echo
			echo "### Noise floor (A/A: each stage booted twice)"
			noise_table "$policy"
			echo
		fi
		if has_workload "$policy" t1; then
			echo "### 001 Test 1: CFS tasks only, wu_lat (us)"
			wulat_table "$policy" t1
			echo
		fi
		if has_workload "$policy" p1; then
			echo "### 005 Tests 1-3: one pinned CFS task, wu_lat mean (us)"
			pinned_table "$policy"
			echo
		fi
		if has_hackbench "$policy" hp || has_hackbench "$policy" ht || has_hackbench "$policy" hf; then
			echo "### hackbench (rt-tests), time per run, lower is better"
			echo "hp: processes over pipes; ht: threads over pipes; both with no SCHED_IDLE task." \
				"hf: hp beside a SCHED_IDLE hog on every CPU, for the fork path" \
				"(find_idlest_group_cpu()). A change smaller than the A/A spread is noise."
			echo
			hackbench_table "$policy"
			echo
		fi
		echo "### Scan depth (select_idle_cpu())"
		scan_table "$policy"
		echo
	done
	cat <<-'EOF'
	## What does not transfer to QEMU, and why
	- 001's absolute means (1116.68 -> 102.68 us): the seed measured a HiKey's
	  wakeup path; here a vCPU busy with a SCHED_IDLE hog is a host thread that
	  competes for 2 host cores, so a timer interrupt can wait a host time
	  slice (milliseconds) before the guest sees it. That cost is the same for
	  every stage, so Test 2's wall-clock means stay far above Test 1's on all
	  stages; the stacking metric, a scheduler decision, is what transfers.
	- 001's "over 1000 us" share (34% -> 0.8%) moves with the same host noise.
	- 005's 307 / 177 / 64: the seed's gaps come from cluster idle states
	  (deep idle exit latency against a shallow one). QEMU models no idle-state
	  exit latency, so p1 and p2 differ here only by host contention; p3
	  (preempting a SCHED_IDLE task) is wakeup preemption, which every stage
	  keeps, the baseline included.
	- rt-app "run" events scale with the CPU's speed, and a TCG vCPU's speed
	  varies with host load; the workloads use "runtime" (wall-clock) events so
	  that the duty cycle is the seed's.
	EOF
	echo
	echo "## Traces (open in KernelShark)"
	trace_links
}

# scripts/qemu-test.sh prints the main table at the end of its run.
main_table >"$rundir/main-table.md"
write_report >"$out.tmp"
mv "$out.tmp" "$out"
info "report: $out"
