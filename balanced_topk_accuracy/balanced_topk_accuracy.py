"""Balanced top-k accuracy: the mean over classes of top-k recall, from scores or logits."""

import datasets
import evaluate

from .shared_core import TopkMetric
from .shared_core import MetricSpec
from .shared_core import check_class_mask
from .shared_core import CLUSTERS_DOC
from .shared_core import check_flag
from .shared_core import check_ignore_index
from .shared_core import check_zero_division
from .shared_core import interval_options
from .shared_core import LOAD_TIME_DOC
from .shared_core import Option
from .shared_core import TOPK_TIE_RULE
from .shared_core import ZERO_DIVISION_DOC
from .shared_core import balanced_topk_accuracy_from_counts
from .shared_core import accept_k
from .shared_core import check_column_names

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
    predictions (array-like of shape (N, K), or (N, ..., K)): a score per class for each
        sample: probabilities, logits or any finite real scores. Lists of rows, NumPy
        arrays, torch tensors and pandas DataFrames are accepted. (N, ..., K) scores (a
        token's or a pixel's classes) go with (N, ...) references: one sample per element,
        and, for intervals, one cluster per leading element (see `clusters`).
    references (array-like of shape (N,), or (N, ...)): the true class of each sample: an
        index 0..K-1 into the score columns, or a name from `labels`.
    k (int, defaults to 1): how many of the highest scores count, 1 <= k <= K.
    k_list (list of int, optional): several k at once (instead of `k`). The result is then
        a dict {{k: value}} plus a flat key `balanced_top{{k}}_accuracy` per k.
    labels (list, optional): the class name of each score column, in column order (K
        names, e.g. ["A", "B", "C", "D"]); references are then names from this list.
    class_mask (list of int, optional): average only over these class indices (score
        columns).
    ignore_index (optional): samples whose reference equals this value are dropped.
        Without it, a -100 among the references (or 255 in a uint8 array) is an error
        that names `ignore_index`.
    sample_weight (array-like of shape (N,), optional): one non-negative finite weight
        per sample; hits and supports become weighted sums.
    {ZERO_DIVISION_DOC}
    return_per_class (bool, defaults to False): also return `per_class_recall`,
        `support_per_class` and `classes`.
    confidence_level (float in (0, 1), optional): e.g. 0.95 adds
        `balanced_topk_accuracy_ci`, a confidence interval for the value (with `k_list`,
        one per k). Default None: no interval.
    ci_method ("score", "agresti_coull", "wilson", "bootstrap" or None): as in
        balanced_accuracy. None means "score": the score interval of the mean of top-k
        recalls with the gamma bound near the boundary, which holds with many small
        classes and top-k recalls near 1. "agresti_coull" and "wilson": per-class intervals
        combined with MOVER. "bootstrap" redraws each class's hits as Binomial(class size,
        top-k recall) (a recall of 0 or 1 with 0.5 pseudo-items) and returns the
        percentile interval. A tied hit (a fraction, see below) is treated as a 0/1 hit
        with the same mean, the largest variance a hit in [0, 1] can have, so with ties
        the interval is if anything conservative. With `sample_weight`, each class counts
        as Kish's effective size (sum w)^2 / sum w^2 (an approximation for importance
        weights; not for frequency counts).
    n_resamples (int, defaults to 10000): bootstrap resamples.
    seed (int, optional): seed of the bootstrap's random generator, for reproducible
        intervals.
    {CLUSTERS_DOC}

    {TOPK_TIE_RULE}

Returns:
    balanced_topk_accuracy (float, or dict {{k: float}} with `k_list`): in [0, 1]; NaN
        with a `reason` when nothing can be averaged: "no_samples" (empty input: no
        samples, or only samples of weight 0; the same in all four modules),
        "empty_after_ignore_index", "empty_class_mask_after_filtering". In JSON (and in a
        Trainer's saved state) the int keys of the dict become strings.
    balanced_top{{k}}_accuracy (float): with `k_list`, one flat key per k, e.g.
        `balanced_top5_accuracy`, for loggers and `metric_for_best_model`.
    balanced_topk_accuracy_ci (list of two floats, or dict {{k: list}} with `k_list`): with
        `confidence_level`, [low, high] inside [0, 1]; [nan, nan] when the value is
        undefined.
    num_clusters (int), design_effect (float): with `confidence_level` and clusters (given,
        or the leading axis of N-d inputs): how many clusters the interval rests on, and the
        measured ratio of its variance to that of independent samples (see `clusters`).
    clusters_from (str): "leading_axis" beside `num_clusters` when the clusters were not
        given but taken from the leading axis of N-d inputs (one cluster per leading
        element). A list of per-batch arrays (Trainer with eval_do_concat_batches=False)
        reads as one N-d array, so each batch becomes one cluster: join them with
        `np.concatenate(..., axis=0)`, or pass `clusters=`.
    balanced_top{{k}}_accuracy_ci (list of two floats): with `k_list` and
        `confidence_level`, one flat key per k.
    per_class_recall (list of float, or dict {{k: list}} with `k_list`): top-k recall of
        each class in column order; NaN for a class without reference samples (unless
        `zero_division` is a number).
    support_per_class (list): reference samples per class (weighted sums when weighted).
    classes (list): the class of each column: `labels`, or 0..K-1.

{LOAD_TIME_DOC} `add_batch` ranks each sample's true class as its batch arrives and keeps
counts of (class, classes scored higher, classes tied), never the (N, K) scores: memory
follows the number of distinct ranks, not the number of samples. With `k` or `k_list`
given to `evaluate.load`, ranks below the largest of them are merged (less memory), and
`compute` may then ask for any k up to it. A name is ranked through `labels`, so pass
`labels` to `evaluate.load` when streaming class names; batches of names added without
it are kept whole (scores included) until `compute` gets `labels`. Pass `sample_weight`
to `add_batch` with its batch.

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
    (0.75, [0.6181, 0.8617])
    >>> result["balanced_top2_accuracy"], [round(x, 4) for x in result["balanced_top2_accuracy_ci"]]
    (1.0, [0.9003, 1.0])
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



SPEC = MetricSpec("balanced_topk_accuracy", balanced_topk_accuracy_from_counts)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BalancedTopkAccuracy(TopkMetric):
    """Balanced top-k accuracy (mean per-class top-k recall) as an evaluate metric."""

    SPEC = SPEC

    OPTIONS = {
        "k": Option(None, accept_k),
        "k_list": Option(None, accept_k),
        "labels": Option(None, check_column_names),
        "class_mask": Option(None, check_class_mask),
        "ignore_index": Option(None, check_ignore_index),
        "zero_division": Option("skip", check_zero_division),
        "return_per_class": Option(False, check_flag),
        **interval_options(),
    }

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("float64"), "references": datasets.Value("int64")}),
            reference_urls=[
                "https://lightning.ai/docs/torchmetrics/stable/classification/accuracy.html",
                "https://scikit-learn.org/stable/modules/model_evaluation.html#top-k-accuracy-score",
            ],
        )
