"""Multilabel balanced accuracy: per-label (TPR + TNR) / 2 with macro, weighted and micro averages."""

import datasets
import evaluate

from .shared_core import check_multilabel_options
from .shared_core import MultilabelMetric
from .shared_core import MetricSpec
from .shared_core import check_class_mask
from .shared_core import check_flag
from .shared_core import check_zero_division
from .shared_core import choice
from .shared_core import interval_options
from .shared_core import LOAD_TIME_DOC
from .shared_core import Option
from .shared_core import THRESHOLD_TIE_RULE
from .shared_core import MULTILABEL_AVERAGES
from .shared_core import check_multilabel_threshold
from .shared_core import check_indicator_ignore_index
from .shared_core import check_label_names
from .shared_core import balanced_accuracy_multilabel_from_counts

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
    from_probas (bool, defaults to False): predictions are scores (probabilities, or any
        finite scores such as logits), turned into labels with `threshold`. With False,
        predictions must be 0/1 and `threshold` plays no part.
    threshold (float, `"auto"`, or one number per label; defaults to 0.5): a label is
        predicted iff score >= threshold, on the scores' own scale (0.5 suits
        probabilities, not logits). `"auto"` searches, per label, the threshold that
        maximises BA_l and returns them as `per_label_thresholds`. {THRESHOLD_TIE_RULE}
        A label for which predicting no positive at all is best gets threshold inf. A list of
        L thresholds (e.g. the `per_label_thresholds` of a tuning split, logits included;
        inf allowed) applies one threshold per label. A threshold outside [0, 1] with
        predictions all in [0, 1] is a ValueError (nothing, or everything, would be positive).
    average (`"macro"`, `"weighted"` or `"micro"`, defaults to "macro"): "micro" is not
        prevalence-invariant (it moves with label prevalences at fixed TPR/TNR). See
        above; compare micro values only across data with the same label frequencies.
    class_mask (list of int, optional): average only over these label indices (for
        "micro": pool only these labels).
    ignore_index (int, optional): entries whose reference equals it are dropped (the rest
        of their row still counts); they take no part in the counts nor in the "auto"
        threshold search. Without it, a -100 among the references (or 255 in a uint8
        array) is an error that names `ignore_index`.
    sample_weight (array-like of N numbers, optional): one non-negative weight per row;
        counts and supports become weighted sums.
    clusters (array-like of N ids, optional): which samples are not independent of each
        other (integers or strings, one per row: the conversation, document or patient
        behind each sample). The labels of one sample always share it: by default each
        sample is one cluster; `clusters` groups samples further. Used by the interval only.
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
    return_confusion_matrix (bool, defaults to False): also return `confusion_matrix`, the
        per-label 2 x 2 tables.
    confusion_matrix (array-like of shape (L, 2, 2), instead of predictions and references):
        per-label counts made elsewhere, laid out as scikit-learn's
        `multilabel_confusion_matrix` ([[tn, fp], [fn, tp]] per label); the result,
        value is what the same samples give. Non-integer entries are weighted sums (for
        intervals each is treated as a count). A matrix has no samples, so its interval
        treats every entry as independent (no clusters: narrower than the samples' one
        when label errors share samples).
    confidence_level (float in (0, 1), optional): e.g. 0.95 adds `balanced_accuracy_ci`,
        a confidence interval for the averaged value. Default None: no interval.
    ci_method ("score", "agresti_coull", "wilson", "bootstrap" or None): None means
        "score": the score interval of the average as a weighted sum of the labels' TPRs
        and TNRs (for "micro": the pooled ones), with the gamma bound near the boundary, as
        in balanced_accuracy; it holds for labels with a few positives and for rates of 0
        or 1. "agresti_coull" and "wilson": per-rate intervals combined with MOVER.
        "bootstrap" redraws each of those counts as Binomial(size, rate) (a rate of 0 or 1
        with 0.5 pseudo-items) and returns the percentile interval. The labels of one sample are not independent (a hard sample
        gets several labels wrong at once): every method divides its sizes by the design
        effect of the average, its variance with each sample (or each of `clusters`) as
        one independent unit over its variance with independent entries (at least 1,
        widened to Student's t on G - 1 for G clusters; see the card). With
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
        averaged: "no_samples" (empty input: no samples, or only samples
        of weight 0; the same in all four modules),
        "empty_after_ignore_index" (every entry ignored),
        "empty_class_mask_after_filtering" (no selected label left to average),
        "no_positive_support" ("weighted" and no label has a positive).
    balanced_accuracy_ci (list of two floats): with `confidence_level`, [low, high] for
        the averaged value, inside [0, 1]; [nan, nan] when the value is undefined, or
        with `balanced_accuracy_ci_reason`: "single_cluster" (one cluster: no variance
        between clusters), "clusters_not_counted" (batches were added before an interval
        was asked for: pass `confidence_level` to `evaluate.load`, or `clusters`, so
        that `add_batch` counts each sample's cluster; a UserWarning says so). Fewer
        than 10 clusters warn.
    num_clusters (int), design_effect (float): with `confidence_level` (not for a
        `confusion_matrix`), the number of clusters and the measured design effect.
    per_label_thresholds (list of float): with `threshold="auto"`, in label order.
    per_label_ba (list of float): BA_l in label order (NaN only for a label with neither
        positives nor negatives).
    support_per_label (list): positives per label (weighted sums when weighted).
    label_names (list of str): when given.
    confusion_matrix (list, shape (L, 2, 2)): with `return_confusion_matrix`, [[tn, fp],
        [fn, tp]] per label as `multilabel_confusion_matrix` (weighted sums when weighted;
        entries dropped by `ignore_index` not counted).

{LOAD_TIME_DOC} `add_batch` keeps counts of distinct (label, reference, prediction) entries
for 0/1 predictions, so streaming a dataset takes memory that does not grow with its size;
probabilities are kept as they are, as the threshold is applied at `compute`. Pass
`sample_weight` (and `clusters`) to `add_batch` with its batch. With `confidence_level` at
`evaluate.load`, it also keeps the cross-sums of the samples' cells over clusters (O(L^2)
floats, not O(N L)).

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
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95, seed=0)
    >>> round(result["balanced_accuracy"], 4), [round(x, 4) for x in result["balanced_accuracy_ci"]]  # the bootstrap
    (0.8875, [0.8231, 0.9346])
    >>> result["num_clusters"], round(result["design_effect"], 3)  # each sample a cluster
    (200, 1.06)

    Samples that come in pairs (two crops of one image, say) are worth fewer independent
    ones; `clusters` says so, and the interval widens:

    >>> paired = metric.compute(references=references, predictions=predictions, confidence_level=0.95, seed=0,
    ...                         clusters=[i // 2 for i in range(200)])
    >>> [round(x, 4) for x in paired["balanced_accuracy_ci"]], paired["num_clusters"]
    ([0.7917, 0.9512], 100)

    The per-label tables, and the same value from tables counted elsewhere (a SQL
    group-by, a paper's TP/FP/TN/FN; their interval treats entries as independent):

    >>> tables = metric.compute(references=references, predictions=predictions, return_confusion_matrix=True)["confusion_matrix"]
    >>> tables
    [[[171, 9], [4, 16]], [[135, 15], [5, 45]]]
    >>> metric.compute(confusion_matrix=tables)["balanced_accuracy"] == result["balanced_accuracy"]
    True
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


SPEC = MetricSpec("balanced_accuracy", balanced_accuracy_multilabel_from_counts, check_options=check_multilabel_options)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BalancedAccuracyMultilabel(MultilabelMetric):
    """Per-label balanced accuracy of a multilabel task, with macro/weighted/micro averages."""

    SPEC = SPEC

    OPTIONS = {
        "from_probas": Option(False, check_flag),
        "threshold": Option(0.5, check_multilabel_threshold),
        "average": Option("macro", choice(*MULTILABEL_AVERAGES)),
        "class_mask": Option(None, check_class_mask),
        "ignore_index": Option(None, check_indicator_ignore_index),
        "zero_division": Option("skip", check_zero_division),
        "return_per_label": Option(False, check_flag),
        "label_names": Option(None, check_label_names),
        "return_confusion_matrix": Option(False, check_flag),
        **interval_options(),
    }

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # Rows of L values each; add_batch keeps per-label counts, not the rows.
            features=datasets.Features({"predictions": datasets.Sequence(datasets.Value("float64")),
                                        "references": datasets.Sequence(datasets.Value("int64"))}),
            reference_urls=["https://scikit-learn.org/stable/modules/model_evaluation.html#balanced-accuracy-score"],
        )
