"""Balanced top-k accuracy: the mean over classes of top-k recall, from scores or logits."""

import math
import numbers

import datasets
import evaluate
import numpy as np

from .confusion_core import ZERO_DIVISION_DOC
from .confusion_core import ConfusionMetric
from .confusion_core import apply_zero_division
from .confusion_core import as_labels
from .confusion_core import check_class_mask
from .confusion_core import check_finite
from .confusion_core import check_flag
from .confusion_core import check_ignore_label
from .confusion_core import check_sample_weight
from .confusion_core import check_zero_division
from .confusion_core import encode_labels
from .confusion_core import map_row_blocks
from .confusion_core import masked_mean
from .confusion_core import safe_ratio
from .confusion_core import to_python
from .intervals import check_ci_method
from .intervals import check_confidence_level
from .intervals import check_n_resamples
from .intervals import check_seed
from .intervals import class_effective_sizes
from .intervals import recall_mean_interval

TOPK_TIE_RULE = """Ties are shared, not broken by class order. For a sample, let g be the
        number of classes scored strictly higher than its true class and t the number of
        other classes scored exactly the same. The true class counts as a hit worth
        min(1, max(0, (k - g) / (t + 1))): 1 when g + t < k (it is in the top k however the
        tie is broken), 0 when g >= k, otherwise the share of the tied places that fall
        inside the top k, which is the expected hit under a uniformly random tie break.
        Without ties (t = 0) the hit is 1 iff g < k, the same as torch.topk (torchmetrics)
        and scikit-learn's top_k_accuracy_score. A row of equal scores earns k/K (chance),
        never a perfect score."""

_DESCRIPTION = """
Balanced top-k accuracy is the mean over classes of top-k recall:

    recall@k_c = share of class-c samples whose true class is among their k highest scores
    balanced top-k accuracy = (1 / K) * sum_c recall@k_c

Plain top-k accuracy averages over samples, so on a long-tailed data set it is dominated
by the head classes: ranking the frequent classes first scores well without looking at
the input. Balanced top-k accuracy gives every class the same weight; a ranking that does
not depend on the input scores k/K. With k = 1 it is balanced accuracy of the argmax.

Predictions are (N, K) scores (probabilities, logits or any finite reals) and references
are class indices 0..K-1, or class names when `labels` names the K score columns (e.g.
an LLM's multiple-choice options "A".."E"). Several k are computed at once with `k_list`.
The k highest scores are found by counting, per sample, the classes scored above the true
class: O(N * K), no sort.
"""

_KWARGS_DESCRIPTION = f"""
Args:
    predictions (array-like of shape (N, K)): a score per class for each sample:
        probabilities, logits or any finite real scores. Lists of rows, NumPy arrays,
        torch tensors and pandas DataFrames are accepted.
    references (array-like of shape (N,)): the true class of each sample: an index
        0..K-1 into the score columns, or a name from `labels`.
    k (int, defaults to 1): how many of the highest scores count, 1 <= k <= K.
    k_list (list of int, optional): several k at once (instead of `k`). The result is then
        a dict {{k: value}} plus a flat key `balanced_top{{k}}_accuracy` per k.
    labels (list, optional): the class name of each score column, in column order (K
        names, e.g. ["A", "B", "C", "D"]); references are then names from this list.
    class_mask (list of int, optional): average only over these class indices (score
        columns).
    ignore_index (optional): samples whose reference equals this value are dropped.
    sample_weight (array-like of shape (N,), optional): one non-negative finite weight
        per sample; hits and supports become weighted sums.
    {ZERO_DIVISION_DOC}
    return_per_class (bool, defaults to False): also return `per_class_recall`,
        `support_per_class` and `classes`.
    confidence_level (float in (0, 1), optional): e.g. 0.95 adds
        `balanced_topk_accuracy_ci`, a confidence interval for the value (with `k_list`,
        one per k). Default None: no interval.
    ci_method ("agresti_coull", "wilson", "bootstrap" or None): as in balanced_accuracy.
        "agresti_coull" and "wilson" are analytic: an Agresti-Coull (or Wilson score)
        interval for each class's top-k recall, combined with MOVER; finite for classes
        with none or all hits and for tiny classes. "bootstrap" redraws each class's hits
        as Binomial(class size, top-k recall) - stratified and on counts, so its cost does
        not grow with the number of samples - and returns the percentile interval. None
        means "agresti_coull". A tied hit (a fraction, see below) is treated as a 0/1 hit
        with the same mean, the largest variance a hit in [0, 1] can have, so with ties
        the interval is if anything conservative. With `sample_weight`, each class counts
        as Kish's effective size (sum w)^2 / sum w^2 (an approximation for importance
        weights; not for frequency counts).
    n_resamples (int, defaults to 10000): bootstrap resamples.
    seed (int, optional): seed of the bootstrap's random generator, for reproducible
        intervals.

    {TOPK_TIE_RULE}

Returns:
    balanced_topk_accuracy (float, or dict {{k: float}} with `k_list`): in [0, 1]; NaN
        with a `reason` when nothing can be averaged ("empty_after_ignore_index",
        "empty_class_mask_after_filtering", "no_reference_classes"). In JSON (and in a
        Trainer's saved state) the int keys of the dict become strings.
    balanced_top{{k}}_accuracy (float): with `k_list`, one flat key per k, e.g.
        `balanced_top5_accuracy`, for loggers and `metric_for_best_model`.
    balanced_topk_accuracy_ci (list of two floats, or dict {{k: list}} with `k_list`): with
        `confidence_level`, [low, high] inside [0, 1]; [nan, nan] when the value is
        undefined.
    balanced_top{{k}}_accuracy_ci (list of two floats): with `k_list` and
        `confidence_level`, one flat key per k.
    per_class_recall (list of float, or dict {{k: list}} with `k_list`): top-k recall of
        each class in column order; NaN for a class without reference samples (unless
        `zero_division` is a number).
    support_per_class (list): reference samples per class (weighted sums when weighted).
    classes (list): the class of each column: `labels`, or 0..K-1.

Examples:

    >>> metric = evaluate.load("balanced_topk_accuracy")
    >>> scores = [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.05, 0.05, 0.9], [0.05, 0.9, 0.05]]
    >>> metric.compute(predictions=scores, references=[0, 1, 2, 1], k=1, return_per_class=True)
    {{'balanced_topk_accuracy': 0.8333333333333334, 'per_class_recall': [1.0, 0.5, 1.0], 'support_per_class': [1, 2, 1], 'classes': [0, 1, 2]}}

    Several k at once:

    >>> metric.compute(predictions=scores, references=[0, 1, 2, 1], k_list=[1, 2])
    {{'balanced_topk_accuracy': {{1: 0.8333333333333334, 2: 1.0}}, 'balanced_top1_accuracy': 0.8333333333333334, 'balanced_top2_accuracy': 1.0}}

    Sample weights:

    >>> result = metric.compute(predictions=scores, references=[0, 1, 2, 1], sample_weight=[1, 0.5, 1, 1],
    ...                         return_per_class=True)
    >>> [round(recall, 4) for recall in result["per_class_recall"]], result["support_per_class"]
    ([1.0, 0.6667, 1.0], [1.0, 1.5, 1.0])

    Multiple choice: an LLM's log-probabilities of the options, references by name:

    >>> logprobs = [[-0.2, -2.1, -3.0, -4.2], [-1.9, -0.4, -2.2, -3.1], [-0.9, -1.2, -0.8, -3.3]]
    >>> metric.compute(predictions=logprobs, references=["A", "B", "A"], labels=["A", "B", "C", "D"], k_list=[1, 2])
    {{'balanced_topk_accuracy': {{1: 0.75, 2: 1.0}}, 'balanced_top1_accuracy': 0.75, 'balanced_top2_accuracy': 1.0}}

    Ties share the places: with equal scores the true class gets k/K.

    >>> metric.compute(predictions=[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], references=[0, 3], k=2)
    {{'balanced_topk_accuracy': 0.5}}

    95% confidence intervals, for top-1 and top-2, on 40, 20 and 10 samples of three
    classes (top-1 recalls 0.9, 0.75 and 0.6; every true class is in the top 2):

    >>> references = [0] * 40 + [1] * 20 + [2] * 10
    >>> scores = ([[0.6, 0.3, 0.1]] * 36 + [[0.3, 0.6, 0.1]] * 4 + [[0.2, 0.7, 0.1]] * 15 + [[0.5, 0.3, 0.2]] * 5
    ...           + [[0.1, 0.2, 0.7]] * 6 + [[0.5, 0.2, 0.3]] * 4)
    >>> result = metric.compute(predictions=scores, references=references, k_list=[1, 2], confidence_level=0.95)
    >>> result["balanced_top1_accuracy"], [round(x, 4) for x in result["balanced_top1_accuracy_ci"]]
    (0.75, [0.6204, 0.8435])
    >>> result["balanced_top2_accuracy"], [round(x, 4) for x in result["balanced_top2_accuracy_ci"]]
    (1.0, [0.8709, 1.0])
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
@inproceedings{liu2019large,
  title={Large-Scale Long-Tailed Recognition in an Open World},
  author={Liu, Ziwei and Miao, Zhongqi and Zhan, Xiaohang and Wang, Jiayun and Gong, Boqing and Yu, Stella X.},
  booktitle={Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition},
  pages={2537--2546},
  year={2019}
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


def check_k(value, num_classes, name):
    """An integer in [1, K]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer in [1, {num_classes}], found {value!r}.")
    if not 1 <= value <= num_classes:
        raise ValueError(
            f"{name}: expected an integer in [1, {num_classes}] (the number of score columns), found {value}."
        )
    return int(value)


def check_k_values(k, k_list, num_classes):
    """The k to compute, in order, without duplicates; whether a k_list was given."""
    if k_list is None:
        return [1 if k is None else check_k(k, num_classes, "k")], False
    if k is not None:
        raise ValueError(f"k and k_list: expected one of them, found k={k!r} and k_list={k_list!r}.")
    if not isinstance(k_list, (list, tuple, np.ndarray)):
        raise TypeError(f"k_list: expected a list of integers, found {type(k_list).__name__}.")
    if len(k_list) == 0:
        raise ValueError("k_list: expected at least one k, found an empty list.")
    return list(dict.fromkeys(check_k(value, num_classes, "k_list") for value in k_list)), True


# Rows per block: a block of scores and its comparison buffer stay in the CPU cache.
_BLOCK_ELEMENTS = 1 << 18


def _row_counter(num_rows, num_classes):
    """A buffer for comparisons of ``num_rows`` x ``num_classes`` and a function counting
    the True values of each row of it.

    Summing booleans along a row is slow element by element; read as 64-bit words each
    holding 8 booleans (the row padded to a multiple of 8 with False), a row's words sum
    byte-wise without carries between bytes while a row has at most 255 words (2,040
    columns), and the 8 byte sums of the total are the row's count.
    """
    words = -(-num_classes // 8)
    if words > 255:
        buffer = np.empty((num_rows, num_classes), dtype=bool)
        return buffer, lambda rows, out: np.add.reduce(buffer[:rows], axis=1, dtype=np.int32, out=out)
    padded = np.zeros((num_rows, words * 8), dtype=bool)
    buffer = padded[:, :num_classes]  # the padding columns stay False

    def count(rows, out):
        word_sums = padded[:rows].view(np.uint64).sum(axis=1)
        np.add.reduce(word_sums.view(np.uint8).reshape(rows, 8), axis=1, dtype=np.int32, out=out)

    return buffer, count


def topk_hits(scores, reference_indices, k_values):
    """Hit of each sample's true class in its top k, for each k: shape (N, len(k_values)).

    Counts the classes scored above (and equal to) the true class: O(N * K), no sort. Ties
    follow TOPK_TIE_RULE; they are counted only in rows where fewer than max(k) classes
    score higher (elsewhere the hit is 0 whatever the ties). Rows are counted in blocks
    that fit in cache, on several cores for large inputs. Returns ``(hits, finite)``:
    whether every score is finite, checked block by block while the block is in cache
    (one read of the scores instead of two; the caller raises).
    """
    num_samples, num_classes = scores.shape
    true_scores = scores[np.arange(num_samples), reference_indices][:, None]
    higher = np.empty(num_samples, dtype=np.int32)
    tied = np.ones(num_samples, dtype=np.int32)  # the true class itself
    largest_k = max(k_values)
    block_rows = max(1, _BLOCK_ELEMENTS // max(1, num_classes))

    def count_rows(start, stop):
        compared, count = _row_counter(min(block_rows, stop - start), num_classes)
        finite = True
        for first in range(start, stop, block_rows):
            last = min(first + block_rows, stop)
            block, true_block, out = scores[first:last], true_scores[first:last], compared[: last - first]
            # NaN propagates to the max; +inf is the max and -inf the min.
            finite = finite and bool(np.isfinite(block.max()) and np.isfinite(block.min()))
            np.greater(block, true_block, out=out)
            count(last - first, higher[first:last])
            contested = np.flatnonzero(higher[first:last] < largest_k)
            if contested.size == last - first:
                np.equal(block, true_block, out=out)
                count(last - first, tied[first:last])
            elif contested.size:
                tied[first + contested] = np.count_nonzero(block[contested] == true_block[contested], axis=1)
        return finite

    finite = all(map_row_blocks(count_rows, scores)) if num_samples else True
    places_left = np.asarray(k_values, dtype=np.float64)[None, :] - higher[:, None]
    return np.clip(places_left / tied[:, None], 0.0, 1.0), finite


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BalancedTopkAccuracy(ConfusionMetric):
    """Balanced top-k accuracy (mean per-class top-k recall) as an evaluate metric."""

    # Score rows are stored as fixed-size lists; references are one label per sample.
    _ROW_NDIM = {"predictions": 1, "references": None}
    _FINITE_CHECKED_BY_REDUCE = ("predictions",)  # while topk_hits reads every score anyway

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # evaluate requires Value features with format="arrow"; the stored types (score rows
            # as fixed-size lists, integer or string references) are set per batch by the base.
            features=datasets.Features({"predictions": datasets.Value("float64"), "references": datasets.Value("int64")}),
            format="arrow",
            reference_urls=[
                "https://lightning.ai/docs/torchmetrics/stable/classification/accuracy.html",
                "https://scikit-learn.org/stable/modules/model_evaluation.html#top-k-accuracy-score",
            ],
        )

    def _prepare_batch(self, predictions, references, stored=True):
        columns = super()._prepare_batch(predictions, references, stored)
        if columns["predictions"].dtype.kind not in "iuf":
            raise TypeError(f"predictions: expected numeric scores, found values of dtype {columns['predictions'].dtype}.")
        if columns["predictions"].dtype.kind in "iu":
            # Integer scores (votes, ranks) are stored as floats so that later float batches fit.
            columns["predictions"] = columns["predictions"].astype(np.float64)
        return columns

    def _reduce(
        self,
        *,
        predictions,
        references,
        k=None,
        k_list=None,
        labels=None,
        class_mask=None,
        ignore_index=None,
        sample_weight=None,
        zero_division="skip",
        return_per_class=False,
        confidence_level=None,
        ci_method=None,
        n_resamples=10_000,
        seed=None,
    ):
        return_per_class = check_flag(return_per_class, "return_per_class")
        num_classes = predictions.shape[1]
        if num_classes == 0:
            raise ValueError(f"predictions: expected at least one score column, found shape {predictions.shape}.")
        zero_division = check_zero_division(zero_division)
        ignore_index = check_ignore_label(ignore_index)
        confidence_level = check_confidence_level(confidence_level)
        ci_method, n_resamples, seed = check_ci_method(ci_method), check_n_resamples(n_resamples), check_seed(seed)
        with_ci = confidence_level is not None
        k_values, several = check_k_values(k, k_list, num_classes)
        weights = check_sample_weight(sample_weight, references.size, references.shape)
        if references.dtype.kind == "f" and not np.array_equal(np.rint(references), references):
            example = references[np.rint(references) != references][0]
            raise ValueError(
                f"references: expected one class per sample (an index 0..K-1 or a name from `labels`), found "
                f"non-integer values such as {float(example)!r}; scores belong in `predictions`."
            )
        references = as_labels(references, "references")
        if labels is not None:
            if not isinstance(labels, (list, tuple, np.ndarray)):
                raise TypeError(f"labels: expected a list with one class name per score column, found {type(labels).__name__}.")
            if len(labels) != num_classes:
                raise ValueError(
                    f"labels: expected one class name per score column ({num_classes}), found {len(labels)}."
                )
        elif references.dtype.kind in "USO":  # strings (long ones as Python strings)
            raise TypeError(
                "references: expected class indices 0..K-1, found strings; pass `labels` naming the K score columns."
            )
        # Finite scores: checked here for a one-call compute (see _FINITE_CHECKED_BY_REDUCE),
        # with the error add_batch gives, counting every row.
        all_scores = predictions
        if ignore_index is not None:
            keep = references != ignore_index
            dropped = predictions[~keep]
            if dropped.size and not np.isfinite(dropped).all():
                check_finite(all_scores, "predictions")
            references, predictions = references[keep], predictions[keep]
            weights = None if weights is None else weights[keep]
            if references.size == 0:
                return self._undefined(k_values, several, "empty_after_ignore_index", with_ci)

        reference_indices, _, classes = encode_labels(references, None, labels, None if labels is not None else num_classes)
        hits, finite = topk_hits(predictions, reference_indices, k_values)
        if not finite:
            check_finite(all_scores, "predictions")
        support = np.bincount(reference_indices, weights=weights, minlength=num_classes)
        if weights is not None:
            hits = hits * weights[:, None]
        # One bincount for every k: bin (class, j) holds the hits of class `class` at k_values[j].
        bins = (reference_indices.astype(np.intp)[:, None] * len(k_values) + np.arange(len(k_values))).ravel()
        hits_per_class = np.bincount(bins, weights=hits.ravel(), minlength=num_classes * len(k_values))
        recall = apply_zero_division(safe_ratio(hits_per_class.reshape(num_classes, len(k_values)), support[:, None]), zero_division)

        mask = check_class_mask(class_mask, num_classes)
        balanced = {}
        for column, k_value in enumerate(k_values):
            balanced[k_value], averaged = masked_mean(recall[:, column], mask)  # the same classes for every k
        if averaged == 0:
            reason = "empty_class_mask_after_filtering" if mask is not None else "no_reference_classes"
            return self._undefined(k_values, several, reason, with_ci)

        interval_per_k = None
        if with_ci:
            effective_support = None
            if weights is not None:
                # Weighted counts: each class's recall varies as on Kish's effective size.
                effective_support = class_effective_sizes(reference_indices, weights, num_classes)
            hits_by_class_and_k = hits_per_class.reshape(num_classes, len(k_values))
            interval_per_k = {
                k_value: recall_mean_interval(
                    hits_by_class_and_k[:, column], support, confidence_level=confidence_level, method=ci_method,
                    n_resamples=n_resamples, seed=seed, class_mask=mask, zero_division=zero_division,
                    effective_support=effective_support,
                ).as_list()
                for column, k_value in enumerate(k_values)
            }
        result = self._named(balanced, several, interval_per_k)
        if return_per_class:
            per_class = {k_value: recall[:, column] for column, k_value in enumerate(k_values)}
            result["per_class_recall"] = per_class if several else per_class[k_values[0]]
            result["support_per_class"] = support
            result["classes"] = classes
        return to_python(result)

    @staticmethod
    def _named(balanced, several, interval_per_k=None):
        """The result keys: one value for `k`; for `k_list` the {k: value} dict plus a flat key per k.

        With intervals, each value's `_ci` key follows it.
        """
        with_ci = interval_per_k is not None
        if not several:
            (k_value,) = balanced
            result = {"balanced_topk_accuracy": balanced[k_value]}
            if with_ci:
                result["balanced_topk_accuracy_ci"] = interval_per_k[k_value]
            return result
        result = {"balanced_topk_accuracy": dict(balanced)}
        if with_ci:
            result["balanced_topk_accuracy_ci"] = {k_value: list(interval) for k_value, interval in interval_per_k.items()}
        for k_value, value in balanced.items():
            result[f"balanced_top{k_value}_accuracy"] = value
            if with_ci:
                result[f"balanced_top{k_value}_accuracy_ci"] = list(interval_per_k[k_value])
        return result

    def _undefined(self, k_values, several, reason, with_ci):
        nan_values = {k_value: math.nan for k_value in k_values}
        nan_intervals = {k_value: [math.nan, math.nan] for k_value in k_values} if with_ci else None
        return to_python({**self._named(nan_values, several, nan_intervals), "reason": reason})
