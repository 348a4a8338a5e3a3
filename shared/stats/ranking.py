"""Simultaneous inference for several judges scored on one golden set: maxT.

J judges label the same items, so their estimates are correlated (they share the hard
items). Following Westphal & Brannath (2020) and Westphal & Zapf (2024), the estimates
are treated as jointly normal, with covariances from the items they share, and a family
of statistics is judged by the distribution of its largest absolute value (maxT):

- ``judge_covariance``: the J x J covariance of the judges' estimates from the pairwise
  joint counts ``joint[r, a, b]`` (judge i labels a, judge j labels b, reference r) and
  each judge's gradient ``G[r, a]`` (how one more item of reference r labelled a moves the
  value): per reference row, the stratified multinomial covariance of the two items'
  gradients, at shares smoothed by one pseudo-item spread evenly over the row's cells.
  The smoothing is that of one J-way distribution (the observed one mixed with a uniform
  one), so the matrix is a covariance (positive semi-definite), and a judge that is right
  on every item of a class still has some variance there.
- ``max_abs_normal``: draws of ``max_k |Z_k|``, ``Z ~ N(0, R)``, by Monte Carlo from a fixed
  seed (``MAXT_DRAWS`` draws: about 0.001 of Monte Carlo error on a probability near 0.05).
- ``maxt_quantile``: the simultaneous critical value c, ``P(max |Z_k| <= c) = level``.
- ``maxt_p_values``: a p-value p (two-sided) as ``z = Phi^-1(1 - p/2)``, adjusted to
  ``P(max_k |Z_k| >= z)``; for one comparison the identity, and never below p nor above
  Bonferroni's ``m p`` (taken where fewer than ``MIN_TAIL_DRAWS`` draws lie beyond z).

NumPy and the standard library only.
"""

import functools
from statistics import NormalDist
from typing import Any, Optional

import numpy as np

from .binomial import effective_sizes

# Draws of the multivariate normal for the maxT distribution (a power of two, from a fixed seed).
MAXT_DRAWS = 1 << 16
MAXT_SEED = 20240101
# Fewer draws than this beyond a statistic: its adjusted p-value is Bonferroni's (the tail is not resolved).
MIN_TAIL_DRAWS = 50
# One pseudo-item per reference row, spread evenly over its cells, before covariances are taken.
COVARIANCE_PSEUDO_ITEMS = 1.0


def pair_covariance(joint: np.ndarray, joint_w2: Optional[np.ndarray], gradient_a: np.ndarray, gradient_b: np.ndarray,
                    pseudo_items: float = COVARIANCE_PSEUDO_ITEMS) -> Any:
    """The covariance of two judges' estimates from their joint counts ``joint[r, a, b]`` (K x K x K)
    and their gradients ``gradient_a[r, a]``, ``gradient_b[r, b]`` (K x K, per counted item); on
    leading axes, one covariance per pair (``joint`` (..., K, K, K), the gradients (..., K, K)).

    Row r's shares ``s`` (smoothed: ``(n_r s + pseudo_items / K^2) / (n_r + pseudo_items)``, n_r
    its Kish size) give ``Cov = sum_r total_r^2 / n_r Cov_s(G_a[r, A], G_b[r, B])``.

    Examples
    --------
    Two judges of one class that are right on the same items: the covariance is the variance.

    >>> joint = np.zeros((1, 2, 2)); joint[0, 0, 0], joint[0, 1, 1] = 6, 4
    >>> gradient = np.array([[0.1, 0.0], [0.0, 0.0]])
    >>> round(float(pair_covariance(joint, None, gradient, gradient, 0.0)), 6), round(0.6 * 0.4 / 10, 6)
    (0.024, 0.024)
    """
    joint = np.asarray(joint, dtype=np.float64)
    totals = joint.sum(axis=(-2, -1))
    sizes = totals if joint_w2 is None else effective_sizes(totals, np.sum(joint_w2, axis=(-2, -1), dtype=np.float64))
    num_classes = joint.shape[-1]
    used = (totals > 0) & (sizes > 0)
    safe_totals = np.where(used, totals, 1.0)
    safe_sizes = np.where(used, sizes, 1.0)
    shares = joint / safe_totals[..., None, None]
    shares = (safe_sizes[..., None, None] * shares + pseudo_items / num_classes**2) / (safe_sizes + pseudo_items)[..., None, None]
    a = np.asarray(gradient_a, dtype=np.float64)[..., :, :, None]
    b = np.asarray(gradient_b, dtype=np.float64)[..., :, None, :]
    mean_a = (shares * a).sum(axis=(-2, -1))
    mean_b = (shares * b).sum(axis=(-2, -1))
    within = (shares * a * b).sum(axis=(-2, -1)) - mean_a * mean_b
    return np.where(used, safe_totals**2 / safe_sizes * within, 0.0).sum(axis=-1)


# Cells of the pairs' joint counts taken at once when the covariances are computed (bounds the temporaries).
COVARIANCE_CHUNK_CELLS = 1 << 21


def judge_covariance(joint: np.ndarray, joint_w2: Optional[np.ndarray], own: np.ndarray, own_w2: Optional[np.ndarray],
                     gradients: np.ndarray) -> np.ndarray:
    """The J x J covariance of the judges' estimates: ``joint[p]`` the joint counts of the p-th pair
    i < j (``np.triu_indices(J, 1)`` order; ``joint_w2`` their squared weights, or None),
    ``own[i]`` judge i's confusion counts on the same scale (``own_w2`` likewise), ``gradients[i]``
    judge i's (K x K). A judge's variance is its covariance with itself: its counts as the joint
    counts of the judge with itself (the diagonal cells)."""
    size, num_classes = gradients.shape[0], gradients.shape[-1]
    covariance = np.zeros((size, size))
    first, second = np.triu_indices(size, 1)
    step = max(1, COVARIANCE_CHUNK_CELLS // num_classes**3)
    for start in range(0, first.size, step):
        chunk = slice(start, start + step)
        found = pair_covariance(joint[chunk], None if joint_w2 is None else joint_w2[chunk], gradients[first[chunk]], gradients[second[chunk]])
        covariance[first[chunk], second[chunk]] = covariance[second[chunk], first[chunk]] = found
    eye = np.eye(num_classes)
    own_w2 = None if own_w2 is None else own_w2[:, :, :, None] * eye
    np.fill_diagonal(covariance, pair_covariance(own[:, :, :, None] * eye, own_w2, gradients, gradients))
    return covariance


def correlation_of(covariance: np.ndarray) -> np.ndarray:
    """The correlation matrix of ``covariance``; a variable without variance is uncorrelated."""
    deviation = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        correlation = covariance / np.outer(deviation, deviation)
    correlation = np.where(np.outer(deviation > 0, deviation > 0), correlation, 0.0)
    np.fill_diagonal(correlation, 1.0)
    return np.clip(correlation, -1.0, 1.0)


def max_abs_normal(correlation: Any, draws: int = MAXT_DRAWS, seed: Optional[int] = None) -> np.ndarray:
    """Sorted draws of ``max_k |Z_k|`` for ``Z ~ N(0, correlation)`` (a singular matrix is fine).

    Examples
    --------
    >>> maxima = max_abs_normal(np.eye(1), 100_000, seed=0)
    >>> round(float(np.mean(maxima >= 1.959964)), 2)
    0.05
    """
    correlation = np.asarray(correlation, dtype=np.float64)
    values, vectors = np.linalg.eigh(correlation)
    # Components without variance add nothing: Z = normal @ root.T over the others alone (the same
    # draws: each component keeps its column of the normal draws). Many judges on few items give a
    # correlation of low rank, and the draws then cost J x rank, not J x J, per draw.
    kept = np.flatnonzero(values > values.max(initial=0.0) * 1e-13)
    root = (vectors[:, kept] * np.sqrt(values[kept])).astype(np.float32)  # single precision: ample for a tail share
    generator = np.random.default_rng(MAXT_SEED if seed is None else seed)
    maxima = np.empty(draws)
    step = max(1, 2_000_000 // max(1, correlation.shape[0]))
    for start in range(0, draws, step):
        stop = min(draws, start + step)
        normal = generator.standard_normal((stop - start, correlation.shape[0]), dtype=np.float32)
        absolute = np.abs((normal[:, kept] if kept.size < values.size else normal) @ root.T)
        # A few columns: their elementwise maximum, column by column, is faster than a reduction along short rows.
        maxima[start:stop] = functools.reduce(np.maximum, absolute.T) if absolute.shape[1] <= 16 else absolute.max(axis=1)
    maxima.sort()
    return maxima


def maxt_quantile(level: float, correlation: Any, seed: Optional[int] = None) -> float:
    """The simultaneous two-sided critical value c: ``P(max_k |Z_k| <= c) = level``; for one
    variable the normal quantile exactly.

    Examples
    --------
    >>> round(maxt_quantile(0.95, np.eye(1)), 4)
    1.96
    """
    correlation = np.atleast_2d(np.asarray(correlation, dtype=np.float64))
    if correlation.shape[0] == 1:
        return NormalDist().inv_cdf(0.5 + level / 2.0)
    return float(np.quantile(max_abs_normal(correlation, seed=seed), level))


def maxt_p_values(p_values: Any, correlation: Any, seed: Optional[int] = None) -> np.ndarray:
    """Two-sided p-values adjusted for the family's multiplicity by maxT (see the module doc).

    Examples
    --------
    One comparison: nothing to adjust.

    >>> maxt_p_values([0.0034], np.eye(1)).tolist()
    [0.0034]
    """
    p_values = np.asarray(p_values, dtype=np.float64)
    correlation = np.atleast_2d(np.asarray(correlation, dtype=np.float64))
    count = correlation.shape[0]
    if count == 1:
        return p_values.copy()
    maxima = max_abs_normal(correlation, seed=seed)
    normal = NormalDist()
    adjusted = np.full(p_values.shape, np.nan)
    for index, p in np.ndenumerate(p_values):
        if not np.isfinite(p):
            continue
        # From the lower tail: 1 - p / 2 rounds to 1 for p below about 1e-16. p = 1: z = 0, every draw beyond: 1.
        z = -normal.inv_cdf(min(p, 1.0) / 2.0) if p / 2.0 > 0 else np.inf
        exceeding = maxima.size - np.searchsorted(maxima, z, side="left")
        # Too few draws beyond z to resolve the tail: Bonferroni's bound, tight there.
        estimate = exceeding / maxima.size if exceeding >= MIN_TAIL_DRAWS else count * p
        adjusted[index] = min(1.0, max(p, min(estimate, count * p)))
    return adjusted
