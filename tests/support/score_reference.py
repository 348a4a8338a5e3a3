"""The default interval of a mean of rates written out from its definition with SciPy, for tests."""

import numpy as np
from scipy import optimize, stats


def score_sum_reference(successes, trials, weights, level=0.95):
    """The default interval written out from its definition with SciPy, independently of the code: the
    score test of sum w p (constrained MLE by SLSQP, variance sum w^2 p(1-p)/(n-1)) inverted by root
    finding, its near-boundary end moved out to Fay & Feuer's gamma bound (scipy.stats.gamma)."""
    x, n, w = (np.asarray(a, dtype=float) for a in (successes, trials, weights))
    z = stats.norm.ppf(0.5 + level / 2)
    theta, total = float(w @ (x / n)), float(w.sum())

    def excess(theta0):
        constraint = {"type": "eq", "fun": lambda p: w @ p - theta0}
        loss = lambda p: -np.sum(x * np.log(np.clip(p, 1e-300, 1)) + (n - x) * np.log(np.clip(1 - p, 1e-300, 1)))
        fits = [optimize.minimize(loss, start, constraints=[constraint], bounds=[(1e-12, 1 - 1e-12)] * len(x), method="SLSQP",
                                  options={"ftol": 1e-13, "maxiter": 200})
                for start in (np.clip(x / n + (theta0 - theta) / total, 1e-6, 1 - 1e-6), np.full(len(x), theta0 / total))]
        p = min(fits, key=lambda fit: fit.fun).x  # two starts: SLSQP can stop short from one
        return (theta - theta0) ** 2 / np.sum(w * w * p * (1 - p) / np.maximum(n - 1, 1)) - z * z

    low = optimize.brentq(excess, 1e-9, theta - 1e-12, xtol=1e-9) if excess(1e-9) > 0 else 0.0
    high = optimize.brentq(excess, theta + 1e-12, total - 1e-9, xtol=1e-9) if excess(total - 1e-9) > 0 else total
    top = theta >= total / 2
    events = n - x if top else x
    mean, variance = float(np.sum(w / n * events)), float(np.sum((w / n) ** 2 * events * (n - events) / np.maximum(n - 1, 1)))
    if mean > 0 and variance > 0:
        bound = stats.gamma.ppf((1 - level) / 2, mean * mean / variance, scale=variance / mean)
        high, low = (max(high, total - bound), low) if top else (high, min(low, bound))
    return [low, high]
