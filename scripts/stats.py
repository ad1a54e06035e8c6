#!/usr/bin/env python3
"""The statistics behind the report's verdicts, with the boot as the unit.

A measurement boot runs each workload in several windows, but the windows
of one boot are not independent of each other: the way the tasks settle
onto the CPUs, and whatever else made that boot fast or slow, is shared by
all of them. What varies most is the boot, so every interval here is
computed from one value per boot (its windows pooled) and the spread
between boots: for one stage, what a mixed model with the boot as a
random effect gives for a balanced design; between two stages, Welch's
version, which lets each stage keep its own between-boot variance.

- interval(): a stage's mean of its per-boot values, with a Student t
  interval on n - 1 degrees of freedom.
- contrast(): a - w * b between two stages' per-boot values (Welch: each
  stage keeps its own between-boot variance, the degrees of freedom come
  from Welch-Satterthwaite).
- The verdict rules that the report and the A/A calibration share. A
  claim of a sign is judged on a two-sided 95% interval (so 2.5% one
  sided); equivalence on two 90% intervals (5% each side). Nothing here
  corrects for the number of claims a report checks.

No SciPy: the t quantile comes from the regularized incomplete beta
function (continued fraction), checked in tests/63 against tabulated
values.
"""

import math

# The margin of the equivalence claim: the series' added latency is
# "about zero" when it is within this share of the baseline's.
EQUIV_MARGIN = 0.15


def _betacf(a, b, x):
    """Continued fraction for the incomplete beta function (Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-14:
            break
    return h


def _betai(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1.0 - x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    """P(T <= t) for Student's t with df (> 0, not necessarily whole)."""
    tail = 0.5 * _betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p, df):
    """The p-quantile of Student's t with df degrees of freedom."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


def mean(v):
    return sum(v) / len(v)


def sd(v):
    """Sample standard deviation (n - 1); None for fewer than 2 values."""
    if len(v) < 2:
        return None
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


class Estimate:
    """An estimate with its standard error and degrees of freedom; lo and
    hi are its interval at the level asked for."""

    def __init__(self, est, se, df, level):
        self.est, self.se, self.df, self.level = est, se, df, level
        if se is None or df is None or df <= 0:
            self.lo = self.hi = None
        elif se == 0:
            self.lo = self.hi = est
        else:
            q = t_quantile(0.5 + level / 2.0, df)
            self.lo, self.hi = est - q * se, est + q * se

    def __repr__(self):
        return f"Estimate({self.est}, se={self.se}, df={self.df}, [{self.lo}, {self.hi}])"


def interval(values, level=0.95):
    """One stage's mean of per-boot values, t interval on n - 1 df."""
    if not values:
        return None
    n = len(values)
    s = sd(values)
    if s is None:
        return Estimate(mean(values), None, None, level)
    return Estimate(mean(values), s / math.sqrt(n), n - 1, level)


def contrast(a, b, w=1.0, level=0.95):
    """mean(a) - w * mean(b) for per-boot values of two stages (Welch).
    No interval unless each stage has two boots or more."""
    if not a or not b:
        return None
    est = mean(a) - w * mean(b)
    sa, sb = sd(a), sd(b)
    if sa is None or sb is None:
        return Estimate(est, None, None, level)
    va, vb = sa * sa / len(a), w * w * sb * sb / len(b)
    se2 = va + vb
    if se2 == 0:
        # Boots that all agree exactly: no spread to build an interval on.
        return Estimate(est, None, None, level)
    df = se2 * se2 / ((va * va / (len(a) - 1) if va else 0.0) + (vb * vb / (len(b) - 1) if vb else 0.0))
    return Estimate(est, math.sqrt(se2), df, level)


# --- verdicts -------------------------------------------------------
REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
NO_INTERVAL = "no interval"


def above_zero(e):
    """The claim 'the contrast is above zero', on its 95% interval: the
    whole interval above zero reproduces it, the whole interval below
    zero contradicts it."""
    if e is None or e.lo is None:
        return NO_INTERVAL
    if e.lo > 0:
        return REPRODUCED
    if e.hi < 0:
        return NOT_REPRODUCED
    return INCONCLUSIVE


def below_zero(e):
    """The claim 'the contrast is below zero'."""
    if e is None or e.lo is None:
        return NO_INTERVAL
    if e.hi < 0:
        return REPRODUCED
    if e.lo > 0:
        return NOT_REPRODUCED
    return INCONCLUSIVE


def within_margin(series, base, margin=EQUIV_MARGIN):
    """Equivalence (two one-sided tests at 5%): the series' mean is within
    margin * the baseline's mean of zero. upper = series - margin * base
    and lower = series + margin * base on 90% intervals: reproduced when
    upper's whole interval is below zero and lower's above it; not
    reproduced when upper's whole interval is above zero (the series'
    value is larger than the margin) or lower's below it. Returns
    (verdict, upper, lower)."""
    up = contrast(series, base, margin, level=0.90)
    low = contrast(series, base, -margin, level=0.90)
    if up is None or up.lo is None or low.lo is None:
        return NO_INTERVAL, up, low
    if up.hi < 0 and low.lo > 0:
        return REPRODUCED, up, low
    if up.lo > 0 or low.hi < 0:
        return NOT_REPRODUCED, up, low
    return INCONCLUSIVE, up, low


def differs(e):
    """Whether a contrast between two stages declares a difference, in
    either direction: what an A/A comparison must not do."""
    return e is not None and e.lo is not None and (e.lo > 0 or e.hi < 0)
