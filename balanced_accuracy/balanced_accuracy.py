"""Balanced accuracy: the mean of per-class recall, robust to class imbalance."""

import datasets
import evaluate

from .shared_core import check_class_mask
from .shared_core import check_flag
from .shared_core import check_ignore_index
from .shared_core import check_labels
from .shared_core import check_num_classes
from .shared_core import check_pos_label
from .shared_core import check_judges_threshold
from .shared_core import check_zero_division
from .shared_core import choice
from .shared_core import CLUSTERS_DOC
from .shared_core import MetricSpec
from .shared_core import interval_options
from .shared_core import LabelsMetric
from .shared_core import JUDGES_DOC
from .shared_core import JUDGES_OUTPUTS_DOC
from .shared_core import LOAD_TIME_DOC
from .shared_core import Option
from .shared_core import THRESHOLD_TIE_RULE
from .shared_core import ZERO_DIVISION_DOC
from .shared_core import balanced_accuracy_intervals
from .shared_core import balanced_accuracy_from_counts
from .shared_core import balanced_accuracy_influence
from .shared_core import balanced_accuracy_paired_difference
from .shared_core import check_balanced_accuracy_options

_DESCRIPTION = """
Balanced accuracy is the mean of the per-class recalls:

    BA = (1 / K) * sum_c TP_c / (TP_c + FN_c)

In a binary task it is (TPR + TNR) / 2 = (Youden's J + 1) / 2. Unlike accuracy, precision
or F1 it does not move with class prevalence and gives no credit for predicting the
majority class: a constant predictor scores 1/K whatever the class balance.

It works on labels of any hashable type (integers, or strings such as "safe"/"unsafe"
from an LLM judge), on inputs of any shape (segmentation maps are flattened), with
sample weights, and on binary scores with a fixed or a Youden-optimal threshold.
"""

_KWARGS_DESCRIPTION = f"""
Args:
    predictions (array-like of any shape): predicted labels, or with `threshold` the
        scores of the positive class (any finite reals: probabilities, logits, a judge's
        1-10 scores). Lists, NumPy arrays, torch tensors, pandas Series and pyarrow arrays
        are accepted. Labels sharing no class with the references (another vocabulary:
        "C"/"I" for "correct"/"incorrect") are a ValueError, not a value of 0.
    references (array-like, same shape as predictions): true labels.
    task (`"binary"`, `"multiclass"` or None): None infers binary for 0/1 labels, two
        `labels` or a `pos_label`; multi-class otherwise. The value of balanced accuracy
        is the same either way; the task decides how `pos_label` and `threshold` apply.
        `task="binary"` with labels other than 0/1 needs `labels` or `pos_label`.
    num_classes (int, optional): for integer labels 0..K-1; every label must lie in
        [0, K-1]. If omitted (and no `labels`), the classes are the distinct values seen
        in references and predictions, sorted.
    labels (list, optional): the class values in the order used by per-class outputs
        and `class_mask`; any value outside it is an error.
    pos_label (optional): the positive class of a binary task (default: 1, or the second
        of two `labels`). Scores given with `threshold` are scores of this class.
    adjusted (bool, defaults to False): chance-corrected (BA - 1/K) / (1 - 1/K), as in
        scikit-learn, where K is the number of classes averaged; binary: 2 * BA - 1 =
        Youden's J. Not with `class_mask` (ValueError): over a subset of classes a
        guesser's mean recall depends on its prior, so no chance level fits.
    {ZERO_DIVISION_DOC} Under "skip", an averaged class with
        predictions but no references (or a binary task's class without references, where
        the value is then the other class's recall alone) raises a UserWarning, as
        scikit-learn's does; it names a predicted label that is a reference class but for
        case, spaces, "-" or "_" ('Safe' for 'safe') as a probable typo. Informedness
        warns by the same rule.
    threshold (float, `"auto"` or None): binary only. A number turns scores into labels
        (positive iff score >= threshold) on the scores' own scale: 0.5 for probabilities,
        or the `optimal_threshold` that "auto" returned on another split, for logits or a
        judge's scores too (inf: nothing positive). A number outside [0, 1] with
        predictions all in [0, 1] is a ValueError: nothing (or everything) would be
        positive. `"auto"` picks the threshold that maximises balanced accuracy (Youden's
        J) and returns it as `optimal_threshold`. {THRESHOLD_TIE_RULE} With
        threshold=None, predictions must be labels: non-integer scores raise a ValueError
        asking for a threshold. With `judges`, also a mapping from a judge's name to a
        number or "auto" (see `judges`), and "auto" then gives intervals.
    ignore_index (optional): samples whose reference equals this value are dropped
        (e.g. -100 for padded tokens, 255 for void pixels). Without it, references
        holding -100 (or 255 in a uint8 array) are counted as a class, with a
        UserWarning that names `ignore_index`.
    class_mask (list of int, optional): average only over these class indices (positions
        in the class order).
    sample_weight (array-like, optional): one non-negative finite weight per sample;
        counts become weighted sums.
    return_per_class (bool, defaults to False): also return `per_class_recall`,
        `support_per_class` and `classes`.
    return_confusion_matrix (bool, defaults to False): also return `confusion_matrix` and
        `classes`.
    confusion_matrix (K x K array-like, instead of predictions and references): counts
        made elsewhere (rows = references, columns = predictions, in the order of
        `labels`, or classes 0..K-1, as scikit-learn's `confusion_matrix`); the result,
        interval included, is what the same samples give. Non-integer entries are
        weighted sums.
    confidence_level (float in (0, 1), optional): e.g. 0.95 adds `balanced_accuracy_ci`,
        a confidence interval for the value. Default None: no interval.
    ci_method ("score", "agresti_coull", "wilson", "bootstrap" or None): None means
        "score": the score interval of the mean of per-class recalls (each candidate value
        tested with the variance at the recalls that fit it best), its end on the side of
        the nearer boundary moved out to Fay & Feuer's gamma bound where a few errors
        decide it. It holds with many small classes and recalls of 0 or 1, and is never of
        zero width (docs/intervals.md gives its worst cell). "agresti_coull" and "wilson": an
        Agresti-Coull (or Wilson score) interval per class recall, combined with MOVER
        (short with many small classes). "bootstrap" resamples each class's correct count
        as Binomial(class size, recall) - stratified and on counts, a recall of 0 or 1
        with 0.5 pseudo-items so that it moves - and returns the percentile interval.
        With `sample_weight`, each class counts as Kish's effective size
        (sum w)^2 / sum w^2 (an approximation for importance weights; not for frequency
        counts). There is no interval with threshold="auto" (ValueError): that threshold
        is fitted to these same data; tune it on another split and pass the number.
    n_resamples (int, defaults to 10000): bootstrap resamples.
    seed (int, optional): seed of the bootstrap's random generator, for reproducible
        intervals.
    {CLUSTERS_DOC}
    {JUDGES_DOC}
    baseline_predictions (array-like, same shape as predictions, optional): a second
        system's predictions on the same samples (e.g. judge B beside judge A), to compare
        the two on one golden set. Every option applies to both systems alike (the classes,
        `ignore_index`, `class_mask`, `sample_weight`, `adjusted`, a numeric `threshold` for
        both systems' scores; threshold="auto" is refused). Pass it with every batch to
        `add_batch` or with none. The classes are `labels`, 0..num_classes-1, or the values
        seen in references and either system's predictions (at most 128 classes).

Returns:
    balanced_accuracy (float): in [0, 1] ([-1/(K-1), 1] when adjusted); NaN with a
        `reason` when nothing can be averaged: "no_samples" (empty input: no samples,
        or only samples of weight 0; the same in all four modules),
        "empty_after_ignore_index", "empty_class_mask_after_filtering",
        "adjusted_needs_two_classes".
    balanced_accuracy_ci (list of two floats): with `confidence_level`, [low, high],
        inside the metric's range; [nan, nan] when the value is undefined.
    num_clusters (int), design_effect (float): with `confidence_level` and clusters (given,
        or the leading axis of N-d inputs): how many clusters the interval rests on, and the
        measured ratio of its variance to that of independent samples (see `clusters`).
    clusters_from (str): "leading_axis" beside `num_clusters` when the clusters were not
        given but taken from the leading axis of N-d inputs (one cluster per leading
        element). A list of per-batch arrays (Trainer with eval_do_concat_batches=False)
        reads as one N-d array, so each batch becomes one cluster: join them with
        `np.concatenate(..., axis=0)`, or pass `clusters=`.
    balanced_accuracy_difference_design_effect (float): with `baseline_predictions` and
        clusters: the design effect of the difference (its interval and p-value use it).
    optimal_threshold (float): with `threshold="auto"`.
    per_class_recall (list of float): recall of each class in class order; NaN for a
        class without reference samples (unless `zero_division` is a number).
    support_per_class (list): reference samples per class (weighted sums when weighted).
    classes (list): the class values in class order.
    confusion_matrix (list of lists): with `return_confusion_matrix`, rows = references,
        columns = predictions, in `classes` order (weighted sums when weighted).
    With `baseline_predictions` (the outputs above are those of `predictions`):
    baseline_balanced_accuracy (float): the metric of `baseline_predictions` (with
        `baseline_balanced_accuracy_reason` when undefined).
    balanced_accuracy_difference (float): balanced_accuracy - baseline_balanced_accuracy.
    balanced_accuracy_difference_ci (list of two floats): with `confidence_level`, an
        interval for the difference that uses the pairing: per class, Newcombe's (1998)
        method 10 interval for the difference of paired recalls as published (phi with
        its n/2 correction), combined by MOVER (Zou & Donner 2008); with
        ci_method="bootstrap", the percentile interval of a stratified bootstrap of the
        joint (reference, prediction, baseline) counts, smoothed by one pseudo-item of
        disagreement per class.
    balanced_accuracy_difference_p_value (float): two-sided p-value of "the two systems
        have equal recall in every class" (which implies equal balanced accuracy): the
        stratified McNemar score test, or its exact mid-p version when few items are
        discordant (Fagerland et al. 2013).
    baseline_confusion_matrix (list of lists): with `return_confusion_matrix`, that of
        `baseline_predictions`, in the same `classes` order.
    balanced_accuracy_difference_reason (str): why the difference, interval or p-value is
        NaN (e.g. "empty_after_ignore_index").

    {JUDGES_OUTPUTS_DOC.format(metric="balanced_accuracy")}

{LOAD_TIME_DOC} `add_batch` keeps counts of distinct (reference, prediction) pairs, not the
samples, so streaming a dataset takes memory that does not grow with its size; pass
`sample_weight` to `add_batch` with its batch.

Examples:

    >>> metric = evaluate.load("balanced_accuracy")
    >>> metric.compute(references=[0, 1, 1, 0], predictions=[0, 1, 0, 0], task="binary")
    {{'balanced_accuracy': 0.75}}

    Weighted multi-class with per-class outputs:

    >>> result = metric.compute(references=[0, 1, 2, 1], predictions=[0, 2, 2, 1], task="multiclass",
    ...                         num_classes=3, return_per_class=True, sample_weight=[1, 0.5, 1, 1])
    >>> round(result["balanced_accuracy"], 4), [round(r, 4) for r in result["per_class_recall"]]
    (0.8889, [1.0, 0.6667, 1.0])
    >>> result["support_per_class"]
    [1.0, 1.5, 1.0]

    Only classes 1 and 2:

    >>> metric.compute(references=[0, 1, 2, 1], predictions=[0, 2, 2, 1], class_mask=[1, 2])
    {{'balanced_accuracy': 0.75}}

    String labels from an LLM judge:

    >>> metric.compute(references=["safe", "unsafe", "safe", "safe"], predictions=["safe", "unsafe", "unsafe", "safe"])
    {{'balanced_accuracy': 0.8333333333333333}}

    Scores with the Youden-optimal threshold:

    >>> metric.compute(references=[0, 1, 1, 0], predictions=[0.2, 0.9, 0.1, 0.3], threshold="auto")
    {{'balanced_accuracy': 0.75, 'optimal_threshold': 0.6}}

    A 95% confidence interval on a judge's golden set of 50 unsafe (1) and 950 safe (0)
    examples, where the judge finds 40 of the unsafe ones and flags 50 safe ones:

    >>> references = [1] * 50 + [0] * 950
    >>> predictions = [1] * 40 + [0] * 10 + [0] * 900 + [1] * 50
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95)
    >>> round(result["balanced_accuracy"], 4), [round(x, 4) for x in result["balanced_accuracy_ci"]]
    (0.8737, [0.8074, 0.9237])
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95,
    ...                         ci_method="bootstrap", seed=0)
    >>> [round(x, 2) for x in result["balanced_accuracy_ci"]]
    [0.82, 0.93]

    Two judges on that golden set: judge B finds 30 of the unsafe examples (all found by
    judge A too) and flags 20 safe ones (all flagged by A too). The difference is
    (40 - 30) / 50 / 2 - (930 - 900) / 950 / 2 = 0.0842, with a paired interval and p-value:

    >>> judge_b = [1] * 30 + [0] * 20 + [0] * 930 + [1] * 20
    >>> result = metric.compute(references=references, predictions=predictions, baseline_predictions=judge_b,
    ...                         confidence_level=0.95)
    >>> round(result["baseline_balanced_accuracy"], 4), round(result["balanced_accuracy_difference"], 4)
    (0.7895, 0.0842)
    >>> [round(x, 4) for x in result["balanced_accuracy_difference_ci"]], round(result["balanced_accuracy_difference_p_value"], 4)
    ([0.0242, 0.1419], 0.0034)

    Three judges ranked on that golden set (a third, "rules", finds 20 unsafe and flags 10
    safe ones): the values are those of each judge alone; judge_b's p-value against the
    best is its paired p-value above (0.0034), adjusted for two comparisons (maxT: between
    it and Bonferroni's 2 x 0.0034); the intervals hold together at 95%:

    >>> judges = {{"judge_a": predictions, "judge_b": judge_b, "rules": [1] * 20 + [0] * 30 + [0] * 940 + [1] * 10}}
    >>> result = metric.compute(references=references, judges=judges, confidence_level=0.95)
    >>> [(entry["name"], round(entry["balanced_accuracy"], 4), entry["in_best_set"]) for entry in result["judge_ranking"]]
    [('judge_a', 0.8737, True), ('judge_b', 0.7895, False), ('rules', 0.6947, False)]
    >>> result["best_judges"], bool(0.0034 < result["judge_ranking"][1]["p_value"] < 2 * 0.0034)
    (['judge_a'], True)
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
@inproceedings{collot2026balanced,
  title={Balanced Accuracy: The Right Metric for Evaluating {LLM} Judges - Explained through Youden's {J} statistic},
  author={Collot, Stephane and Fraser, Colin and Zhao, Justin and Shen, William F. and Willi, Timon and Leontiadis, Ilias},
  booktitle={Proceedings of the 19th Conference of the European Chapter of the Association for Computational Linguistics (Volume 5: Industry Track)},
  pages={927--936},
  year={2026}
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



SPEC = MetricSpec("balanced_accuracy", balanced_accuracy_from_counts, balanced_accuracy_influence, balanced_accuracy_paired_difference,
                  check_options=check_balanced_accuracy_options, cluster_feature="correct", intervals=balanced_accuracy_intervals)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BalancedAccuracy(LabelsMetric):
    """Balanced accuracy (mean per-class recall) as an evaluate metric."""

    SPEC = SPEC

    OPTIONS = {
        "task": Option(None, choice(None, "binary", "multiclass")),
        "num_classes": Option(None, check_num_classes),
        "labels": Option(None, check_labels),
        "pos_label": Option(None, check_pos_label),
        "adjusted": Option(False, check_flag),
        "zero_division": Option("skip", check_zero_division),
        "threshold": Option(None, check_judges_threshold),
        "ignore_index": Option(None, check_ignore_index),
        "class_mask": Option(None, check_class_mask),
        "return_per_class": Option(False, check_flag),
        "return_confusion_matrix": Option(False, check_flag),
        "return_judge_p_values": Option(False, check_flag),
        **interval_options(),
    }

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("int64"), "references": datasets.Value("int64")}),
            reference_urls=["https://scikit-learn.org/stable/modules/model_evaluation.html#balanced-accuracy-score"],
        )

    INPUTS = ("sample_weight", "baseline_predictions", "clusters", "judges")

