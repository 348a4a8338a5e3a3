"""Multilabel balanced accuracy as a spec: its value (macro, weighted, micro) from per-label 2 x 2
counts, its option checks, and the evaluate glue of a metric of 0/1 indicator rows.

What ``balanced_accuracy_multilabel/balanced_accuracy_multilabel.py`` names in its ``SPEC``;
the options reach these functions resolved and checked (``glue/options.py``).
"""

import abc
import math
import numbers
from typing import Any, Optional, Tuple

import numpy as np


from ..counting.inputs import as_array
from ..stats.averaging import Averaging
from ..stats.averaging import apply_zero_division
from ..counting.counts import safe_ratio
from ..stats.binomial import Interval
from ..stats.binomial import finish_interval
from ..stats.binomial import rate_sum_interval
from ..counting.multilabel import check_num_labels
from ..glue.options import check_threshold
from ..stats.binomial import DEFAULT_CI_METHOD
from ..counting.multilabel import MultilabelCounts
from ..counting.counts import NO_SAMPLES
from ..counting.inputs import to_python
from ..counting.multilabel import count_indicators
from ..counting.multilabel import multilabel_counts
from ..glue.metric import CountsMetric
from ..glue.reduction import MetricSpec
from ..glue.reduction import clustered_interval


# Per-label rates: (TPR + TNR) / 2 per label and the labels' average, on any leading axes.


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


MULTILABEL_AVERAGES = ("macro", "weighted", "micro")


AUTO_THRESHOLDS_INTERVAL = (
    "confidence_level: no interval with threshold='auto'. The per-label thresholds are fitted to these same "
    "data, so an interval that takes them as fixed is too narrow (for one binary task, re-searching the "
    "threshold in every bootstrap resample covered the best balanced accuracy in only 71-87% of simulated "
    "golden sets: studies/golden_set_coverage). Tune the thresholds on a separate split and pass them: "
    "threshold=tuned['per_label_thresholds']."
)


FROM_PROBAS_HINT = "For probabilities or scores pass from_probas=True."


def check_multilabel_threshold(threshold, name):
    """A number, "auto", or one number per label (their count is checked with the data): any finite
    score, or inf (no positive), as "auto" returns them; whether they fit the scores is checked with the data."""
    if isinstance(threshold, (list, tuple, np.ndarray)) or hasattr(threshold, "detach"):
        values = as_array(threshold, name)
        if values.dtype.kind not in "iuf":
            raise TypeError(f"{name}: expected numbers, one per label, found values of dtype {values.dtype}.")
        values = values.astype(np.float64)
        if values.ndim != 1:
            raise ValueError(f"{name}: expected one threshold per label (a list of numbers), found shape {values.shape}.")
        if np.isnan(values).any() or (values == -np.inf).any():
            raise ValueError(f"{name}: expected per-label thresholds that are finite numbers or inf (no positive), "
                             f"found {values.tolist()}.")
        return values
    if threshold is None:
        raise TypeError(f"{name}: expected a number, 'auto' or one number per label, found None.")
    return check_threshold(threshold, name)


def check_indicator_ignore_index(ignore_index, name):
    if ignore_index is None:
        return None
    if isinstance(ignore_index, (bool, np.bool_)) or not isinstance(ignore_index, (numbers.Integral, np.integer)):
        raise TypeError(f"{name}: expected an integer such as -100, found {ignore_index!r}.")
    if ignore_index in (0, 1):
        raise ValueError(f"{name}: expected a value other than the labels 0 and 1, found {ignore_index}.")
    return int(ignore_index)


def check_label_names(label_names, name):
    if label_names is None:
        return None
    if not isinstance(label_names, (list, tuple)) or not all(isinstance(item, str) for item in label_names):
        raise TypeError(f"{name}: expected a list of strings, found {label_names!r}.")
    if len(set(label_names)) != len(label_names):
        raise ValueError(f"{name}: expected distinct names, found {list(label_names)}.")
    return list(label_names)


def binary_columns_interval(
    tp: Any,
    positives: Any,
    tn: Any,
    negatives: Any,
    *,
    confidence_level: float,
    average: str = "macro",
    method: str = "wilson",
    n_resamples: int = 10_000,
    seed: Optional[int] = None,
    class_mask: Optional[np.ndarray] = None,
    zero_division: Any = "skip",
    effective_positives: Any = None,
    effective_negatives: Any = None,
    averaging: Optional[Averaging] = None,
) -> Interval:
    """Interval for an average of per-column binary balanced accuracies (multi-label).

    Column l (a label) has ``TPR_l = tp_l / positives_l`` and ``TNR_l = tn_l / negatives_l``;
    its balanced accuracy is ``binary_balanced_accuracy`` (``zero_division`` acts
    inside a label). ``average``: "macro" (mean over the defined labels of ``class_mask``,
    or of ``averaging``, the module's label ``Averaging``), "weighted" (weights =
    positives), "micro" (one balanced accuracy of the pooled counts). Labels are treated
    as independent, which they are not when they share samples (see the card's
    limitations); ``effective_*`` are Kish sizes for weighted counts.

    Examples
    --------
    >>> interval = binary_columns_interval([40, 5], [50, 10], [900, 80], [950, 90], confidence_level=0.95, method="wilson")
    >>> [round(x, 4) for x in interval.as_list()]
    [0.7077, 0.8546]
    """
    if average not in ("macro", "weighted", "micro"):
        raise ValueError(f"average: expected 'macro', 'weighted' or 'micro', found {average!r}.")
    tp, positives, tn, negatives = (np.asarray(a, dtype=np.float64) for a in (tp, positives, tn, negatives))
    if averaging is None:
        averaging = Averaging(tp.shape[-1], None if class_mask is None else np.asarray(class_mask, dtype=np.intp))
    size_positive = positives if effective_positives is None else np.asarray(effective_positives, dtype=np.float64)
    size_negative = negatives if effective_negatives is None else np.asarray(effective_negatives, dtype=np.float64)
    if average == "micro":
        selected = slice(None) if averaging.selected is None else averaging.selected
        tp, positives, tn, negatives = pool_columns(tp, positives, tn, negatives, selected)
        size_positive, size_negative = (np.sum(np.asarray(size)[..., selected], axis=-1, keepdims=True) for size in (size_positive, size_negative))
        label_averaging = Averaging(1)
    else:
        label_averaging = Averaging(tp.shape[-1], averaging.selected)
    per_label = binary_balanced_accuracy(tp, positives, tn, negatives, zero_division)
    value, count = label_averaging.combine(per_label, positives if average == "weighted" else None)
    label_share, _, _, _ = label_averaging.coefficients(~np.isnan(per_label), positives if average == "weighted" else None)
    weight_tpr, weight_tnr, label_offset = binary_rate_coefficients(positives > 0, negatives > 0, zero_division)
    tpr, tnr = (np.clip(np.nan_to_num(safe_ratio(hits, total)), 0.0, 1.0) for hits, total in ((tp, positives), (tn, negatives)))
    interval = rate_sum_interval(
        np.concatenate([tpr * size_positive, tnr * size_negative], axis=-1), np.concatenate([size_positive, size_negative], axis=-1),
        np.concatenate([label_share * weight_tpr, label_share * weight_tnr], axis=-1), offset=(label_share * label_offset).sum(axis=-1),
        confidence_level=confidence_level, method=method, n_resamples=n_resamples, seed=seed, estimate=value,
    )
    reason = label_average_reason(averaging.selected is not None, average, per_label) if np.ndim(value) == 0 else None
    return finish_interval(np.asarray(interval.low), np.asarray(interval.high), np.isnan(value), reason)


def binary_columns_influence(
    tp: Any, positives: Any, tn: Any, negatives: Any, *, average: str = "macro", zero_division: Any = "skip",
    averaging: Optional[Averaging] = None,
) -> np.ndarray:
    """How one more entry (of unit weight) of label l in cell (reference, prediction) moves the
    linear form of TPRs and TNRs that ``binary_columns_interval`` builds for ``average``:
    an ``(L, 2, 2)`` array laid out as the cells ``[[tn, fp], [fn, tp]]``. A positive entry moves
    TPR_l by ``(correct - TPR_l) / positives_l`` (pooled over the selected labels for "micro"),
    a negative one TNR_l likewise; each times the rate's coefficient in the average (the
    weighted average's label shares held fixed, as the interval holds them). What a
    cluster-robust variance weighs each entry by (``stats.design_effect``).

    Examples
    --------
    >>> influence = binary_columns_influence([8], [10], [45], [50])  # BA = (TPR + TNR) / 2
    >>> np.round(influence[0], 4).tolist()  # [[0.5 (1 - 0.9) / 50, -0.5 x 0.9 / 50], [-0.5 x 0.8 / 10, 0.5 (1 - 0.8) / 10]]
    [[0.001, -0.009], [-0.04, 0.01]]
    """
    tp, positives, tn, negatives = (np.asarray(a, dtype=np.float64) for a in (tp, positives, tn, negatives))
    num_labels = tp.shape[-1]
    if averaging is None:
        averaging = Averaging(num_labels)
    selected = np.zeros(num_labels, dtype=bool)
    selected[slice(None) if averaging.selected is None else averaging.selected] = True
    if average == "micro":
        pooled = pool_columns(tp, positives, tn, negatives, selected)
        per_label = binary_balanced_accuracy(*pooled, zero_division)
        weight_tpr, weight_tnr, _ = binary_rate_coefficients(pooled[1] > 0, pooled[3] > 0, zero_division)
        share = np.where(selected, 1.0 if not np.isnan(per_label[0]) else 0.0, 0.0)
        tp, positives, tn, negatives = (np.broadcast_to(field, (num_labels,)) for field in pooled)
        weight_tpr, weight_tnr = np.broadcast_to(weight_tpr, (num_labels,)), np.broadcast_to(weight_tnr, (num_labels,))
    else:
        per_label = binary_balanced_accuracy(tp, positives, tn, negatives, zero_division)
        share = Averaging(num_labels, averaging.selected).coefficients(~np.isnan(per_label), positives if average == "weighted" else None)[0]
        weight_tpr, weight_tnr, _ = binary_rate_coefficients(positives > 0, negatives > 0, zero_division)
    tpr, tnr = (np.clip(np.nan_to_num(safe_ratio(hits, total)), 0.0, 1.0) for hits, total in ((tp, positives), (tn, negatives)))
    per_positive = np.divide(share * weight_tpr, positives, out=np.zeros(num_labels), where=positives > 0)
    per_negative = np.divide(share * weight_tnr, negatives, out=np.zeros(num_labels), where=negatives > 0)
    influence = np.empty((num_labels, 2, 2))
    influence[:, 0, 0], influence[:, 0, 1] = per_negative * (1.0 - tnr), -per_negative * tnr
    influence[:, 1, 0], influence[:, 1, 1] = -per_positive * tpr, per_positive * (1.0 - tpr)
    return influence


def balanced_accuracy_multilabel_from_counts(counts: MultilabelCounts, options) -> dict:
    """Multilabel balanced accuracy (and its interval, per-label values, 2 x 2 tables) from per-label counts.

    ``options``: every option of ``compute``, resolved and checked; ``counts`` is what
    ``compute`` counted from samples, or an (L, 2, 2) confusion matrix given to it.
    """
    average, class_mask, zero_division, label_names, confidence_level = (options[name] for name in (
        "average", "class_mask", "zero_division", "label_names", "confidence_level"))
    num_labels = counts.num_labels
    result = {"balanced_accuracy": math.nan}
    # With an interval requested, an undefined value gets an undefined interval too.
    undefined_ci = {} if confidence_level is None else {"balanced_accuracy_ci": [math.nan, math.nan]}
    if counts.thresholds is not None:
        result["per_label_thresholds"] = counts.thresholds
    if num_labels == 0:  # only empty lists: the number of labels is unknown, so nothing can be checked against it
        return to_python({**result, "reason": counts.reason or NO_SAMPLES, **undefined_ci})
    check_num_labels(num_labels, label_names=label_names)
    averaging = Averaging.over(num_labels, class_mask)  # checks class_mask against the labels
    reason = counts.reason or (NO_SAMPLES if not np.any(counts.cells) else None)
    if reason is not None:
        return to_python({**result, "reason": reason, **undefined_ci})
    per_label_ba = binary_balanced_accuracy(counts.tp, counts.positives, counts.tn, counts.negatives, zero_division)
    score = label_average(counts.tp, counts.positives, counts.tn, counts.negatives, per_label_ba, average,
                          averaging.selected, zero_division)
    result["balanced_accuracy"] = score
    if math.isnan(score):
        result["reason"] = label_average_reason(class_mask is not None, average, per_label_ba)
        result.update(undefined_ci)
    elif confidence_level is not None:
        effective_positives, effective_negatives = counts.effective_sizes()
        if counts.clusters.counted and effective_positives is None:
            effective_positives, effective_negatives = counts.positives, counts.negatives
        # The labels of one sample (and the samples of one cluster) share it: they are worth fewer independent entries.
        outputs, _ = clustered_interval(
            "balanced_accuracy_ci", counts,
            lambda: binary_columns_influence(counts.tp, counts.positives, counts.tn, counts.negatives, average=average,
                                             zero_division=zero_division, averaging=averaging),
            confidence_level,
            lambda effect: binary_columns_interval(
                counts.tp, counts.positives, counts.tn, counts.negatives, confidence_level=confidence_level, average=average,
                method=options["ci_method"] or DEFAULT_CI_METHOD,
                n_resamples=options["n_resamples"], seed=options["seed"], averaging=averaging,
                zero_division=zero_division, effective_positives=effect.scale(effective_positives),
                effective_negatives=effect.scale(effective_negatives)))
        result.update(outputs)
    if options["return_per_label"]:
        result["per_label_ba"] = per_label_ba
        result["support_per_label"] = counts.positives
    if label_names is not None:
        result["label_names"] = label_names
    if options["return_confusion_matrix"]:
        result["confusion_matrix"] = counts.matrix()
    return to_python(result)


def check_multilabel_options(options) -> None:
    """Checks across the multilabel module's options, before any data is read."""
    auto = isinstance(options["threshold"], str)
    if options["confidence_level"] is not None and auto:
        raise ValueError(f"{AUTO_THRESHOLDS_INTERVAL} Found confidence_level={options['confidence_level']!r} with threshold='auto'.")
    if auto and not options["from_probas"]:
        raise ValueError("threshold: 'auto' searches thresholds on scores; pass from_probas=True with them (found from_probas=False).")


class MultilabelMetric(CountsMetric, metaclass=abc.ABCMeta):
    """A metric of 0/1 indicator rows (or scores with ``from_probas``), declared by its ``SPEC``:
    rows are counted into per-label 2 x 2 tables (``counting/multilabel.py``), which the spec reduces."""

    SPEC: MetricSpec

    @abc.abstractmethod
    def _info(self):
        """The module's docs (abstract here: ``evaluate.load`` takes the module's own class)."""
        raise NotImplementedError

    def __len__(self):
        """Rows added (the count table holds one entry per row and label)."""
        store = self.writer
        if store is None:
            return 0
        width = store.settings.get("num_labels") or 1
        raw = store.raw.get("references", [])
        counted = sum(len(table) for name, table in store.tables.items() if not name.startswith("_"))
        return counted // width + sum(len(chunk) for chunk in raw)

    INPUTS = ("sample_weight", "clusters")

    def _count(self, predictions, references, inputs, options):
        return count_indicators(predictions, references, inputs.get("sample_weight"), like=self.writer, clusters=inputs.get("clusters"))

    def _counts(self, stored, options):
        if stored.settings.get("num_labels") is not None:  # None: only empty lists were given
            check_num_labels(stored.settings["num_labels"], options["threshold"], options["label_names"])
        return multilabel_counts(stored, options["from_probas"], options["threshold"], options["ignore_index"], FROM_PROBAS_HINT)

    def _counts_from_matrix(self, matrix, options):
        if options["from_probas"]:
            raise ValueError("from_probas: a confusion matrix holds labels already, found from_probas=True.")
        counts = MultilabelCounts.from_matrix(matrix)
        check_num_labels(counts.num_labels, label_names=options["label_names"])
        return counts

    def _from_counts(self, counts, options):
        return self.SPEC.value(counts, options)
