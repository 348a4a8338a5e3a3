"""Multilabel balanced accuracy: per-label (TPR + TNR) / 2 with macro, weighted and micro averages."""

import math
import numbers

import datasets
import evaluate
import numpy as np

from .confusion_core import THRESHOLD_TIE_RULE
from .confusion_core import ClassCounts
from .confusion_core import ConfusionMetric
from .confusion_core import apply_zero_division
from .confusion_core import as_array
from .confusion_core import as_indicators
from .confusion_core import check_class_mask
from .confusion_core import check_flag
from .confusion_core import check_probabilities
from .confusion_core import check_sample_weight
from .confusion_core import check_scores
from .confusion_core import check_threshold
from .confusion_core import check_zero_division
from .confusion_core import column_counts
from .confusion_core import masked_mean
from .confusion_core import safe_ratio
from .confusion_core import to_python
from .confusion_core import undefined_result
from .confusion_core import youden_thresholds
from .intervals import binary_columns_interval
from .intervals import check_ci_method
from .intervals import check_confidence_level
from .intervals import check_n_resamples
from .intervals import check_seed
from .intervals import class_effective_sizes

_DESCRIPTION = """
Multilabel balanced accuracy. Each of the L labels of a multilabel task is its own
binary task; its balanced accuracy is the mean of its sensitivity and specificity:

    BA_l = (TPR_l + TNR_l) / 2,   TPR_l = TP_l / (TP_l + FN_l),   TNR_l = TN_l / (TN_l + FP_l)

The per-label values are averaged in one of three ways:

- "macro": the plain mean of BA_l. Every label counts equally, so rare tags matter as
  much as frequent ones.
- "weighted": the mean of BA_l weighted by each label's positive support (weighted sums
  with `sample_weight`). Frequent labels dominate.
- "micro": TP/FP/TN/FN pooled over all labels, then one BA. One judge for all decisions;
  equals the balanced accuracy of the flattened arrays. Not prevalence-invariant: the
  same per-label TPR and TNR give a different micro BA when the labels' prevalences
  change (0.844 against 0.684 in the card's example; macro 0.75 on both).

With probabilities, `threshold="auto"` picks, per label, the threshold that maximises
BA_l (Youden's J), in one sort per label, vectorised over labels.
"""

_KWARGS_DESCRIPTION = f"""
Args:
    predictions (array-like, shape (N, L)): 0/1 labels, or with `from_probas=True`
        probabilities of each label. Lists of lists, NumPy, torch and boolean arrays are
        accepted.
    references (array-like, shape (N, L)): true 0/1 labels (and `ignore_index`, if given).
    from_probas (bool, defaults to False): predictions are probabilities (or, with
        `threshold="auto"`, any finite scores such as logits), turned into labels with
        `threshold`. With False, predictions must be 0/1 and `threshold` plays no part.
    threshold (float in [0, 1], `"auto"`, or one such number per label; defaults to 0.5):
        a label is predicted iff probability >= threshold. `"auto"` searches, per label,
        the threshold that maximises BA_l and returns them as `per_label_thresholds`. {THRESHOLD_TIE_RULE}
        A label for which predicting no positive at all is best gets threshold inf. A list of
        L thresholds (e.g. the `per_label_thresholds` of a tuning split; inf allowed)
        applies one threshold per label.
    average (`"macro"`, `"weighted"` or `"micro"`, defaults to "macro"): "micro" is not
        prevalence-invariant (it moves with label prevalences at fixed TPR/TNR). See
        above; compare micro values only across data with the same label frequencies.
    class_mask (list of int, optional): average only over these label indices (for
        "micro": pool only these labels).
    ignore_index (int, optional): entries whose reference equals it are dropped (the rest
        of their row still counts); they take no part in the counts nor in the "auto"
        threshold search.
    sample_weight (array-like of N numbers, optional): one non-negative weight per row;
        counts and supports become weighted sums.
    zero_division ("skip", 0.0 or 1.0, defaults to "skip"): a label with no positives has
        no TPR (with no negatives: no TNR). "skip" leaves the undefined rate out, so
        BA_l is the other rate, as in scikit-learn's `balanced_accuracy_score` and in
        `balanced_accuracy` on that column; a number is used as the undefined rate,
        BA_l = (rate + zero_division) / 2. A label with neither positives nor negatives
        (all of its entries ignored, or weight 0) has BA_l = NaN and is left out of every
        average, whatever `zero_division`.
    return_per_label (bool, defaults to False): also return `per_label_ba` and
        `support_per_label`.
    label_names (list of str, optional): one name per label, returned as `label_names`
        to name the per-label lists.
    confidence_level (float in (0, 1), optional): e.g. 0.95 adds `balanced_accuracy_ci`,
        a confidence interval for the averaged value. Default None: no interval.
    ci_method ("agresti_coull", "wilson", "bootstrap" or None): "agresti_coull" and
        "wilson" are analytic: an Agresti-Coull (or Wilson score) interval for each
        label's TPR and TNR (for "micro": the pooled ones), combined with MOVER into an
        interval for the average. "bootstrap" redraws each of those counts as
        Binomial(size, rate) and returns the percentile interval. None means
        "agresti_coull". The labels are treated as independent, which they are not
        when their errors fall on the same samples: with correlated label errors the
        95% interval covered the truth in 90-93% of simulated sets (see the card). With
        `sample_weight`, each label's positives and negatives count as Kish's effective
        sizes (sum w)^2 / sum w^2 (an approximation for importance weights; not for
        frequency counts). There is no interval with threshold="auto" (ValueError):
        those thresholds are fitted to these same data; tune them on another split and
        pass the list.
    n_resamples (int, defaults to 10000): bootstrap resamples.
    seed (int, optional): seed of the bootstrap's random generator, for reproducible
        intervals.

Returns:
    balanced_accuracy (float): in [0, 1]; NaN with a `reason` when nothing can be
        averaged: "empty_after_ignore_index" (every entry ignored),
        "empty_class_mask_after_filtering" (no selected label left to average),
        "no_defined_labels" (no label has a defined BA), "no_positive_support"
        ("weighted" and no label has a positive).
    balanced_accuracy_ci (list of two floats): with `confidence_level`, [low, high] for
        the averaged value, inside [0, 1]; [nan, nan] when the value is undefined.
    per_label_thresholds (list of float): with `threshold="auto"`, in label order.
    per_label_ba (list of float): BA_l in label order (NaN only for a label with neither
        positives nor negatives).
    support_per_label (list): positives per label (weighted sums when weighted).
    label_names (list of str): when given.

Examples:

    >>> metric = evaluate.load("balanced_accuracy_multilabel")
    >>> metric.compute(references=[[1, 0, 1], [0, 1, 0]], predictions=[[1, 0, 0], [0, 1, 1]], return_per_label=True)
    {{'balanced_accuracy': 0.6666666666666666, 'per_label_ba': [1.0, 1.0, 0.0], 'support_per_label': [1, 1, 1]}}

    Probabilities with a per-label Youden threshold. Label 2 is predicted backwards, so
    "nothing positive" (threshold inf) ties with "everything positive" (BA 0.5) and the
    tie rule keeps the highest threshold:

    >>> metric.compute(references=[[1, 0, 1], [0, 1, 0]], predictions=[[0.9, 0.2, 0.1], [0.1, 0.8, 0.7]],
    ...                from_probas=True, threshold="auto")
    {{'balanced_accuracy': 0.8333333333333334, 'per_label_thresholds': [0.5, 0.5, inf]}}

    The three averages on one imbalanced example (label 0: 3 positives, label 1: 1):

    >>> references = [[1, 0], [1, 0], [1, 1], [0, 0]]
    >>> predictions = [[1, 1], [1, 0], [1, 0], [0, 0]]
    >>> [metric.compute(references=references, predictions=predictions, average=a)["balanced_accuracy"]
    ...  for a in ("macro", "weighted", "micro")]
    [0.6666666666666666, 0.8333333333333334, 0.75]

    Padded entries, a label subset and names:

    >>> metric.compute(references=[[1, -100], [0, 1], [1, 0]], predictions=[[1, 1], [1, 1], [1, 0]],
    ...                ignore_index=-100, class_mask=[1], return_per_label=True, label_names=["cat", "dog"])
    {{'balanced_accuracy': 1.0, 'per_label_ba': [0.5, 1.0], 'support_per_label': [2, 1], 'label_names': ['cat', 'dog']}}

    A label without positives: "skip" keeps its TNR, a number stands in for its TPR:

    >>> metric.compute(references=[[1, 0], [0, 0]], predictions=[[1, 1], [0, 0]], return_per_label=True)["per_label_ba"]
    [1.0, 0.5]
    >>> metric.compute(references=[[1, 0], [0, 0]], predictions=[[1, 1], [0, 0]], return_per_label=True,
    ...                zero_division=1.0)["per_label_ba"]
    [1.0, 0.75]

    A 95% confidence interval for the macro average. 200 samples with two labels: label 0
    has 20 positives (16 found) and 180 negatives (9 false alarms), label 1 has 50
    positives (45 found) and 150 negatives (15 false alarms):

    >>> references = [[1, 1]] * 10 + [[1, 0]] * 10 + [[0, 1]] * 40 + [[0, 0]] * 140
    >>> predictions = ([[1, 1]] * 8 + [[0, 1]] * 2 + [[1, 0]] * 8 + [[0, 0]] * 2 + [[0, 1]] * 35 + [[0, 0]] * 5
    ...                + [[1, 1]] * 9 + [[0, 1]] * 6 + [[0, 0]] * 125)
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95)
    >>> round(result["balanced_accuracy"], 4), [round(x, 4) for x in result["balanced_accuracy_ci"]]
    (0.8875, [0.8221, 0.9242])
"""

_CITATION = """
@inproceedings{brodersen2010balanced,
  title={The balanced accuracy and its posterior distribution},
  author={Brodersen, Kay Henning and Ong, Cheng Soon and Stephan, Klaas Enno and Buhmann, Joachim M.},
  booktitle={2010 20th International Conference on Pattern Recognition},
  pages={3121--3124},
  year={2010},
  organization={IEEE}
}
@article{youden1950index,
  title={Index for rating diagnostic tests},
  author={Youden, William J.},
  journal={Cancer},
  volume={3},
  number={1},
  pages={32--35},
  year={1950}
}
@article{zhang2014review,
  title={A review on multi-label learning algorithms},
  author={Zhang, Min-Ling and Zhou, Zhi-Hua},
  journal={IEEE Transactions on Knowledge and Data Engineering},
  volume={26},
  number={8},
  pages={1819--1837},
  year={2014}
}
@article{agresti1998approximate,
  title={Approximate is better than "exact" for interval estimation of binomial proportions},
  author={Agresti, Alan and Coull, Brent A.},
  journal={The American Statistician},
  volume={52},
  number={2},
  pages={119--126},
  year={1998}
}
@article{zou2008construction,
  title={Construction of confidence limits about effect measures: a general approach},
  author={Zou, G. Y. and Donner, Allan},
  journal={Statistics in Medicine},
  volume={27},
  number={10},
  pages={1693--1702},
  year={2008}
}
"""

AVERAGES = ("macro", "weighted", "micro")

_AUTO_THRESHOLD_INTERVAL = (
    "confidence_level: no interval with threshold='auto'. The per-label thresholds are fitted to these same "
    "data, so an interval that takes them as fixed is too narrow (for one binary task, re-searching the "
    "threshold in every bootstrap resample covered the best balanced accuracy in only 72-88% of simulated "
    "golden sets: examples/coverage_study.py). Tune the thresholds on a separate split and pass them: "
    "threshold=tuned['per_label_thresholds']."
)


def binary_balanced_accuracy(counts, zero_division):
    """(TPR + TNR) / 2 per column of ``counts``, with the undefined-rate rule of `zero_division`."""
    # Weighted counts are float sums: TN = total - positives - predicted + TP may round to
    # -1e-17 and a rate to 1 + 1e-16; a rate is in [0, 1] (NaN, if undefined, stays NaN).
    tpr = np.clip(safe_ratio(counts.tp, counts.support), 0.0, 1.0)
    tnr = np.clip(safe_ratio(counts.tn, counts.total - counts.support), 0.0, 1.0)
    if zero_division == "skip":
        value = np.where(np.isnan(tpr), tnr, np.where(np.isnan(tnr), tpr, (tpr + tnr) / 2))
    else:
        value = (apply_zero_division(tpr, zero_division) + apply_zero_division(tnr, zero_division)) / 2
    # Neither positives nor negatives: nothing was measured, whatever zero_division says.
    return np.where(np.isnan(tpr) & np.isnan(tnr), np.nan, value)


def check_multilabel_threshold(threshold, num_labels):
    """A number in [0, 1], "auto", or one number in [0, 1] (or inf) per label."""
    if isinstance(threshold, (list, tuple, np.ndarray)) or hasattr(threshold, "detach"):
        values = as_array(threshold, "threshold")
        if values.dtype.kind not in "iuf":
            raise TypeError(f"threshold: expected numbers, one per label, found values of dtype {values.dtype}.")
        values = values.astype(np.float64)
        if values.shape != (num_labels,):
            raise ValueError(f"threshold: expected one threshold per label ({num_labels} values), found shape {values.shape}.")
        if np.isnan(values).any() or ((values < 0) | ((values > 1) & (values != np.inf))).any():
            raise ValueError(f"threshold: expected per-label thresholds in [0, 1] or inf, found {values.tolist()}.")
        return values
    if threshold is None:
        raise TypeError("threshold: expected a number in [0, 1], 'auto' or one number per label, found None.")
    return check_threshold(threshold)


def check_ignore_index(ignore_index):
    if ignore_index is None:
        return None
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, numbers.Integral):
        raise TypeError(f"ignore_index: expected an integer such as -100, found {ignore_index!r}.")
    if ignore_index in (0, 1):
        raise ValueError(f"ignore_index: expected a value other than the labels 0 and 1, found {ignore_index}.")
    return int(ignore_index)


def check_label_names(label_names, num_labels):
    if label_names is None:
        return None
    if not isinstance(label_names, (list, tuple)) or not all(isinstance(name, str) for name in label_names):
        raise TypeError(f"label_names: expected a list of strings, found {label_names!r}.")
    if len(label_names) != num_labels:
        raise ValueError(f"label_names: expected one name per label ({num_labels}), found {len(label_names)}.")
    if len(set(label_names)) != len(label_names):
        raise ValueError(f"label_names: expected distinct names, found {list(label_names)}.")
    return list(label_names)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BalancedAccuracyMultilabel(ConfusionMetric):
    """Per-label balanced accuracy of a multilabel task, with macro/weighted/micro averages."""

    # (N, L) rows are stored as fixed-size lists and come back as (N, L) arrays.
    _ROW_NDIM = {"predictions": 1, "references": 1}
    _SCORES_HINT = "For probabilities or scores pass from_probas=True."

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # evaluate's "arrow" format accepts Value features only; the (N, L) rows are
            # stored as fixed-size lists of these values (see `_ROW_NDIM`).
            features=datasets.Features({"predictions": datasets.Value("float64"), "references": datasets.Value("int64")}),
            format="arrow",
            reference_urls=["https://scikit-learn.org/stable/modules/model_evaluation.html#balanced-accuracy-score"],
        )

    def _reduce(
        self,
        *,
        predictions,
        references,
        from_probas=False,
        threshold=0.5,
        average="macro",
        class_mask=None,
        ignore_index=None,
        sample_weight=None,
        zero_division="skip",
        return_per_label=False,
        label_names=None,
        confidence_level=None,
        ci_method=None,
        n_resamples=10_000,
        seed=None,
    ):
        from_probas = check_flag(from_probas, "from_probas")
        return_per_label = check_flag(return_per_label, "return_per_label")
        num_samples, num_labels = references.shape
        if average not in AVERAGES:
            raise ValueError(f"average: expected one of {AVERAGES}, found {average!r}.")
        zero_division = check_zero_division(zero_division)
        threshold = check_multilabel_threshold(threshold, num_labels)
        confidence_level = check_confidence_level(confidence_level)
        ci_method, n_resamples, seed = check_ci_method(ci_method), check_n_resamples(n_resamples), check_seed(seed)
        if confidence_level is not None and isinstance(threshold, str):
            raise ValueError(f"{_AUTO_THRESHOLD_INTERVAL} Found confidence_level={confidence_level!r} with threshold='auto'.")
        # With an interval requested, an undefined value gets an undefined interval too.
        undefined_ci = {} if confidence_level is None else {"balanced_accuracy_ci": [math.nan, math.nan]}
        ignore_index = check_ignore_index(ignore_index)
        label_names = check_label_names(label_names, num_labels)
        mask = check_class_mask(class_mask, num_labels)
        weights = check_sample_weight(sample_weight, num_samples, (num_samples,))
        references = as_indicators(references, "references", ignore_index)
        counted = None if ignore_index is None else references != ignore_index

        result = {}
        if not from_probas:
            if isinstance(threshold, str):
                raise ValueError(
                    "threshold: 'auto' searches thresholds on scores; pass from_probas=True with them (found from_probas=False)."
                )
            predicted = as_indicators(predictions, "predictions", hint=self._SCORES_HINT)
        elif isinstance(threshold, str):
            check_scores(predictions)
            row_weights = None if weights is None else np.broadcast_to(weights[:, None], references.shape)
            threshold, _, _ = youden_thresholds(predictions.astype(np.float64), references == 1, row_weights, counted)
            result["per_label_thresholds"] = threshold
            predicted = predictions >= threshold
        else:
            check_probabilities(predictions)
            predicted = predictions >= threshold
        if counted is not None and not counted.any():
            return {**undefined_result("balanced_accuracy", "empty_after_ignore_index"), **undefined_ci}

        counts = column_counts(references == 1, predicted, weights, counted)
        per_label_ba = binary_balanced_accuracy(counts, zero_division)
        if average == "micro":
            selected = slice(None) if mask is None else mask
            fields = [field[selected] for field in (counts.tp, counts.support, counts.predicted, counts.total)]
            with np.errstate(over="ignore"):
                pooled = ClassCounts(*(np.sum(field, keepdims=True) for field in fields))
            if np.isinf(pooled.total).any():
                # Weighted totals near float64's limit: pool them as shares of the largest (the rates are the same).
                largest = fields[3].max()
                pooled = ClassCounts(*(np.sum(field / largest, keepdims=True) for field in fields))
            score = float(binary_balanced_accuracy(pooled, zero_division)[0])
        else:
            score, _ = masked_mean(per_label_ba, mask, counts.support if average == "weighted" else None)

        result = {"balanced_accuracy": score, **result}
        if np.isnan(score):
            if mask is not None:
                result["reason"] = "empty_class_mask_after_filtering"
            elif average == "weighted" and not np.isnan(per_label_ba).all():
                result["reason"] = "no_positive_support"
            else:
                result["reason"] = "no_defined_labels"
            result.update(undefined_ci)
        elif confidence_level is not None:
            effective_positives = effective_negatives = None
            if weights is not None:
                # Weighted counts: each rate varies as on Kish's effective size of its entries
                # (the labels are the "classes" here; an entry carries its row's weight).
                entry_rows, entry_labels = np.nonzero(references == 1)
                effective_positives = class_effective_sizes(entry_labels, weights[entry_rows], num_labels)
                entry_rows, entry_labels = np.nonzero(references == 0)
                effective_negatives = class_effective_sizes(entry_labels, weights[entry_rows], num_labels)
            interval = binary_columns_interval(
                counts.tp, counts.support, counts.tn, counts.total - counts.support, confidence_level=confidence_level,
                average=average, method=ci_method, n_resamples=n_resamples, seed=seed, class_mask=mask,
                zero_division=zero_division, effective_positives=effective_positives,
                effective_negatives=effective_negatives,
            )
            result["balanced_accuracy_ci"] = interval.as_list()
        if return_per_label:
            result["per_label_ba"] = per_label_ba
            result["support_per_label"] = counts.support
        if label_names is not None:
            result["label_names"] = label_names
        return to_python(result)
