"""Informedness: Youden's J and Powers' multi-class Bookmaker Informedness, with its dual, markedness."""

import math

import datasets
import evaluate
import numpy as np

from .averaging import Averaging
from .averaging import apply_zero_division
from .binomial import DEFAULT_CI_METHOD
from .confusion import ConfusionCounts
from .confusion import confusion_counts
from .confusion import count_labels
from .inputs import to_python
from .intervals import MAX_BOOTSTRAP_CELLS
from .intervals import informedness_interval
from .metric import CountsMetric
from .options import LOAD_TIME_DOC
from .options import Option
from .options import check_class_mask
from .options import check_flag
from .options import check_ignore_index
from .options import check_labels
from .options import check_num_classes
from .options import check_zero_division
from .options import choice
from .options import interval_options
from .rates import INFORMEDNESS_AVERAGES
from .rates import informedness
from .rates import informedness_weights
from .rates import one_vs_rest_difference

# evaluate.load fetches only the helper files a metric script imports itself; the helpers
# above need these too (`python shared/vendor.py --check` verifies the list is complete).
from .counts import CountTable
from .labels import EncodedLabels
from .store import Store
from .thresholds import THRESHOLD_TIE_RULE

_DESCRIPTION = """
Informedness is the probability that a prediction is informed about the true class, as
opposed to a guess. Per class c, one-vs-rest:

    J_c = TPR_c - FPR_c = TPR_c + TNR_c - 1           (informedness, Youden's J)
    MK_c = PPV_c + NPV_c - 1                          (markedness, its dual)

In a binary task J is Youden's J = TPR + TNR - 1 = 2 * BA - 1, the same for either class.
With prevalence pi_c (share of references that are c) and bias beta_c (share of
predictions that are c), the multi-class averages are:

    "bookmaker" (default): sum_c beta_c * J_c    (Powers' Bookmaker Informedness: the
                                                  prediction-weighted mean of J_c)
    "macro":               mean_c J_c
    "weighted":            sum_c pi_c * J_c

Guessing, from any prior, and always predicting one class score 0 whatever the class
balance; a perfect classifier scores 1; a model that is right with probability x and
otherwise guesses from the class prior scores x, for every averaging and any prevalence.
"""

_ZERO_DIVISION_DOC = """zero_division ("skip", 0.0 or 1.0, defaults to "skip"): J_c is undefined
        for a class with no reference samples (no TPR) or whose references are all the
        samples (no TNR); MK_c likewise for predictions. "skip" leaves such a class out of
        the average and reports NaN for it in per-class outputs; a number is used as its
        value and it is averaged like the others. A number rewards predicting classes
        absent from the references (references [0, 0, 1, 1], predictions [0, 2, 1, 2]:
        0.5 with "skip", 0.75 with 1.0); keep "skip" unless that is meant."""

_KWARGS_DESCRIPTION = f"""
Args:
    predictions (array-like of any shape): predicted labels. Lists, NumPy arrays, torch
        tensors, pandas Series and pyarrow arrays are accepted; N-d inputs are flattened.
    references (array-like, same shape as predictions): true labels: integers or any
        hashable values such as strings.
    average (`"bookmaker"`, `"macro"` or `"weighted"`, defaults to `"bookmaker"`): how
        the per-class J_c are combined: weighted by the share of predictions of each
        class (bias), a plain mean, or weighted by the share of references (prevalence).
        All three are Youden's J in a binary task.
    labels (list, optional): the class values in the order used by per-class outputs
        and `class_mask`; any value outside it is an error.
    num_classes (int, optional): for integer labels 0..K-1; every label must lie in
        [0, K-1]. If omitted (and no `labels`), the classes are the distinct values seen
        in references and predictions, sorted (0/1 labels always give classes [0, 1]).
    ignore_index (optional): samples whose reference equals this value are dropped
        (e.g. -100 for padded tokens, 255 for void pixels).
    class_mask (list of int, optional): combine only these class indices (positions in
        the class order). Their averaging weights (bias for "bookmaker", prevalence for
        "weighted") are renormalised to sum to 1 over the classes averaged, so the result
        stays a weighted mean of their J_c.
    sample_weight (array-like, optional): one non-negative finite weight per sample;
        counts become weighted sums.
    {_ZERO_DIVISION_DOC}
    return_per_class (bool, defaults to False): also return `per_class_informedness`,
        `support_per_class`, `predicted_per_class` and `classes`.
    return_markedness (bool, defaults to False): also return `markedness`, the mirror
        image of the chosen average: sum_c pi_c * MK_c for "bookmaker", mean_c MK_c for
        "macro", sum_c beta_c * MK_c for "weighted" (binary: PPV + NPV - 1).
    return_confusion_matrix (bool, defaults to False): also return `confusion_matrix` and
        `classes`.
    confusion_matrix (K x K array-like, instead of predictions and references): counts
        made elsewhere (rows = references, columns = predictions, in the order of
        `labels`, or classes 0..K-1, as scikit-learn's `confusion_matrix`); the result,
        interval included, is what the same samples give. Non-integer entries are
        weighted sums.
    confidence_level (float in (0, 1), optional): e.g. 0.95 adds `informedness_ci`, a
        confidence interval for the informedness (none for markedness). Default None: no
        interval.
    ci_method ("agresti_coull", "wilson", "bootstrap" or None): with two classes,
        informedness is Youden's J = TPR + TNR - 1 and "agresti_coull" and "wilson" are
        analytic: an Agresti-Coull (or Wilson score) interval for TPR and for TNR,
        combined with MOVER. "bootstrap" redraws each reference class's row of the
        confusion matrix as Multinomial(class size, row shares) - stratified and on
        counts, so its cost does not grow with the number of samples - and returns the
        percentile interval. With more than two classes only "bootstrap" applies (J is
        then not a sum of independent rates; an analytic method is a ValueError). None:
        "agresti_coull" for two classes, "bootstrap" otherwise. With `sample_weight`,
        each class counts as Kish's effective size (sum w)^2 / sum w^2 (an approximation for
        importance weights; not for frequency counts).
    n_resamples (int, defaults to 10000): bootstrap resamples.
    seed (int, optional): seed of the bootstrap's random generator, for reproducible
        intervals.

Returns:
    informedness (float): in [-1, 1]; 0 for guessing. NaN with a `reason` when nothing
        can be averaged: "empty_after_ignore_index", "no_samples" (no samples or all
        weights zero), "fewer_than_two_reference_classes", "empty_class_mask_after_filtering",
        "averaged_classes_have_zero_weight".
    informedness_ci (list of two floats): with `confidence_level`, [low, high] inside
        [-1, 1]; [nan, nan] when the informedness is undefined. Also [nan, nan], with an
        `informedness_ci_reason`, when a numeric `zero_division` gives a value that has no
        sampling distribution ("fewer_than_two_reference_classes").
    markedness (float): with `return_markedness`; NaN with a `markedness_reason`
        ("fewer_than_two_predicted_classes", ...) when undefined, e.g. for a constant predictor.
    per_class_informedness (list of float): J_c in class order (NaN where undefined,
        unless `zero_division` is a number).
    per_class_markedness (list of float): MK_c, with both `return_per_class` and
        `return_markedness`.
    support_per_class, predicted_per_class (list): reference and prediction counts per
        class (weighted sums when weighted).
    classes (list): the class values in class order.
    confusion_matrix (list of lists): with `return_confusion_matrix`, rows = references,
        columns = predictions, in `classes` order (weighted sums when weighted).

{LOAD_TIME_DOC} `add_batch` keeps counts of distinct (reference, prediction) pairs, not the
samples, so streaming a dataset takes memory that does not grow with its size; pass
`sample_weight` to `add_batch` with its batch.

Examples:

    Binary: Youden's J (TPR 0.8, TNR 0.8) and markedness (PPV 2/3, NPV 8/9):

    >>> metric = evaluate.load("informedness")
    >>> metric.compute(references=[0] * 10 + [1] * 5, predictions=[0] * 8 + [1] * 2 + [0] + [1] * 4,
    ...                return_markedness=True)
    {{'informedness': 0.6, 'markedness': 0.5555555555555556}}

    Guessing earns accuracy but no informedness:

    >>> metric.compute(references=[0, 0, 1, 1], predictions=[0, 1, 0, 1])
    {{'informedness': 0.0}}
    >>> metric.compute(references=[0, 0, 0, 1], predictions=[0, 0, 0, 0])
    {{'informedness': 0.0}}

    Multi-class, the three averagings and per-class values:

    >>> references, predictions = [0, 0, 0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 2, 2, 2]
    >>> result = metric.compute(references=references, predictions=predictions, return_per_class=True)
    >>> round(result["informedness"], 4), [round(j, 4) for j in result["per_class_informedness"]]
    (0.6771, [0.75, 0.3333, 0.8333])
    >>> result["support_per_class"], result["predicted_per_class"]
    ([4, 2, 2], [3, 2, 3])
    >>> round(metric.compute(references=references, predictions=predictions, average="macro")["informedness"], 4)
    0.6389
    >>> round(metric.compute(references=references, predictions=predictions, average="weighted")["informedness"], 4)
    0.6667

    Only classes 1 and 2 (bias weights 2 and 3, renormalised):

    >>> round(metric.compute(references=references, predictions=predictions, class_mask=[1, 2])["informedness"], 4)
    0.6333

    String labels with sample weights:

    >>> result = metric.compute(references=["cat", "dog", "dog", "emu"], predictions=["cat", "dog", "emu", "emu"],
    ...                         sample_weight=[1, 1, 1, 2], average="macro", return_per_class=True)
    >>> round(result["informedness"], 4), [round(j, 4) for j in result["per_class_informedness"]], result["classes"]
    (0.7222, [1.0, 0.5, 0.6667], ['cat', 'dog', 'emu'])

    A 95% confidence interval on a judge's golden set of 50 unsafe (1) and 950 safe (0)
    examples, where the judge finds 40 of the unsafe ones and flags 50 safe ones
    (binary: Agresti-Coull intervals for TPR and TNR, combined with MOVER):

    >>> references = [1] * 50 + [0] * 950
    >>> predictions = [1] * 40 + [0] * 10 + [0] * 900 + [1] * 50
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95)
    >>> round(result["informedness"], 4), [round(x, 4) for x in result["informedness_ci"]]
    (0.7474, [0.6141, 0.8377])

    Three classes: the stratified bootstrap, reproducible with a seed:

    >>> references = [0] * 60 + [1] * 30 + [2] * 10
    >>> predictions = [0] * 50 + [1] * 6 + [2] * 4 + [0] * 4 + [1] * 24 + [2] * 2 + [0] + [1] * 2 + [2] * 7
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95, seed=0)
    >>> round(result["informedness"], 4), [round(x, 2) for x in result["informedness_ci"]]
    (0.6913, [0.56, 0.82])
"""

_CITATION = """
@article{youden1950index,
  title={Index for rating diagnostic tests},
  author={Youden, William J.},
  journal={Cancer},
  volume={3},
  number={1},
  pages={32--35},
  year={1950}
}
@inproceedings{powers2003bookmaker,
  title={Recall and Precision versus the Bookmaker},
  author={Powers, David M. W.},
  booktitle={Proceedings of the International Conference on Cognitive Science (ICSC-2003)},
  pages={529--534},
  year={2003}
}
@article{powers2011evaluation,
  title={Evaluation: From Precision, Recall and F-Measure to ROC, Informedness, Markedness and Correlation},
  author={Powers, David M. W.},
  journal={Journal of Machine Learning Technologies},
  volume={2},
  number={1},
  pages={37--63},
  year={2011}
}
@inproceedings{vickers2023informedness,
  title={We Need to Talk About Classification Evaluation Metrics in {NLP}},
  author={Vickers, Peter and Barrault, Lo{\\"i}c and Monti, Emilio and Aletras, Nikolaos},
  booktitle={Proceedings of the 13th International Joint Conference on Natural Language Processing and the 3rd Conference of the Asia-Pacific Chapter of the Association for Computational Linguistics (AACL-IJCNLP 2023)},
  publisher={Association for Computational Linguistics},
  year={2023},
  note={Also arXiv:2401.03831}
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

# Informedness takes labels only; scores must become labels first.
_SCORES_HINT = (
    "Informedness compares labels: turn scores into labels first (e.g. argmax, or score >= a threshold); "
    "for the best Youden's J over thresholds of binary scores use balanced_accuracy with "
    "threshold='auto' and adjusted=True."
)


def check_multiclass_interval(ci_method, num_classes, n_resamples):
    """Refuse an interval that multi-class informedness cannot have (before the dense matrix is built)."""
    if ci_method in ("agresti_coull", "wilson"):
        raise ValueError(
            f"ci_method: {ci_method!r} has no analytic form for multi-class informedness ({num_classes} classes: "
            "J is then not a sum of independent rates); expected ci_method='bootstrap' or None."
        )
    # The bootstrap draws n_resamples K x K matrices.
    cells = num_classes * num_classes
    if n_resamples * cells > MAX_BOOTSTRAP_CELLS:
        fits = MAX_BOOTSTRAP_CELLS // cells
        hint = f"Pass n_resamples <= {fits:,}." if fits else "No bootstrap fits: pass confidence_level=None."
        raise ValueError(
            f"n_resamples: the bootstrap of a {num_classes} x {num_classes} confusion matrix draws n_resamples x "
            f"{cells:,} cells; {n_resamples:,} resamples exceed the limit of {MAX_BOOTSTRAP_CELLS:,} cells. {hint}"
        )


def informedness_from_counts(
    counts: ConfusionCounts,
    *,
    average="bookmaker",
    class_mask=None,
    zero_division="skip",
    return_per_class=False,
    return_markedness=False,
    return_confusion_matrix=False,
    confidence_level=None,
    ci_method=None,
    n_resamples=10_000,
    seed=None,
    **_,
):
    """Informedness (and its interval, markedness, per-class values, confusion matrix) from confusion counts.

    The options mean what they mean in ``compute`` and are already checked; ``counts`` is
    what ``compute`` counted from samples, or a confusion matrix given to it.
    """
    result = {"informedness": math.nan}
    undefined_ci = {} if confidence_level is None else {"informedness_ci": [math.nan, math.nan]}

    def undefined(reason):
        undefined_result = {**result, "reason": reason, **undefined_ci}
        if return_markedness:
            undefined_result.update(markedness=math.nan, markedness_reason=reason)
        return undefined_result

    if counts.reason is not None:
        return undefined(counts.reason)
    encoded = counts.encoded
    num_classes = encoded.num_classes
    if return_per_class:
        counts.check_materialised("return_per_class")
    if confidence_level is not None and encoded.unobserved and zero_division != "skip" and average == "macro":
        raise ValueError(
            f"confidence_level: no interval for average='macro' with zero_division={zero_division!r} over "
            f"num_classes={num_classes + encoded.unobserved:,} classes, found too many to materialise; "
            "pass `labels` with the classes to average, or zero_division='skip'."
        )
    if confidence_level is not None and num_classes > 2:
        check_multiclass_interval(ci_method, num_classes, n_resamples)
    class_counts = counts.class_counts()
    averaging = Averaging.over(
        num_classes, class_mask, zero_division,
        observed=encoded.classes if encoded.unobserved else None, unobserved=encoded.unobserved,
    )
    if not class_counts.total > 0:
        return undefined("no_samples")
    value, averaged, per_class_informedness = informedness(
        class_counts.tp, class_counts.support, class_counts.predicted, average, averaging)
    reason = averaging.reason(int(averaged), "fewer_than_two_reference_classes", float(value))
    result["informedness"] = float(value)
    if reason:
        result.update(reason=reason, **undefined_ci)
    elif confidence_level is not None:
        result.update(undefined_ci)
        if np.count_nonzero(class_counts.support) < 2:
            # Only a numeric zero_division defines the value here: a fixed convention, not an estimate.
            result["informedness_ci_reason"] = "fewer_than_two_reference_classes"
        else:
            matrix = counts.matrix("confidence_level")
            if counts.w is not None:
                # Informedness does not depend on the weights' scale: with the largest weight 1,
                # the bootstrap's products of weighted counts stay finite near float64's limits.
                matrix = matrix / counts.w.max()
            interval = informedness_interval(
                matrix, confidence_level=confidence_level,
                method=ci_method or (DEFAULT_CI_METHOD if num_classes == 2 else "bootstrap"),
                n_resamples=n_resamples, seed=seed, average=average, averaging=averaging, estimate=value,
                effective_support=counts.effective_support(),
            )
            result["informedness_ci"] = interval.as_list()
            if interval.reason is not None:
                result["informedness_ci_reason"] = interval.reason
    if return_markedness:
        per_class_markedness = apply_zero_division(
            one_vs_rest_difference(class_counts.tp, class_counts.predicted, class_counts.support), zero_division)
        _, markedness_weights = informedness_weights(average, class_counts.support, class_counts.predicted)
        markedness, averaged = averaging.combine(per_class_markedness, markedness_weights)
        result["markedness"] = float(markedness)
        reason = averaging.reason(int(averaged), "fewer_than_two_predicted_classes", float(markedness))
        if reason:
            result["markedness_reason"] = reason
    if return_per_class:
        result["per_class_informedness"] = per_class_informedness
        if return_markedness:
            result["per_class_markedness"] = per_class_markedness
        result["support_per_class"] = class_counts.support
        result["predicted_per_class"] = class_counts.predicted
        result["classes"] = encoded.classes
    if return_confusion_matrix:
        result["confusion_matrix"] = counts.matrix()
        result["classes"] = encoded.classes
    return to_python(result)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Informedness(CountsMetric):
    """Informedness (Youden's J, Bookmaker Informedness) and markedness as an evaluate metric."""

    OPTIONS = {
        "average": Option("bookmaker", choice(*INFORMEDNESS_AVERAGES)),
        "labels": Option(None, check_labels),
        "num_classes": Option(None, check_num_classes),
        "ignore_index": Option(None, check_ignore_index),
        "class_mask": Option(None, check_class_mask),
        "zero_division": Option("skip", check_zero_division),
        "return_per_class": Option(False, check_flag),
        "return_markedness": Option(False, check_flag),
        "return_confusion_matrix": Option(False, check_flag),
        **interval_options(),
    }

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("int64"), "references": datasets.Value("int64")}),
            reference_urls=[
                "https://en.wikipedia.org/wiki/Youden%27s_J_statistic",
                "https://arxiv.org/abs/2401.03831",
            ],
        )

    def _count(self, predictions, references, inputs, options):
        return count_labels(predictions, references, inputs.get("sample_weight"), scores=False, scores_hint=_SCORES_HINT)

    def _counts(self, stored, options):
        # J is the same for either class of a binary task, so there is no pos_label.
        return confusion_counts(stored, options, _SCORES_HINT)

    def _counts_from_matrix(self, matrix, options):
        return ConfusionCounts.from_matrix(matrix, options["labels"])

    def _from_counts(self, counts, options):
        return informedness_from_counts(counts, **options)
