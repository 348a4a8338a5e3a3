"""Intervals of binomial rates and of weighted sums of them, from counts.

The building blocks of the metrics' intervals (``metrics/*.py``, which document the methods, their measured
coverage and how weights enter): the Wilson and Agresti-Coull intervals of one rate,
MOVER for a weighted sum of independent rates (``rate_sum_interval``), the stratified
bootstrap of such a sum (each rate redrawn as Binomial(n, rate)) and of confusion rows
(each row redrawn as Multinomial(size, shares): ``bootstrap_confusion``, and the
percentile interval of any statistic of confusion matrices, ``confusion_interval``), Kish's effective
sizes for weighted counts, and the checks of the interval options. Everything works on
arrays whose last axis indexes the rates; leading axes are independent problems.

NumPy, the standard library and ``options.py`` (the checks of the interval options) only.
"""

import math
import warnings
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from .distributions import z_value
from .score_sum import score_interval

from .vocabulary import RATE_CI_METHODS

# The interval of every mean of rates when ci_method is None (score_sum.py; studies/long_tail_intervals).
DEFAULT_CI_METHOD = "score"

# Resampled values kept in memory at once (resamples x rates); larger jobs run in chunks.
_BOOTSTRAP_CHUNK_VALUES = 1 << 22


@dataclass
class Interval:
    """A confidence interval: ``low``/``high`` (floats or arrays), and a ``reason`` when NaN."""

    low: Any
    high: Any
    reason: Optional[str] = None

    def as_list(self):
        """``[low, high]`` as plain Python floats (NaN when undefined)."""
        return [float(self.low), float(self.high)]


# ----------------------------------------------------------------------------------------
# Building blocks (vectorised: any leading batch shape)
# ----------------------------------------------------------------------------------------


def effective_sizes(sum_weights: Any, sum_squared_weights: Any) -> np.ndarray:
    """Kish's effective sample size ``(sum w)^2 / sum w^2`` per class (0 where no weight).

    Pass it as ``effective_support`` with weighted counts (see the module doc).

    Examples
    --------
    >>> effective_sizes([4.0, 3.0, 0.0], [4.0, 5.0, 0.0]).tolist()  # weights 1,1,1,1 | 1,2 | none
    [4.0, 1.8, 0.0]
    """
    sum_weights, sum_squared_weights = (np.asarray(a, dtype=np.float64) for a in (sum_weights, sum_squared_weights))
    sizes = np.zeros(np.broadcast(sum_weights, sum_squared_weights).shape)
    np.divide(sum_weights**2, sum_squared_weights, out=sizes, where=sum_squared_weights > 0)
    return sizes


def wilson_interval(successes: Any, trials: Any, confidence_level: float) -> Tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a binomial rate; NaN where ``trials`` is 0.

    Examples
    --------
    >>> low, high = wilson_interval([0, 5], [5, 5], 0.95)
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0, 0.5655], [0.4345, 1.0])
    """
    successes, trials = (np.asarray(a, dtype=np.float64) for a in (successes, trials))
    z = z_value(confidence_level)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = successes / trials
        denominator = 1.0 + z * z / trials
        center = (rate + z * z / (2.0 * trials)) / denominator
        half_width = z / denominator * np.sqrt(np.maximum(rate * (1.0 - rate), 0.0) / trials + z * z / (4.0 * trials * trials))
    low = np.where(trials > 0, np.clip(center - half_width, 0.0, 1.0), np.nan)
    high = np.where(trials > 0, np.clip(center + half_width, 0.0, 1.0), np.nan)
    return low, high


def agresti_coull_interval(successes: Any, trials: Any, confidence_level: float) -> Tuple[np.ndarray, np.ndarray]:
    """Agresti-Coull interval: the Wald interval after adding z^2/2 successes and failures.

    Clipped to [0, 1]; NaN where ``trials`` is 0.

    Examples
    --------
    >>> low, high = agresti_coull_interval([0, 8], [10, 10], 0.95)
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0, 0.4794], [0.3209, 0.9541])
    """
    successes, trials = (np.asarray(a, dtype=np.float64) for a in (successes, trials))
    z = z_value(confidence_level)
    augmented = trials + z * z
    center = (successes + z * z / 2.0) / augmented
    half_width = z * np.sqrt(center * (1.0 - center) / augmented)
    low = np.where(trials > 0, np.clip(center - half_width, 0.0, 1.0), np.nan)
    high = np.where(trials > 0, np.clip(center + half_width, 0.0, 1.0), np.nan)
    return low, high


def mover_sum(estimates: Any, lows: Any, highs: Any, weights: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MOVER interval of ``sum_i w_i theta_i`` for independent ``theta_i`` with given intervals.

    Works on the last axis; a component with weight 0 is ignored (it may be NaN). Returns
    ``(estimate, low, high)``.
    """
    estimates, lows, highs, weights = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (estimates, lows, highs, weights)))
    used = weights != 0
    # Both per-rate intervals used here contain their estimate; max(0, .) guards rounding.
    below = np.where(used, np.maximum(np.where(weights > 0, estimates - lows, highs - estimates), 0.0) * np.abs(weights), 0.0)
    above = np.where(used, np.maximum(np.where(weights > 0, highs - estimates, estimates - lows), 0.0) * np.abs(weights), 0.0)
    estimate = np.where(used, weights * estimates, 0.0).sum(axis=-1)
    return estimate, estimate - np.sqrt((below**2).sum(axis=-1)), estimate + np.sqrt((above**2).sum(axis=-1))


def rate_sum_interval(
    successes: Any,
    trials: Any,
    weights: Any,
    *,
    offset: Any = 0.0,
    bounds: Tuple[float, float] = (0.0, 1.0),
    confidence_level: float = 0.95,
    method: str = DEFAULT_CI_METHOD,
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    estimate: Any = None,
) -> Interval:
    """Interval for ``offset + sum_i weights_i * successes_i / trials_i`` (independent rates).

    The last axis indexes the rates; leading axes are independent problems (the coverage
    study passes thousands at once). A rate with weight 0 is left out, so classes without
    samples can be masked by a zero weight. ``bounds`` is the metric's range (the interval
    is clipped to it; floats or arrays). ``trials`` may be non-integer (effective sizes of
    weighted counts); the bootstrap then rounds them to the nearest integer >= 1.
    ``estimate``: the point value the analytic interval is centred on, as the metric
    computed it (default: the sum itself; the two differ only by rounding).

    Examples
    --------
    Balanced accuracy of a binary judge, TPR = 40/50, TNR = 900/950:

    >>> interval = rate_sum_interval([40, 900], [50, 950], [0.5, 0.5], method="wilson")
    >>> [round(x, 4) for x in interval.as_list()]
    [0.808, 0.9179]
    >>> interval = rate_sum_interval([40, 900], [50, 950], [0.5, 0.5], method="bootstrap", seed=0)
    >>> [round(x, 2) for x in interval.as_list()]
    [0.82, 0.93]
    """
    successes, trials, weights = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (successes, trials, weights)))
    weights = np.where(trials > 0, weights, 0.0)  # an empty class carries no rate
    offset = np.asarray(offset, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(trials > 0, successes / trials, 0.0)
    if method == "score":
        # A rate of negative weight is its complement's with the weight's size: w p = w + |w| (1 - p).
        negative = weights < 0
        low, high = score_interval(np.where(negative, trials - successes, successes), trials, np.abs(weights), confidence_level)
        shift = offset + np.where(negative, weights, 0.0).sum(axis=-1)
        low, high = shift + low, shift + high
        if estimate is not None:  # widened, if rounding left it short, to contain the metric's own value
            low, high = np.fmin(low, estimate), np.fmax(high, estimate)
    elif method in ("agresti_coull", "wilson"):
        per_rate = agresti_coull_interval if method == "agresti_coull" else wilson_interval
        lows, highs = per_rate(successes, trials, confidence_level)
        center, low, high = mover_sum(rates, lows, highs, weights)
        if estimate is None:
            low, high = offset + low, offset + high
        else:  # the metric's own value, with MOVER's distances: the interval contains it exactly
            estimate = np.asarray(estimate, dtype=np.float64)
            low, high = estimate - (center - low), estimate + (high - center)
    elif method == "bootstrap":
        low, high = _bootstrap_rate_sum(rates, trials, weights, confidence_level, n_resamples, seed)
        low, high = offset + low, offset + high
    else:
        raise ValueError(f"ci_method: expected one of {RATE_CI_METHODS} for a sum of independent rates, found {method!r}.")
    low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    if low.ndim == 0:
        return Interval(float(low), float(high))
    return Interval(low, high)


def percentile_bounds(replicates: np.ndarray, confidence_level: float) -> Tuple[np.ndarray, np.ndarray]:
    alpha = 1.0 - confidence_level
    return tuple(np.quantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0))


# Pseudo-items a bootstrap adds to a group (or confusion row) that resampling cannot move: a rate at
# 0 or 1, a row with every item in one cell. Spread evenly over its outcomes, as the delta method's.
BOOTSTRAP_PSEUDO_ITEMS = 0.5


def _bootstrap_rate_sum(rates, trials, weights, confidence_level, n_resamples, seed):
    """Percentile interval of ``sum w * Binomial(n, rate) / n``, resampled in chunks. A rate at 0 or 1
    would never move: it is drawn with ``BOOTSTRAP_PSEUDO_ITEMS`` pseudo-items and the draws shifted
    back to the sum's own mean, so that a sum of such rates never gets the zero-width interval
    [value, value]."""
    rng = np.random.default_rng(seed)
    sizes = np.where(trials > 0, np.maximum(np.rint(trials), 1), 1).astype(np.int64)
    rates = np.clip(rates, 0.0, 1.0)
    stuck = (rates == 0.0) | (rates == 1.0)
    smoothed = np.where(stuck, (rates * sizes + BOOTSTRAP_PSEUDO_ITEMS / 2.0) / (sizes + BOOTSTRAP_PSEUDO_ITEMS), rates)
    # The pseudo-items give a stuck rate its spread, not a new centre: the draws are shifted back by
    # what they moved the sum's mean (the interval is then clipped to the range).
    shift = (weights * (smoothed - rates)).sum(axis=-1)
    chunk = max(1, _BOOTSTRAP_CHUNK_VALUES // max(1, smoothed.size))
    replicates = np.empty((n_resamples,) + smoothed.shape[:-1])
    for start in range(0, n_resamples, chunk):
        count = min(chunk, n_resamples - start)
        draws = rng.binomial(sizes, smoothed, size=(count,) + smoothed.shape)
        replicates[start : start + count] = (weights * draws / sizes).sum(axis=-1) - shift
    return percentile_bounds(replicates, confidence_level)


def finish_interval(low: np.ndarray, high: np.ndarray, undefined: np.ndarray, reason: Optional[str]) -> Interval:
    """NaN where undefined; floats and a reason for a single problem, arrays for a batch."""
    low, high = np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)
    if np.ndim(low) == 0:
        return Interval(float(low), float(high), reason if bool(undefined) else None)
    return Interval(low, high)


def bootstrap_confusion(
    row_rates: Any, row_sizes: Any, statistic, n_resamples: int, seed: Optional[int], row_totals: Any = None
) -> np.ndarray:
    """Stratified bootstrap replicates of ``statistic(confusion)``: each row ~ Multinomial(size, rates).

    ``row_rates`` is ``(..., K, K)`` (each row sums to 1, or 0 for an empty row) and
    ``row_sizes`` ``(..., K)``. Each resampled row is rescaled to ``row_totals`` (default:
    the sizes), so with weighted counts the rows are drawn on their effective sizes but
    keep their weighted totals. The resampled matrices ``(chunk, ..., K, K)`` go to
    ``statistic``, which reduces the last two axes. Returns ``(n_resamples, ...)``.
    """
    rng = np.random.default_rng(seed)
    row_rates, row_sizes = (np.asarray(a, dtype=np.float64) for a in (row_rates, row_sizes))
    sizes = np.where(row_sizes > 0, np.maximum(np.rint(row_sizes), 1), 0).astype(np.int64)
    totals = sizes if row_totals is None else np.asarray(row_totals, dtype=np.float64)
    scale = (totals / np.maximum(sizes, 1))[..., None]
    # Guard against rows summing to 1 + epsilon, which multinomial rejects.
    row_rates = row_rates / np.maximum(row_rates.sum(axis=-1, keepdims=True), 1.0)
    chunk = max(1, _BOOTSTRAP_CHUNK_VALUES // max(1, row_rates.size))
    replicates = np.empty((n_resamples,) + row_rates.shape[:-2])
    for start in range(0, n_resamples, chunk):
        count = min(chunk, n_resamples - start)
        draws = rng.multinomial(sizes, row_rates, size=(count,) + sizes.shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            replicates[start : start + count] = statistic(draws * scale)
    return replicates


# Above this many multinomial cells (resamples x K x K) the bootstrap would run for minutes.
MAX_BOOTSTRAP_CELLS = 2_000_000_000

DEFAULT_RESAMPLES = 10_000
# n_resamples=None: resamples x cells per matrix <= this (about 3 s here), between 1,000 and 10,000.
AUTO_BOOTSTRAP_CELLS = 25_000_000
MIN_AUTO_RESAMPLES = 1_000


def auto_resamples(cells: int) -> int:
    """The resamples ``n_resamples=None`` draws for a bootstrap of matrices of ``cells`` cells.

    10,000 up to 2,500 cells (K = 50), then ``AUTO_BOOTSTRAP_CELLS / cells``, never fewer
    than 1,000 (K = 150: 1,111). The Monte-Carlo error of a percentile endpoint (2.5%
    quantile of B draws) is about ``sqrt(0.025 * 0.975 / B) / phi(1.96)`` standard errors
    of the value: 0.027 at B = 10,000, 0.085 at 1,000 (4% of the 95% half-width).

    Examples
    --------
    >>> auto_resamples(3 * 3), auto_resamples(150 * 150), auto_resamples(1000 * 1000)
    (10000, 1111, 1000)
    """
    return int(min(DEFAULT_RESAMPLES, max(MIN_AUTO_RESAMPLES, AUTO_BOOTSTRAP_CELLS // max(1, cells))))


def confusion_interval(
    confusion: Any,
    statistic,
    *,
    confidence_level: float,
    n_resamples: Optional[int] = 10_000,
    seed: Optional[int] = None,
    bounds: Tuple[float, float] = (-math.inf, math.inf),
    effective_support: Any = None,
) -> Interval:
    """Stratified-bootstrap percentile interval of any ``statistic`` of confusion matrices.

    ``n_resamples=None``: ``auto_resamples`` of the K x K cells (10,000 up to K = 50).

    ``confusion`` is ``(..., K, K)`` (rows = references). Each row is resampled as
    Multinomial(row size, row shares) with its size kept, and ``statistic`` (vectorised:
    ``(R, ..., K, K) -> (R, ...)``, e.g. built on ``confusion_counts``) is applied to the
    resamples. Replicates where the statistic is NaN are left out of the percentiles. A row with every
    item in one cell is drawn with ``BOOTSTRAP_PSEUDO_ITEMS`` spread over its cells (it would never move).
    ``effective_support`` (weighted counts): rows are drawn on Kish's effective sizes and
    rescaled to their weighted totals. ``bounds``: the statistic's range.

    Examples
    --------
    >>> def youden(m):  # TPR + TNR - 1 of 2 x 2 matrices (rows = references: negative, positive)
    ...     return m[..., 1, 1] / m[..., 1, :].sum(-1) + m[..., 0, 0] / m[..., 0, :].sum(-1) - 1
    >>> interval = confusion_interval([[45, 5], [10, 40]], youden, confidence_level=0.95, seed=0)
    >>> [round(x, 2) for x in interval.as_list()]
    [0.56, 0.84]
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    num_classes = confusion.shape[-1]
    if n_resamples is None:
        n_resamples = auto_resamples(num_classes * num_classes)
    cells = n_resamples * confusion.size
    if cells > MAX_BOOTSTRAP_CELLS:
        raise ValueError(
            f"n_resamples: the bootstrap of a {num_classes} x {num_classes} confusion matrix draws n_resamples x "
            f"{confusion.size:,} cells; {n_resamples:,} resamples exceed the limit of {MAX_BOOTSTRAP_CELLS:,} cells. "
            f"Pass n_resamples <= {MAX_BOOTSTRAP_CELLS // confusion.size:,}."
        )
    support = confusion.sum(axis=-1)
    rates = confusion / np.where(support > 0, support, 1.0)[..., None]
    sizes = support if effective_support is None else np.asarray(effective_support, dtype=np.float64)
    # A row with every item in one cell never moves: drawn with BOOTSTRAP_PSEUDO_ITEMS spread over its cells.
    stuck = ((rates == 1.0).any(axis=-1) & (support > 0))[..., None]
    smoothed = (rates * sizes[..., None] + BOOTSTRAP_PSEUDO_ITEMS / num_classes) / (sizes[..., None] + BOOTSTRAP_PSEUDO_ITEMS)
    smoothed = np.where(stuck, smoothed, rates)
    shift = 0.0
    if stuck.any():  # the pseudo-items give spread, not a new centre: shifted back by what they moved the statistic
        with np.errstate(invalid="ignore", divide="ignore"):
            moved = statistic((smoothed * support[..., None])[None]) - statistic((rates * support[..., None])[None])
        shift = np.nan_to_num(moved[0])
    replicates = bootstrap_confusion(smoothed, sizes, statistic, n_resamples, seed, row_totals=support) - shift
    undefined = np.isnan(replicates).all(axis=0)
    if np.isnan(replicates).any():
        alpha = 1.0 - confidence_level
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN problems: masked by finish_interval
            low, high = np.nanquantile(replicates, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    else:
        low, high = percentile_bounds(replicates, confidence_level)
    return finish_interval(np.clip(low, *bounds), np.clip(high, *bounds), undefined, "undefined_in_every_resample")
