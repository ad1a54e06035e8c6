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
from metrics import STEAL_FLAG_PCT, STEAL_NOTE, WAITS, read_kv  # noqa: E402 (one definition of each)
import stats  # noqa: E402
from calibrate import settings as run_settings  # noqa: E402

# The seed (001, 005; HiKey, 5.3): its st output, quoted. Its "over 1000"
# percentages are textogram's, whose denominator leaves the overflow
# bucket out (1218 / (4709 - 1218) = 34.9%, printed 34%); over all N
# activations they are 1218 of 4710, 40 of 5095 and 17 of 5136.
SEED_T2_WITHOUT = {"wu_lat_n": 4710, "wu_lat_mean_us": 1116.68, "wu_lat_stddev_us": 2315.09,
                   "wu_lat_max_us": 67664, "over": "25.9% (1218)"}
SEED_T2_WITH = {"wu_lat_n": 5095, "wu_lat_mean_us": 102.683, "wu_lat_stddev_us": 475.482,
                "wu_lat_max_us": 7773, "over": "0.79% (40)"}
SEED_T1 = {"wu_lat_n": 5136, "wu_lat_mean_us": 104.358, "wu_lat_stddev_us": 104.585,
           "wu_lat_max_us": 2452, "over": "0.33% (17)"}
SEED_ADDED_WITHOUT = 1116.68 - 104.358
SEED_ADDED_WITH = 102.683 - 104.358
SEED_RATIO_WITHOUT = 1116.68 / 104.358
SEED_OVER_WITHOUT = 100 * 1218 / 4710
SEED_OVER_WITH = 100 * 40 / 5095
SEED_P = {"p1": 307.134, "p2": 177.336, "p3": 64.3297}
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
        self.wins = {}
        for line in lines[1:]:
            stage, rep, policy, w, metric, value = line.split("\t")
            self.v[(stage, rep, policy, w, metric)] = value
            if "." in rep:
                self.wins.setdefault(stage, set()).add(rep)
            elif rep != "all":
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

    def windows(self, stage):
        """The "B.N" keys of stage's windows, boot by boot."""
        return sorted(self.wins.get(stage, ()), key=lambda r: tuple(int(x) for x in r.split(".")))

    def boot_values(self, stage, policy, w, metric):
        """A metric's per-boot values, in boot order; gaps left out."""
        vals = [self.num(stage, policy, w, metric, r) for r in self.reps(stage)]
        return [v for v in vals if v is not None]

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
        why not: a boot with more vCPUs than host CPUs, a window the host
        did not see, or one over the steal threshold. (Too few boots for an
        interval is the interval's business: it has none.)"""
        why = []
        if self.oversubscribed(stages):
            why.append("oversubscribed: more vCPUs than host CPUs")
        flagged = unseen = 0
        for s in stages:
            for w in workloads:
                for r in self.m.reps(s):
                    seen = [x for x in self.m.windows(s) if x.startswith(f"{r}.")
                            and self.m.get(s, policy, w, "steal_flagged", x) is not None]
                    flagged += sum(self.m.get(s, policy, w, "steal_flagged", x) == "1" for x in seen)
                    unseen += int(self.m.num(s, policy, w, "windows", r) or 0) - len(seen)
        if flagged:
            why.append(f"{flagged} {'/'.join(workloads)} window(s) over the steal threshold")
        if unseen:
            why.append(f"{unseen} {'/'.join(workloads)} window(s) without the host's steal reading")
        return "; ".join(why) or None

    # --- tables -----------------------------------------------------
    def main_table(self):
        rows = ["| scan policy | stage | boots | t2 stacked % | t1 woken mean (us) | t2 woken mean (us) "
                "| added by the hogs, t2 - t1 (us) [95% CI] | t2/t1 [95% CI] | t2 overran % | t2 over 1000 us % "
                "| steal, largest vCPU % |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for pol in self.m.policies:
            if not self.m.has(pol, "t2"):
                continue
            for s in self.stages:
                g = lambda w, k: self.m.num(s, pol, w, k)  # noqa: E731
                rows.append(f"| {pol} | {s} | {self.m.get(s, pol, 't2', 'boots')} | {f(g('t2', 'stacked_pct'))} "
                            f"| {f(g('t1', 'est_woken_mean_us'), 1)} | {f(g('t2', 'est_woken_mean_us'), 1)} "
                            f"| {f(g('t2/t1', 'est_added_us'), 1)} "
                            f"[{f(g('t2/t1', 'lo95_added_us'), 1)}, {f(g('t2/t1', 'hi95_added_us'), 1)}] "
                            f"| {f(g('t2/t1', 'est_woken_mean_ratio'))} "
                            f"[{f(g('t2/t1', 'lo95_woken_mean_ratio'))}, {f(g('t2/t1', 'hi95_woken_mean_ratio'))}] "
                            f"| {f(g('t2', 'est_overrun_pct'), 1)} | {f(g('t2', 'est_woken_over1000_pct'), 1)} "
                            f"| {f(max((x for x in (g('t1', 'steal_pct'), g('t2', 'steal_pct')) if x is not None), default=None), 1)} |")
        return rows

    @staticmethod
    def shown(e, unit, level=95):
        """An estimate with its interval, or why it has none."""
        if e is None:
            return "- (no boot has this figure)"
        if e.lo is None:
            return f"{f(e.est, 1)}{unit} (no interval: a stage with fewer than 2 boots, or no spread)"
        return f"{f(e.est, 1)}{unit} [{f(e.lo, 1)}, {f(e.hi, 1)}] ({level}%, df {f(e.df, 1)})"

    def claim_rows(self, policy):
        """The claims under one scan policy, as (claim, seed, contrast,
        this run's figure, verdict, why not comparable); the verdicts come
        from scripts/stats.py, whose rule the A/A calibration checks."""
        m = self.m
        out = []
        added = lambda s: m.boot_values(s, policy, "t2/t1", "added_us")  # noqa: E731
        over = lambda s: m.boot_values(s, policy, "t2", "woken_over1000_pct")  # noqa: E731
        base = WITHOUT
        with_ = [s for s in self.stages if s not in NOT_WITH]
        lat = ("t1", "t2")
        a = stats.interval(added(base))
        va = stats.above_zero(a)
        out.append(("(a) the hogs add latency without the series: t2 - t1 > 0",
                    f"{SEED_ADDED_WITHOUT:.0f} us ({SEED_RATIO_WITHOUT:.1f}x)", base, self.shown(a, " us"),
                    va, self.comparable([base], policy, lat)))
        for s in with_:
            e = stats.contrast(added(s), added(base))
            out.append(("(b) the series removes it: t2 - t1 on the stage minus on baseline < 0",
                        f"{SEED_ADDED_WITH - SEED_ADDED_WITHOUT:.0f} us", f"{s} - {base}", self.shown(e, " us"),
                        stats.below_zero(e), self.comparable([s, base], policy, lat)))
            pct = f"{100 * stats.EQUIV_MARGIN:.0f}%"
            claim = f"(b) what is left is small: t2 - t1 on the stage within {pct} of baseline's"
            seed = f"{100 * SEED_ADDED_WITH / SEED_ADDED_WITHOUT:.1f}%"
            what = f"{s} / {base}"
            if va != stats.REPRODUCED:
                # The margin is a share of baseline's added latency: with
                # none shown, there is nothing to be within.
                out.append((claim, seed, what, "-", "no margin: claim (a) is not reproduced",
                            self.comparable([s, base], policy, lat)))
                continue
            v, up, low = stats.within_margin(added(s), added(base))
            ratio = 100 * stats.mean(added(s)) / stats.mean(added(base))
            bounds = "-" if up is None or up.lo is None else \
                (f"{ratio:.1f}%; {s} - {stats.EQUIV_MARGIN:g} x {base}: [{f(up.lo, 1)}, {f(up.hi, 1)}] us, "
                 f"{s} + {stats.EQUIV_MARGIN:g} x {base}: [{f(low.lo, 1)}, {f(low.hi, 1)}] us (90%)")
            out.append((claim, seed, what, bounds, v, self.comparable([s, base], policy, lat)))
        for s in with_:
            e = stats.contrast(over(base), over(s))
            out.append(("(c) fewer woken t2 activations over 1000 us: baseline's share minus the stage's > 0",
                        f"{SEED_OVER_WITHOUT:.1f}% - {SEED_OVER_WITH:.2f}%", f"{base} - {s}", self.shown(e, "%"),
                        stats.above_zero(e), self.comparable([s, base], policy, ("t2",))))
        # The fix changes SIS_UTIL's scan budget: under a policy without
        # SIS_UTIL it has nothing to act on. It is judged against the
        # stage measured before it (MEASURE_STAGES' order).
        if "sis-util" in self.stages and policy == "defaults" and self.stages.index("sis-util") > 0:
            prev = self.stages[self.stages.index("sis-util") - 1]
            e = stats.contrast(added("sis-util"), added(prev))
            out.append(("SIS_UTIL fix: t2 - t1 on sis-util minus on the stage before it < 0", "-",
                        f"sis-util - {prev}", self.shown(e, " us"), stats.below_zero(e),
                        self.comparable(["sis-util", prev], policy, lat)))
        return out

    def claims(self, policy):
        m = self.m
        if not (m.has(policy, "t1") and m.has(policy, "t2")):
            self.p("This run has no t1 and t2 under this policy: no claim to check.", "")
            return
        if WITHOUT not in self.stages:
            self.p(f"Stage {WITHOUT} was not measured: no claim about the kernel without the series.", "")
            return
        self.p("| claim | seed | contrast | this run [CI] | verdict |", "|---|---|---|---|---|")
        for claim, seed, what, shown, verdict, why in self.claim_rows(policy):
            if why:
                verdict = f"not comparable ({why})"
            elif verdict == stats.NO_INTERVAL:
                verdict = "no interval"
            self.p(f"| {claim} | {seed} | {what} | {shown} | {verdict} |")
        self.p("", f"Without the series is stage {WITHOUT}; with it, every measured stage but "
               f"{', '.join(sorted(NOT_WITH))}. Each figure is a boot-level contrast: a boot's t2 - t1 is "
               "its t2 windows' mean wu_lat of the activations that slept minus its t1 windows', and a "
               "stage's is the mean over its boots. Intervals are Student t on the boots (Welch between "
               "two stages; scripts/stats.py), so they include the variation between boots. A claim is "
               "reproduced when its whole 95% interval lies on the claim's side of zero and not "
               "reproduced when it lies on the other side. The equivalence row (two one-sided tests at "
               "5%) shows the stage's t2 - t1 as a share of baseline's, and is reproduced when the 90% "
               "interval of stage - margin x baseline lies below zero and that of stage + margin x "
               "baseline above it; it is judged only where claim (a) holds. No correction is made for "
               "the number of rows. Latency is not comparable when a boot had more vCPUs than host "
               "CPUs, or a window lacks the host's steal reading or exceeds the steal threshold.", "")

    def calibration(self):
        """The newest A/A calibration of this tree's results (make
        calibrate), which the verdicts above should be read against."""
        cal = self.dir.parent / "calibration" / "calibration.md"
        if cal.exists():
            self.p(cal.read_text().strip(), "")
            conf = read_kv(cal.parent / "calibration.conf")
            mine = run_settings(self.dir)
            differ = [f"{k} {conf.get(k, '?')} there, {v} here" for k, v in mine.items() if conf.get(k) != v]
            if differ:
                self.p(f"**The calibration's design differs from this run's** ({'; '.join(differ)}): "
                       "read its figure as a rough guide only.", "")
        else:
            self.p("No A/A calibration in this results folder yet: `make calibrate` boots one stage's "
                   "kernel several times and counts how often this rule declares a difference between "
                   "two labels of it.", "")

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
                    for r in m.windows(s):
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
        self.p(f"Each cell: per window, in boot and window order, the largest share of the time a "
               f"vCPU thread wanted a host CPU that it waited for one, wait / (run + wait) (host "
               f"/proc/PID/task/TID/schedstat, scripts/vcpu-steal.py). Bold: over the {thr}% "
               f"threshold ({STEAL_NOTE}). **{flagged} of {total} windows flagged.**", "")
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
                ("mean of woken activations (all boots pooled)", "woken_mean_us"),
                ("median of woken activations (all boots pooled)", "wu_lat_median_us")]
        for label, key in rows:
            cells = [str(sd.get(key, "-")) for sd in seeds]
            for s in stages:
                g = lambda k: self.m.get(s, pol, w, k)  # noqa: E731
                if key == "over":
                    cells.append(f"{f(self.m.num(s, pol, w, 'wu_lat_over1000_pct'), 1)}% ({g('wu_lat_over1000_n')})")
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
        """The claims' inputs boot by boot, and how much they vary between
        boots against between the windows of one boot."""
        self.p("| stage | workload | woken mean per boot (us) | between boots, SD (us) "
               "| between one boot's windows, SD (us) | overran % per boot |",
               "|---|---|---|---|---|---|")
        for s in self.stages:
            for w in ("t1", "t2"):
                g = lambda k: self.m.num(s, pol, w, k)  # noqa: E731
                self.p(f"| {s} | {w} | {self.m.per_boot(s, pol, w, 'woken_mean_us', 0)} "
                       f"| {f(g('bootsd_woken_mean_us'), 0)} | {f(g('winsd_woken_mean_us'), 0)} "
                       f"| {self.m.per_boot(s, pol, w, 'overrun_pct', 1)} |")
            self.p(f"| {s} | t2 - t1 | {self.m.per_boot(s, pol, 't2/t1', 'added_us', 0)} "
                   f"| {f(self.m.num(s, pol, 't2/t1', 'bootsd_added_us'), 0)} | - | - |")

    def pinned_table(self, pol):
        self.p("| 005 case | seed mean |" + "".join(f" {s} mean |" for s in self.stages),
               "|---|---|" + "---|" * len(self.stages))
        for w in ("p1", "p2", "p3"):
            if self.m.has(pol, w):
                self.p(f"| {w}: {P_WHAT[w]} | {SEED_P[w]} |"
                       + "".join(f" {self.m.get(s, pol, w, 'wu_lat_mean_us') or '-'} |" for s in self.stages))

    def hackbench_table(self, pol):
        self.p(f"| workload | stage | runs | median (s) | per boot | SD between boots | vs {self.first} |",
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
                       f"| {each} | {f(self.m.num(s, pol, w, 'hackbench_bootsd_pct'), 0)}% | {vs} |")

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

    def plot_cdf(self, pol, w):
        """The distribution of wu_lat over every woken activation, one curve
        per stage (cdf.tsv), with t1's of the first stage as a reference."""
        png = self.plots / f"cdf-{pol}-{w}.png"
        curves = {}
        for line in (self.dir / "cdf.tsv").read_text().splitlines()[1:]:
            st, p_, w_, x, fr = line.split("\t")
            if p_ == pol:
                curves.setdefault((st, w_), []).append(f"{x} {fr}\n")
        parts = []
        shown = [(s, w, s) for s in self.stages]
        if w != "t1" and (self.first, "t1") in curves:
            shown.append((self.first, "t1", f"{self.first}, t1 (no hogs)"))
        for s, w_, title in shown:
            if (s, w_) not in curves:
                continue
            dat = self.plots / f"cdf-{pol}-{w_}-{s}.dat"
            dat.write_text("# wu_lat_us fraction\n" + "".join(curves[(s, w_)]))
            style = "dashtype 2 lc rgb 'black'" if w_ != w else ""
            parts.append(f"'{dat}' using 1:2 with steps lw 2 {style} title '{title}'")
        self.gnuplot("set terminal png size 800,500; "
                     f"set output '{png}'; "
                     f"set title 'wu\\_lat of every woken activation, workload {w}, scan policy {pol}'; "
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
            first = sorted((self.boots[s][0] / "guest" / pol).glob("t2.*")) or [self.boots[s][0] / "guest" / pol / "t2"]
            dat = first[0] / "timeline.dat"
            # The x axis starts at the first event, not at the trace's start.
            ev = [x.split() for x in dat.read_text().splitlines() if x and not x.startswith("#")]
            xr = f"[{min(float(e[1]) for e in ev)}:{max(float(e[2]) for e in ev)}]" if ev else "[*:*]"
            lines.append(f"set title '{s}, first t2 window of its first boot'; set yrange [-0.6:*]; "
                         f"set xrange {xr}")
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
        order = self.dir / "measure-order"
        if order.exists():
            self.p("", "Boot order (scripts/measure.sh: each block of boots holds every stage once, "
                   "shuffled from the recorded seed): " + "; ".join(order.read_text().strip().splitlines()) + ".")
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
               f"Run `{self.dir.name}`, stages: {' '.join(self.stages)}; {nrep} boot(s) per stage, in "
               "blocks of one boot of each stage. Latency is wall-clock time in a TCG guest: compare stages within this "
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
        self.p("### The same rule on two labels of one kernel (A/A)", "")
        self.calibration()
        self.p("## Host interference (steal)", "")
        self.steal_table()
        for pol in m.policies:
            self.p(f"## Scan policy: {pol}", "")
            if m.has(pol, "t2"):
                self.p("### Avoidable stacking, t2 (decision metric)",
                       "A normal task's wakeup placed on a CPU that already ran or queued work it cannot "
                       "preempt at once while another CPU of the LLC had only work it can (SCHED_IDLE "
                       "tasks that a woken normal task of the root cgroup preempts at once under the "
                       "guest kernel's rule). Wakeups only: rt-app creates its threads once, at the "
                       "start of a run, so a workload of forks would give one placement per thread; "
                       "the selftest's slow_path and fork_group_idle subtests count fork placements instead "
                       "(make qemu-test PLAN=selftest, PLAN=selftest-fork).", "")
                self.stacking_table(pol)
                self.p("", "### 001 Test 2: CFS tasks + SCHED_IDLE hogs, wu_lat (us)")
                self.wulat_table(pol, "t2")
                self.p("", f"![wu_lat CDF t2](plots/{self.plot_cdf(pol, 't2')})", "",
                       f"![timeline](plots/{self.plot_timeline(pol)})", "",
                       "### Residency by class, t2, all repeats (mean over CPUs)")
                self.residency_table(pol)
                self.p("", "### Between boots and between windows")
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
                       "than the standard deviation between boots is noise.", "")
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
