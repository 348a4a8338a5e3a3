"""The score interval of a weighted sum of independent binomial rates, with a gamma bound near the boundary.

This is the default interval of every mean of rates here (``ci_method=None`` or ``"score"``):
balanced accuracy (a mean of per-class recalls), balanced top-k accuracy, a macro or weighted
average of per-label balanced accuracies (each label's TPR and TNR), binary informedness, and
their adjusted forms (affine maps of the sum). It holds where those have many small classes,
rates at 0 or 1 and tiny groups; ``studies/long_tail_intervals`` measures it (worst cell 0.934
over 128 cells at 95%, where Agresti-Coull/MOVER fell to 0.845).

Groups c have weight ``w_c > 0``, ``x_c`` successes out of ``n_c`` (possibly non-integer:
effective sizes), ``p_c = x_c / n_c``; the value is ``theta = sum_c w_c p_c`` on ``[0, W]``,
``W = sum_c w_c``.

1. **Score interval** (``score_bounds``). For a null value ``theta0``, the rates ``p~_c`` that
   maximise the binomial likelihood subject to ``sum w_c p_c = theta0`` solve
   ``x_c - n_c p = lambda w_c p (1 - p)`` (a quadratic per group, one Lagrange multiplier
   ``lambda``). The interval is ``{theta0 : (theta - theta0)^2 <= z^2 sum_c w_c^2 p~_c (1 - p~_c) / d_c}``
   with ``d_c = max(n_c - 1, 1)`` (Miettinen & Nurminen's N/(N-1), per group). Its ends are found by
   bisection on ``log lambda`` (``lambda > 0``: the lower end). Taking the variance at the
   constrained rates, not the estimates, is what keeps it at its level as the number of groups
   grows; one group with ``d = n`` is Wilson's interval.
2. **Gamma bound on the side of the nearer boundary** (``near_boundary_bound``): Fay & Feuer's
   (1997) bound for a weighted sum of counts, with the binomial variance. Near the top
   (``theta >= W/2``) the deficit ``W - theta = sum a_c m_c`` (``a_c = w_c / n_c``, ``m_c`` the
   failures) has the lower bound ``B = (v/y) G^-1(alpha/2; y^2/v)``, ``y = sum a_c m_c``,
   ``v = sum a_c^2 m_c (n_c - m_c) / (n_c - 1)``; near 0 the same on the successes. With equal
   weights and Poisson variance this is Garwood's exact bound. A handful of failures decides
   the upper end of a near-perfect sum, where the score interval alone is discrete and short.
3. The interval is the score interval with its near-side end moved out to the gamma bound when
   that is farther, clipped to ``[0, W]``.

NumPy and the standard library only; vectorised over leading axes (independent problems).
"""

import math
from statistics import NormalDist
from typing import Any, Tuple

import numpy as np

# Bisection steps on log(lambda) and on the gamma quantile: 2^-48 of the search range.
_BISECTION_STEPS = 48
# The incomplete-gamma series is summed in blocks until its terms are this small relative to the sum.
_SERIES_TOLERANCE = 1e-15
# Above this shape the gamma quantile is Wilson & Hilferty's (1931) cube-root approximation.
_LARGE_SHAPE = 200.0


def constrained_rates(successes: np.ndarray, trials: np.ndarray, multiplier: np.ndarray) -> np.ndarray:
    """The root in [0, 1] of ``x - n p - a p (1 - p) = 0`` per group (``a = lambda w_c``): the rates
    that maximise the binomial likelihood at the null value the multiplier stands for.

    Examples
    --------
    >>> constrained_rates(np.array([3.0]), np.array([10.0]), np.array([0.0])).tolist()  # lambda = 0: the estimate
    [0.3]
    """
    b = multiplier + trials
    root = np.sqrt(np.maximum(b * b - 4.0 * multiplier * successes, 0.0))
    smaller = 2.0 * successes / np.where(b > 0, b + root, 1.0)  # b > 0: the smaller root, without cancellation
    other = (b - root) / np.where(multiplier != 0, 2.0 * multiplier, 1.0)  # b <= 0 (then a < 0): the root in [0, 1]
    return np.clip(np.where(b > 0, smaller, other), 0.0, 1.0)


def score_bounds(successes: Any, trials: Any, weights: Any, z: float) -> Tuple[np.ndarray, np.ndarray]:
    """The score interval of ``sum_c w_c x_c / n_c`` (step 1 of the module doc), clipped to ``[0, sum w]``.

    Groups with ``w_c == 0`` or ``n_c == 0`` are left out; ``w_c >= 0``.

    Examples
    --------
    One group with ``n - 1`` in the variance: Wilson's interval on 9 trials' variance.

    >>> low, high = score_bounds([3.0], [10.0], [1.0], 1.959964)
    >>> round(float(low), 4), round(float(high), 4)
    (0.1021, 0.6175)
    """
    x, n, w, p, used = _groups(successes, trials, weights)
    theta = (w * p).sum(axis=-1)
    w2d = w * w / np.maximum(n - 1.0, 1.0)
    smallest = np.where(used, w, np.inf).min(axis=-1)
    smallest = np.where(np.isfinite(smallest), smallest, 1.0)
    # lambda w_c runs from 1e-8 to 1e8 times the largest group: the null values reach the range's ends.
    log_scale = np.log(n.max(axis=-1) / smallest)
    # Both ends at once, on a leading axis of two: lambda > 0 (the lower end) and lambda < 0.
    sign = np.array([1.0, -1.0]).reshape((2,) + (1,) * theta.ndim)
    near = np.full((2,) + theta.shape, math.log(1e-8)) + log_scale
    far = np.full((2,) + theta.shape, math.log(1e8)) + log_scale

    def statistic(log_multiplier):
        rates = constrained_rates(x, n, (sign * np.exp(log_multiplier))[..., None] * w)
        null = (w * rates).sum(axis=-1)
        variance = (w2d * rates * (1.0 - rates)).sum(axis=-1)
        squared = (theta - null) ** 2
        # Where the squared distance is 0 the null is the estimate: inside, whatever the variance.
        return np.where(squared > 1e-300, squared / variance, 0.0), null

    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        far_statistic, farthest = statistic(far)
        for _ in range(_BISECTION_STEPS):
            middle = 0.5 * (near + far)
            inside = ~(statistic(middle)[0] > z * z)  # a NaN statistic (0 / 0) counts as inside
            near = np.where(inside, middle, near)
            far = np.where(inside, far, middle)
        end = statistic(near)[1]
    # Where even the farthest null is not rejected, the interval runs to that end of the range.
    ends = np.where(~(far_statistic > z * z), farthest, end)
    low, high = np.minimum(ends[0], theta), np.maximum(ends[1], theta)
    total = w.sum(axis=-1)
    return np.clip(low, 0.0, total), np.clip(high, 0.0, total)


def near_boundary_bound(successes: Any, trials: Any, weights: Any, z: float) -> Tuple[np.ndarray, np.ndarray]:
    """Fay & Feuer's gamma bound, binomial variance, on the side of the boundary the value is nearer
    to (step 2 of the module doc): ``(bound, top)``. ``top``: the value is at least half the range,
    and ``sum w - bound`` is an upper end; otherwise ``bound`` is a lower end. Where the counted
    events have no variance (none, or every group with events has only events) the bound is the
    value itself.

    Examples
    --------
    Equal weights, one failure in each of two groups of 1,000 (deficit 0.001 of a mean of two
    rates): Garwood's exact Poisson bound for 2 events, chi2(0.025; 4) / 2 = 0.242, times 0.5 / 1,000
    (one failure in 1,000 has the binomial variance factor (n - m) / (n - 1) = 1).

    >>> bound, top = near_boundary_bound([999.0, 999.0], [1000.0, 1000.0], [0.5, 0.5], 1.959964)
    >>> round(float(bound) * 2000, 3), bool(top)
    (0.242, True)
    """
    x, n, w, p, used = _groups(successes, trials, weights)
    total = w.sum(axis=-1)
    top = (w * p).sum(axis=-1) >= 0.5 * total
    per_event = w / n
    events = np.where(top[..., None], n - x, x)
    mean = (per_event * events).sum(axis=-1)
    binomial = np.where(n > 1, (n - events) / np.maximum(n - 1.0, 1.0), 1.0)
    variance = (per_event * per_event * events * binomial).sum(axis=-1)
    positive = (mean > 0) & (variance > 0)
    shape = np.where(positive, mean * mean / np.where(positive, variance, 1.0), 1.0)
    scale = np.where(positive, variance / np.where(positive, mean, 1.0), 0.0)
    tail = 1.0 - NormalDist().cdf(z)
    bound = np.where(positive, gamma_lower_quantile(tail, shape) * scale, mean)
    return bound, top


def score_interval(successes: Any, trials: Any, weights: Any, confidence_level: float) -> Tuple[np.ndarray, np.ndarray]:
    """The default interval of ``sum_c w_c x_c / n_c`` (``w_c >= 0``): the score interval with its
    near-side end moved out to the gamma bound when that is farther; on ``[0, sum w]``.

    Examples
    --------
    Balanced accuracy of three classes, every item right: not the certainty [1, 1].

    >>> low, high = score_interval([5.0, 8.0, 20.0], [5.0, 8.0, 20.0], [1 / 3] * 3, 0.95)
    >>> round(float(low), 4), float(high)
    (0.8222, 1.0)
    """
    z = NormalDist().inv_cdf(0.5 + confidence_level / 2.0)
    low, high = score_bounds(successes, trials, weights, z)
    bound, top = near_boundary_bound(successes, trials, weights, z)
    total = np.where(np.asarray(trials) > 0, np.asarray(weights, dtype=np.float64), 0.0).sum(axis=-1)
    low = np.where(top, low, np.minimum(low, bound))
    high = np.where(top, np.maximum(high, total - bound), high)
    return np.clip(low, 0.0, total), np.clip(high, 0.0, total)


def gamma_lower_cdf(x: np.ndarray, shape: np.ndarray, log_gamma: Any = None) -> np.ndarray:
    """The regularised lower incomplete gamma ``P(shape, x)`` by its series (Abramowitz & Stegun
    6.5.29), for ``x <= shape + 1`` (the lower tail, where it converges fast); vectorised, each
    element's series summed until its own terms are negligible (as if it were alone).
    ``log_gamma``: ``log Gamma(shape)``, if known.

    Examples
    --------
    >>> round(float(gamma_lower_cdf(np.array(1.0), np.array(1.0))), 12) == round(1 - math.exp(-1), 12)  # Exp(1)
    True
    """
    x, shape = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(shape, dtype=np.float64))
    if log_gamma is None:
        log_gamma = np.vectorize(math.lgamma, otypes=[np.float64])(shape)
    term = 1.0 / shape
    total = term.copy()
    # Each element stops at its own first converged block: its value is the one it has alone.
    active = np.ones(total.shape, dtype=bool)
    k = 0
    while k < 4096:
        every = bool(active.all())
        for _ in range(16):
            k += 1
            term = term * x / (shape + k)
            total += term if every else np.where(active, term, 0.0)
        active &= term > _SERIES_TOLERANCE * total
        if not active.any():
            break
    positive = x > 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        value = np.exp(shape * np.log(np.where(positive, x, 1.0)) - x - log_gamma) * total
    return np.where(positive, np.clip(value, 0.0, 1.0), 0.0)


def gamma_lower_quantile(probability: float, shape: Any) -> np.ndarray:
    """The ``probability`` quantile (below 1/2) of Gamma(shape, 1): bisection on ``gamma_lower_cdf``
    over ``[0, shape]`` up to shape 200, Wilson & Hilferty's cube-root formula above.

    Examples
    --------
    >>> round(float(gamma_lower_quantile(0.025, 1.0)), 6) == round(-math.log(0.975), 6)  # Exp(1)
    True
    >>> float(gamma_lower_quantile(0.025, 0.0))  # the limit shape -> 0: all mass at 0
    0.0
    """
    shape = np.asarray(shape, dtype=np.float64)
    # A shape that underflowed to 0 (mean ** 2 / variance of subnormal weights): Gamma(shape) tends to
    # a point mass at 0 as shape -> 0, so its quantile is 0; computed on shape 1, then replaced.
    vanishing = shape <= 0.0
    small = np.where(vanishing, 1.0, np.minimum(shape, _LARGE_SHAPE))
    low, high = np.zeros_like(small), small.copy()  # the median is below the shape: the quantile too
    if np.any(shape <= _LARGE_SHAPE):  # else every quantile is the cube-root formula's: no bisection
        log_gamma = np.vectorize(math.lgamma, otypes=[np.float64])(small)
        for _ in range(_BISECTION_STEPS):
            middle = 0.5 * (low + high)
            below = gamma_lower_cdf(middle, small, log_gamma) < probability
            low = np.where(below, middle, low)
            high = np.where(below, high, middle)
    normal = NormalDist().inv_cdf(probability)
    large = np.maximum(shape, 1.0)
    cube_root = large * (1.0 - 1.0 / (9.0 * large) + normal * np.sqrt(1.0 / (9.0 * large))) ** 3
    return np.where(vanishing, 0.0, np.where(shape <= _LARGE_SHAPE, 0.5 * (low + high), cube_root))


def _groups(successes: Any, trials: Any, weights: Any):
    """Broadcast arrays with unused groups (weight 0 or no trials) zeroed: ``(x, n, w, p, used)``."""
    x, n, w = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (successes, trials, weights)))
    used = (w != 0) & (n > 0)
    w = np.where(used, w, 0.0)
    n = np.where(used, n, 1.0)
    x = np.where(used, np.clip(x, 0.0, n), 0.0)
    return x, n, w, x / n, used
