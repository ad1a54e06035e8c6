#!/usr/bin/env python3
"""Write a measurement run's report.md, main-table.md and plots.

usage: report.py RUNDIR

Every figure comes from RUNDIR/metrics.tsv (scripts/metrics.py); this
script only selects, formats and judges them. Besides the table it reads
the boots' provenance (what ran where) and, for the per-CPU timeline
picture, the analyser's timeline.dat. The seed's figures are the only
constants, and the report labels them as the seed's.
"""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from metrics import STEAL_FLAG_PCT, WAITS, read_kv  # noqa: E402 (one definition of each)

# The seed (001, 005; HiKey, 5.3): its st output, quoted.
SEED_T2_WITHOUT = {"wu_lat_n": 4710, "wu_lat_mean_us": 1116.68, "wu_lat_stddev_us": 2315.09,
                   "wu_lat_max_us": 67664, "over": "34% (1218)"}
SEED_T2_WITH = {"wu_lat_n": 5095, "wu_lat_mean_us": 102.683, "wu_lat_stddev_us": 475.482,
                "wu_lat_max_us": 7773, "over": "0.8% (40)"}
SEED_T1 = {"wu_lat_n": 5136, "wu_lat_mean_us": 104.358, "wu_lat_stddev_us": 104.585,
           "wu_lat_max_us": 2452, "over": "0.3% (17)"}
SEED_RATIO_WITHOUT = 1116.68 / 104.358
SEED_RATIO_WITH = 102.683 / 104.358
SEED_P = {"p1": 307.134, "p2": 177.336, "p3": 64.3297}
# What a reproduction must show on this machine (issue 14's targets): the
# background costs at least 4x without the series and at most 1.3x with
# it; over 1000 us at least 15% without and at most 3% with; and a stage's
# own t2 mean moves less than 20% between its boots.
TARGET_RATIO_WITHOUT = 4.0
TARGET_RATIO_WITH = 1.3
TARGET_OVER_WITHOUT = 15.0
TARGET_OVER_WITH = 3.0
TARGET_AA = 20.0
# Which stages the claims compare: the LOCAL baseline is the kernel
# without the series; tracking only adds the counter, and sis-util is the
# project's own fix, judged on its own; every other stage (the packaged
# tree included) has the series' wakeup path.
WITHOUT = "baseline"
NOT_WITH = {"baseline", "tracking", "sis-util"}
# The workloads of the nested-cgroup and wait-class tables: the flat t2
# beside n2, p1 and p3 beside n3.
NESTED_ROWS = ("t2", "n2", "p1", "p3", "n3")
WAIT_LABELS = {"idle": "idle CPU", "at_once": "preempted at once", "tick": "after a tick",
               "preempted": "preempted (tick not traced)", "blocked": "curr slept",
               "queued": "others ran first", "moved": "migrated"}
P_WHAT = {"p1": "alone", "p2": "+1 SCHED_IDLE pinned next door", "p3": "+N unpinned SCHED_IDLE"}


class Metrics:
    def __init__(self, path):
        lines = path.read_text().splitlines()
        if not lines or lines[0] != "stage\trepeat\tpolicy\tworkload\tmetric\tvalue":
            raise SystemExit(f"error: {path}: not a metrics table (scripts/metrics.py)")
        self.v = {}
        self.repeats = {}
        self.policies = []
        self.workloads = {}
        for line in lines[1:]:
            stage, rep, policy, w, metric, value = line.split("\t")
            self.v[(stage, rep, policy, w, metric)] = value
            if rep != "all":
                self.repeats.setdefault(stage, set()).add(int(rep))
            if policy not in self.policies:
                self.policies.append(policy)
            self.workloads.setdefault(policy, [])
            if w not in self.workloads[policy]:
                self.workloads[policy].append(w)

    def get(self, stage, policy, w, metric, rep="all"):
        return self.v.get((stage, str(rep), policy, w, metric))

    def num(self, stage, policy, w, metric, rep="all"):
        x = self.get(stage, policy, w, metric, rep)
        return float(x) if x is not None else None

    def reps(self, stage):
        return sorted(self.repeats.get(stage, ()))

    def per_boot(self, stage, policy, w, metric, digits=None):
        """One cell of a metric's per-boot values, "a / b / c": as
        metrics.tsv wrote them, or rounded to DIGITS; "-" for a gap."""
        if digits is None:
            return " / ".join(self.get(stage, policy, w, metric, r) or "-" for r in self.reps(stage))
        return " / ".join(f(self.num(stage, policy, w, metric, r), digits) for r in self.reps(stage))

    def has(self, policy, w):
        return w in self.workloads.get(policy, [])


def f(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


class Report:
    def __init__(self, rundir):
        self.dir = Path(rundir)
        self.m = Metrics(self.dir / "metrics.tsv")
        self.stages = (self.dir / "measure-stages").read_text().split()
        self.first = self.stages[0]
        self.boots = {}
        for line in (self.dir / "boots.tsv").read_text().splitlines()[1:]:
            stage, plan, d, _ = line.split("\t")
            if plan == "measure":
                self.boots.setdefault(stage, []).append(self.dir / d)
        self.plots = self.dir / "plots"
        self.plots.mkdir(exist_ok=True)
        self.out = []

    def p(self, *lines):
        self.out.extend(lines)

    def prov(self, stage, i=0):
        return read_kv(self.boots[stage][i] / "provenance")

    # --- judgements -------------------------------------------------
    def oversubscribed(self, stages):
        return any(self.m.get(s, pol, w, "oversubscribed", r) == "1"
                   for s in stages for pol in self.m.policies for w in self.m.workloads[pol]
                   for r in self.m.reps(s))

    def comparable(self, stages, policy, workloads):
        """None if the latency of workloads on stages may be compared, else
        why not. Missing evidence counts against: a stage needs two boots
        or more for an A/A spread, and the host's view of every window."""
        why = []
        if self.oversubscribed(stages):
            why.append("oversubscribed: more vCPUs than host CPUs")
        flagged = unseen = 0
        for s in stages:
            if len(self.m.reps(s)) < 2:
                why.append(f"{s} has one boot, so no A/A spread")
            for w in workloads:
                for r in self.m.reps(s):
                    st = self.m.get(s, policy, w, "steal_flagged", r)
                    flagged += st == "1"
                    unseen += st is None
                aa = self.m.num(s, policy, w, "wu_lat_mean_aa_spread_pct")
                if aa is not None and aa > TARGET_AA:
                    why.append(f"{s}'s {w} mean moved {aa:.1f}% between its boots, over {TARGET_AA:.0f}%")
        if flagged:
            why.append(f"{flagged} {'/'.join(workloads)} window(s) over the steal threshold")
        if unseen:
            why.append(f"{unseen} {'/'.join(workloads)} window(s) without the host's steal reading")
        return "; ".join(why) or None

    @staticmethod
    def verdict(lo, hi, target, at_least, why):
        if why:
            return f"not comparable ({why})"
        if lo is None or hi is None:
            return "no interval"
        if (lo >= target) if at_least else (hi <= target):
            return "reproduced"
        if (hi < target) if at_least else (lo > target):
            return "not reproduced"
        return "inconclusive: the interval straddles the target"

    # --- tables -----------------------------------------------------
    def main_table(self):
        rows = ["| scan policy | stage | t2 stacked % | t2 wu_lat mean (us) | t1 wu_lat mean (us) "
                "| t2/t1 [95% CI] | t2 over 1000 us % | t2 steal % |",
                "|---|---|---|---|---|---|---|---|"]
        for pol in self.m.policies:
            if not self.m.has(pol, "t2"):
                continue
            for s in self.stages:
                g = lambda w, k: self.m.num(s, pol, w, k)  # noqa: E731
                rows.append(f"| {pol} | {s} | {f(g('t2', 'stacked_pct'))} | {f(g('t2', 'wu_lat_mean_us'), 1)} "
                            f"| {f(g('t1', 'wu_lat_mean_us'), 1)} | {f(g('t2/t1', 'wu_lat_mean_ratio'))} "
                            f"[{f(g('t2/t1', 'wu_lat_mean_ratio_lo95'))}, {f(g('t2/t1', 'wu_lat_mean_ratio_hi95'))}] "
                            f"| {f(g('t2', 'wu_lat_over1000_pct'), 1)} | {f(g('t2', 'steal_pct'), 1)} |")
        return rows

    def claims(self, policy):
        m = self.m
        if not (m.has(policy, "t1") and m.has(policy, "t2")):
            self.p("This run has no t1 and t2 under this policy: no claim to check.", "")
            return
        without = WITHOUT if WITHOUT in self.stages else None
        with_ = [s for s in self.stages if s not in NOT_WITH]
        if not without:
            self.p(f"Stage {WITHOUT} was not measured: no claim about the kernel without the series.", "")
        self.p("| claim | seed | stage | this run [95% CI] | A/A spread of the means | target | verdict |",
               "|---|---|---|---|---|---|---|")

        def row(claim, seed, s, w, metric, target, at_least, unit, judged=True):
            lo_k, hi_k = (metric + "_lo95", metric + "_hi95") if w == "t2/t1" else \
                ("wu_lat_over1000_lo95_pct", "wu_lat_over1000_hi95_pct")
            val, lo, hi = m.num(s, policy, w, metric), m.num(s, policy, w, lo_k), m.num(s, policy, w, hi_k)
            # A ratio moves with either of its means.
            ws = ("t1", "t2") if w == "t2/t1" else ("t2",)
            aa = " / ".join(f"{w_} {f(m.num(s, policy, w_, 'wu_lat_mean_aa_spread_pct'), 1)}%" for w_ in ws)
            if judged:
                op = ">=" if at_least else "<="
                target_s = f"{op} {target:g}{unit}"
                verdict = self.verdict(lo, hi, target, at_least, self.comparable([s], policy, ws))
            else:
                target_s, verdict = "-", "reference: the stage before the fix"
            self.p(f"| {claim} | {seed} | {s} | {f(val)}{unit} [{f(lo)}, {f(hi)}] | {aa} | {target_s} | {verdict} |")

        if without:
            row("(a) t2/t1 without the series", f"{SEED_RATIO_WITHOUT:.1f}x", without, "t2/t1",
                "wu_lat_mean_ratio", TARGET_RATIO_WITHOUT, True, "x")
        for s in with_:
            row("(b) t2/t1 with the series", f"{SEED_RATIO_WITH:.2f}x", s, "t2/t1",
                "wu_lat_mean_ratio", TARGET_RATIO_WITH, False, "x")
        if without:
            row("(c) t2 over 1000 us without", "34%", without, "t2", "wu_lat_over1000_pct",
                TARGET_OVER_WITHOUT, True, "%")
        for s in with_:
            row("(c) t2 over 1000 us with", "0.8%", s, "t2", "wu_lat_over1000_pct",
                TARGET_OVER_WITH, False, "%")
        # The fix changes SIS_UTIL's scan budget: under v5.4-scan (no
        # SIS_UTIL) it has nothing to act on.
        if "sis-util" in self.stages and policy == "defaults":
            i = self.stages.index("sis-util")
            if i > 0:
                row("SIS_UTIL fix: t2/t1", "-", self.stages[i - 1], "t2/t1", "wu_lat_mean_ratio",
                    TARGET_RATIO_WITH, False, "x", judged=False)
            row("SIS_UTIL fix: t2/t1", "-", "sis-util", "t2/t1", "wu_lat_mean_ratio",
                TARGET_RATIO_WITH, False, "x")
        self.p("", f"Without the series is stage {WITHOUT}; with it, every measured stage but "
               f"{', '.join(sorted(NOT_WITH))}. A claim is reproduced when its whole 95% interval "
               "meets the target, and not reproduced when the whole interval misses it. Latency is not "
               "comparable when a boot had more vCPUs than host CPUs, a stage had one boot, a window "
               "lacks the host's steal reading or exceeds the steal threshold, or a mean the claim "
               f"rests on moved more than {TARGET_AA:.0f}% between the stage's boots. The intervals "
               "resample activations within each boot; the A/A spread is the between-boot variation "
               "they do not include.", "")

    def steal_table(self):
        m = self.m
        total = flagged = 0
        rows = ["| scan policy | workload |" + "".join(f" {s} |" for s in self.stages),
                "|---|---|" + "---|" * len(self.stages)]
        for pol in m.policies:
            for w in m.workloads[pol]:
                if w == "t2/t1":
                    continue
                cells = []
                for s in self.stages:
                    each = []
                    for r in m.reps(s):
                        v = m.num(s, pol, w, "steal_pct", r)
                        if v is None:
                            continue
                        total += 1
                        bad = m.get(s, pol, w, "steal_flagged", r) == "1"
                        flagged += bad
                        each.append(f"**{v:.1f}**" if bad else f"{v:.1f}")
                    cells.append(" / ".join(each) or "-")
                rows.append(f"| {pol} | {w} |" + "".join(f" {c} |" for c in cells))
        thr = f"{STEAL_FLAG_PCT:g}"
        self.p(f"Each cell: the vCPU threads' time waiting for a host CPU, % of their wall time, per "
               f"boot (host /proc/PID/task/TID/schedstat, scripts/vcpu-steal.py). Bold: over the "
               f"{thr}% threshold (scripts/metrics.py says why). **{flagged} of {total} windows "
               f"flagged.**", "")
        self.p(*rows)
        self.p("")

    def stacking_table(self, pol):
        self.p("| stage | placements | stacked | stacked % | per repeat % | time stacked (ms) |",
               "|---|---|---|---|---|---|")
        for s in self.stages:
            g = lambda k, r="all": self.m.get(s, pol, "t2", k, r)  # noqa: E731
            each = self.m.per_boot(s, pol, "t2", "stacked_pct")
            self.p(f"| {s} | {g('placements')} | {g('stacked')} | **{f(self.m.num(s, pol, 't2', 'stacked_pct'))}** "
                   f"| {each} | {f(self.m.num(s, pol, 't2', 'stacked_ms'), 1)} |")

    def wulat_table(self, pol, w):
        stages = self.stages
        if w == "t2":
            self.p("| | seed without | seed with |" + "".join(f" {s} |" for s in stages),
                   "|---|---|---|" + "---|" * len(stages))
            seeds = [SEED_T2_WITHOUT, SEED_T2_WITH]
        else:
            self.p("| | seed |" + "".join(f" {s} |" for s in stages), "|---|---|" + "---|" * len(stages))
            seeds = [SEED_T1]
        rows = [("N", "wu_lat_n"), ("mean", "wu_lat_mean_us"), ("stddev", "wu_lat_stddev_us"),
                ("max", "wu_lat_max_us"), ("over 1000 us", "over"), ("overran its period (wu_lat 0)", "wu_lat_zero_n"),
                ("mean of woken activations", "woken_mean_us"),
                ("median of woken activations [95% CI]", "median")]
        for label, key in rows:
            cells = [str(sd.get(key, "-")) for sd in seeds]
            for s in stages:
                g = lambda k: self.m.get(s, pol, w, k)  # noqa: E731
                if key == "over":
                    cells.append(f"{f(self.m.num(s, pol, w, 'wu_lat_over1000_pct'), 1)}% ({g('wu_lat_over1000_n')})")
                elif key == "median":
                    cells.append(f"{g('wu_lat_median_us')} [{g('wu_lat_median_lo95_us')}, {g('wu_lat_median_hi95_us')}]")
                else:
                    cells.append(g(key) or "-")
            self.p(f"| {label} |" + "".join(f" {c} |" for c in cells))

    def nested_table(self, pol):
        """Each workload that matters to a nested cpu.idle group, with its
        decision figures and wu_lat, per repeat: the flat t2 beside n2, and
        p1/p3 beside n3."""
        self.p("| workload | stage | stacked % per repeat | misplaced % per repeat "
               "| wu_lat mean per repeat (us) | over 1 ms % per repeat |",
               "|---|---|---|---|---|---|")
        for w in NESTED_ROWS:
            if not self.m.has(pol, w):
                continue
            for s in self.stages:
                b = lambda k, d=1: self.m.per_boot(s, pol, w, k, d)  # noqa: E731
                self.p(f"| {w} | {s} | {b('stacked_pct')} | {b('misplaced_pct')} "
                       f"| {b('wu_lat_mean_us', 0)} | {b('wu_lat_over1000_pct')} |")

    def waits_shown(self, pol):
        """The wait classes that some stage of the table's workloads has a
        pooled figure for, in WAITS order."""
        return [c for c in WAITS if any(self.m.get(s, pol, w, f"wait_{c}_pct") is not None
                                        for s in self.stages for w in NESTED_ROWS)]

    def waits_table(self, pol):
        """How the normal wakees' waits ended, all repeats pooled, per
        workload and stage: the share of each class and its mean wait.
        A run whose traces lack the tick's hrtimer has "preempted" for
        "at once" and "tick"; a stage whose boots differ in that has no
        pooled row."""
        shown = self.waits_shown(pol)
        self.p("| workload | stage |" + "".join(f" {WAIT_LABELS[c]} % (mean us) |" for c in shown),
               "|---|---|" + "---|" * len(shown))
        for w in NESTED_ROWS:
            if not self.m.has(pol, w):
                continue
            for s in self.stages:
                cells = [f"{f(self.m.num(s, pol, w, f'wait_{c}_pct'), 1)} ({f(self.m.num(s, pol, w, f'wait_{c}_us'), 0)})"
                         if self.m.get(s, pol, w, f"wait_{c}_pct") is not None else "-" for c in shown]
                self.p(f"| {w} | {s} |" + "".join(f" {c} |" for c in cells))

    def noise_table(self, pol):
        if len(self.m.reps(self.first)) < 2:
            self.p("One boot per stage (REPEAT=1): no A/A comparison in this run.")
            return
        self.p("| stage | t2 stacked % per repeat | t2 wu_lat mean per repeat (us) | A/A spread of the mean |",
               "|---|---|---|---|")
        for s in self.stages:
            st = self.m.per_boot(s, pol, "t2", "stacked_pct")
            mn = self.m.per_boot(s, pol, "t2", "wu_lat_mean_us")
            self.p(f"| {s} | {st} | {mn} | {f(self.m.num(s, pol, 't2', 'wu_lat_mean_aa_spread_pct'), 0)}% |")

    def pinned_table(self, pol):
        self.p("| 005 case | seed mean |" + "".join(f" {s} mean |" for s in self.stages),
               "|---|---|" + "---|" * len(self.stages))
        for w in ("p1", "p2", "p3"):
            if self.m.has(pol, w):
                self.p(f"| {w}: {P_WHAT[w]} | {SEED_P[w]} |"
                       + "".join(f" {self.m.get(s, pol, w, 'wu_lat_mean_us') or '-'} |" for s in self.stages))

    def hackbench_table(self, pol):
        self.p(f"| workload | stage | runs | median (s) | per boot | A/A spread | vs {self.first} |",
               "|---|---|---|---|---|---|---|")
        for w in ("hp", "ht", "hf", "hi"):
            if not self.m.has(pol, w):
                continue
            ref = self.m.num(self.first, pol, w, "hackbench_median_s")
            for s in self.stages:
                med = self.m.num(s, pol, w, "hackbench_median_s")
                each = self.m.per_boot(s, pol, w, "hackbench_median_s")
                vs = f"{100 * (med - ref) / ref:+.1f}%" if med is not None and ref else "-"
                self.p(f"| {w} | {s} | {self.m.get(s, pol, w, 'hackbench_runs')} | {self.m.get(s, pol, w, 'hackbench_median_s')} "
                       f"| {each} | {f(self.m.num(s, pol, w, 'hackbench_aa_spread_pct'), 0)}% | {vs} |")

    def scan_table(self, pol):
        rows = []
        for w in self.m.workloads[pol]:
            for s in self.stages:
                c = self.m.get(s, pol, w, "sis_calls")
                if c is None:
                    continue
                skip = self.m.per_boot(s, pol, w, "sis_util_skip_pct", 1)
                depth = self.m.per_boot(s, pol, w, "sis_scanned_per_call", 2)
                rows.append(f"| {w} | {s} | {c} | {f(self.m.num(s, pol, w, 'sis_util_skip_pct'), 1)}% | {skip} | "
                            f"{f(self.m.num(s, pol, w, 'sis_scanned_per_call'))} | {depth} | "
                            f"{f(self.m.num(s, pol, w, 'sis_found_pct'), 1)}% |")
        if not rows:
            self.p("No stage of this run has the scan counters (LOCAL scan-stats patch).")
            return
        self.p("| workload | stage | select_idle_cpu() calls | ended by SIS_UTIL | per boot (%) | CPUs scanned per call | per boot | found a CPU |",
               "|---|---|---|---|---|---|---|---|", *rows)

    def residency_table(self, pol):
        self.p("| stage | normal % | SCHED_IDLE % | idle % |", "|---|---|---|---|")
        for s in self.stages:
            self.p(f"| {s} |" + "".join(f" {f(self.m.num(s, pol, 't2', f'residency_{c}_pct'), 1)} |"
                                        for c in ("normal", "sched_idle", "idle")))

    # --- plots ------------------------------------------------------
    def gnuplot(self, script, name):
        log = self.plots / "gnuplot.log"
        with open(log, "w") as lf:
            rc = subprocess.run(["gnuplot", "-e", script], stderr=lf).returncode
        if rc:
            last = (log.read_text().strip().splitlines() or ["?"])[-1]
            raise SystemExit(f"error: gnuplot failed on {name}: {last}")

    def plot_quantiles(self, pol, w):
        """wu_lat of woken activations by quantile, from the table's woken_pN_us."""
        png = self.plots / f"cdf-{pol}-{w}.png"
        parts = []
        for s in self.stages:
            dat = self.plots / f"quantiles-{pol}-{w}-{s}.dat"
            pts = []
            for k, v in self.m.v.items():
                if k[0] == s and k[1] == "all" and k[2] == pol and k[3] == w and k[4].startswith("woken_p"):
                    pts.append((float(v), int(k[4][7:-3]) / 100))
            dat.write_text("# wu_lat_us fraction\n" + "".join(f"{a} {b}\n" for a, b in sorted(pts)))
            parts.append(f"'{dat}' using 1:2 with linespoints lw 2 title '{s}'")
        self.gnuplot("set terminal png size 800,500; "
                     f"set output '{png}'; "
                     f"set title 'wu\\_lat quantiles of woken activations, workload {w}, scan policy {pol}'; "
                     "set xlabel 'wu\\_lat (us)'; set ylabel 'fraction of activations'; "
                     "set logscale x; set key bottom right; set grid; plot " + ", ".join(parts), png.name)
        return png.name

    def plot_timeline(self, pol):
        shown = [self.first, self.stages[-1]] if len(self.stages) > 1 else [self.first]
        png = self.plots / f"timeline-{pol}.png"
        lines = [f"set terminal png size 1000,{220 * len(shown) + 60}; set output '{png}'",
                 f"set multiplot layout {len(shown)},1 title 'per-CPU timeline, t2, scan policy {pol} "
                 "(red normal, blue SCHED\\_IDLE, grey idle)'",
                 "set ylabel 'CPU'; set xlabel 'seconds since trace start'; set ytics 1"]
        for s in shown:
            dat = self.boots[s][0] / "guest" / pol / "t2" / "timeline.dat"
            lines.append(f"set title '{s}'; set yrange [-0.6:*]")
            lines.append(f"plot '{dat}' using ($2+$3)/2:1:($2):($3):($1-0.4):($1+0.4):"
                         "(strcol(4) eq 'normal' ? 0xdd2222 : strcol(4) eq 'sched_idle' ? 0x2255dd : 0xbbbbbb) "
                         "with boxxyerror fs solid lc rgb variable notitle")
        lines.append("unset multiplot")
        self.gnuplot("; ".join(lines), png.name)
        return png.name

    # --- the report -------------------------------------------------
    def provenance(self):
        self.p("| stage | boots | series_hash | kernel .config hash | accel | smp | host CPUs | oversubscribed | vCPUs pinned |",
               "|---|---|---|---|---|---|---|---|---|")
        for s in self.stages:
            pv = self.prov(s)
            self.p(f"| {s} | {len(self.boots[s])} | {pv.get('series_hash', '-')[:12]} | "
                   f"{pv.get('kernel_config_hash', '-')[:12]} | {pv.get('accel', '-')} | {pv.get('smp', '-')} | "
                   f"{pv.get('host_cpus', '-')} | {'yes' if self.oversubscribed([s]) else 'no'} | "
                   f"{'yes' if pv.get('vcpu_pinned') == '1' else 'no'} |")
        pv = self.prov(self.first)
        loads = [read_kv(b / "provenance").get("host_load", "?").split()[0]
                 for s in self.stages for b in self.boots[s]]
        self.p("", f"QEMU: {pv.get('qemu', '-')}; host {pv.get('host', '-')}; host load (1 min) at each "
               f"boot's start: {', '.join(loads)}.", "",
               "First boot's QEMU command:", "", "```", pv.get("qemu_command", "-"), "```")

    def write(self):
        m = self.m
        nrep = len(m.reps(self.first))
        over = self.oversubscribed(self.stages)
        self.p("# SCHED_IDLE CPU selection: measured effect", "",
               f"Run `{self.dir.name}`, stages: {' '.join(self.stages)}; boots interleaved in that order, "
               f"{nrep} repeat(s). Latency is wall-clock time in a TCG guest: compare stages within this "
               "run, with the host's interference beside it, never the seed's absolute figures.", "")
        if over:
            self.p("**This run's guests had more vCPUs than the host had CPUs (oversubscribed): its "
                   "latency figures are not comparable; its decisions (stacking) still count.**", "")
        self.p("## Provenance")
        self.provenance()
        self.p("", "## Main table", *self.main_table(), "")
        self.p("## The seed's claims, with this run's numbers", "")
        for pol in m.policies:
            self.p(f"### Scan policy: {pol}", "")
            self.claims(pol)
        self.p("## Host interference (steal)", "")
        self.steal_table()
        for pol in m.policies:
            self.p(f"## Scan policy: {pol}", "")
            if m.has(pol, "t2"):
                self.p("### Avoidable stacking, t2 (decision metric)",
                       "A normal task's wakeup placed on a CPU that already ran or queued work it cannot "
                       "preempt at once while another CPU of the LLC had only work it can (SCHED_IDLE "
                       "tasks that a woken normal task of the root cgroup preempts at once under the "
                       "guest kernel's rule).", "")
                self.stacking_table(pol)
                self.p("", "### 001 Test 2: CFS tasks + SCHED_IDLE hogs, wu_lat (us)")
                self.wulat_table(pol, "t2")
                self.p("", f"![wu_lat quantiles t2](plots/{self.plot_quantiles(pol, 't2')})", "",
                       f"![timeline](plots/{self.plot_timeline(pol)})", "",
                       "### Residency by class, t2, all repeats (mean over CPUs)")
                self.residency_table(pol)
                self.p("", "### Noise floor (A/A: each stage booted more than once)")
                self.noise_table(pol)
                self.p("")
            if m.has(pol, "n2") or m.has(pol, "n3"):
                self.p("### Nested cgroups: SCHED_IDLE hogs in /nest/idle (cpu.idle=1) below a normal /nest",
                       "n2 and n3 are t2 and p3 with the hogs there. Misplaced: a normal task's wakeup "
                       "placed on a CPU whose only work is SCHED_IDLE and includes a task it cannot "
                       "preempt at once (on 6.12, since faa42d29419d, a SCHED_IDLE task below a normal "
                       "cgroup); a count by policy calls that CPU sched-idle. Stacked uses the same "
                       "rule: a CPU with such a task is not free.", "")
                self.nested_table(pol)
                self.p("")
            if self.waits_shown(pol):
                self.p("### How the normal tasks' waits ended, all repeats",
                       "Per wakeup of a normal task onto a CPU a trace event had shown "
                       "(scripts/sched-idle-analyse.c): the target CPU was idle; its task was "
                       "preempted for the wakee with no scheduler tick on that CPU in between "
                       "(at once), or after one (a tick: the wakeup did not preempt); its task "
                       "slept; other tasks ran there first; or the wakee was migrated before it ran.",
                       "")
                self.waits_table(pol)
                self.p("")
            if m.has(pol, "t1"):
                self.p("### 001 Test 1: CFS tasks only, wu_lat (us)")
                self.wulat_table(pol, "t1")
                self.p("")
            if m.has(pol, "p1") or m.has(pol, "p2") or m.has(pol, "p3"):
                self.p("### 005 Tests 1-3: one pinned CFS task, wu_lat mean (us)")
                self.pinned_table(pol)
                self.p("")
            if any(m.has(pol, w) for w in ("hp", "ht", "hf", "hi")):
                self.p("### hackbench (rt-tests), time per run, lower is better",
                       "hp: processes over pipes; ht: threads over pipes; both with no SCHED_IDLE task. "
                       "hf: hp beside a SCHED_IDLE hog on every CPU, for the fork path. hi: hp with every "
                       "task SCHED_IDLE, whose wakees must not scan more. A change smaller "
                       "than the A/A spread is noise.", "")
                self.hackbench_table(pol)
                self.p("")
            self.p("### Scan depth (select_idle_cpu())")
            self.scan_table(pol)
            self.p("")
        self.p("## What QEMU can and cannot model", "",
               "- 001 (Tests 1 and 2): the guest has one vCPU per host CPU, so a vCPU busy with a "
               "SCHED_IDLE hog holds its host CPU and a woken task waits for the guest's scheduler, "
               "not for the host's: the effect of the series shows in wall-clock latency as long as "
               "the steal column stays low. Absolute figures are not the HiKey's: a TCG vCPU runs "
               "guest code several times slower, and an idle vCPU's wake-up is a host thread wake-up.",
               "- 005's 307 / 177 / 64 us come from cluster idle states (deep idle exit latency against "
               "a shallow one). QEMU models no idle-state exit latency, so p1 and p2 differ here only "
               "by host scheduling; p3 (preempting a SCHED_IDLE task) is wakeup preemption, which "
               "every stage keeps, the baseline included.",
               "- rt-app \"run\" events scale with the CPU's speed, and a TCG vCPU's speed varies with "
               "host load; the workloads use \"runtime\" (wall-clock) events so that the duty cycle "
               "is the seed's.", "")
        self.p("## Traces (open in KernelShark)")
        for s in self.stages:
            for b in self.boots[s]:
                for t in sorted(b.glob("guest/*/*/trace.dat")):
                    rel = t.relative_to(self.dir)
                    self.p(f"- [{rel}]({rel})")
        tmp = self.dir / "report.md.tmp"
        tmp.write_text("\n".join(self.out) + "\n")
        os.replace(tmp, self.dir / "report.md")
        (self.dir / "main-table.md").write_text("\n".join(self.main_table()) + "\n")


def main():
    if len(sys.argv) != 2:
        print("usage: report.py RUNDIR", file=sys.stderr)
        return 2
    r = Report(sys.argv[1])
    r.write()
    print(f"report: {r.dir / 'report.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
