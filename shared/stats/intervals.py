"""Confidence intervals computed from confusion counts, for every metric of this project.

Every metric here is a function of per-class confusion counts, and a golden set fixes how
many examples each reference class has. So the sampling variability that matters is that
of each reference-class *row* of the confusion matrix, given the class sizes: a row is
multinomial, and a per-class recall is binomial. Every method works on counts, so its
cost does not grow with the number of samples:

* ``"agresti_coull"`` and ``"wilson"``: analytic intervals for a weighted sum of
  independent binomial rates (balanced accuracy = mean of per-class recalls; balanced
  top-k accuracy; binary informedness J = TPR + TNR - 1 = 2 BA - 1; an average of
  per-label balanced accuracies). Each rate gets an Agresti-Coull (resp. Wilson score)
  interval and the intervals are combined with MOVER (Zou & Donner 2008; with Wilson
  this is Newcombe's method 10 for a difference of proportions). They stay inside the
  metric's range and are finite for rates of 0 or 1 and for tiny classes.
* ``"bootstrap"``: the stratified bootstrap done on counts: each class row is resampled
  (binomial for a recall, multinomial for a full confusion row) with the class size kept,
  ``n_resamples`` times, and the metric recomputed on each resample. The interval is the
  **percentile** interval. Not BCa: on counts the bootstrap distribution is discrete, with
  large atoms (a class with all examples correct never moves), which makes BCa's
  bias-correction ``Phi^-1(share below the estimate)`` jump with the tie convention and
  its jackknife acceleration unstable for tiny classes; the percentile interval is
  transformation-respecting and stays in range.

Coverage on golden sets of 50-1,000 (``studies/golden_set_coverage``, 10,000 sets per
setting): for balanced accuracy the default ``"score"`` (``DEFAULT_CI_METHOD``, chosen on
the long-tail grid of ``studies/long_tail_modules``) covered 0.943-0.987 in all 21 settings,
conservatively (above 0.97) in 11; Agresti-Coull/MOVER kept 93-97% in 19 of 21 (0.928 with a
class of about 2 examples), Wilson/MOVER in 16 (down to 0.919 for a recall near 1), the
percentile bootstrap in 9 (down to 0.854: it hardly moves a small class with all or none
correct).

Multi-class informedness (Powers' bookmaker informedness) is not a sum of independent
rates. ``"score"`` (its default too, ``DEFAULT_CI_METHOD``) linearises it in the error rates
of the confusion rows (``informedness_score_interval``): with the class sizes fixed, moving
one item of class i from the diagonal to column j moves theta by ``Psi_ij - Psi_ii``
(``informedness_gradient``), exactly for "macro" and "weighted" (whose class weights the
sizes fix). Each row's errors are taken as one binomial whose weight bounds the row's
multinomial variance from above, and that sum of K rates gets the score interval with Fay &
Feuer's gamma bound (``score_sum.py``). ``"delta"`` is the Wald (influence-function)
interval ``theta +- z sqrt(sum_ij n_ij Psi_ij^2)`` with 0.5 pseudo-items per reference class;
``"bootstrap"`` the stratified percentile bootstrap. Both fall short near the ceiling and
with a class of a few items, where the score interval holds its level
(``studies/multiclass_informedness``, whose ``results.md`` has the cells and the command).

Sample weights: counts become weighted sums, and a weighted rate's sampling variance is
that of an unweighted rate on Kish's effective sample size ``n_eff = (sum w)^2 / sum w^2``
(per class). This treats weights as importance weights unrelated to correctness within a
class; frequency weights (a weight of 3 = three identical samples) are *not* counts here
(repeat the samples instead). With equal weights ``n_eff = n`` and the interval equals the
unweighted one.

The reductions are the modules' own: ``Averaging`` (``averaging.py``) defines which
classes count, what ``zero_division``, ``class_mask`` and ``adjusted`` do and why a value
is undefined, and ``rates.py`` the per-class values; an interval is that same linear form
of rates, centred on the module's value. The binomial building blocks (Wilson,
Agresti-Coull, MOVER, the bootstrap draws, the option checks) are in ``binomial.py`` and
are importable from here too. Works vendored next to a metric script (``from .intervals
import ...``) and with ``shared/`` on the import path (``import intervals``).
"""

from typing import Any, Optional

import numpy as np

from .averaging import Averaging
from ..counting.clusters import RecallInfluence
from ..counting.counts import safe_ratio
from .vocabulary import CI_METHODS
from .vocabulary import RATE_CI_METHODS
from .binomial import DEFAULT_CI_METHOD
from .binomial import DEFAULT_RESAMPLES
from .binomial import Interval
from .binomial import confusion_interval
from .binomial import finish_interval
from .binomial import rate_sum_interval
from .distributions import z_value
from .rates import INFORMEDNESS_AVERAGES
from .rates import informedness

# Names imported but not used here (the checks, z_value, wilson_interval, ...) are part of
# this file's API: users of intervals import them from here.


def _mask(class_mask: Any) -> Optional[np.ndarray]:
    return None if class_mask is None else np.asarray(class_mask, dtype=np.intp)


def _form_bounds(coefficients: np.ndarray, offset: Any):
    """The range of ``offset + sum_c coefficient_c * rate_c`` for rates in [0, 1]."""
    return offset + np.minimum(coefficients, 0.0).sum(axis=-1), offset + np.maximum(coefficients, 0.0).sum(axis=-1)


# ----------------------------------------------------------------------------------------
# Means of independent rates: balanced accuracy, balanced top-k accuracy (multilabel's per-label
# form, binary_columns_interval, is in metrics/multilabel.py)
# ----------------------------------------------------------------------------------------


def recall_mean_interval(
    correct: Any,
    support: Any,
    *,
    confidence_level: float,
    method: str = DEFAULT_CI_METHOD,
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Optional[np.ndarray] = None,
    zero_division: Any = "skip",
    adjusted: bool = False,
    effective_support: Any = None,
    unobserved: int = 0,
    averaging: Optional[Averaging] = None,
) -> Interval:
    """Interval for a mean of per-class recalls ``correct_c / support_c``, reduced as the modules do.

    This is balanced accuracy (``correct`` = TP per class) and balanced top-k accuracy
    (``correct`` = samples of class c with c among the top k). ``averaging`` is the
    module's ``Averaging``; without it one is built from ``class_mask``, ``zero_division``,
    ``adjusted`` and ``unobserved`` (selected classes beyond the arrays, declared by a
    ``num_classes`` too large to materialise). A class without support is skipped or takes
    the fixed value ``zero_division`` (a convention, with no sampling error); ``adjusted``
    is the linear map ``(mean - 1/K) / (1 - 1/K)``. ``effective_support`` (weighted
    counts): Kish's effective size per class (see ``effective_sizes``); ``correct`` and
    ``support`` are then the weighted sums.

    The last axis indexes classes; leading axes are independent problems (arrays out).
    NaN with ``Averaging.reason`` (for a single problem) where the point value is undefined.

    Examples
    --------
    >>> interval = recall_mean_interval([8, 45, 0], [10, 50, 0], confidence_level=0.95, method="wilson")
    >>> [round(x, 4) for x in interval.as_list()], interval.reason
    ([0.685, 0.927], None)
    """
    correct = np.asarray(correct, dtype=np.float64)
    support = np.asarray(support, dtype=np.float64)
    if averaging is None:
        averaging = Averaging(support.shape[-1], _mask(class_mask), int(unobserved), zero_division, adjusted)
    recall = safe_ratio(correct, support)
    value, count = averaging.combine(recall)  # the module's value, to the last digit
    coefficients, offset, _, _ = averaging.coefficients(support > 0)
    trials = support if effective_support is None else np.asarray(effective_support, dtype=np.float64)
    interval = rate_sum_interval(
        np.nan_to_num(recall) * trials, trials, coefficients, offset=offset, bounds=_form_bounds(coefficients, offset),
        confidence_level=confidence_level, method=method, n_resamples=n_resamples, seed=seed, estimate=value,
    )
    reason = averaging.reason(int(count), "no_reference_classes", float(value)) if np.ndim(value) == 0 else None
    return finish_interval(np.asarray(interval.low), np.asarray(interval.high), np.isnan(value), reason)


def recall_influence(correct: Any, support: Any, averaging: Averaging, k: Optional[int] = None) -> RecallInfluence:
    """``RecallInfluence(right, wrong)``: per class, how one more sample of class c, predicted right or wrong, moves
    the mean of recalls that ``averaging`` forms: ``a_c (1 - r_c) / n_c`` and ``-a_c r_c / n_c``
    (``a_c`` its coefficient, ``r_c`` the recall, ``n_c`` the class's count). What a
    cluster-robust variance weighs each counted sample by (``stats.design_effect``); ``k``: the top-k
    whose recalls they are, if any.

    Examples
    --------
    >>> influence = recall_influence([8, 45], [10, 50], Averaging(2))
    >>> np.round(influence.right, 6).tolist(), np.round(influence.wrong, 6).tolist()  # 0.5 (1 - 0.8) / 10, -0.5 x 0.8 / 10, ...
    ([0.01, 0.001], [-0.04, -0.009])
    """
    correct, support = (np.asarray(values, dtype=np.float64) for values in (correct, support))
    recall = np.nan_to_num(safe_ratio(correct, support))
    coefficients = averaging.coefficients(support > 0)[0]
    per_sample = np.divide(coefficients, support, out=np.zeros_like(support), where=support > 0)
    return RecallInfluence(per_sample * (1.0 - recall), -per_sample * recall, k)


# ----------------------------------------------------------------------------------------
# Full confusion matrices: informedness and any other reduction (bootstrap)
# ----------------------------------------------------------------------------------------


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

    The informedness module's value (``rates.informedness``): per class ``J_c = TPR_c -
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
        averaging = Averaging(tp.shape[-1], _mask(class_mask), zero_division=zero_division)
    value, _, _ = informedness(tp, support, predicted, average, averaging)
    return value


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
        averaging = Averaging(num_classes, _mask(class_mask), zero_division=zero_division)
    cells = confusion if squared_weights is None else np.asarray(squared_weights, dtype=np.float64)
    smoothed, smoothed_cells = confusion, cells
    if pseudo_items:
        support = confusion.sum(axis=-1, keepdims=True)
        # A pseudo-item's weight: the row's effective item weight sum w^2 / sum w (1 unweighted).
        item_weight = np.divide(cells.sum(axis=-1, keepdims=True), support, out=np.zeros_like(support), where=support > 0)
        share = pseudo_items / num_classes
        smoothed = confusion + share * item_weight
        smoothed_cells = cells + share * item_weight**2
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
        averaging = Averaging(confusion.shape[-1], _mask(class_mask), zero_division=zero_division)
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

    def statistic(matrices):
        return informedness_average(matrices, average, averaging=averaging)

    interval = confusion_interval(
        confusion, statistic, confidence_level=confidence_level, n_resamples=n_resamples,
        seed=seed, bounds=(-1.0, 1.0), effective_support=effective_support,
    )
    return finish_interval(np.asarray(interval.low), np.asarray(interval.high), undefined | np.isnan(np.asarray(interval.low)), reason)
