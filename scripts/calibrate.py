#!/usr/bin/env python3
"""The A/A calibration of the report's verdict rule: how often it declares
a difference between two labels of one kernel.

usage: calibrate.py RUNDIR

RUNDIR is a measurement run of one stage booted N times
(scripts/calibrate.sh), with its metrics.tsv. Every way of splitting the
N boots into two labels (halves; for odd N, the larger label first) is
judged with the rule the report uses between two stages
(scripts/stats.py: a Welch contrast of per-boot values whose 95% interval
excludes zero declares a difference), on each contrast the claims between
stages rest on, per scan policy:

    added_us        t2 - t1, the claims (b) and the SIS_UTIL fix
    over1000        t2's share of woken activations over 1000 us, claim (c)

What this can show is limited, and the report says so: with 3 boots a
label, Welch in practice declares a difference only for the split that
puts the three highest boots against the three lowest, so a contrast
scores 0 or 1 of its 10 splits. expected() gives the rate a rule whose
intervals hold scores on the same design, and the most splits of one
contrast it declared, by simulation (normal boot values, a fixed seed). It tests the rule on the
boot-to-boot noise of one kernel image; two kernel builds can differ in
more (code layout), which no A/A run of one image sees.

Writes RUNDIR/calibration.tsv,

    policy<TAB>contrast<TAB>splits<TAB>declared

with a last line "all<TAB>all<TAB>verdicts<TAB>declared", and
RUNDIR/calibration.md, the sentence the report quotes. The splits share
boots, so their verdicts are not independent: the rate is the rule's on
this run's boots, not a sample of independent A/A runs.

It also writes RUNDIR/widths.tsv, what a boot count buys:

    policy<TAB>boots<TAB>added_us_halfwidth

the mean half-width of one stage's 95% interval of t2 - t1 over every
subset of that many of the run's boots (2 up to all of them).
"""

import itertools
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stats  # noqa: E402
from metrics import read_kv  # noqa: E402

CONTRASTS = (("added_us", "t2/t1", "added_us"), ("over1000", "t2", "woken_over1000_pct"))
SIM_RUNS = 4000
SIM_SEED = 20261207


def read_boot_values(path):
    """{(stage, policy, workload, metric): {boot: value}} of per-boot rows."""
    lines = path.read_text().splitlines()
    if not lines or lines[0] != "stage\trepeat\tpolicy\tworkload\tmetric\tvalue":
        raise SystemExit(f"error: {path}: not a metrics table (scripts/metrics.py)")
    out = {}
    for line in lines[1:]:
        stage, rep, policy, w, metric, value = line.split("\t")
        if rep.isdigit():
            out.setdefault((stage, policy, w, metric), {})[int(rep)] = float(value)
    return out


def splits(n):
    """Every split of boots 1..n into two labels, each split once."""
    k = n // 2
    seen = set()
    for a in itertools.combinations(range(1, n + 1), n - k):
        b = tuple(x for x in range(1, n + 1) if x not in a)
        key = frozenset((a, b))
        if key in seen:
            continue
        seen.add(key)
        yield a, b


def calibrate(values, stage, policies):
    """[(policy, contrast, splits, declared)]."""
    rows = []
    for pol in policies:
        for name, w, metric in CONTRASTS:
            per_boot = values.get((stage, pol, w, metric))
            if not per_boot or len(per_boot) < 4:
                continue
            boots = sorted(per_boot)
            n = declared = 0
            for a, b in splits(len(boots)):
                va = [per_boot[boots[i - 1]] for i in a]
                vb = [per_boot[boots[i - 1]] for i in b]
                n += 1
                declared += stats.differs(stats.contrast(va, vb))
            rows.append((pol, name, n, declared))
    return rows


def expected(n):
    """(the share of splits that the rule declares different, the most
    splits of one set it declared) for n boots drawn from one normal
    distribution: what a rule whose intervals hold scores on this
    design."""
    rng = random.Random(SIM_SEED)
    hits = total = most = 0
    for _ in range(SIM_RUNS):
        v = [rng.gauss(0, 1) for _ in range(n)]
        one = 0
        for a, b in splits(n):
            total += 1
            one += stats.differs(stats.contrast([v[i - 1] for i in a], [v[i - 1] for i in b]))
        hits += one
        most = max(most, one)
    return hits / total, most


def settings(rundir):
    """What a report compares its run's design with: the first boot's
    guest size and host, the windows per workload and their length."""
    boot = next(iter(l.split("\t")[2] for l in (rundir / "boots.tsv").read_text().splitlines()[1:]
                     if l.split("\t")[1] == "measure"), None)
    if boot is None:
        return {}
    prov = read_kv(rundir / boot / "provenance")
    policies = sorted(p for p in (rundir / boot / "guest").glob("*") if p.is_dir())
    wins = sorted(policies[0].glob("t1*")) if policies else []
    wl = read_kv(wins[0] / "workload.txt") if wins else {}
    return {"smp": prov.get("smp", "?"), "host": prov.get("host", "?"),
            "windows": str(len(wins)), "duration_s": wl.get("duration_s", "?")}


def widths(values, stage, policies):
    """[(policy, n, mean half-width of the added_us interval over every
    n-subset of the boots)]."""
    out = []
    for pol in policies:
        per_boot = values.get((stage, pol, "t2/t1", "added_us"))
        if not per_boot:
            continue
        v = [per_boot[b] for b in sorted(per_boot)]
        for n in range(2, len(v) + 1):
            hw = [(e.hi - e.lo) / 2 for e in (stats.interval(list(c)) for c in itertools.combinations(v, n))]
            out.append((pol, n, stats.mean(hw)))
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: calibrate.py RUNDIR", file=sys.stderr)
        return 2
    rundir = Path(sys.argv[1])
    stages = (rundir / "measure-stages").read_text().split() if (rundir / "measure-stages").exists() else []
    if len(stages) != 1:
        print(f"error: {rundir}: a calibration run measures one stage, this one {len(stages)}", file=sys.stderr)
        return 1
    stage = stages[0]
    values = read_boot_values(rundir / "metrics.tsv")
    policies = sorted({k[1] for k in values if k[0] == stage})
    nboots = max((len(v) for k, v in values.items() if k[0] == stage), default=0)
    rows = calibrate(values, stage, policies)
    if not rows:
        print(f"error: {rundir}: no t1/t2 contrast with 4 boots or more", file=sys.stderr)
        return 1
    total = sum(r[2] for r in rows)
    declared = sum(r[3] for r in rows)
    tsv = "policy\tcontrast\tsplits\tdeclared\n" + "".join(f"{p}\t{c}\t{n}\t{d}\n" for p, c, n, d in rows)
    tsv += f"all\tall\t{total}\t{declared}\n"
    tmp = rundir / "calibration.tsv.tmp"
    tmp.write_text(tsv)
    os.replace(tmp, rundir / "calibration.tsv")
    per = "; ".join(f"{p} {c} {d} of {n}" for p, c, n, d in rows)
    exp, most = expected(nboots)
    conf = settings(rundir)
    (rundir / "calibration.conf").write_text("".join(f"{k}={v}\n" for k, v in conf.items()))
    md = (f"A/A calibration, run `{rundir.name}`: stage {stage} booted {nboots} times "
          f"({', '.join(f'{k} {v}' for k, v in conf.items())}); each way of splitting its boots into "
          f"two labels judged with this report's rule between two stages, on t2 - t1 and on t2's "
          f"share over 1000 us: **{declared} of {total} declared a difference** "
          f"({100 * declared / total:.1f}%; per scan policy and contrast: {per}). A rule whose "
          f"intervals hold would score about {100 * exp:.1f}% on this design, and declared at most "
          f"{most} of one contrast's {rows[0][2]} splits in {SIM_RUNS} simulated sets of boots "
          f"(normal boot values). The splits share boots, so they are not independent: this checks "
          f"the rule against one kernel image's boot-to-boot noise, not a false-verdict rate to "
          f"a decimal.\n")
    wd = widths(values, stage, policies)
    (rundir / "widths.tsv").write_text("policy\tboots\tadded_us_halfwidth\n"
                                       + "".join(f"{p}\t{n}\t{h:.1f}\n" for p, n, h in wd))
    (rundir / "calibration.md").write_text(md)
    print(f"  calibration: {declared} of {total} A/A contrasts declared a difference "
          f"({100 * declared / total:.1f}%)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
