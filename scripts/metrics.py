#!/usr/bin/env python3
"""Every figure of a measurement run, once: RUNDIR/metrics.tsv.

usage: metrics.py RUNDIR

Reads the run's measurement boots from RUNDIR/boots.tsv and, in each boot,
per scan policy and workload window (guest/POLICY/WORKLOAD.N/, N = 1, 2,
... in the order the boot ran them; a run from before the windows has
guest/POLICY/WORKLOAD/, its one window): the rt-app logs, the analyser's
trace.txt (scripts/sched-idle-analyse.c: stacking and residency from
trace.dat), hackbench.txt, sis.txt, and the host's steal.tsv and
provenance (scripts/run-qemu.sh). It writes one table,

    stage<TAB>repeat<TAB>policy<TAB>workload<TAB>metric<TAB>value

where repeat is the boot's number among its stage's boots (1, 2, ...),
"B.N" for window N of boot B, or "all" for the stage's boots together;
the workload "t2/t1" holds the seed's Test 2 against Test 1 figures. A
boot's figure pools the activations of its windows. report.md, its plots,
the calibration and the cover letter are drawn from this table (and
cdf.tsv, below) alone; nothing computes a figure twice.

Latency (rt-app 1.0 logs, 11th field wu_lat, microseconds): an
activation's wake-up latency, 0 when it overran its period and found its
timer expired: it never slept, so it says nothing of a wakeup. The seed's
st statistics (wu_lat_n, wu_lat_mean_us, stddev, max) and
wu_lat_over1000_pct are over all activations, as the seed counted them
(its min of 0 shows that); overrun_pct is the share that overran; the
claims rest on the activations that slept ("woken": woken_mean_us,
woken_over1000_pct, the median and the quantiles).

Intervals have the boot as the unit (scripts/stats.py says why). For each
claim figure M (woken_mean_us, woken_over1000_pct and overrun_pct per
workload; added_us, t2's woken mean minus t1's in the same boot, and
woken_mean_ratio under t2/t1) the "all" rows hold est_M, the mean of the
per-boot values (for the ratio, their geometric mean), and lo95_M and
hi95_M, its 95% t interval; for all but the ratio bootsd_M, the standard
deviation between boots, and for the per-workload figures where boots
ran more than one window, winsd_M, the standard deviation between the
windows of a boot (pooled over boots).

Steal: per window and vCPU thread, 100 * wait / (run + wait): the share
of the time the vCPU wanted a host CPU that it waited for one. A window's
steal_pct is its largest vCPU's (steal_vcpu names it; vCPUs that wanted a
CPU for under STEAL_MIN_BUSY of the window are left out), and the window
is flagged when that exceeds STEAL_FLAG_PCT (see there for why that
value); a boot's steal_pct is its largest window's.

cdf.tsv: stage, policy, workload, wu_lat_us, fraction: the empirical
distribution of every woken activation of the stage's boots, at each of
its values (thinned to CDF_POINTS evenly spaced ranks when there are
more), for the report's CDF plot.
"""

import functools
import glob
import math
import os
import re
import sys
from pathlib import Path

# KEY=VALUE files (provenance, trace.txt): the judge's one reader.
from judge import read_provenance as read_kv  # noqa: E402
import stats  # noqa: E402

# A flagged window: one of its vCPUs waited for a host CPU more than this
# share of the time it wanted one (wait / (run + wait)). STEAL_NOTE says
# where the value comes from; the report prints it.
STEAL_FLAG_PCT = 10.0
STEAL_NOTE = ("on this project's idle 2-core host, with one vCPU per host CPU, the 120 windows of "
              "the default measurement of 2026-12-07 (run 20261207-042823-11550) measured 2.2-6.5% "
              "on their busiest vCPU, and the 48 of its A/A calibration 2.2-5.6%; with one host CPU "
              "kept busy by `yes`, windows measured 39-45%. At 10% a vCPU waits about 0.8 ms of each "
              "7.777 ms period of the seed's tasks, more than the median wake-up latency of t1 here")
STEAL_MIN_BUSY = 0.10
QUANTILES = (5, 10, 25, 50, 75, 90, 95, 99)
CDF_POINTS = 400
HEADER = "stage\trepeat\tpolicy\tworkload\tmetric\tvalue\n"
# How a normal wakee's wait ended (scripts/sched-idle-analyse.c says how
# each is told): at_once and tick when the trace has the tick's hrtimer,
# else preempted for both.
WAITS = ("idle", "at_once", "tick", "preempted", "blocked", "queued", "moved")
# The per-boot figures that get a boot-level interval ("all": est_, lo95_,
# hi95_, bootsd_, winsd_).
CLAIM_METRICS = ("woken_mean_us", "woken_over1000_pct", "overrun_pct")


class MetricsError(Exception):
    pass


def read_rtapp_log(path):
    """wu_lat of every activation in one rt-app 1.0 log."""
    vals = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            try:
                if len(fields) != 11:
                    raise ValueError
                vals.append(float(fields[10]))
            except ValueError:
                raise MetricsError(f"{path}:{n}: not an rt-app 1.0 log line") from None
    return vals


mean = stats.mean


def median(sorted_v):
    n = len(sorted_v)
    return sorted_v[n // 2] if n % 2 else (sorted_v[n // 2 - 1] + sorted_v[n // 2]) / 2


def quantile(sorted_v, q):
    """The nearest-rank q-th percentile."""
    k = max(1, math.ceil(q / 100 * len(sorted_v)))
    return sorted_v[k - 1]


def over1000_pct(v):
    return 100 * sum(1 for x in v if x > 1000) / len(v) if v else None


def window_name(d):
    """(workload, window number) of a window folder: WORKLOAD.N, or a
    plain WORKLOAD (a run from before the windows: its only one)."""
    w, dot, n = d.name.rpartition(".")
    if dot and n.isdigit():
        return w, int(n)
    return d.name, 1


# Every workload of a boot reads its boot's one steal.tsv: parse it once.
@functools.lru_cache(maxsize=None)
def steal_windows(path):
    """{window: {vcpu: (wall_ns, run_ns, wait_ns)}} from steal.tsv; the
    caller must not change it (it is shared)."""
    out = {}
    if not path.exists():
        return out
    lines = path.read_text().splitlines()
    if not lines or lines[0].split("\t") != ["window", "vcpu", "tid", "wall_ns", "run_ns", "wait_ns"]:
        raise MetricsError(f"{path}: not a steal.tsv (scripts/vcpu-steal.py)")
    for line in lines[1:]:
        f = line.split("\t")
        out.setdefault(f[0], {})[int(f[1])] = tuple(int(x) for x in f[3:6])
    return out


def vcpu_steal(vcpus):
    """(the largest vCPU's 100 * wait / (run + wait), that vCPU) of one
    window; None where no vCPU wanted a CPU. A vCPU that wanted a host CPU
    for less than STEAL_MIN_BUSY of the window is left out: on one that
    was nearly always halted, a few milliseconds of wait make a large
    share of nothing."""
    best = None
    for cpu, (wall, run, wait) in sorted(vcpus.items()):
        if run + wait > 0 and run + wait >= STEAL_MIN_BUSY * wall:
            pct = 100 * wait / (run + wait)
            if best is None or pct > best[0]:
                best = (pct, cpu)
    return best


def lat_stats(v):
    """The seed's st figures over all activations; the overrun share; the
    woken activations' mean, share over 1000 us, median and quantiles."""
    m = {}
    m["wu_lat_n"] = len(v)
    m["wu_lat_mean_us"] = mean(v)
    m["wu_lat_stddev_us"] = stats.sd(v) if len(v) > 1 else 0.0
    m["wu_lat_max_us"] = max(v)
    m["wu_lat_over1000_n"] = sum(1 for x in v if x > 1000)
    m["wu_lat_over1000_pct"] = over1000_pct(v)
    m["wu_lat_zero_n"] = sum(1 for x in v if x == 0)
    m["overrun_pct"] = 100 * m["wu_lat_zero_n"] / len(v)
    woken = sorted(x for x in v if x > 0)
    if woken:
        m["wu_lat_median_us"] = median(woken)
        m["woken_mean_us"] = mean(woken)
        m["woken_over1000_pct"] = over1000_pct(woken)
        for q in QUANTILES:
            m[f"woken_p{q}_us"] = quantile(woken, q)
    return m


def cdf_points(v):
    """(value, fraction) of the empirical CDF of v, at every value or at
    CDF_POINTS evenly spaced ranks."""
    s = sorted(v)
    n = len(s)
    ranks = range(1, n + 1) if n <= CDF_POINTS else \
        sorted({max(1, round(i * n / CDF_POINTS)) for i in range(1, CDF_POINTS + 1)})
    return [(s[k - 1], k / n) for k in ranks]


class Run:
    def __init__(self, rundir):
        self.dir = Path(rundir)
        boots = self.dir / "boots.tsv"
        if not boots.exists():
            raise MetricsError(f"{boots}: no such file; is {rundir} a results run?")
        self.boots = {}  # stage -> [boot dirs in order]
        for line in boots.read_text().splitlines()[1:]:
            stage, plan, d, _ = line.split("\t")
            if plan == "measure":
                self.boots.setdefault(stage, []).append(self.dir / d)
        if not self.boots:
            raise MetricsError(f"{boots}: no measurement boots")
        self.rows = []
        self.cdf = []
        # (stage, policy, workload) -> per-boot woken means, for t2/t1.
        self.woken = {}

    def put(self, stage, rep, policy, workload, metric, value):
        if value is None:
            return
        if isinstance(value, float):
            value = f"{value:.3f}"
        self.rows.append(f"{stage}\t{rep}\t{policy}\t{workload}\t{metric}\t{value}\n")

    def windows(self, stage):
        """(policy, workload) pairs of stage's first boot, sorted."""
        first = self.boots[stage][0] / "guest"
        return sorted({(p.parent.name, window_name(p)[0]) for p in first.glob("*/*") if p.is_dir()})

    @staticmethod
    def boot_windows(boot, policy, w):
        """[(window number, folder)] of workload w under policy in one boot."""
        out = sorted((window_name(d)[1], d) for d in (boot / "guest" / policy).glob(f"{w}*")
                     if d.is_dir() and window_name(d)[0] == w)
        if not out:
            raise MetricsError(f"{boot}/guest/{policy}/{w}: missing (every boot of a stage runs the same plan)")
        return out

    def compute(self):
        for stage, boots in self.boots.items():
            for policy, w in self.windows(stage):
                self.window(stage, boots, policy, w)
            for policy in sorted({p for p, _ in self.windows(stage)}):
                self.pair(stage, policy)

    def intervals(self, stage, policy, w, metric, per_boot, per_window):
        """The "all" rows of a claim figure: est_, lo95_, hi95_, bootsd_
        over the per-boot values, winsd_ over each boot's windows."""
        put = lambda k, v: self.put(stage, "all", policy, w, k, v)  # noqa: E731
        e = stats.interval(per_boot)
        if e is None:
            return
        put(f"est_{metric}", e.est)
        put(f"lo95_{metric}", e.lo)
        put(f"hi95_{metric}", e.hi)
        put(f"bootsd_{metric}", stats.sd(per_boot))
        # Within boots: each boot's windows about their own mean.
        ss = df = 0
        for vals in per_window:
            if len(vals) > 1:
                m = mean(vals)
                ss += sum((x - m) ** 2 for x in vals)
                df += len(vals) - 1
        if df:
            put(f"winsd_{metric}", math.sqrt(ss / df))

    def window(self, stage, boots, policy, w):
        per_boot = []  # wu_lat samples per boot, its windows pooled
        claim = {k: ([], []) for k in CLAIM_METRICS}  # per boot, per window
        pooled = {"placements": 0, "stacked": 0, "stacked_us": 0.0, "misplaced": 0, "misplaced_boots": 0,
                  "wait_n": {}, "wait_us": {}, "wait_boots": 0, "wait_split": set()}
        steal_max = None
        flagged = 0
        hb = []
        sis = {}
        res = {}
        for i, b in enumerate(boots, 1):
            prov = read_kv(b / "provenance")
            self.put(stage, i, policy, w, "oversubscribed", int(prov.get("oversubscribed", "0") or 0))
            wins = self.boot_windows(b, policy, w)
            self.put(stage, i, policy, w, "windows", len(wins))
            steal_b = steal_windows(b / "steal.tsv")
            boot_steal = None
            unseen = False
            v = []
            t = []
            per_win = {k: [] for k in CLAIM_METRICS}
            tr_sum = {"placements": 0, "stacked": 0, "stacked_us": 0.0, "misplaced": 0, "misplaced_n": 0,
                      "wait_n": {}, "wait_us": {}, "wait_windows": 0, "wait_split": set()}
            res_b = {}
            sis_b = {}
            for k, d in wins:
                rep = f"{i}.{k}"
                st = steal_b.get(f"{policy}:{d.name}")
                got = vcpu_steal(st) if st else None
                if got:
                    pct, cpu = got
                    self.put(stage, rep, policy, w, "steal_pct", pct)
                    self.put(stage, rep, policy, w, "steal_vcpu", cpu)
                    self.put(stage, rep, policy, w, "steal_flagged", int(pct > STEAL_FLAG_PCT))
                    flagged += pct > STEAL_FLAG_PCT
                    boot_steal = pct if boot_steal is None else max(boot_steal, pct)
                else:
                    # No reading for this window: the boot has none either.
                    unseen = True
                times = d / "hackbench.txt"
                if times.exists():
                    t += [float(x) for x in re.findall(r"^time_s=(\S+)$", times.read_text(), re.M)]
                else:
                    logs = sorted(glob.glob(str(d / "*-cfs-*.log")))
                    if not logs:
                        raise MetricsError(f"{d}: no rt-app log")
                    vw = [x for log in logs for x in read_rtapp_log(log)]
                    if not vw:
                        raise MetricsError(f"{d}: the rt-app logs hold no activation")
                    v += vw
                    ls = lat_stats(vw)
                    for key in ("wu_lat_n", "wu_lat_mean_us") + CLAIM_METRICS:
                        self.put(stage, rep, policy, w, key, ls.get(key))
                    for key in CLAIM_METRICS:
                        if key in ls:
                            per_win[key].append(ls[key])
                    self.trace(d, tr_sum, res_b)
                sf = d / "sis.txt"
                if sf.exists():
                    for line in sf.read_text().splitlines():
                        key, _, val = line.partition(" ")
                        if key in ("calls", "util_skip", "scanned", "found"):
                            sis_b[key] = sis_b.get(key, 0) + int(val)
            if boot_steal is not None and not unseen:
                self.put(stage, i, policy, w, "steal_pct", boot_steal)
                steal_max = boot_steal if steal_max is None else max(steal_max, boot_steal)
            if t:
                self.put(stage, i, policy, w, "hackbench_runs", len(t))
                self.put(stage, i, policy, w, "hackbench_median_s", median(sorted(t)))
                hb.append(t)
            if v:
                per_boot.append(v)
                ls = lat_stats(v)
                for key, val in ls.items():
                    self.put(stage, i, policy, w, key, val)
                for key in CLAIM_METRICS:
                    if key in ls:
                        claim[key][0].append(ls[key])
                        claim[key][1].append(per_win[key])
                self.woken.setdefault((stage, policy, w), []).append(ls.get("woken_mean_us"))
                self.boot_trace(stage, i, policy, w, tr_sum, res_b, pooled, res)
            for key, val in sis_b.items():
                sis[key] = sis.get(key, 0) + val
            # Per boot too: the spread between boots of one kernel is
            # the noise floor a difference between kernels must clear.
            if sis_b.get("calls"):
                self.put(stage, i, policy, w, "sis_util_skip_pct", 100 * sis_b.get("util_skip", 0) / sis_b["calls"])
                self.put(stage, i, policy, w, "sis_scanned_per_call", sis_b.get("scanned", 0) / sis_b["calls"])
        self.pooled(stage, policy, w, per_boot, claim, pooled, steal_max, flagged, hb, sis, res, len(boots))

    @staticmethod
    def trace(d, acc, res):
        """Add one window's analysis (trace.txt) to its boot's sums."""
        tr = read_kv(d / "trace.txt")
        if "placements" not in tr:
            raise MetricsError(f"{d}/trace.txt: no analysis (run scripts/analyse.sh)")
        acc["placements"] += int(tr["placements"])
        acc["stacked"] += int(tr["stacked"])
        acc["stacked_us"] += float(tr["stacked_us"])
        # Analyses older than the at_once column have no misplaced=.
        if "misplaced" in tr:
            acc["misplaced"] += int(tr["misplaced"])
            acc["misplaced_n"] += 1
        # Analyses older than the wait classes have no wait_split_tick=.
        if "wait_split_tick" in tr:
            for c in WAITS:
                if f"wait_{c}_n" in tr:
                    k = int(tr[f"wait_{c}_n"])
                    acc["wait_n"][c] = acc["wait_n"].get(c, 0) + k
                    acc["wait_us"][c] = acc["wait_us"].get(c, 0.0) + k * float(tr[f"wait_{c}_us"])
            acc["wait_windows"] += 1
            acc["wait_split"].add(tr["wait_split_tick"])
        acc["windows"] = acc.get("windows", 0) + 1
        for cls in ("normal", "sched_idle", "idle"):
            v_cls = [float(x) for k, x in tr.items() if re.fullmatch(rf"cpu\d+_{cls}_pct", k)]
            if v_cls:
                res.setdefault(cls, []).append(mean(v_cls))

    def boot_trace(self, stage, i, policy, w, acc, res_b, pooled, res):
        """One boot's decision figures, its windows summed."""
        p, s = acc["placements"], acc["stacked"]
        self.put(stage, i, policy, w, "placements", p)
        self.put(stage, i, policy, w, "stacked", s)
        self.put(stage, i, policy, w, "stacked_pct", 100 * s / p if p else 0.0)
        self.put(stage, i, policy, w, "stacked_ms", acc["stacked_us"] / 1000)
        pooled["placements"] += p
        pooled["stacked"] += s
        pooled["stacked_us"] += acc["stacked_us"]
        if acc["misplaced_n"] and acc["misplaced_n"] == acc["windows"]:
            mp = acc["misplaced"]
            self.put(stage, i, policy, w, "misplaced", mp)
            self.put(stage, i, policy, w, "misplaced_pct", 100 * mp / p if p else 0.0)
            pooled["misplaced"] += mp
            pooled["misplaced_boots"] += 1
        if acc["wait_windows"] and acc["wait_windows"] == acc["windows"] and len(acc["wait_split"]) == 1:
            total = sum(acc["wait_n"].values())
            for c, k in acc["wait_n"].items():
                self.put(stage, i, policy, w, f"wait_{c}_pct", 100 * k / total if total else 0.0)
                self.put(stage, i, policy, w, f"wait_{c}_us", acc["wait_us"][c] / k if k else 0.0)
                pooled["wait_n"][c] = pooled["wait_n"].get(c, 0) + k
                pooled["wait_us"][c] = pooled["wait_us"].get(c, 0.0) + acc["wait_us"][c]
            pooled["wait_boots"] += 1
            pooled["wait_split"] |= acc["wait_split"]
        for cls, vals in res_b.items():
            self.put(stage, i, policy, w, f"residency_{cls}_pct", mean(vals))
            res.setdefault(cls, []).append(mean(vals))

    def pooled(self, stage, policy, w, per_boot, claim, pooled, steal_max, flagged, hb, sis, res, nboots):
        put = lambda k, v: self.put(stage, "all", policy, w, k, v)  # noqa: E731
        put("boots", nboots)
        if steal_max is not None:
            put("steal_pct", steal_max)
            put("steal_flagged", flagged)
        if per_boot:
            v = [x for g in per_boot for x in g]
            for k, val in lat_stats(v).items():
                put(k, val)
            for key in CLAIM_METRICS:
                self.intervals(stage, policy, w, key, *claim[key])
            woken = [x for x in v if x > 0]
            if woken:
                self.cdf.extend(f"{stage}\t{policy}\t{w}\t{x:.3f}\t{fr:.5f}\n" for x, fr in cdf_points(woken))
            p = pooled["placements"]
            put("placements", p)
            put("stacked", pooled["stacked"])
            put("stacked_pct", 100 * pooled["stacked"] / p if p else 0.0)
            put("stacked_ms", pooled["stacked_us"] / 1000)
            if pooled["misplaced_boots"] == nboots:
                put("misplaced", pooled["misplaced"])
                put("misplaced_pct", 100 * pooled["misplaced"] / p if p else 0.0)
            # Pooled only when every boot's trace split the waits alike.
            if pooled["wait_boots"] == nboots and len(pooled["wait_split"]) == 1:
                total = sum(pooled["wait_n"].values())
                for c, k in pooled["wait_n"].items():
                    put(f"wait_{c}_pct", 100 * k / total if total else 0.0)
                    put(f"wait_{c}_us", pooled["wait_us"][c] / k if k else 0.0)
            for cls, vals in res.items():
                put(f"residency_{cls}_pct", mean(vals))
        if hb:
            t = sorted(x for g in hb for x in g)
            if t:
                put("hackbench_runs", len(t))
                put("hackbench_median_s", median(t))
                meds = [median(sorted(g)) for g in hb if g]
                if len(meds) > 1:
                    put("hackbench_bootsd_pct", 100 * stats.sd(meds) / mean(meds))
        if sis.get("calls"):
            c = sis["calls"]
            put("sis_calls", c)
            put("sis_util_skip_pct", 100 * sis.get("util_skip", 0) / c)
            put("sis_scanned_per_call", sis.get("scanned", 0) / c)
            put("sis_found_pct", 100 * sis.get("found", 0) / c)

    def pair(self, stage, policy):
        """The seed's Test 2 against Test 1, boot by boot: the latency
        the SCHED_IDLE background adds (t2's woken mean minus t1's in the
        same boot, which cancels what made the boot fast or slow) and
        their ratio."""
        t1 = self.woken.get((stage, policy, "t1"))
        t2 = self.woken.get((stage, policy, "t2"))
        if not t1 or not t2 or None in t1 or None in t2:
            return
        put = lambda r, k, v: self.put(stage, r, policy, "t2/t1", k, v)  # noqa: E731
        added = [b - a for a, b in zip(t1, t2)]
        logr = [math.log(b / a) for a, b in zip(t1, t2)]
        for i, (d, lr) in enumerate(zip(added, logr), 1):
            put(i, "added_us", d)
            put(i, "woken_mean_ratio", math.exp(lr))
        # No windows: a boot's t2 - t1 is one figure.
        self.intervals(stage, policy, "t2/t1", "added_us", added, [])
        e = stats.interval(logr)
        put("all", "est_woken_mean_ratio", math.exp(e.est))
        put("all", "lo95_woken_mean_ratio", math.exp(e.lo) if e.lo is not None else None)
        put("all", "hi95_woken_mean_ratio", math.exp(e.hi) if e.hi is not None else None)

    def write(self):
        out = self.dir / "metrics.tsv"
        tmp = out.with_suffix(".tsv.tmp")
        tmp.write_text(HEADER + "".join(self.rows))
        cdf = self.dir / "cdf.tsv"
        ctmp = cdf.with_suffix(".tsv.tmp")
        ctmp.write_text("stage\tpolicy\tworkload\twu_lat_us\tfraction\n" + "".join(self.cdf))
        os.replace(ctmp, cdf)
        os.replace(tmp, out)
        return out


def main():
    if len(sys.argv) != 2:
        print("usage: metrics.py RUNDIR", file=sys.stderr)
        return 2
    try:
        run = Run(sys.argv[1])
        run.compute()
        out = run.write()
    except (MetricsError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"  metrics: {out} ({len(run.rows)} figures)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
