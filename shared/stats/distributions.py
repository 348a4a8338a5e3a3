"""Distributions every statistic here uses (NumPy and the standard library only).

The normal (z) and Student's t quantiles and the chi-square upper tail. (``safe_ratio``, a
rate of counts that is NaN where nothing was counted, is in ``counting/counts.py``.)
"""

import math
from statistics import NormalDist

import numpy as np


def z_value(confidence_level: float) -> float:
    """The two-sided standard-normal quantile, e.g. 1.95996... for 0.95."""
    return NormalDist().inv_cdf(0.5 + confidence_level / 2.0)


def t_quantile(probability: float, degrees_of_freedom: float) -> float:
    """Student's t quantile for ``probability`` > 1/2 and any real degrees of freedom >= 1 (to
    about 1e-9): exact for 1 and 2; else Newton's method, kept inside a bracket, on the t
    distribution function (Simpson's rule on its density).

    Examples
    --------
    >>> round(t_quantile(0.975, 19), 4), round(t_quantile(0.975, 1), 4)  # tables: 2.0930, 12.7062
    (2.093, 12.7062)
    """
    nu = float(degrees_of_freedom)
    if math.isinf(nu):
        return NormalDist().inv_cdf(probability)
    if nu == 1:
        return math.tan(math.pi * (probability - 0.5))
    if nu == 2:
        return (2 * probability - 1) / math.sqrt(2 * probability * (1 - probability))
    log_scale = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)

    def density(x):
        return np.exp(log_scale - (nu + 1) / 2 * np.log1p(x * x / nu))

    def below(t):
        grid = np.linspace(0.0, t, 2049)
        weights = np.ones(grid.size)
        weights[1:-1:2], weights[2:-1:2] = 4.0, 2.0
        return 0.5 + float(np.sum(weights * density(grid))) * t / (3 * (grid.size - 1))

    # The quantile lies between the normal one and that of 1 degree of freedom (heavier tails).
    low, high = NormalDist().inv_cdf(probability), math.tan(math.pi * (probability - 0.5))
    t = min(max(low, t_quantile(probability, 2) if nu < 2 else low * (1 + (1 + low * low) / (4 * nu))), high)
    for _ in range(60):
        error = below(t) - probability
        if abs(error) < 1e-13:
            break
        low, high = (t, high) if error < 0 else (low, t)
        step = t - error / float(density(t))
        t = step if low < step < high else (low + high) / 2
    return t


def chi2_sf(statistic: float, degrees_of_freedom: float) -> float:
    """Upper tail ``P(X >= statistic)`` of a chi-square distribution (no SciPy).

    The regularised upper incomplete gamma ``Q(df/2, x/2)``: its series for
    ``x < a + 1``, else its continued fraction (modified Lentz), as in Numerical Recipes.

    Examples
    --------
    >>> round(chi2_sf(3.841458820694124, 1), 6)
    0.05
    """
    if degrees_of_freedom <= 0:
        return math.nan
    if statistic <= 0:
        return 1.0
    a, x = degrees_of_freedom / 2.0, statistic / 2.0
    log_prefactor = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        denominator = a
        for _ in range(10_000):
            denominator += 1.0
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefactor))
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return min(1.0, math.exp(log_prefactor) * h)
