"""Prediction-powered prevalence (PPI++) from counts: the golden set as a random sample of the new data.

Angelopoulos, Duchi & Zrnic, "PPI++: Efficient Prediction-Powered Inference" (2023). The
prevalence of class c is the mean of the indicator ``Y = [truth is c]`` over the new
data. The judge's indicator ``Yhat = [judge says c]`` is known on every item; the truth
only on the golden set, which PPI takes to be a uniformly random sample of the same
population (then nothing about the judge needs to hold: a poor judge only costs width).
With ``n`` golden and ``N`` unlabeled items, the power-tuned estimate is

    theta = lambda mean_N(Yhat) + mean_n(Y - lambda Yhat),

``lambda = Cov_n(Y, Yhat) / ((1 + n / N) Var_{n+N}(Yhat))`` clipped to [0, 1] (the
variance-minimising weight; 0 gives the golden set's own share, 1 plain PPI), and the
interval ``theta +- z sqrt(Var_N(lambda Yhat) / N + Var_n(Y - lambda Yhat) / n)``. That is
``ppi_mean_pointestimate`` / ``ppi_mean_ci`` of ppi-python with ``lam=None`` for one
coordinate (a covariance and variances with the same divisors: ``1/n`` for the
covariance and the two standard deviations, ``1/(n + N - 1)`` for the pooled variance).

Everything is a function of counts: for 0/1 indicators ``Y^2 = Y``, ``Yhat^2 = Yhat``
and ``sum Y Yhat`` is the diagonal cell, so the golden confusion matrix (row sums: the
``Y`` totals; column sums: the ``Yhat`` totals) and the judge's label counts on the new
data are sufficient. Multi-class: one-vs-rest per class, each with its own lambda (the
per-class estimates need not sum to 1). Vectorised over leading axes (the coverage
study passes thousands of problems at once).

Where the judge's labels (the only thing seen on both sets) are distributed differently
on the golden set and on the new data, the golden set cannot be a random sample of it:
``sampling_p_value`` is Pearson's chi-square test of homogeneity of the two label-count
vectors, and ``prevalence.py`` refuses PPI below ``SAMPLE_TEST_LEVEL``.

NumPy and the standard library only (plus ``binomial.py`` and ``judge_groups.py``).
"""

from typing import Any, Dict, Optional

import numpy as np

from ..stats.distributions import z_value
from ..stats.distributions import chi2_sf

# PPI is refused when the judge's labels on the golden set and on the new data differ at
# this level (then they are surely not one population). Strict, so that a golden set that
# is a random sample is refused only one time in a thousand.
SAMPLE_TEST_LEVEL = 0.001

# PPI's interval is a normal approximation of a mean of 0/1 indicators: with fewer golden
# items than this in a class (or outside it) it falls short of its level, so there is no
# interval for that class (studies/prevalence_prior_shift: 0.84-0.89 with 3-5 golden items of
# the class, 0.918-0.934 with 9-15, 0.942-0.964 with at least 30 in and outside it).
MIN_GOLDEN_ITEMS_PER_CLASS = 30


def ppi_prevalence_arrays(gold_confusion: Any, unlabeled_predicted: Any, confidence_level: Optional[float] = None) -> Dict[str, np.ndarray]:
    """PPI++ estimate (and interval) of every class's prevalence, one-vs-rest, from counts.

    ``gold_confusion`` ``(..., K, K)``: the judge on the golden set (rows = references);
    ``unlabeled_predicted`` ``(..., K)``: its label counts on the new data. Returns arrays
    ``estimate``, ``lam`` (the power-tuning weight per class), ``low`` and ``high`` (with
    ``confidence_level``; unclipped, as ppi-python returns them) and ``sampling_p_value``.
    NaN where there are fewer than two golden items or no unlabeled item.

    Examples
    --------
    A judge with TPR 0.8, FPR 0.1 on a golden set of 100 (20 positives) flags 24 of them
    and 300 of 1,000 new items; the golden share of positives is 0.2, the estimate moves it
    by lambda times the judge's excess on the new data, 0.49 (0.3 - 0.24):

    >>> found = ppi_prevalence_arrays([[72, 8], [4, 16]], [700, 300], 0.95)
    >>> round(float(found["estimate"][1]), 4), round(float(found["lam"][1]), 4)
    (0.2294, 0.4896)
    """
    confusion = np.asarray(gold_confusion, dtype=np.float64)
    new = np.asarray(unlabeled_predicted, dtype=np.float64)  # sum of Yhat per class on the new data
    golden = confusion.sum(axis=(-2, -1))[..., None]
    total = new.sum(axis=-1)[..., None]
    usable = (golden >= 2) & (total >= 1)
    n = np.where(usable, golden, 2.0)
    big_n = np.where(usable, total, 1.0)
    truth = confusion.sum(axis=-1)  # sum of Y per class
    judged = confusion.sum(axis=-2)  # sum of Yhat per class on the golden set
    both = np.diagonal(confusion, axis1=-2, axis2=-1)  # sum of Y * Yhat

    covariance = both / n - (truth / n) * (judged / n)
    pooled = n + big_n
    pooled_mean = (judged + new) / pooled
    pooled_variance = (judged + new - pooled * pooled_mean**2) / (pooled - 1.0)
    # A judge giving one label everywhere: no variance, no information; the classical estimate.
    lam = np.where(pooled_variance > 0, covariance / ((1.0 + n / big_n) * np.where(pooled_variance > 0, pooled_variance, 1.0)), 0.0)
    lam = np.clip(lam, 0.0, 1.0)
    new_share = new / big_n
    rectifier_mean = (truth - lam * judged) / n
    estimate = lam * new_share + rectifier_mean
    result = {"estimate": np.where(usable, estimate, np.nan), "lam": np.where(usable, lam, np.nan),
              "sampling_p_value": homogeneity_p_values(judged, new)}
    if confidence_level is not None:
        imputed = lam**2 * new_share * (1.0 - new_share) / big_n
        rectifier_square = (truth - 2.0 * lam * both + lam**2 * judged) / n
        rectifier = np.maximum(rectifier_square - rectifier_mean**2, 0.0) / n
        half = z_value(confidence_level) * np.sqrt(imputed + rectifier)
        result.update(low=np.where(usable, estimate - half, np.nan), high=np.where(usable, estimate + half, np.nan))
    return result


def homogeneity_p_values(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pearson's chi-square test that two count vectors (last axis) come from one distribution
    (K - 1 degrees of freedom over the classes either has); NaN where one is empty.

    >>> float(homogeneity_p_values(np.array([50, 50]), np.array([50, 50])))
    1.0
    """
    table = np.stack([np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)], axis=-2)
    rows, columns = table.sum(axis=-1, keepdims=True), table.sum(axis=-2, keepdims=True)
    total = rows.sum(axis=-2, keepdims=True)
    expected = rows * columns / np.where(total > 0, total, 1.0)
    statistic = np.where(expected > 0, (table - expected) ** 2 / np.where(expected > 0, expected, 1.0), 0.0).sum(axis=(-2, -1))
    freedom = (columns[..., 0, :] > 0).sum(axis=-1) - 1
    empty = (rows[..., 0] <= 0).any(axis=-1)
    flat = [chi2_sf(float(s), int(d)) if d > 0 else 1.0 for s, d in zip(np.ravel(statistic), np.ravel(freedom))]
    return np.where(empty, np.nan, np.reshape(flat, np.shape(statistic)))
