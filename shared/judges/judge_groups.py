"""Judge diagnostics per group of golden-set items, and the chi-square test of their homogeneity.

A judge may err differently on different groups (e.g. on the responses of different
evaluated models); the prevalence correction assumes it does not. ``group_diagnostics``
reports the judge's rates and informedness per group and tests whether its confusion
rows are the same in every group (``homogeneity_statistic``, with ``chi2_sf`` for the
asymptotic tail or a Monte Carlo null distribution).

NumPy and the standard library only (plus ``stats/binomial.py``, ``metrics/informedness.py`` and
``prevalence_arrays.py`` beside it).
"""

import math
from typing import Any, Dict, Optional, Tuple

import numpy as np

from ..stats.vocabulary import check_confidence_level
from ..stats.vocabulary import check_n_resamples
from ..stats.vocabulary import check_seed
from ..stats.distributions import chi2_sf
from ..metrics.informedness import informedness_average
from ..metrics.informedness import informedness_interval
from .prevalence_arrays import CHUNK_VALUES
from .prevalence_arrays import as_counts
from .prevalence_arrays import row_rates

HETEROGENEITY_METHODS = ("chi2", "monte_carlo")


def homogeneity_statistic(group_confusions: Any) -> Tuple[np.ndarray, np.ndarray]:
    """Pearson chi-square of "every group has the same confusion rows", vectorised.

    ``group_confusions`` ``(..., G, K, K)``. For each reference class c, the ``G x K``
    table (groups x the judge's labels) of the items of class c is tested for homogeneity;
    the statistics of the K tables are summed (the tables hold disjoint items). Groups
    without items of class c and labels never given to class c leave that table (its
    degrees of freedom are ``(G_c - 1)(K_c - 1)``). Returns ``(statistic, dof)``.
    Binary: the sum of the chi-square tests of equal TPR and of equal FPR across groups.
    """
    counts = np.asarray(group_confusions, dtype=np.float64)
    group_rows = counts.sum(axis=-1)  # (..., G, K): items of class c in group g
    label_totals = counts.sum(axis=-3)  # (..., K, K): class c, judge label j, all groups
    class_totals = label_totals.sum(axis=-1)  # (..., K)
    expected = group_rows[..., :, :, None] * label_totals[..., None, :, :] / np.where(class_totals > 0, class_totals, 1.0)[..., None, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        cells = np.where(expected > 0, (counts - expected) ** 2 / np.where(expected > 0, expected, 1.0), 0.0)
    statistic = cells.sum(axis=(-3, -2, -1))
    groups_used = (group_rows > 0).sum(axis=-2)  # (..., K)
    labels_used = (label_totals > 0).sum(axis=-1)  # (..., K)
    dof = (np.maximum(groups_used - 1, 0) * np.maximum(labels_used - 1, 0)).sum(axis=-1)
    return statistic, dof


def group_diagnostics(
    group_confusions: Any,
    *,
    method: str = "chi2",
    n_resamples: int = 2_000,
    seed: Optional[int] = None,
    confidence_level: Optional[float] = None,
    ci_method: Optional[str] = None,
) -> Dict[str, Any]:
    """How the judge does on each group of golden-set items, and whether that differs.

    ``group_confusions``: ``G x K x K`` counts, one confusion matrix (rows = references)
    per group (e.g. the evaluated model that wrote each response). Per group: ``support``
    (items per reference class), binary ``tpr`` / ``fpr`` (positive class 1), multi-class
    ``recall`` (per class), and ``informedness`` (Youden's J; Powers' bookmaker
    informedness for K > 2, as the informedness module). With ``confidence_level``, an
    ``informedness_ci`` per group: ``metrics.informedness.informedness_interval`` of the group's
    confusion matrix with ``ci_method`` (None: the module's default, the score interval for
    any K; ``n_resamples`` and ``seed`` serve the bootstrap), exactly the whole-set interval
    of that group's items.

    ``heterogeneity_p_value`` tests H0: *the judge errs alike on every group* -- the same
    confusion rows (binary: the same TPR and the same FPR) in every group. It is the
    Pearson chi-square test of homogeneity of each reference class's row across groups,
    summed over classes (binary: the TPR test plus the FPR test, ``2 (G - 1)`` degrees of
    freedom; see ``homogeneity_statistic``). Equal error rates imply equal informedness,
    and they are what the prevalence correction needs: a judge with the same J but a
    higher FPR on one model's outputs still biases that model's corrected prevalence. So
    a rejection means "the judge's rates differ across groups", not only "J differs".
    ``method="chi2"``: the asymptotic chi-square tail (fine when expected cell counts are
    about 5 or more); ``"monte_carlo"``: the statistic's null distribution simulated by
    drawing every group's rows from the pooled rows (parametric bootstrap under H0,
    ``n_resamples`` draws, p = (1 + #{T* >= T}) / (1 + n_resamples)), for small groups.
    NaN (``heterogeneity_reason``) with fewer than two groups having items of a class.

    Examples
    --------
    >>> same = [[[90, 10], [20, 80]], [[45, 5], [10, 40]]]  # TPR 0.8, FPR 0.1 in both groups
    >>> result = group_diagnostics(same)
    >>> result["tpr"], result["fpr"], result["heterogeneity_p_value"]
    ([0.8, 0.8], [0.1, 0.1], 1.0)
    """
    counts = as_counts("group_confusions", group_confusions, 3)
    if counts.ndim != 3 or counts.shape[-1] != counts.shape[-2] or counts.shape[-1] < 2:
        raise ValueError(f"group_confusions: expected G x K x K counts with K >= 2, found shape {counts.shape}.")
    if method not in HETEROGENEITY_METHODS:
        raise ValueError(f"method: expected one of {HETEROGENEITY_METHODS}, found {method!r}.")
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    level = check_confidence_level(confidence_level)
    num_classes = counts.shape[-1]
    rates, support = row_rates(counts)
    rates = np.where(support[..., None] > 0, rates, np.nan)
    result: Dict[str, Any] = {"support": support.astype(int).tolist()}
    if num_classes == 2:
        result.update(tpr=rates[:, 1, 1].tolist(), fpr=rates[:, 0, 1].tolist())
    else:
        result["recall"] = np.diagonal(rates, axis1=-2, axis2=-1).tolist()
    result["informedness"] = informedness_average(counts).tolist()
    if level is not None:
        interval = informedness_interval(counts, confidence_level=level, method=ci_method, n_resamples=n_resamples,
                                         seed=seed)
        result["informedness_ci"] = [[float(a), float(b)] for a, b in zip(np.atleast_1d(interval.low), np.atleast_1d(interval.high))]
    statistic, dof = homogeneity_statistic(counts)
    statistic, dof = float(statistic), int(dof)
    result.update(heterogeneity_statistic=statistic, heterogeneity_dof=dof, heterogeneity_method=method)
    if dof == 0:
        result.update(heterogeneity_p_value=math.nan, heterogeneity_reason="fewer_than_two_groups_with_items_of_a_class")
        return result
    if method == "chi2":
        p_value = chi2_sf(statistic, dof)
    else:
        rng = np.random.default_rng(seed)
        pooled_rates, _ = row_rates(counts.sum(axis=0))
        sizes = support.astype(np.int64)  # (G, K)
        exceed = 0
        chunk = max(1, CHUNK_VALUES // max(1, counts.size))
        for start in range(0, n_resamples, chunk):
            count = min(chunk, n_resamples - start)
            draws = rng.multinomial(sizes, np.broadcast_to(pooled_rates, counts.shape), size=(count,) + sizes.shape)
            simulated, _ = homogeneity_statistic(draws)
            exceed += int((simulated >= statistic - 1e-9 * max(1.0, statistic)).sum())
        p_value = (1 + exceed) / (1 + n_resamples)
    result["heterogeneity_p_value"] = float(p_value)
    return result

