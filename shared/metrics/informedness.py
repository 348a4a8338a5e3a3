"""Informedness as a spec: its value (with markedness and per-class outputs) from confusion counts,
its interval, influence and paired difference. The judge's uses beside the value (corrected
prevalence, per-group diagnostics) are in ``judges/``, which reads J and its interval here.

What ``informedness/informedness.py`` names in its ``SPEC``; the options reach these functions
resolved and checked (``glue/options.py``).

The paired difference (``informedness_difference``, from the joint counts of two systems;
what ``stats/comparison.py`` says of every paired difference applies):

Binary: J = TPR + TNR - 1 = 2 BA - 1 for every average, so the Newcombe/MOVER
interval of the balanced-accuracy difference, doubled (``"newcombe"``), or the
bootstrap's, doubled. Multi-class: a delta-method (Wald) interval with the analytic
gradient of the average (``"delta"``), its variance taken at the shares smoothed by
one pseudo-item of disagreement per class as in the bootstrap (on the observed shares
a class without a disagreement adds no variance: coverage down to 0.46 at 98%
agreement), or the smoothed stratified bootstrap.

The interval (``informedness_interval``, from K x K confusion matrices, any leading axes).
Binary: J = TPR + TNR - 1 = 2 BA - 1 for every average, a sum of two independent rates, so
every method of balanced accuracy's interval applies (``metrics/balanced_accuracy.py``).
Multi-class informedness (Powers' bookmaker informedness) is not a sum of independent
rates. ``"score"`` (its default too, ``DEFAULT_CI_METHOD``) linearises it in the error rates
of the confusion rows (``informedness_score_interval``): with the class sizes fixed, moving
one item of class i from the diagonal to column j moves theta by ``Psi_ij - Psi_ii``
(``informedness_gradient``), exactly for "macro" and "weighted" (whose class weights the
sizes fix). Each row's errors are taken as one binomial whose weight bounds the row's
multinomial variance from above, and that sum of K rates gets the score interval with Fay &
Feuer's gamma bound (``stats/score_sum.py``). ``"delta"`` is the Wald (influence-function)
interval ``theta +- z sqrt(sum_ij n_ij Psi_ij^2)`` with 0.5 pseudo-items per reference class;
``"bootstrap"`` the stratified percentile bootstrap. Both fall short near the ceiling and
with a class of a few items, where the score interval holds its level
(``studies/multiclass_informedness``, whose ``results.md`` has the cells and the command).
Weighted counts: each class's size is Kish's effective size, as for balanced accuracy.
"""

import math
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..counting.confusion import ConfusionCounts
from ..counting.counts import NO_SAMPLES
from ..counting.counts import safe_ratio
from ..counting.inputs import to_python
from ..stats.averaging import Averaging
from ..stats.averaging import apply_zero_division
from ..stats.averaging import class_indices
from ..stats.averaging import warn_classes_without_references
from ..stats.binomial import DEFAULT_CI_METHOD
from ..stats.binomial import DEFAULT_RESAMPLES
from ..stats.binomial import Interval
from ..stats.binomial import MAX_BOOTSTRAP_CELLS
from ..stats.binomial import auto_resamples
from ..stats.binomial import confusion_interval
from ..stats.binomial import finish_interval
from ..stats.binomial import rate_sum_interval
from ..stats.design_effect import clustered_squares
from ..stats.distributions import z_value
from ..stats.paired_joint import bootstrap_joint
from ..stats.paired_joint import canonical
from ..stats.paired_joint import check_difference_zero_division
from ..stats.paired_joint import check_joint
from ..stats.paired_joint import finish_difference
from ..stats.paired_joint import marginals
from ..stats.paired_joint import percentile_interval
from ..stats.paired_joint import row_sizes
from ..stats.paired_joint import selected_classes
from ..stats.paired_joint import smoothed_shares
from ..stats.paired_tests import score_p_value
from ..stats.paired_tests import variance_terms
from ..stats.vocabulary import CI_METHODS
from ..stats.vocabulary import check_confidence_level
from ..stats.vocabulary import check_n_resamples
from ..stats.vocabulary import check_seed
from ..glue.outputs import class_outputs
from ..glue.reduction import P_VALUE_ONLY_LEVEL
from ..glue.reduction import class_order_key
from ..glue.reduction import clustered_intervals
from .balanced_accuracy import balanced_accuracy_difference
from .balanced_accuracy import recall_influence


# ----------------------------------------------------------------------------------------
# Informedness (and markedness) from per-class counts, on any leading axes
# ----------------------------------------------------------------------------------------


INFORMEDNESS_AVERAGES = ("bookmaker", "macro", "weighted")


def one_vs_rest_difference(hits: Any, row_totals: Any, column_totals: Any) -> np.ndarray:
    """``hits / rows - misses / other_rows`` per class, NaN where a denominator is 0.

    With rows = references it is informedness J_c = TPR_c - FPR_c (misses = false
    positives); with rows = predictions it is markedness MK_c = PPV_c - FOR_c = PPV_c +
    NPV_c - 1 (misses = false negatives). ``other_rows`` sums the other classes' rows (not
    total - rows, which cancels when one class holds nearly all the weight), so it is
    exactly 0 when one class holds every row, even with float weights. One division
    instead of two keeps integer counts exact (J = 0.6, not 0.6000000000000001); weighted
    sums may round a value just past -1 or 1, so it is clipped to [-1, 1].

    Examples
    --------
    >>> one_vs_rest_difference(np.array([45, 40]), np.array([50, 50]), np.array([55, 45])).tolist()  # TNR .9, TPR .8
    [0.7, 0.7]
    """
    hits, row_totals, column_totals = (np.asarray(x) for x in (hits, row_totals, column_totals))
    total = row_totals.sum(axis=-1, keepdims=True)
    if row_totals.dtype.kind == "f":
        extreme = (total > 0) & ~((total >= 1e-100) & (total <= 1e100))
        if extreme.any():  # weighted sums near float64's limits: as shares of the total the products stay finite
            scale = np.where(extreme, total, 1.0)
            hits, row_totals, column_totals = hits / scale, row_totals / scale, column_totals / scale
    elif total.size and total.max() >= 1 << 31:
        # Products of counts above 2^31 could overflow int64 (silently): use floats.
        hits, row_totals, column_totals = (x.astype(np.float64) for x in (hits, row_totals, column_totals))
    zero = np.zeros(row_totals.shape[:-1] + (1,), row_totals.dtype)
    preceding = np.concatenate([zero, np.cumsum(row_totals, axis=-1)[..., :-1]], axis=-1)
    following = np.concatenate([np.flip(np.cumsum(np.flip(row_totals, -1), axis=-1), -1)[..., 1:], zero], axis=-1)
    other_rows = preceding + following
    misses = column_totals - hits
    return np.clip(safe_ratio(hits * other_rows - misses * row_totals, row_totals * other_rows), -1.0, 1.0)


def informedness_weights(average: str, support: Any, predicted: Any) -> Tuple[Optional[np.ndarray], Optional[np.ndarray]]:
    """Class weights of the informedness and markedness averages: "bookmaker" weighs J_c by
    the share of predictions (bias) and MK_c by the share of references (prevalence),
    "macro" equally, "weighted" the other way round."""
    # As shares of the total (prevalence, bias): the weighted mean then sums the same products as
    # Powers' formula sum_c beta_c * J_c, to the last digit.
    # Per problem (leading axes: e.g. bootstrap resamples): one without samples keeps its zeros.
    shares = [np.asarray(x, dtype=np.float64) for x in (support, predicted)]
    prevalence, bias = (np.divide(x, x.sum(axis=-1, keepdims=True), out=np.zeros_like(x),
                                  where=x.sum(axis=-1, keepdims=True) > 0) for x in shares)
    return {"bookmaker": (bias, prevalence), "macro": (None, None), "weighted": (prevalence, bias)}[average]


def informedness(tp: Any, support: Any, predicted: Any, average: str, averaging: Averaging) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(value, count, per_class)``: informedness averaged as ``average`` over ``averaging``.

    Examples
    --------
    >>> value, count, per_class = informedness(np.array([8, 6, 5]), np.array([10, 10, 5]), np.array([9, 8, 8]), "macro", Averaging(3))
    >>> round(float(value), 4), int(count)
    (0.6833, 3)
    """
    per_class = apply_zero_division(one_vs_rest_difference(tp, support, predicted), averaging.zero_division)
    weights, _ = informedness_weights(average, support, predicted)
    return (*averaging.combine(per_class, weights), per_class)


def matrix_class_counts(confusion: Any):
    """``(tp, support, predicted, total)`` per class of confusion matrices ``(..., K, K)``.

    The batched analogue of ``confusion.ClassCounts``, for writing a vectorised
    ``statistic`` for ``confusion_interval``.
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    return (
        np.diagonal(confusion, axis1=-2, axis2=-1),
        confusion.sum(axis=-1),
        confusion.sum(axis=-2),
        confusion.sum(axis=(-2, -1))[..., None],
    )


def informedness_average(confusion: Any, average: str = "bookmaker", class_mask: Any = None, zero_division: Any = "skip",
                         averaging: Optional[Averaging] = None) -> np.ndarray:
    """Informedness of confusion matrices ``(..., K, K)`` (rows = references), vectorised.

    The informedness module's value (``informedness``): per class ``J_c = TPR_c -
    FPR_c``, averaged over the classes of ``averaging`` (or of ``class_mask`` and
    ``zero_division``) as ``average`` says: "bookmaker" (Powers' bookmaker informedness;
    weights = share of predictions that are c), "macro" (equal) or "weighted" (share of
    references that are c). NaN when no class is defined or their weights sum to 0.
    Binary: Youden's J for every average.

    Examples
    --------
    >>> float(informedness_average([[45, 5], [10, 40]]))  # TNR 0.9, TPR 0.8
    0.7
    >>> round(float(informedness_average([[8, 2, 0], [1, 6, 3], [0, 0, 5]], average="macro")), 4)
    0.6833
    """
    if average not in INFORMEDNESS_AVERAGES:
        raise ValueError(f"average: expected one of {INFORMEDNESS_AVERAGES}, found {average!r}.")
    tp, support, predicted, _ = matrix_class_counts(confusion)
    if averaging is None:
        averaging = Averaging(tp.shape[-1], class_indices(class_mask), zero_division=zero_division)
    return informedness(tp, support, predicted, average, averaging)[0]


def informedness_from_confusion(confusion: Any) -> np.ndarray:
    """Bookmaker informedness ``sum_c beta_c (TPR_c - FPR_c)`` of confusion matrices ``(..., K, K)``.

    ``beta_c`` is the share of predictions that are c, renormalised over the classes whose
    J_c is defined (all of them when every class has references). Binary: Youden's J.

    Examples
    --------
    >>> round(float(informedness_from_confusion([[45, 5], [10, 40]])), 12)  # TNR 0.9, TPR 0.8
    0.7
    """
    return informedness_average(confusion, "bookmaker")


def informedness_gradient(confusion: Any, average: str = "bookmaker", averaging: Optional[Averaging] = None) -> np.ndarray:
    """``Psi[..., i, j] = d theta / d C[..., i, j]``: the gradient of ``informedness_average`` in each cell.

    ``theta`` is the module's informedness of ``confusion`` (``(..., K, K)``, rows =
    references) as ``average`` and ``averaging`` (which classes count, ``zero_division``,
    ``class_mask``; default: every class, "skip") define it, and ``Psi`` its derivative
    in the count of cell (reference i, prediction j), analytic and O(K^2). With ``J_c =
    TP_c / R_c - FP_c / O_c`` (``R_c`` the class's references, ``O_c`` the other rows'
    total) and ``theta = sum_c a_c x_c / sum_c a_c`` over the averaged classes (``a_c``:
    ``P_c`` predictions of c for "bookmaker", ``R_c`` for "weighted", 1 for "macro"),

        Psi_ij = sum_c b_c dJ_c/dC_ij + [weights] (x_c - theta) / sum a,
        dJ_c/dC_ij = [i = c] ([j = c] - TPR_c) / R_c - [i != c] ([j = c] - FPR_c) / O_c,

    with ``b_c = a_c / sum a`` over the classes whose J_c is defined and the weight term in
    column j ("bookmaker": ``a_j = P_j``) or row i ("weighted"). A class whose J_c is
    undefined or fixed by a numeric ``zero_division`` has no derivative of its value (it
    may still move the others' weights). ``theta`` is homogeneous of degree 0 in the
    counts, so ``sum_ij C_ij Psi_ij = 0``. NaN where ``theta`` is undefined. The
    influence-function (delta-method) variance of ``theta`` is ``sum_ij n_ij Psi_ij^2``
    (``informedness_delta_interval``).

    Examples
    --------
    >>> confusion = np.array([[8.0, 2, 0], [1, 6, 3], [0, 0, 5]])
    >>> gradient = informedness_gradient(confusion)
    >>> gradient.shape, abs(float((confusion * gradient).sum())) < 1e-15
    ((3, 3), True)
    """
    if average not in INFORMEDNESS_AVERAGES:
        raise ValueError(f"average: expected one of {INFORMEDNESS_AVERAGES}, found {average!r}.")
    confusion = np.asarray(confusion, dtype=np.float64)
    num_classes = confusion.shape[-1]
    if averaging is None:
        averaging = Averaging(num_classes)
    tp, support, predicted, total = matrix_class_counts(confusion)
    others = total - support
    defined = (support > 0) & (others > 0)
    tpr = tp / np.where(support > 0, support, 1.0)
    fpr = (predicted - tp) / np.where(others > 0, others, 1.0)
    selected = np.zeros(num_classes, dtype=bool)
    selected[slice(None) if averaging.selected is None else averaging.selected] = True
    skip = averaging.zero_division == "skip"
    used = selected & defined
    fixed = np.zeros_like(used) if skip else selected & ~defined
    averaged = used | fixed
    values = np.where(used, tpr - fpr, 0.0 if skip else float(averaging.zero_division))
    if average == "macro":
        count = used.sum(axis=-1) + fixed.sum(axis=-1) + (0 if skip else averaging.unobserved)
        undefined = count == 0
        share = np.where(used, 1.0 / np.maximum(count, 1)[..., None], 0.0)
        weight_term = 0.0
    else:
        weights = np.where(averaged, predicted if average == "bookmaker" else support, 0.0)
        weight_total = weights.sum(axis=-1, keepdims=True)
        undefined = weight_total[..., 0] <= 0
        safe_total = np.where(weight_total > 0, weight_total, 1.0)
        share = np.where(used, weights / safe_total, 0.0)
        theta = (weights * values).sum(axis=-1, keepdims=True) / safe_total
        # d theta / d a_c = (x_c - theta) / sum a: a_c = P_c moves with column c, R_c with row c.
        weight_change = np.where(averaged, (values - theta) / safe_total, 0.0)
        weight_term = weight_change[..., None, :] if average == "bookmaker" else weight_change[..., :, None]
    per_reference = share / np.where(support > 0, support, 1.0)  # b_c / R_c
    per_other = share / np.where(others > 0, others, 1.0)  # b_c / O_c
    gradient = (
        -(per_reference * tpr + per_other * fpr)[..., :, None]
        + (per_other * fpr).sum(axis=-1)[..., None, None]
        - per_other[..., None, :]
        + weight_term
    )
    diagonal = np.arange(num_classes)
    gradient[..., diagonal, diagonal] += per_reference + per_other
    return np.where(undefined[..., None, None], np.nan, gradient)


# Pseudo-items per reference class in the delta method's variance (informedness_delta_interval).
DELTA_PSEUDO_ITEMS = 0.5
# Pseudo-items spread over a row's error cells in the score interval's weights (informedness_score_interval).
ERROR_PSEUDO_ITEMS = 0.5


def informedness_delta_interval(
    confusion: Any,
    *,
    confidence_level: float,
    average: str = "bookmaker",
    class_mask: Any = None,
    zero_division: Any = "skip",
    averaging: Optional[Averaging] = None,
    squared_weights: Any = None,
    variance_scale: Any = 1.0,
    estimate: Any = None,
    pseudo_items: float = DELTA_PSEUDO_ITEMS,
) -> Interval:
    """Delta-method (influence-function) interval of informedness: ``theta +- z sqrt(V)``, clipped to [-1, 1].

    ``V = variance_scale * sum_ij n_ij Psi_ij^2`` with ``Psi = informedness_gradient``: the
    variance of the linearised value when the items are independent draws (the cells'
    counts multinomial; ``sum_ij C_ij Psi_ij = 0``, so no mean is subtracted). With
    weighted counts pass ``squared_weights`` (``(..., K, K)``: each cell's sum of squared
    weights, on the scale of ``confusion``), which takes the place of ``n``.
    ``variance_scale`` multiplies V (e.g. a design effect of clustered items).

    Small samples: ``Psi`` and ``n`` of the variance are taken at the counts plus
    ``pseudo_items`` items (default 0.5) per reference class with items, spread evenly over
    its K cells (weighted: items of the row's effective weight ``sum w^2 / sum w``), so a
    class with all items right still has a variance; 0 gives the plain delta method. It
    lifted the coverage with a class of about 5 items from 0.909 to 0.922 (bookmaker; macro
    0.855 to 0.900: ``studies/informedness_delta_interval/results.md``). The interval is centred on
    ``estimate`` (the module's value) or ``informedness_average`` of the counts themselves.

    Leading axes of ``confusion`` are independent problems (arrays out); NaN with reason
    ``"fewer_than_two_reference_classes"`` when fewer than two classes have references,
    NaN where the value is undefined.

    Examples
    --------
    >>> interval = informedness_delta_interval([[45, 5], [10, 40]], confidence_level=0.95, pseudo_items=0)
    >>> [round(x, 4) for x in interval.as_list()]  # binary: J +- z sqrt(TPR FNR / P + TNR FPR / N)
    [0.5614, 0.8386]
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    num_classes = confusion.shape[-1]
    if averaging is None:
        averaging = Averaging(num_classes, class_indices(class_mask), zero_division=zero_division)
    cells = confusion if squared_weights is None else np.asarray(squared_weights, dtype=np.float64)
    smoothed, smoothed_cells = confusion, cells
    if pseudo_items:  # none: skipped, as 0 * an overflowed item_weight**2 would be NaN
        support = confusion.sum(axis=-1, keepdims=True)
        # A pseudo-item's weight: the row's effective item weight sum w^2 / sum w (1 unweighted).
        item_weight = np.divide(cells.sum(axis=-1, keepdims=True), support, out=np.zeros_like(support), where=support > 0)
        share = pseudo_items / num_classes
        smoothed, smoothed_cells = confusion + share * item_weight, cells + share * item_weight**2
    gradient = informedness_gradient(smoothed, average, averaging)
    variance = np.asarray(variance_scale, dtype=np.float64) * (smoothed_cells * np.nan_to_num(gradient) ** 2).sum(axis=(-2, -1))
    if estimate is None:
        estimate = informedness_average(confusion, average, averaging=averaging)
    half_width = z_value(confidence_level) * np.sqrt(variance)
    low = np.clip(estimate - half_width, -1.0, 1.0)
    high = np.clip(estimate + half_width, -1.0, 1.0)
    undefined = ((confusion.sum(axis=-1) > 0).sum(axis=-1) < 2) | np.isnan(estimate) | np.isnan(gradient).any(axis=(-2, -1))
    return finish_interval(low, high, undefined, "fewer_than_two_reference_classes")


def informedness_score_interval(
    confusion: Any,
    *,
    confidence_level: float,
    average: str = "bookmaker",
    averaging: Optional[Averaging] = None,
    estimate: Any = None,
    effective_support: Any = None,
) -> Interval:
    """Score interval of informedness, linearised in the error rates of the confusion rows.

    With each reference class's size ``R_i`` fixed, moving one item of class i from the
    diagonal to column j moves theta by ``Psi_ij - Psi_ii`` (``Psi = informedness_gradient`` at
    the counts). So theta is, to first order (exactly for "macro" and "weighted", whose class
    weights the sizes fix), ``offset + sum_i sum_{j != i} w_ij p_ij`` with ``p_ij = C_ij / R_i``
    and ``w_ij = R_i (Psi_ij - Psi_ii)``. Each row's part is taken as one binomial, its error
    rate ``e_i = 1 - C_ii / R_i``, with the weight ``s_i sqrt(sum_j q_ij w_ij^2)``: ``q_ij`` the
    row's shares of errors with ``ERROR_PSEUDO_ITEMS`` spread over its K - 1 error cells (so a
    row without errors has weights to use; weighted, items of the row's effective weight
    ``R_i / effective_support_i``), ``s_i`` the sign of ``sum_j q_ij w_ij``. With
    ``q_ij = p_ij / e_i`` (the shares without pseudo-items), Cauchy-Schwarz makes that binomial's
    variance ``e_i (1 - e_i) sum_j q_ij w_ij^2 / R_i`` at least the multinomial variance of the
    row's part ``(sum_j w_ij^2 p_ij - (sum_j w_ij p_ij)^2) / R_i`` (equal when the row's
    coefficients are equal); and unlike K - 1 independent cells it cannot move more than the
    row's items. That sum of K rates gets ``binomial.rate_sum_interval``'s
    score interval with Fay & Feuer's gamma bound (``score_sum.py``; ``effective_support``: the
    rows' sizes for weighted or clustered counts), made to contain ``estimate`` (the module's
    value; default ``informedness_average``) and clipped to [-1, 1]. Binary: J = 1 - FNR - FPR,
    the binary score interval exactly.

    Leading axes are independent problems (arrays out); NaN with reason
    ``"fewer_than_two_reference_classes"`` when fewer than two classes have references, NaN
    where the value is undefined.

    Examples
    --------
    >>> interval = informedness_score_interval([[10, 0, 0], [0, 10, 0], [0, 0, 3]], confidence_level=0.95)
    >>> [round(x, 3) for x in interval.as_list()]  # every item right: not the certainty [1, 1]
    [0.743, 1.0]
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    num_classes = confusion.shape[-1]
    if averaging is None:
        averaging = Averaging(num_classes)
    if estimate is None:
        estimate = informedness_average(confusion, average, averaging=averaging)
    estimate = np.asarray(estimate, dtype=np.float64)
    support = confusion.sum(axis=-1)
    sizes = support if effective_support is None else np.asarray(effective_support, dtype=np.float64)
    gradient = informedness_gradient(confusion, average, averaging)
    diagonal = np.diagonal(confusion, axis1=-2, axis2=-1)
    coefficients = np.nan_to_num((gradient - np.diagonal(gradient, axis1=-2, axis2=-1)[..., :, None]) * support[..., :, None])
    # A pseudo-item weighs what one of the row's items does on average (sum w^2 / sum w; 1 unweighted).
    item_weight = np.divide(support, sizes, out=np.ones_like(support), where=sizes > 0)[..., :, None]
    errors = np.where(np.eye(num_classes, dtype=bool), 0.0, confusion + item_weight * ERROR_PSEUDO_ITEMS / (num_classes - 1))
    shares = errors / errors.sum(axis=-1, keepdims=True)
    signs = np.where((shares * coefficients).sum(axis=-1) < 0, -1.0, 1.0)
    weights = signs * np.sqrt((shares * coefficients**2).sum(axis=-1))
    error_rates = 1.0 - diagonal / np.where(support > 0, support, 1.0)
    offset = np.nan_to_num(estimate) - (weights * np.where(support > 0, error_rates, 0.0)).sum(axis=-1)
    interval = rate_sum_interval(
        error_rates * sizes, sizes, weights, offset=offset, bounds=(-1.0, 1.0), confidence_level=confidence_level,
        method="score", estimate=np.nan_to_num(estimate),
    )
    undefined = ((support > 0).sum(axis=-1) < 2) | np.isnan(estimate) | np.isnan(gradient).any(axis=(-2, -1))
    return finish_interval(np.asarray(interval.low), np.asarray(interval.high), undefined, "fewer_than_two_reference_classes")


def informedness_interval(
    confusion: Any,
    *,
    confidence_level: float,
    method: Optional[str] = None,
    n_resamples: Optional[int] = 10_000,
    seed: Optional[int] = None,
    average: str = "bookmaker",
    class_mask: Any = None,
    zero_division: Any = "skip",
    effective_support: Any = None,
    averaging: Optional[Averaging] = None,
    estimate: Any = None,
    squared_weights: Any = None,
    variance_scale: Any = 1.0,
) -> Interval:
    """Interval for informedness (``informedness_average``) from ``K x K`` confusion matrices.

    ``method=None`` is ``"score"`` (``DEFAULT_CI_METHOD``), the module's default for any
    number of classes; the whole golden set and each group of ``judge_groups`` get it here.
    ``method="delta"``: the delta-method interval (``informedness_delta_interval``, any
    number of classes; ``squared_weights`` and ``variance_scale`` go to it). Binary (K =
    2, both classes with references): informedness is Youden's J = TPR + TNR - 1 for
    every average, and every method applies (analytic: the score interval of TPR + TNR, or
    MOVER on TPR and TNR, centred on ``estimate``, the module's value, or on
    ``informedness_average``). Multi-class: ``"score"`` (``informedness_score_interval``,
    the score interval of theta linearised in the rows' error rates; ``effective_support``
    goes to it), the delta method or the bootstrap (``confusion_interval`` on
    ``informedness_average`` with the module's ``averaging``; ``n_resamples=None``:
    ``binomial.auto_resamples``); an ``"agresti_coull"`` or ``"wilson"`` ``method`` is a
    ValueError. Leading axes of
    ``confusion`` are independent problems (arrays out). NaN with reason
    ``"fewer_than_two_reference_classes"`` when fewer than two classes have references.

    Examples
    --------
    >>> interval = informedness_interval([[45, 5], [10, 40]], confidence_level=0.95, method="wilson")
    >>> [round(x, 4) for x in interval.as_list()]
    [0.5271, 0.8042]
    """
    confusion = np.asarray(confusion, dtype=np.float64)
    support = confusion.sum(axis=-1)
    undefined = (support > 0).sum(axis=-1) < 2
    reason = "fewer_than_two_reference_classes"
    if averaging is None:
        averaging = Averaging(confusion.shape[-1], class_indices(class_mask), zero_division=zero_division)
    method = DEFAULT_CI_METHOD if method is None else method
    if method == "delta":
        return informedness_delta_interval(
            confusion, confidence_level=confidence_level, average=average, averaging=averaging,
            squared_weights=squared_weights, variance_scale=variance_scale, estimate=estimate,
        )
    sizes = support if effective_support is None else np.asarray(effective_support, dtype=np.float64)
    if confusion.shape[-1] == 2:
        n_resamples = DEFAULT_RESAMPLES if n_resamples is None else n_resamples
        if estimate is None:
            estimate = informedness_average(confusion, average, averaging=averaging)
        rates = np.nan_to_num(safe_ratio(np.diagonal(confusion, axis1=-2, axis2=-1), support))
        interval = rate_sum_interval(
            rates * sizes, sizes, [1.0, 1.0], offset=-1.0, bounds=(-1.0, 1.0), confidence_level=confidence_level,
            method=method, n_resamples=n_resamples, seed=seed, estimate=estimate,
        )
        return finish_interval(np.asarray(interval.low), np.asarray(interval.high), undefined, reason)
    if method == "score":
        return informedness_score_interval(
            confusion, confidence_level=confidence_level, average=average, averaging=averaging, estimate=estimate,
            effective_support=effective_support,
        )
    if method in ("agresti_coull", "wilson"):
        raise ValueError(
            f"ci_method: {method!r} has no analytic form for multi-class informedness (it is not a sum of "
            "independent rates); use ci_method='score', 'delta' or 'bootstrap'."
        )
    if method != "bootstrap":
        raise ValueError(f"ci_method: expected one of {CI_METHODS}, found {method!r}.")
    interval = confusion_interval(
        confusion, lambda matrices: informedness_average(matrices, average, averaging=averaging),
        confidence_level=confidence_level, n_resamples=n_resamples, seed=seed, bounds=(-1.0, 1.0),
        effective_support=effective_support,
    )
    return finish_interval(np.asarray(interval.low), np.asarray(interval.high), undefined | np.isnan(np.asarray(interval.low)), reason)

# ----------------------------------------------------------------------------------------
# The spec: the value and its interval from one system's counts (or several systems' intervals at once)
# ----------------------------------------------------------------------------------------


def informedness_from_counts(counts: ConfusionCounts, options) -> dict:
    """Informedness (and its interval, markedness, per-class values, confusion matrix) from confusion counts.

    ``options``: every option of ``compute``, resolved and checked; ``counts`` is what
    ``compute`` counted from samples, or a confusion matrix given to it.
    """
    average, zero_division, confidence_level, return_markedness, return_per_class = (options[name] for name in (
        "average", "zero_division", "confidence_level", "return_markedness", "return_per_class"))
    encoded = counts.encoded
    if counts.reason is not None and not (encoded.num_classes or encoded.unobserved):
        return undefined_informedness(counts.reason, confidence_level, return_markedness)  # no class to check class_mask against
    averaging = _averaging(counts, options)
    if counts.reason is not None:
        return undefined_informedness(counts.reason, confidence_level, return_markedness)
    if return_per_class:
        counts.check_materialised("return_per_class")
    if confidence_level is not None:
        check_informedness_interval(encoded, average, zero_division, options["ci_method"], options["n_resamples"])
    class_counts = counts.class_counts()
    if not class_counts.total > 0:
        return undefined_informedness(NO_SAMPLES, confidence_level, return_markedness)
    value, averaged, per_class_informedness = informedness(
        class_counts.tp, class_counts.support, class_counts.predicted, average, averaging)
    result = {"informedness": float(value)}
    reason = averaging.reason(int(averaged), "fewer_than_two_reference_classes", float(value))
    if zero_division == "skip" and reason is None:
        # A predicted class without references (often a label typo: 'Safe' for 'safe') is left
        # out; balanced accuracy warns of it by the same rule.
        warn_classes_without_references(
            "Informedness", class_counts.support, class_counts.predicted, encoded.classes, averaging, False,
            "which then averages the other classes")
    if reason:
        result["reason"] = reason
        if confidence_level is not None:
            result["informedness_ci"] = [math.nan, math.nan]
    elif confidence_level is not None:
        result.update(informedness_interval_outputs([(counts, class_counts, value, averaging)], options)[0])
    per_class = {"per_class_informedness": per_class_informedness}
    if return_markedness:
        markedness, per_class["per_class_markedness"] = markedness_outputs(class_counts, average, averaging, zero_division)
        result.update(markedness)
    result.update(class_outputs(counts, class_counts, per_class, return_per_class=return_per_class,
                                return_confusion_matrix=options["return_confusion_matrix"], predicted_per_class=True))
    return to_python(result)


def informedness_intervals(systems, options) -> List[Optional[Dict[str, Any]]]:
    """Each system's ``informedness_ci`` outputs as ``informedness_from_counts`` gives them
    (``MetricSpec.intervals``: the judges ranked by ``glue.ranking``), all of them in one call of
    ``informedness_interval_outputs``. None for a system left to ``informedness_from_counts``: an
    undefined value."""
    found: List[Optional[Dict[str, Any]]] = [None] * len(systems)
    if options["confidence_level"] is None:
        return found
    batch = {}
    for index, counts in enumerate(systems):
        if counts.reason is not None:
            continue
        averaging = _averaging(counts, options)
        check_informedness_interval(counts.encoded, options["average"], options["zero_division"], options["ci_method"],
                                    options["n_resamples"])
        class_counts = counts.class_counts()
        if class_counts.total > 0:
            value, averaged, _ = informedness(class_counts.tp, class_counts.support, class_counts.predicted,
                                              options["average"], averaging)
            if not averaging.reason(int(averaged), "fewer_than_two_reference_classes", float(value)):
                batch[index] = (counts, class_counts, value, averaging)
    for index, outputs in zip(batch, informedness_interval_outputs(list(batch.values()), options)):
        found[index] = outputs
    return found


def _averaging(counts: ConfusionCounts, options) -> Averaging:
    """The classes informedness averages (checks class_mask against the classes, as the other modules do)."""
    encoded = counts.encoded
    return Averaging.over(encoded.num_classes, options["class_mask"], options["zero_division"],
                          observed=encoded.classes if encoded.unobserved else None, unobserved=encoded.unobserved)


def informedness_interval_inputs(counts, class_counts, average: str, averaging: Averaging):
    """What an informedness interval is computed from, for one system as for several
    (``informedness_interval_outputs``): the confusion
    matrix, the cells' squared weights (None unweighted), the value's influence (a function, called
    only with clusters) and each class's size (Kish's effective size with weights)."""
    matrix = counts.matrix("confidence_level")
    squared_weights = None
    if counts.w is not None:
        # Informedness does not depend on the weights' scale: with the largest weight 1,
        # the bootstrap's products of weighted counts stay finite near float64's limits.
        scale = counts.w.max()
        matrix = matrix / scale
        # Each cell's sum of squared weights on that scale (w2 holds mantissas of 4**w2_exponent).
        squared_weights = np.zeros(matrix.shape)
        # 1 / scale as its mantissa's reciprocal times a power of two: the same float for a normal
        # scale, and no overflow for a subnormal one (1 / 1e-310 is beyond float64).
        mantissa, exponent = np.frexp(scale)
        np.add.at(squared_weights, (counts.reference, counts.prediction),
                  counts.w2 * np.ldexp(1.0 / mantissa, counts.w2_exponent - exponent) ** 2)
    # Clustered samples (sequences, images, conversations) are worth fewer independent ones.
    # Binary: J = 2 BA - 1, a mean of recalls' influence, scaled (D does not see scale).
    influence = ((lambda: recall_influence(class_counts.tp, class_counts.support, Averaging(2)))
                 if counts.encoded.num_classes == 2 else (lambda: informedness_gradient(matrix, average, averaging)))
    support = counts.effective_sizes() if counts.w is not None else class_counts.support
    return matrix, squared_weights, influence, support


def informedness_interval_outputs(systems: List[Tuple[Any, Any, float, Averaging]], options) -> List[Dict[str, Any]]:
    """``informedness_ci`` (and ``informedness_ci_reason`` when it is undefined, the clusters' outputs)
    of each system ``(counts, class_counts, value, averaging)`` of a defined value (``options``: as
    ``informedness_from_counts`` takes them), through the one
    interval step (``reduction.clustered_intervals``): the default score intervals of systems of one
    class order in one vectorised call (the judges ranked by ``glue.ranking``: J intervals for about
    the cost of one; each problem on the leading axis computed as it is alone), any other method,
    and a system whose batched interval is NaN (for its reason), one system at a time."""
    key, method = "informedness_ci", options["ci_method"] or DEFAULT_CI_METHOD
    average, confidence_level = options["average"], options["confidence_level"]
    n_resamples, seed = options["n_resamples"], options["seed"]
    found: List[Dict[str, Any]] = [{}] * len(systems)
    inputs: Dict[int, Any] = {}
    for index, (counts, class_counts, _, averaging) in enumerate(systems):
        if np.count_nonzero(class_counts.support) < 2:
            # Only a numeric zero_division defines the value here: a fixed convention, not an estimate.
            found[index] = {key: [np.nan, np.nan], f"{key}_reason": "fewer_than_two_reference_classes"}
        else:
            inputs[index] = informedness_interval_inputs(counts, class_counts, average, averaging)
    measured = list(inputs)

    def intervals(ready):
        def alone(position, index, effective):  # one system, its own interval
            _, _, value, averaging = systems[index]
            matrix, squared_weights = inputs[index][:2]
            return informedness_interval(
                matrix, confidence_level=confidence_level, method=method, n_resamples=n_resamples, seed=seed,
                average=average, averaging=averaging, estimate=value, effective_support=effective,
                squared_weights=squared_weights, variance_scale=ready[position][1].factor)

        groups: Dict[Any, List[Tuple[int, int, Any]]] = {}
        for position, (row, effect) in enumerate(ready):
            index = measured[row]
            counts = systems[index][0]
            effective = effect.scale(inputs[index][3]) if effect.num_clusters else counts.effective_sizes()
            together = (class_order_key(counts.encoded), effective is None) if method == "score" else position
            groups.setdefault(together, []).append((position, index, effective))
        results: List[Any] = [None] * len(ready)
        for members in groups.values():
            if len(members) == 1:
                results[members[0][0]] = alone(*members[0])
                continue
            averaging = systems[members[0][1]][3]
            interval = informedness_interval(
                np.stack([inputs[index][0] for _, index, _ in members]), confidence_level=confidence_level, method=method,
                average=average, averaging=averaging, estimate=np.array([systems[index][2] for _, index, _ in members], dtype=np.float64),
                effective_support=None if members[0][2] is None else np.stack([effective for *_, effective in members]))
            for row, (position, index, effective) in enumerate(members):
                low, high = interval.low[row], interval.high[row]
                failed = math.isnan(low) or math.isnan(high)
                results[position] = alone(position, index, effective) if failed else Interval(low, high)
        return results

    pairs = [(systems[index][0], inputs[index][2]) for index in measured]
    for index, (outputs, interval) in zip(measured, clustered_intervals(key, pairs, confidence_level, intervals)):
        if interval is not None and interval.reason is not None:
            outputs[f"{key}_reason"] = interval.reason
        found[index] = outputs
    return found


def check_informedness_interval(encoded, average: str, zero_division: Any, ci_method: Optional[str], n_resamples: Optional[int]) -> None:
    """Refuse, before any dense matrix is built, an informedness interval that cannot be had."""
    num_classes = encoded.num_classes
    if encoded.unobserved and zero_division != "skip" and average == "macro":
        raise ValueError(
            f"confidence_level: no interval for average='macro' with zero_division={zero_division!r} over "
            f"num_classes={num_classes + encoded.unobserved:,} classes, found too many to materialise; "
            "pass `labels` with the classes to average, or zero_division='skip'."
        )
    if num_classes <= 2:
        return
    if ci_method in ("agresti_coull", "wilson"):
        raise ValueError(
            f"ci_method: {ci_method!r} has no analytic form for multi-class informedness ({num_classes} classes: "
            "J is then not a sum of independent rates); expected ci_method='score', 'delta', 'bootstrap' or None."
        )
    cells = num_classes * num_classes  # the bootstrap draws n_resamples K x K matrices
    n_resamples = auto_resamples(cells) if n_resamples is None else n_resamples
    if ci_method == "bootstrap" and n_resamples * cells > MAX_BOOTSTRAP_CELLS:
        fits = MAX_BOOTSTRAP_CELLS // cells
        hint = f"Pass n_resamples <= {fits:,}." if fits else "No bootstrap fits: pass confidence_level=None."
        raise ValueError(
            f"n_resamples: the bootstrap of a {num_classes} x {num_classes} confusion matrix draws n_resamples x "
            f"{cells:,} cells; {n_resamples:,} resamples exceed the limit of {MAX_BOOTSTRAP_CELLS:,} cells. {hint}"
        )


def markedness_outputs(class_counts, average: str, averaging: Averaging, zero_division: Any) -> Tuple[Dict[str, Any], np.ndarray]:
    """``({"markedness": ..., "markedness_reason" if undefined}, per-class markedness)``.

    Markedness is informedness with the roles of references and predictions exchanged:
    per class ``MK_c = PPV_c + NPV_c - 1``, averaged with the markedness weights of
    ``informedness_weights``.
    """
    per_class = apply_zero_division(
        one_vs_rest_difference(class_counts.tp, class_counts.predicted, class_counts.support), zero_division)
    _, weights = informedness_weights(average, class_counts.support, class_counts.predicted)
    markedness, averaged = averaging.combine(per_class, weights)
    outputs = {"markedness": float(markedness)}
    reason = averaging.reason(int(averaged), "fewer_than_two_predicted_classes", float(markedness))
    if reason:
        outputs["markedness_reason"] = reason
    return outputs, per_class


def undefined_informedness(reason, confidence_level, return_markedness):
    """The result when informedness is undefined: NaN, the reason, a NaN interval and markedness if asked."""
    result = {"informedness": math.nan, "reason": reason}
    if confidence_level is not None:
        result["informedness_ci"] = [math.nan, math.nan]
    if return_markedness:
        result.update(markedness=math.nan, markedness_reason=reason)
    return result


def informedness_influence(counts: ConfusionCounts, options):
    """How one counted sample moves informedness (the design effect's influence): binary, J = 2 BA - 1,
    a mean of recalls' (D does not see scale); else the gradient of J in the confusion counts."""
    if counts.num_classes == 2:
        class_counts = counts.class_counts()
        return recall_influence(class_counts.tp, class_counts.support, Averaging(2))
    averaging = Averaging.over(counts.num_classes, options["class_mask"], options["zero_division"])
    return informedness_gradient(counts.matrix(), options["average"], averaging)


INFORMEDNESS_METHODS = ("newcombe", "delta", "bootstrap")


def informedness_difference(
    joint: Any,
    *,
    average: str = "bookmaker",
    confidence_level: float = 0.95,
    method: Optional[str] = None,
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Any = None,
    zero_division: Any = "skip",
    joint_w2: Any = None,
    design_factor: float = 1.0,
) -> dict:
    """Informedness of A and of B on the same items, their difference, its interval and p-value.

    Parameters
    ----------
    joint : array (..., K, K, K)
        As in ``balanced_accuracy_difference``.
    average : {"bookmaker", "macro", "weighted"}
        As in the informedness module (``informedness_average``); binary: Youden's
        J for every average.
    method : {"newcombe", "delta", "bootstrap"} or None
        "newcombe" (binary only): J = 2 BA - 1, so twice the Newcombe/MOVER interval of
        the balanced-accuracy difference. "delta": Wald interval with the delta-method
        standard error from the analytic gradient (``informedness_gradient``) and the
        stratified multinomial covariance of the joint rows, taken at the shares smoothed
        by one pseudo-item of disagreement per class (``smoothed_shares``). "bootstrap":
        percentile interval of the smoothed stratified bootstrap of the joint counts.
        None: "newcombe" for K = 2, else "delta".
    confidence_level, n_resamples, seed, class_mask, zero_division, joint_w2
        As in ``balanced_accuracy_difference``; ``zero_division`` is the value of an
        undefined J_c.

    Returns
    -------
    dict
        As ``balanced_accuracy_difference``. The p-value is the stratified McNemar score
        test on the linearised difference (for K = 2, the balanced-accuracy one). NaN
        interval and p-value, reason ``"fewer_than_two_reference_classes"``, when fewer
        than two classes have references.

    Examples
    --------
    >>> joint = np.zeros((2, 2, 2))
    >>> joint[1] = [[10, 10], [20, 60]]
    >>> joint[0] = [[810, 40], [20, 30]]
    >>> result = informedness_difference(joint)  # binary: J = 2 BA - 1
    >>> paired = balanced_accuracy_difference(joint)
    >>> bool(np.allclose(result["difference_ci"], np.multiply(2, paired["difference_ci"])))
    True
    """
    confidence_level = check_confidence_level(confidence_level)  # an unknown average: informedness_average refuses it
    if confidence_level is None:
        raise ValueError("confidence_level: expected a number in (0, 1) such as 0.95, found None.")
    n_resamples = check_n_resamples(n_resamples)
    seed = check_seed(seed)
    zero_division = check_difference_zero_division(zero_division)
    joint, joint_w2 = check_joint(joint, joint_w2)
    num_classes = joint.shape[-1]
    if method is None:
        method = "newcombe" if num_classes == 2 else "delta"
    if method not in INFORMEDNESS_METHODS:
        raise ValueError(f"method: expected one of {INFORMEDNESS_METHODS} or None, found {method!r}.")
    if method == "newcombe" and num_classes != 2:
        raise ValueError(f"method: 'newcombe' needs a binary task (J = 2 BA - 1), found {num_classes} classes; use 'delta' or 'bootstrap'.")
    mask = None if class_mask is None else np.flatnonzero(selected_classes(class_mask, num_classes))
    joint, joint_w2, orientation = canonical(joint, joint_w2)

    confusion_a, confusion_b = marginals(joint)
    totals, sizes = row_sizes(joint, clustered_squares(joint, joint_w2, design_factor))
    value = informedness_average(confusion_a, average, mask, zero_division)
    baseline = informedness_average(confusion_b, average, mask, zero_division)
    difference = value - baseline
    fewer_than_two = (totals > 0).sum(axis=-1) < 2

    if num_classes == 2:
        # J = 2 BA - 1 for every average (both classes have references): the balanced-
        # accuracy score test, and for "newcombe" its interval, doubled.
        paired = balanced_accuracy_difference(
            joint, confidence_level=confidence_level, method="bootstrap" if method == "bootstrap" else "newcombe",
            n_resamples=n_resamples, seed=seed, joint_w2=joint_w2, design_factor=design_factor,
        )
        p_value = np.asarray(paired["p_value"], dtype=np.float64)
        # `joint` is canonical already, so `paired` comes back unflipped.
        low, high = (2.0 * np.asarray(x) for x in paired["difference_ci"])
    if num_classes != 2 or method == "delta":
        # Each system's gradient with the comparison's class mask; 0 where its value is undefined.
        averaging = Averaging(num_classes, mask, zero_division=zero_division)
        gradient_a, gradient_b = (np.nan_to_num(informedness_gradient(confusion, average, averaging))
                                  for confusion in (confusion_a, confusion_b))
        delta_variance, score_variance = variance_terms(
            joint, totals, sizes, gradient_a, gradient_b, smoothed_shares(joint, totals, sizes)
        )
    if num_classes != 2:
        p_value = score_p_value(difference, score_variance)
    if method == "delta":
        half = z_value(confidence_level) * np.sqrt(delta_variance)
        low, high = difference - half, difference + half
    elif method == "bootstrap" and num_classes != 2:

        def statistic(resampled):
            a, b = marginals(resampled)
            return (informedness_average(a, average, mask, zero_division)
                    - informedness_average(b, average, mask, zero_division))

        replicates = bootstrap_joint(joint, totals, sizes, statistic, n_resamples, seed)
        low, high = percentile_interval(replicates, confidence_level, orientation == 0)
    low, high = np.clip(low, -2.0, 2.0), np.clip(high, -2.0, 2.0)
    undefined_ci = fewer_than_two | np.isnan(difference)
    low, high, p_value = (np.where(undefined_ci, np.nan, x) for x in (low, high, p_value))
    reason = "fewer_than_two_reference_classes" if (np.ndim(fewer_than_two) == 0 and fewer_than_two) else (
        "empty_class_mask_after_filtering" if class_mask is not None else "no_defined_classes"
    )
    return finish_difference((value, baseline, difference, low, high, p_value), orientation, reason)


def informedness_paired_difference(joint, joint_w2, options, method, design_factor=1.0):
    """The paired difference of two systems' informedness (method None: Newcombe/MOVER when binary,
    the delta method otherwise)."""
    return informedness_difference(
        joint, joint_w2=joint_w2, design_factor=design_factor, average=options["average"], confidence_level=options["confidence_level"] or P_VALUE_ONLY_LEVEL,
        method=method, n_resamples=options["n_resamples"] or DEFAULT_RESAMPLES, seed=options["seed"],
        class_mask=options["class_mask"], zero_division=options["zero_division"])
