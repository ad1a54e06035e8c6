#!/bin/bash
# make qemu-test's measurement, end to end on two stages at a short scale:
# blocks of boots in the order a recorded seed gives, two windows of each
# workload per boot in alternating order, trace.dat and rt-app logs per
# window, the analyser, and a report whose every figure comes from this
# run's files.
. "$(dirname "$0")/lib.sh"
t_plan 16

tool=$BUILD/tools/sched-idle-analyse
out=$(STAGE="baseline consistent" REPEAT=2 WINDOWS=2 ORDER_SEED=7 MEASURE_DURATION=1 WORKLOADS=t1,t2,hp \
	POLICIES=v5.4-scan RUN_ID=test-measure-$$ "$TOP/scripts/qemu-test.sh" 2>&1)
rc=$?
t_is "$rc" 0 "qemu-test with the measurement exits 0"
[ "$rc" = 0 ] || t_diag "$(echo "$out" | tail -n 20)"
run=$RESULTS/test-measure-$$
report=$run/report.md
t_like "$(echo "$out" | tail -n 8)" "^\| v5.4-scan \| consistent \| [0-9.]+ \|" "the main table is printed at the end"
t_like "$(echo "$out" | grep -c 'measure \[[0-9]/4\] stage')" "^4$" "four measurement boots, each with a progress line"
# The order the seed gives, computed here as measure.sh does; the boots'
# dates say the order they ran in.
want=$(python3 -c 'import random
rng = random.Random(7)
for r in (1, 2):
    b = ["baseline", "consistent"]
    rng.shuffle(b)
    print(" ".join(f"{s}/measure-r{r}/" for s in b), end=" ")')
ran=$(for d in "$run"/*/measure-r*/; do echo "$(sed -n 's/^date=//p' "$d/provenance") ${d#"$run"/}"; done |
	sort | awk '{ print $2 }' | tr '\n' ' ')
t_is "$ran" "$want" "boots in blocks of both stages, in the order seed 7 gives"
t_is "$(head -n1 "$run/measure-order")" "seed 7" "the run records its order's seed"

missing=""
for section in "## Provenance" "## Main table" "## The seed's claims" "## Host interference" \
	"### Avoidable stacking, t2" "### 001 Test 2" "### 001 Test 1" "### Between boots and between windows" \
	"## What QEMU can and cannot model" "## Traces"; do
	grep -qF "$section" "$report" || missing="$missing [$section]"
done
t_is "${missing:-none}" none "report.md has every section"

bad=""
for png in cdf-v5.4-scan-t2 timeline-v5.4-scan; do
	head -c 8 "$run/plots/$png.png" 2>/dev/null | od -An -tx1 | grep -q '89 50 4e 47' ||
		bad="$bad $png"
	grep -qF "(plots/$png.png)" "$report" || bad="$bad $png(unlinked)"
done
t_is "${bad:-none}" none "gnuplot PNGs exist and the report links them"

links=$(grep -oE '\]\([^)]*trace\.dat\)' "$report" | sed 's/^](//; s/)$//')
n=0 absent=""
for l in $links; do
	n=$((n + 1))
	[ -s "$run/$l" ] || absent="$absent $l"
done
t_is "$n ${absent:-none}" "16 none" "the report links every trace.dat (2 stages x 2 repeats x 2 workloads x 2 windows), and each exists"

# Stacking rows recomputed from the traces, repeats pooled.
rows=""
for s in baseline consistent; do
	p=0 k=0
	for d in "$run/$s"/measure-r*/guest/v5.4-scan/t2.[12]; do
		a=$("$tool" trace -t "$d/tasks.txt" "$d/trace.dat")
		p=$((p + $(sed -n 's/^placements=//p' <<<"$a")))
		k=$((k + $(sed -n 's/^stacked=//p' <<<"$a")))
	done
	rows="$rows| $s | $p | $k | "
	grep -qF "| $s | $p | $k | **" "$report" || rows="$rows(not in report) "
done
t_unlike=$(echo "$rows" | grep -c 'not in report')
t_is "$t_unlike" 0 "stacking rows match a fresh analysis of this run's traces: $rows"

# Main-table means recomputed from the rt-app logs: per boot, the mean
# wu_lat of the woken activations of its windows; then the boots' mean.
bad=""
for s in baseline consistent; do
	for w in t1 t2; do
		m=$(for b in "$run/$s"/measure-r*; do
			awk '!/^#/ && NF == 11 && $11 > 0 { s += $11; n++ } END { if (n) printf "%.6f\n", s / n }' \
				"$b"/guest/v5.4-scan/$w.[12]/*-cfs-*.log
		done | awk '{ s += $1; n++ } END { if (n == 2) printf "%.3f", s / n }')
		col=$([ "$w" = t2 ] && echo 6 || echo 5)
		got=$(awk -F' [|] ' -v s="$s" -v c="$col" '$2 == s { print $c }' "$run/main-table.md")
		# The table rounds to 0.1 us, and a mean that ends in 5 at the
		# next digit may round either way: allow half a unit.
		if [ -z "$m" ] || [ -z "$got" ] ||
			! awk -v a="$got" -v b="$m" 'BEGIN { d = a - b; exit !(d <= 0.0501 && d >= -0.0501) }'; then
			bad="$bad $s/$w($got, want $m)"
		fi
	done
done
t_is "${bad:-none}" none "main-table woken means match the rt-app logs: per boot, then over the boots"
# Every window of every boot has the host's view of its vCPUs.
bad=""
for d in "$run"/*/measure-r*; do
	n=$(awk -F'\t' '$1 ~ /^v5.4-scan:/ { print $1 }' "$d/steal.tsv" 2>/dev/null | sort -u | wc -l)
	[ "$n" = 6 ] && grep -q '^oversubscribed=[01]$' "$d/provenance" || bad="$bad ${d#"$run"/}($n windows)"
done
t_is "${bad:-none}" none "each boot has steal.tsv rows for its 6 windows and says whether it was oversubscribed"
t_like "$(grep -A3 '^| stage | boots | series_hash' "$report")" "\| baseline \| 2 \| $(series_hash | cut -c1-12) \|" \
	"the report's provenance carries this checkout's series hash"
pols=$(for d in "$run"/*/measure-r*; do for k in 1 2; do t_subtest "$d" "v5.4-scan:t2.$k"; done; done | grep -c '^pass$')
t_is "$pols" 8 "the guest verified every SCHED_IDLE thread's policy (ok v5.4-scan:t2.1 and t2.2 on 4 boots)"
# ABBA: the second window runs the workloads backwards.
seq=$(grep -o 'ok [0-9]* v5.4-scan:[a-z0-9]*\.[12]' "$run/baseline/measure-r1/console.log" | awk '{ print $3 }' | paste -sd ' ')
t_is "$seq" "v5.4-scan:t1.1 v5.4-scan:t2.1 v5.4-scan:hp.1 v5.4-scan:hp.2 v5.4-scan:t2.2 v5.4-scan:t1.2" \
	"windows in alternating order: t1 t2 hp, then hp t2 t1"
# hackbench medians recomputed from the guest's times, repeats pooled.
bad=""
for s in baseline consistent; do
	n=$(cat "$run/$s"/measure-r*/guest/v5.4-scan/hp.[12]/hackbench.txt 2>/dev/null | grep -c '^time_s=')
	m=$(sed -n 's/^time_s=//p' "$run/$s"/measure-r*/guest/v5.4-scan/hp.[12]/hackbench.txt 2>/dev/null |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	[ "$n" = 12 ] && grep -qF "| hp | $s | 12 | $m |" "$report" || bad="$bad $s($n runs, median $m)"
done
t_is "${bad:-none}" none "hackbench rows: 3 runs per window, the medians of this run's times"
t_like "$(grep -A3 '### 001 Test 2' "$report")" "\| seed without \| seed with \| baseline \| consistent \|" \
	"seed figures sit beside this run's, labelled as the seed's"
