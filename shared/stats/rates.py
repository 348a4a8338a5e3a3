"""Rates: the per-class (per-label) values the modules average, from class counts.

Each function works on arrays whose last axis indexes classes and whose leading axes, if
any, are independent problems: the modules call them on the observed counts, and the
bootstrap calls the very same functions on thousands of resampled counts at once, so a
value and its interval are computed by one formula.
"""

from typing import Any, Optional, Tuple

import numpy as np

from .averaging import Averaging
from .averaging import apply_zero_division
from ..counting.counts import safe_ratio

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
    support, predicted = np.asarray(support, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    # Per problem (leading axes: e.g. bootstrap resamples): one without samples keeps its zeros.
    prevalence = np.divide(support, support.sum(axis=-1, keepdims=True), out=np.zeros_like(support), where=support.sum(axis=-1, keepdims=True) > 0)
    bias = np.divide(predicted, predicted.sum(axis=-1, keepdims=True), out=np.zeros_like(predicted), where=predicted.sum(axis=-1, keepdims=True) > 0)
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
    weights, _ = informedness_weights(average, np.asarray(support, dtype=np.float64), np.asarray(predicted, dtype=np.float64))
    value, count = averaging.combine(per_class, weights)
    return value, count, per_class


def binary_balanced_accuracy(tp: Any, positives: Any, tn: Any, negatives: Any, zero_division: Any) -> np.ndarray:
    """(TPR + TNR) / 2 per column (label), with the undefined-rate rule of ``zero_division``:
    "skip" uses the one defined rate alone; a number stands in for an undefined rate. A
    column with neither positives nor negatives is NaN whatever ``zero_division``."""
    # Weighted counts are float sums: TN = total - positives - predicted + TP may round to
    # -1e-17 and a rate to 1 + 1e-16; a rate is in [0, 1] (NaN, if undefined, stays NaN).
    tpr = np.clip(safe_ratio(tp, positives), 0.0, 1.0)
    tnr = np.clip(safe_ratio(tn, negatives), 0.0, 1.0)
    if zero_division == "skip":
        value = np.where(np.isnan(tpr), tnr, np.where(np.isnan(tnr), tpr, (tpr + tnr) / 2))
    else:
        value = (apply_zero_division(tpr, zero_division) + apply_zero_division(tnr, zero_division)) / 2
    return np.where(np.isnan(tpr) & np.isnan(tnr), np.nan, value)


def binary_rate_coefficients(has_positive: Any, has_negative: Any, zero_division: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``binary_balanced_accuracy`` as a linear form of TPR and TNR per column:
    ``(coefficient of TPR, coefficient of TNR, offset)``."""
    has_positive, has_negative = np.asarray(has_positive, dtype=bool), np.asarray(has_negative, dtype=bool)
    if zero_division == "skip":
        both = has_positive & has_negative
        return (np.where(has_positive, np.where(both, 0.5, 1.0), 0.0), np.where(has_negative, np.where(both, 0.5, 1.0), 0.0),
                np.zeros(has_positive.shape))
    offset = 0.5 * float(zero_division) * ((~has_positive).astype(float) + (~has_negative).astype(float))
    return np.where(has_positive, 0.5, 0.0), np.where(has_negative, 0.5, 0.0), offset


def pool_columns(tp: Any, positives: Any, tn: Any, negatives: Any, selected: Any) -> list:
    """TP, positives, TN, negatives summed over the ``selected`` columns (last axis): one
    "micro" column, each of shape (..., 1)."""
    fields = [np.asarray(field, dtype=np.float64)[..., selected] for field in (tp, positives, tn, negatives)]
    with np.errstate(over="ignore"):
        pooled = [np.sum(field, axis=-1, keepdims=True) for field in fields]
    if any(np.isinf(field).any() for field in pooled):
        # Weighted sums near float64's limit: pool them as shares of the largest (the rates are the same).
        largest = np.maximum(fields[1].max(axis=-1, keepdims=True, initial=0.0), fields[3].max(axis=-1, keepdims=True, initial=0.0))
        pooled = [np.sum(field / largest, axis=-1, keepdims=True) for field in fields]
    return pooled


def label_average(tp: Any, positives: Any, tn: Any, negatives: Any, per_label: Any, average: str, selected: Any,
                  zero_division: Any) -> float:
    """The multilabel average of per-label balanced accuracies over the ``selected`` labels
    (None: all): "micro" pools the labels' counts first; "macro" and "weighted" (by
    positives) average ``per_label``, leaving out NaN labels (zero_division acted inside
    each label already: a NaN label measured nothing).

    Examples
    --------
    >>> tp, positives, tn, negatives = np.array([3, 0]), np.array([4, 0]), np.array([5, 2]), np.array([6, 4])
    >>> per_label = binary_balanced_accuracy(tp, positives, tn, negatives, "skip")  # (3/4 + 5/6) / 2 and 2/4
    >>> bool(np.isclose(label_average(tp, positives, tn, negatives, per_label, "macro", None, "skip"), (19 / 24 + 0.5) / 2))
    True
    >>> label_average(tp, positives, tn, negatives, per_label, "micro", None, "skip") == (3 / 4 + 7 / 10) / 2
    True
    """
    if average == "micro":
        columns = slice(None) if selected is None else selected
        return float(binary_balanced_accuracy(*pool_columns(tp, positives, tn, negatives, columns), zero_division)[0])
    weights = positives if average == "weighted" else None
    return float(Averaging(np.shape(per_label)[-1], selected).combine(per_label, weights)[0])


def label_average_reason(masked: bool, average: str, per_label: Any) -> str:
    """Why an average of per-label balanced accuracies is NaN: the mask left no label, the
    weighted average's labels have no positives, or no label has a defined value."""
    if masked:
        return "empty_class_mask_after_filtering"
    if average == "weighted" and not np.isnan(np.asarray(per_label, dtype=np.float64)).all():
        return "no_positive_support"
    return "no_defined_labels"

