#!/bin/bash
# The statistics behind the report's verdicts (scripts/stats.py), with no
# boot: the t quantiles against tabulated values, a Welch contrast worked
# by hand, the verdict rules on intervals placed by hand, and the
# estimator on simulated runs with a known effect and a between-boot
# variance: its 95% intervals must cover the truth in 90-99% of 200 runs,
# and on two equal stages it must declare a difference in at most 5% of
# 1000 runs (and in some: a rule that never declares one cannot fail
# this). With 3 boots a stage Welch is conservative: about 3.4% of such
# runs declare one (20,000 runs of this model), where an exact 5% rule
# would sit on the bound. The same simulation with the windows as the
# unit, an interval that ignores which boot a window came from, must fail
# the false-verdict bound: that shows the check can fail, and why the boot
# is the unit.
# tier: quick (no kernel build, no boot: make check-quick)
. "$(dirname "$0")/lib.sh"
t_plan 11

py() { (cd "$TOP/scripts" && python3 -c "$1"); }

got=$(py 'import stats
print(" ".join(f"{stats.t_quantile(0.975, d):.3f}" for d in (1, 2, 5, 10, 30)), f"{stats.t_quantile(0.95, 4):.3f}")')
t_is "$got" "12.706 4.303 2.571 2.228 2.042 2.132" "t quantiles: 0.975 for df 1, 2, 5, 10, 30 and 0.95 for df 4, as tabulated"

# a = 1 2 3, b = 2 4 6: a - b = -2; var(a) = 1, var(b) = 4, so
# se^2 = 1/3 + 4/3 = 5/3 and Welch's df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2)
# = 2.941; half-width t(0.975, 2.941) * 1.291 = 3.218 * 1.291 = 4.155
# (t lies between df 3's 3.182 and df 2's 4.303).
got=$(py 'import stats
e = stats.contrast([1, 2, 3], [2, 4, 6])
print(f"{e.est:.3f} {e.se:.3f} {e.df:.3f} {e.lo:.3f} {e.hi:.3f}")')
t_is "$got" "-2.000 1.291 2.941 -6.155 2.155" "Welch contrast worked by hand: estimate, se, df and interval"
got=$(py 'import stats
e = stats.interval([10, 12, 14])
print(f"{e.est:.3f} {e.lo:.3f} {e.hi:.3f}", stats.interval([5]).lo, stats.contrast([1, 2], [3]).lo)')
t_is "$got" "12.000 7.032 16.968 None None" \
	"one stage's interval: mean 12, sd 2, 12 -/+ 4.303 x 2 / sqrt(3); one boot gives none"

got=$(py 'import stats
E = stats.Estimate
v = [stats.above_zero(E(5, 1, 10, .95)), stats.above_zero(E(-5, 1, 10, .95)), stats.above_zero(E(1, 1, 10, .95)),
     stats.below_zero(E(-5, 1, 10, .95)), stats.below_zero(E(5, 1, 10, .95)), stats.above_zero(E(5, None, None, .95))]
print("|".join(v))')
t_is "$got" "reproduced|not reproduced|inconclusive|reproduced|not reproduced|no interval" \
	"verdicts: above zero, below zero, straddling, and no interval"
# Equivalence within 15% of a baseline of about 1000: a stage near 0 is
# within it, one near 500 is beyond it, a noisy one near 100 is neither.
got=$(py 'import stats
b = [950, 1000, 1050]
print("|".join(stats.within_margin(s, b)[0] for s in ([-10, 0, 10], [480, 500, 520], [-520, -500, -480], [-300, 100, 500])))')
t_is "$got" "reproduced|not reproduced|not reproduced|inconclusive" \
	"equivalence: inside the margin, beyond it above, beyond it below, neither"

# The simulation: a stage's boot b has a log-normal effect shared by its
# windows (sd 0.15), one per workload (0.08), and window noise (0.05); a
# boot's figure is the mean of its 2 windows, 3 boots a stage, as the
# default measurement runs. Baseline t1 450 and t2 1250 us, the series
# t1 450 and t2 550 us.
sim=$(py '
import math, random, stats
rng = random.Random(20261207)
SB, SC, SE, K, N = 0.15, 0.08, 0.05, 2, 3
F = math.exp((SB ** 2 + SC ** 2 + SE ** 2) / 2)   # E[window mean] / mu

def boot(mu1, mu2):
    b = rng.gauss(0, SB)
    wins = []
    for mu in (mu1, mu2):
        c = rng.gauss(0, SC)
        wins.append([mu * math.exp(b + c + rng.gauss(0, SE)) for _ in range(K)])
    return wins

def added(boots):
    return [stats.mean(w2) - stats.mean(w1) for w1, w2 in boots]

def by_window(boots):
    return [x2 - x1 for w1, w2 in boots for x1, x2 in zip(w1, w2)]

cov_a = cov_b = 0
for _ in range(200):
    base = [boot(450, 1250) for _ in range(N)]
    ser = [boot(450, 550) for _ in range(N)]
    a = stats.interval(added(base))
    c = stats.contrast(added(ser), added(base))
    cov_a += a.lo <= 800 * F <= a.hi
    cov_b += c.lo <= -700 * F <= c.hi
false = false_w = 0
for _ in range(1000):
    x = [boot(450, 550) for _ in range(N)]
    y = [boot(450, 550) for _ in range(N)]
    false += stats.differs(stats.contrast(added(x), added(y)))
    false_w += stats.differs(stats.contrast(by_window(x), by_window(y)))
print(cov_a, cov_b, false, false_w)')
read -r cov_a cov_b false false_w <<<"$sim"
t_diag "simulated: coverage (a) $cov_a/200, (b) $cov_b/200; A/A declared $false/1000, windows as the unit $false_w/1000"
t_ok "$([ "$cov_a" -ge 180 ] && [ "$cov_a" -le 198 ] && echo 0 || echo 1)" \
	"simulated: the interval of baseline's added latency covers the truth in 90-99% of runs ($cov_a/200)"
t_ok "$([ "$cov_b" -ge 180 ] && [ "$cov_b" -le 198 ] && echo 0 || echo 1)" \
	"simulated: the interval of series minus baseline covers the truth in 90-99% of runs ($cov_b/200)"
t_ok "$([ "$false" -le 50 ] && [ "$false" -ge 5 ] && echo 0 || echo 1)" \
	"simulated A/A: a difference declared in at most 5% of runs, and in some ($false/1000)"
t_ok "$([ "$false_w" -gt 50 ] && echo 0 || echo 1)" \
	"simulated A/A with the windows as the unit: over 5% ($false_w/1000), so the bound can fail"

# The calibration's splits: 6 boots into two labels of 3 every way is
# C(6,3)/2 = 10; 5 into 3 and 2 is C(5,3) = 10; 4 into 2 and 2 is 3.
got=$(py 'import calibrate
print(*(len(list(calibrate.splits(n))) for n in (4, 5, 6)))')
t_is "$got" "3 10 10" "calibration: every split of 4, 5 and 6 boots, each once"
got=$(py 'import calibrate
v = {("s", "p", "t2/t1", "added_us"): {1: 100, 2: 110, 3: 90, 4: 105, 5: 95, 6: 100},
     ("s", "p", "t2", "woken_over1000_pct"): {1: 10, 2: 11, 3: 12, 4: 50, 5: 51, 6: 52}}
print(calibrate.calibrate(v, "s", ["p"]))')
# The over-1000 shares of boots 1-3 and 4-6 are two clusters: only the
# split that separates them declares a difference; added_us is one
# cluster and no split does.
t_is "$got" "[('p', 'added_us', 10, 0), ('p', 'over1000', 10, 1)]" \
	"calibration: declared differences counted per contrast over the splits"
