#!/bin/bash
# The measurement's figures without a boot: the host's steal reader against
# a copy of /proc and against live threads named as QEMU names its vCPUs;
# metrics.py against answers worked out by hand and against figures
# recomputed here with awk from a recorded run (tests/fixtures/run,
# scripts/record-fixtures.sh run); and report.py's judgements on that run,
# as recorded and with the host's interference written into it.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 33

fix=$TOP/tests/fixtures
steal=$TOP/scripts/vcpu-steal.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -z "${fake:-}" ] || kill "$fake" 2>/dev/null' EXIT
# metric M of stage S, repeat R, workload W (policy v5.4-scan) in table $1.
metric() { awk -F'\t' -v s="$2" -v r="$3" -v w="$4" -v m="$5" '$1 == s && $2 == r && $4 == w && $5 == m { print $6 }' "$1"; }
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(a != "" && d * d <= 1e-6) }'; }

# --- the steal reader ---------------------------------------------
out=$(python3 "$steal" read --proc "$fix/proc" 4242)
t_is "$out" "$(printf '4243\t0\t1000000\t200000\n4244\t1\t3000000\t400000\n4246\t2\t9\t1')" \
	"steal reader: only the vCPU threads (\"CPU N/...\"), with their run and wait times"

# Live: a process whose threads are named as QEMU's vCPUs, one spinning,
# one asleep; the console gets one window's marks.
python3 - "$tmp/pid" <<'EOF' &
import os, sys, threading, time
def vcpu(n, busy):
    with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as f:
        f.write(f"CPU {n}/TCG")
    end = time.time() + 30
    while time.time() < end:
        if not busy:
            time.sleep(0.05)
for n, busy in ((0, True), (1, False)):
    threading.Thread(target=vcpu, args=(n, busy), daemon=True).start()
time.sleep(0.2)
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(30)
EOF
fake=$!
: >"$tmp/console"
python3 "$steal" record --pidfile "$tmp/pid" --console "$tmp/console" --done "$tmp/done" \
	--out "$tmp/steal.tsv" &
mon=$!
# The marks must come while the monitor polls: it opens the console once
# it has the pid (python3 may take a second to start here).
for _ in $(seq 300); do
	[ "$(readlink /proc/$mon/fd/* 2>/dev/null | grep -c "$tmp/console")" = 0 ] || break
	sleep 0.1
done
echo "# window begin v5.4-scan:t2" >>"$tmp/console"
sleep 0.6
echo "noise # window end v5.4-scan:t2 (not a mark)" >>"$tmp/console"
echo "# window end v5.4-scan:t2" >>"$tmp/console"
sleep 0.3
kill "$fake"
wait "$fake" 2>/dev/null
fake=""
wait "$mon"
t_ok $? "steal monitor: exits 0 when the process it follows ends"
rows=$(awk -F'\t' 'NR == 1 { print > "/dev/stderr" } $1 == "v5.4-scan:t2"' "$tmp/steal.tsv" 2>"$tmp/header")
t_is "$(cat "$tmp/header")" "$(printf 'window\tvcpu\ttid\twall_ns\trun_ns\twait_ns')" "steal.tsv: its header"
t_is "$(cut -f2 <<<"$rows" | paste -sd ' ')" "0 1" "steal.tsv: one row per vCPU for the marked window"
# The spinner ran most of the window, the sleeper little of it; a window of
# about 0.6 s (how long exactly depends on this host: no bound on time).
ok=$(awk -F'\t' '$2 == 0 { busy = $5; wall = $4 } $2 == 1 { idle = $5 }
	END { print (wall > 0 && busy > 2 * idle && busy <= wall * 1.05) }' <<<"$rows")
t_is "$ok" 1 "steal.tsv: the spinning vCPU's run time exceeds the sleeper's and fits the window"
t_is "$(grep -c '^boot' "$tmp/steal.tsv")" 2 "steal.tsv: a whole-boot row per vCPU"
# A QEMU that never started writes no pid file: the --done file ends the
# monitor, with an empty table.
python3 "$steal" record --pidfile "$tmp/nopid" --console "$tmp/console" --done "$tmp/done2" \
	--out "$tmp/steal2.tsv" &
mon=$!
sleep 0.5
: >"$tmp/done2"
rc=0
for _ in $(seq 100); do kill -0 "$mon" 2>/dev/null || break; sleep 0.1; done
kill -0 "$mon" 2>/dev/null && { rc=1; kill "$mon"; }
wait "$mon" || rc=$?
t_is "$rc $(wc -l <"$tmp/steal2.tsv" 2>/dev/null)" "0 1" "steal monitor: without a QEMU it ends at the done file, header only"

# --- metrics.py on hand-worked answers ----------------------------
mini=$tmp/mini
mkdir -p "$mini/s/measure-r1/guest/v5.4-scan/t1"
printf 'stage\tplan\tdir\texit\ns\tmeasure\ts/measure-r1\t0\n' >"$mini/boots.tsv"
echo s >"$mini/measure-stages"
cp "$fix/rtapp/known.log" "$mini/s/measure-r1/guest/v5.4-scan/t1/known-cfs-0.log"
printf 'placements=8\nstacked=2\nstacked_us=1500.0\ncpu0_normal_pct=60\ncpu1_normal_pct=40\n' \
	>"$mini/s/measure-r1/guest/v5.4-scan/t1/trace.txt"
python3 "$TOP/scripts/metrics.py" "$mini" 2>/dev/null
t_ok $? "metrics.py: a one-boot run"
m=$mini/metrics.tsv
# wu_lat 50 150 250 1050 0: N 5, mean 300, sample stddev
# sqrt((250^2 + 150^2 + 50^2 + 750^2 + 300^2) / 4) = sqrt(185000) = 430.116;
# the woken ones 50 150 250 1050 have the median (150 + 250) / 2 = 200;
# one of five over 1000 us is 20%; one overran its period (0).
got=""
for k in wu_lat_n wu_lat_mean_us wu_lat_stddev_us wu_lat_max_us wu_lat_median_us wu_lat_over1000_pct wu_lat_zero_n; do
	got="$got $(metric "$m" s all t1 "$k")"
done
t_is "$got" " 5 300.000 430.116 1050.000 200.000 20.000 1" \
	"metrics: N, mean, stddev (n-1), max, median of the woken, over 1000 us, overran"
t_is "$(metric "$m" s all t1 stacked_pct) $(metric "$m" s 1 t1 residency_normal_pct)" "25.000 50.000" \
	"metrics: stacking 2 of 8, residency the mean over CPUs"
t_is "$(metric "$m" s all t1 misplaced_pct)" "" "metrics: an analysis without misplaced= gives no misplaced_pct"
printf 'misplaced=6\n' >>"$mini/s/measure-r1/guest/v5.4-scan/t1/trace.txt"
python3 "$TOP/scripts/metrics.py" "$mini" 2>/dev/null
t_is "$(metric "$m" s all t1 misplaced_pct) $(metric "$m" s 1 t1 misplaced)" "75.000 6" \
	"metrics: misplaced 6 of 8 placements, pooled and per boot"
t_is "$(metric "$m" s all t1 wait_idle_pct)" "" "metrics: an analysis without wait classes gives none"
printf '%s\n' wait_split_tick=1 wait_idle_n=2 wait_idle_us=100.0 wait_at_once_n=4 wait_at_once_us=200.0 \
	wait_tick_n=2 wait_tick_us=5000.0 wait_blocked_n=0 wait_blocked_us=0.0 wait_queued_n=0 \
	wait_queued_us=0.0 wait_moved_n=0 wait_moved_us=0.0 >>"$mini/s/measure-r1/guest/v5.4-scan/t1/trace.txt"
python3 "$TOP/scripts/metrics.py" "$mini" 2>/dev/null
got=""
for k in wait_idle_pct wait_at_once_pct wait_tick_pct wait_tick_us wait_queued_pct; do
	got="$got $(metric "$m" s all t1 "$k")"
done
t_is "$got $(metric "$m" s 1 t1 wait_at_once_us)" " 25.000 50.000 25.000 5000.000 0.000 200.000" \
	"metrics: waits 2 idle, 4 at once, 2 after a tick of 8: shares and mean waits, pooled and per boot"
lo=$(metric "$m" s all t1 wu_lat_mean_lo95_us) hi=$(metric "$m" s all t1 wu_lat_mean_hi95_us)
awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(l <= 300 && 300 <= h && l >= 0 && h <= 1050) }'
t_ok $? "metrics: the bootstrap interval [$lo, $hi] holds the mean and stays in the data"
sum=$(sha1sum <"$m")
python3 "$TOP/scripts/metrics.py" "$mini" 2>/dev/null
t_is "$(sha1sum <"$m")" "$sum" "metrics: the same run gives the same table (fixed seed)"
cp "$fix/rtapp/truncated.log" "$mini/s/measure-r1/guest/v5.4-scan/t1/known-cfs-0.log"
err=$(python3 "$TOP/scripts/metrics.py" "$mini" 2>&1)
t_like "$? $err" "^1 error: .*known-cfs-0.log:3: not an rt-app 1.0 log line$" \
	"metrics: a truncated log is one error line naming its file and line, exit 1"

# --- metrics.py on a recorded run, recomputed with awk -------------
run=$tmp/run
cp -r "$fix/run" "$run"
python3 "$TOP/scripts/metrics.py" "$run" 2>/dev/null
m=$run/metrics.tsv
t_is "$(head -n1 "$m")" "$(printf 'stage\trepeat\tpolicy\tworkload\tmetric\tvalue')" "metrics.tsv: its header"
bad=""
for s in baseline consistent; do
	for w in t1 t2; do
		want=$(awk '!/^#/ && NF == 11 { s += $11; n++ } END { printf "%.3f", s / n }' \
			"$run/$s"/measure-r*/guest/v5.4-scan/$w/*-cfs-*.log)
		close "$(metric "$m" "$s" all "$w" wu_lat_mean_us)" "$want" || bad="$bad $s/$w"
	done
	want=$(awk '!/^#/ && NF == 11 { n++; o += $11 > 1000 } END { printf "%.3f", 100 * o / n }' \
		"$run/$s"/measure-r*/guest/v5.4-scan/t2/*-cfs-*.log)
	close "$(metric "$m" "$s" all t2 wu_lat_over1000_pct)" "$want" || bad="$bad $s/over1000"
	want=$(awk -F= '$1 == "placements" { p += $2 } $1 == "stacked" { k += $2 } END { printf "%.3f", 100 * k / p }' \
		"$run/$s"/measure-r*/guest/v5.4-scan/t2/trace.txt)
	close "$(metric "$m" "$s" all t2 stacked_pct)" "$want" || bad="$bad $s/stacked"
done
t_is "${bad:-none}" none "metrics: pooled t1/t2 means, over-1000 shares and stacking match awk over the raw files"
want=$(awk -F'\t' '$1 == "v5.4-scan:t2" { w += $4; s += $6 } END { printf "%.3f", 100 * s / w }' \
	"$run/consistent/measure-r2/steal.tsv")
close "$(metric "$m" consistent 2 t2 steal_pct)" "$want"
t_ok $? "metrics: a window's steal is the vCPUs' wait over their wall time ($want%)"

# --- report.py ------------------------------------------------------
python3 "$TOP/scripts/report.py" "$run" 2>/dev/null
t_ok $? "report.py writes the report of the recorded run"
missing=""
for section in "## Provenance" "## Main table" "## The seed's claims" "## Host interference" \
	"### Avoidable stacking, t2" "### 001 Test 2" "### 001 Test 1" "### Noise floor" "### hackbench" \
	"## What QEMU can and cannot model"; do
	grep -qF "$section" "$run/report.md" || missing="$missing [$section]"
done
t_is "${missing:-none}" none "report.md has every section"
mean=$(awk -v m="$(metric "$m" consistent all t2 wu_lat_mean_us)" 'BEGIN { printf "%.1f", m }')
t_like "$(cat "$run/main-table.md")" "^\| v5.4-scan \| consistent \| [0-9.]+ \| $mean \|" \
	"the main table's t2 mean is the table's ($mean, one decimal)"
t_is "$(grep -c '^| (a) t2/t1 without the series | .*| \(reproduced\|not reproduced\|inconclusive: .*\|not comparable (.*)\) |$' "$run/report.md")" 1 \
	"claim (a) has a verdict in words"
# The verdict rule itself: the whole interval on the target's side, the
# whole interval off it, straddling, and evidence that forbids a verdict.
got=$(cd "$TOP/scripts" && python3 -c '
from report import Report as R
v = R.verdict
print(v(4.5, 5.0, 4, True, None), v(1.0, 3.9, 4, True, None), v(3.0, 5.0, 4, True, None),
      v(1.0, 1.2, 1.3, False, None), v(1.31, 1.6, 1.3, False, None), v(4.5, 5.0, 4, True, "noisy"),
      v(None, None, 4, True, None), sep="|")')
t_is "$got" "reproduced|not reproduced|inconclusive: the interval straddles the target|reproduced|not reproduced|not comparable (noisy)|no interval" \
	"verdicts: reproduced, not reproduced, inconclusive, not comparable, no interval"

# A run with a nested workload: n2 as a copy of t2 whose analysis also
# counts misplaced wakeups (4 of each boot's placements) and classifies
# the waits: 3 at once and 1 after a tick, but the second boot's trace
# had no tick events (4 preempted), so no stage pools them.
nest=$tmp/nested
cp -r "$fix/run" "$nest"
for d in "$nest"/*/measure-r*/guest/v5.4-scan; do
	cp -r "$d/t2" "$d/n2"
	printf 'misplaced=4\n' >>"$d/n2/trace.txt"
	case $d in
	*-r1/*) printf '%s\n' wait_split_tick=1 wait_at_once_n=3 wait_at_once_us=300.0 wait_tick_n=1 \
		wait_tick_us=4000.0 >>"$d/n2/trace.txt" ;;
	*) printf '%s\n' wait_split_tick=0 wait_preempted_n=4 wait_preempted_us=500.0 >>"$d/n2/trace.txt" ;;
	esac
done
python3 "$TOP/scripts/metrics.py" "$nest" 2>/dev/null && python3 "$TOP/scripts/report.py" "$nest" 2>/dev/null
want=$(for f in "$nest"/baseline/measure-r[12]/guest/v5.4-scan/n2/trace.txt; do
	awk -F= '$1 == "placements" { printf "%.1f\n", 400 / $2 }' "$f"; done | paste -sd/ | sed 's|/| / |')
t_like "$(sed -n '/^### Nested cgroups/,/^### /p' "$nest/report.md" | grep '^| n2 | baseline |')" \
	"^\| n2 \| baseline \| [0-9. /]+ \| $want \| [0-9 /]+ \| [0-9. /]+ \|$" \
	"report: the nested section has n2's misplaced % per repeat ($want)"
t_is "$(metric "$nest/metrics.tsv" baseline 1 n2 wait_tick_pct) $(metric "$nest/metrics.tsv" baseline 2 n2 wait_preempted_pct) $(metric "$nest/metrics.tsv" baseline all n2 wait_tick_pct)" \
	"25.000 100.000 " "metrics: waits per boot, and none pooled over traces split unlike"
cp "$nest"/baseline/measure-r1/guest/v5.4-scan/n2/trace.txt "$nest"/baseline/measure-r2/guest/v5.4-scan/n2/trace.txt
python3 "$TOP/scripts/metrics.py" "$nest" 2>/dev/null && python3 "$TOP/scripts/report.py" "$nest" 2>/dev/null
t_like "$(sed -n '/^### How the normal tasks/,/^### /p' "$nest/report.md" | grep '^| n2 | baseline |')" \
	"^\| n2 \| baseline \| 75\.0 \(300\) \| 25\.0 \(4000\) \|$" \
	"report: the waits section pools n2's boots alike (3 at once, 1 after a tick each)"

# One boot a stage: no A/A spread, so no verdict on latency.
one=$tmp/one
cp -r "$fix/run" "$one"
awk -F'\t' 'NR == 1 || $3 ~ /-r1$/' "$fix/run/boots.tsv" >"$one/boots.tsv"
python3 "$TOP/scripts/metrics.py" "$one" 2>/dev/null && python3 "$TOP/scripts/report.py" "$one" 2>/dev/null
t_like "$(grep '^| (a) t2/t1 without' "$one/report.md")" "not comparable \(baseline has one boot, so no A/A spread" \
	"one boot a stage: latency not comparable"
# A boot without the host's steal reading is no evidence of a quiet host.
cp -r "$fix/run" "$tmp/nosteal"
rm "$tmp/nosteal/baseline/measure-r2/steal.tsv"
python3 "$TOP/scripts/metrics.py" "$tmp/nosteal" 2>/dev/null && python3 "$TOP/scripts/report.py" "$tmp/nosteal" 2>/dev/null
t_like "$(grep '^| (a) t2/t1 without' "$tmp/nosteal/report.md")" "not comparable \(.*2 t1/t2 window\(s\) without the host's steal reading" \
	"a boot without steal.tsv: latency not comparable"

# The same run as if its guests had more vCPUs than the host, and with a
# window in which the vCPUs waited for the host half the time.
sed -i 's/^oversubscribed=0/oversubscribed=1/' "$run/baseline/measure-r1/provenance"
awk -F'\t' -v OFS='\t' '$1 == "v5.4-scan:t1" { $6 = int($4 / 2) } 1' "$run/consistent/measure-r1/steal.tsv" \
	>"$tmp/s" && mv "$tmp/s" "$run/consistent/measure-r1/steal.tsv"
python3 "$TOP/scripts/metrics.py" "$run" 2>/dev/null && python3 "$TOP/scripts/report.py" "$run" 2>/dev/null
t_like "$(grep '^| (a) t2/t1 without' "$run/report.md")" "not comparable \(oversubscribed" \
	"an oversubscribed boot makes its stage's latency not comparable"
t_like "$(grep '^| (b) t2/t1 with the series | .* consistent ' "$run/report.md")" \
	"not comparable \(.*1 t1/t2 window\(s\) over the steal threshold" \
	"a window over the steal threshold makes its stage's latency not comparable"
t_like "$(cat "$run/report.md")" "\*\*1 of [0-9]+ windows flagged.\*\*" "and the report counts the flagged windows"
