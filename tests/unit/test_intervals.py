"""Confidence intervals: the metrics' (shared/metrics/balanced_accuracy.py, informedness.py), their use in balanced_accuracy, and a small coverage study."""

import doctest
import json
import math
import time
from statistics import NormalDist

import numpy as np
import pytest
from pycm import ConfusionMatrix
from scipy.stats import binomtest
from sklearn.metrics import confusion_matrix as sklearn_confusion_matrix

from shared.metrics import balanced_accuracy as balanced_accuracy_metric
from shared.metrics import informedness as informedness_metric
from shared.stats import vocabulary
from shared.metrics.multilabel import binary_columns_interval
from shared.stats import binomial
from score_reference import score_sum_reference
from shared.stats.averaging import Averaging
from conftest import load_module, load_study
from shared.counting import thresholds

coverage_study = load_study("golden_set_coverage")

LEVEL = 0.95


def confusion_matrix(references, predictions, num_classes):
    """scikit-learn's confusion matrix over the classes 0..num_classes-1 (rows = references)."""
    return sklearn_confusion_matrix(references, predictions, labels=np.arange(num_classes))


def class_counts(references, predictions, num_classes):
    """Per class: (correct, support) from scikit-learn's confusion matrix."""
    matrix = confusion_matrix(references, predictions, num_classes)
    return np.diag(matrix), matrix.sum(axis=1)


def test_docstring_examples():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    attempted = 0
    for module in (balanced_accuracy_metric, informedness_metric):  # the interval functions of the metrics
        for test in finder.find(module, globs=vars(module).copy()):
            runner.run(test)
            attempted += len(test.examples)
    assert runner.summarize(verbose=False).failed == 0 and attempted >= 8


# ---------------------------------------------------------------- the analytic intervals against peers


@pytest.mark.parametrize("trials", [1, 2, 5, 17, 100, 1000])
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_wilson_matches_scipy(trials, level):
    successes = np.unique(np.r_[np.linspace(0, trials, 12).round(), 1, trials - 1].clip(0, trials)).astype(int)
    low, high = binomial.wilson_interval(successes, np.full(successes.size, trials), level)
    for index, x in enumerate(successes):
        expected = binomtest(int(x), trials).proportion_ci(level, method="wilson")
        assert low[index] == pytest.approx(expected.low, abs=1e-12) and high[index] == pytest.approx(expected.high, abs=1e-12)


def test_agresti_coull_is_the_wald_interval_on_augmented_counts():
    z = 1.959963984540054
    for x, n in [(0, 10), (3, 10), (10, 10), (1, 1), (45, 50), (500, 1000)]:
        n_tilde = n + z * z
        p_tilde = (x + z * z / 2) / n_tilde
        half = z * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
        low, high = binomial.agresti_coull_interval(x, n, 0.95)
        assert float(low) == pytest.approx(max(0.0, p_tilde - half), abs=1e-12)
        assert float(high) == pytest.approx(min(1.0, p_tilde + half), abs=1e-12)


@pytest.mark.parametrize(
    "x1, n1, x2, n2, low, high",
    [  # Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10 (score, no continuity correction)
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (5, 56, 0, 29, -0.0381, 0.1926),
        (0, 10, 0, 20, -0.1611, 0.2775),
        (10, 10, 0, 20, 0.6791, 1.0000),
    ],
)
def test_wilson_mover_reproduces_newcombe_method_10(x1, n1, x2, n2, low, high):
    interval = binomial.rate_sum_interval([x1, x2], [n1, n2], [1.0, -1.0], bounds=(-1.0, 1.0), method="wilson")
    assert interval.low == pytest.approx(low, abs=5e-5) and interval.high == pytest.approx(high, abs=5e-5)


def test_informedness_averages_match_pycm():
    """Bookmaker: sum_c (predicted share) x BM_c; macro: mean BM_c; weighted: sum_c (reference share) x BM_c.

    pycm's per-class BM is TPR + TNR - 1 (Powers' informedness of class c).
    """
    rng = np.random.default_rng(0)
    for _ in range(30):
        num_classes = int(rng.integers(2, 6))
        references = np.r_[np.arange(num_classes), rng.integers(0, num_classes, 300 - num_classes)]
        predictions = np.where(rng.random(300) < 0.6, references, rng.integers(0, num_classes, 300))
        matrix = confusion_matrix(references, predictions, num_classes)
        cm = ConfusionMatrix(actual_vector=references.tolist(), predict_vector=predictions.tolist())
        bm = {c: cm.class_stat["BM"][c] for c in cm.classes}
        expected = {
            "bookmaker": sum(cm.class_stat["TOP"][c] / 300 * bm[c] for c in bm),
            "macro": sum(bm.values()) / len(bm),
            "weighted": sum(cm.class_stat["P"][c] / 300 * bm[c] for c in bm),
        }
        for average, value in expected.items():
            assert float(informedness_metric.informedness_average(matrix, average)) == pytest.approx(value, abs=1e-12)
        assert float(informedness_metric.informedness_from_confusion(matrix)) == pytest.approx(expected["bookmaker"], abs=1e-12)


def test_informedness_average_options():
    matrix = np.array([[8, 2, 0, 0], [1, 6, 3, 0], [0, 0, 5, 0], [0, 0, 0, 0]])  # class 3: no references
    skip = informedness_metric.informedness_average(matrix, "macro")
    assert float(skip) == pytest.approx((0.8 - 1 / 15 + 0.6 - 2 / 15 + 1 - 3 / 20) / 3)
    assert float(informedness_metric.informedness_average(matrix, "macro", zero_division=0.0)) == pytest.approx(float(skip) * 3 / 4)
    assert float(informedness_metric.informedness_average(matrix, "macro", class_mask=[2])) == pytest.approx(1 - 3 / 20)
    assert math.isnan(float(informedness_metric.informedness_average(matrix, "macro", class_mask=[3])))
    interval = informedness_metric.informedness_interval(matrix, confidence_level=LEVEL, average="macro", n_resamples=500, seed=0)
    assert -1 <= interval.low < float(skip) < interval.high <= 1


# ---------------------------------------------------------------- the bootstrap on counts


def per_sample_stratified_bootstrap(references, predictions, statistic, n_resamples, rng):
    """The textbook stratified bootstrap: resample samples within each reference class."""
    members = [np.flatnonzero(references == c) for c in np.unique(references)]
    values = []
    for _ in range(n_resamples):
        chosen = np.concatenate([rng.choice(m, size=m.size) for m in members])
        values.append(statistic(references[chosen], predictions[chosen]))
    return np.array(values)


def test_counts_bootstrap_has_the_distribution_of_the_per_sample_stratified_bootstrap():
    rng = np.random.default_rng(1)
    references = np.repeat([0, 1, 2], [120, 40, 12])
    predictions = np.where(rng.random(references.size) < 0.75, references, rng.integers(0, 3, references.size))

    def balanced_accuracy(ref, pred):
        return np.mean([np.mean(pred[ref == c] == c) for c in range(3)])

    def informedness(ref, pred):
        return float(informedness_metric.informedness_from_confusion(confusion_matrix(ref, pred, 3)))

    matrix = confusion_matrix(references, predictions, 3)
    correct, support = class_counts(references, predictions, 3)
    for statistic, method_interval in (
        (balanced_accuracy, lambda: balanced_accuracy_metric.recall_mean_interval(correct, support, confidence_level=0.9, method="bootstrap", n_resamples=20000, seed=2)),
        (informedness, lambda: informedness_metric.informedness_interval(matrix, confidence_level=0.9, n_resamples=20000, seed=2)),
    ):
        textbook = per_sample_stratified_bootstrap(references, predictions, statistic, 3000, rng)
        interval = method_interval()
        expected_low, expected_high = np.quantile(textbook, [0.05, 0.95])
        # Monte-Carlo error of a 5% quantile from 3,000 resamples is about 0.005 here.
        assert interval.low == pytest.approx(expected_low, abs=0.015)
        assert interval.high == pytest.approx(expected_high, abs=0.015)


def test_bootstrap_is_reproducible_with_a_seed_and_varies_without_one():
    args = dict(confidence_level=LEVEL, method="bootstrap", n_resamples=2000)
    first = balanced_accuracy_metric.recall_mean_interval([40, 900], [50, 950], seed=7, **args)
    second = balanced_accuracy_metric.recall_mean_interval([40, 900], [50, 950], seed=7, **args)
    assert first == second
    others = {tuple(balanced_accuracy_metric.recall_mean_interval([40, 900], [50, 950], seed=None, **args).as_list()) for _ in range(5)}
    assert len(others) > 1


def test_bootstrap_chunks_give_the_same_interval_shape_for_many_classes():
    rng = np.random.default_rng(3)
    support = rng.integers(1, 50, 2500)  # 2,500 classes x 2,000 resamples: more than one chunk
    correct = rng.binomial(support, 0.7)
    interval = balanced_accuracy_metric.recall_mean_interval(correct, support, confidence_level=LEVEL, method="bootstrap", n_resamples=2000, seed=0)
    analytic = balanced_accuracy_metric.recall_mean_interval(correct, support, confidence_level=LEVEL)
    assert interval.low < np.mean(correct / support) < interval.high
    assert interval.high - interval.low == pytest.approx(analytic.high - analytic.low, rel=0.1)


def test_multiclass_bootstrap_refuses_a_runaway_size():
    # The bootstrap asked for by name (the default of informedness_interval is now the score interval).
    with pytest.raises(ValueError, match=r"n_resamples: the bootstrap of a 2000 x 2000 confusion matrix"):
        informedness_metric.informedness_interval(np.eye(2000), confidence_level=LEVEL, method="bootstrap", n_resamples=10_000)


# ---------------------------------------------------------------- degenerate cases and ranges


@pytest.mark.parametrize("method", vocabulary.RATE_CI_METHODS)
@pytest.mark.parametrize(
    "correct, support",
    [([0, 0], [5, 5]), ([5, 5], [5, 5]), ([1, 0], [1, 1]), ([0, 1000], [1, 1000]), ([3, 0, 2], [3, 0, 2]), ([0], [1])],
)
def test_degenerate_classes_give_finite_intervals_inside_the_range(method, correct, support):
    interval = balanced_accuracy_metric.recall_mean_interval(correct, support, confidence_level=LEVEL, method=method, n_resamples=500, seed=0)
    point = np.mean([c / s for c, s in zip(correct, support) if s])
    assert interval.reason is None and 0.0 <= interval.low <= interval.high <= 1.0
    if method != "bootstrap":
        assert interval.low <= point <= interval.high and interval.high > interval.low


def test_undefined_values_give_nan_with_the_reason():
    empty = balanced_accuracy_metric.recall_mean_interval([0, 0], [0, 0], confidence_level=LEVEL)
    assert math.isnan(empty.low) and math.isnan(empty.high) and empty.reason == "no_reference_classes"
    masked = balanced_accuracy_metric.recall_mean_interval([1, 0], [2, 0], confidence_level=LEVEL, class_mask=[1])
    assert masked.reason == "empty_class_mask_after_filtering"
    single = balanced_accuracy_metric.recall_mean_interval([1, 0], [2, 0], confidence_level=LEVEL, adjusted=True)
    assert single.reason == "adjusted_needs_two_classes"
    one_class = informedness_metric.informedness_interval([[3, 1, 0], [0, 0, 0], [0, 0, 0]], confidence_level=LEVEL)
    assert math.isnan(one_class.low) and one_class.reason == "fewer_than_two_reference_classes"
    labels = binary_columns_interval([0], [0], [0], [0], confidence_level=LEVEL)
    assert math.isnan(labels.low) and labels.reason == "no_defined_labels"


def test_ranges_informedness_adjusted_and_zero_division():
    binary = informedness_metric.informedness_interval([[0, 30], [30, 0]], confidence_level=LEVEL, method="agresti_coull")
    assert binary.low == -1.0 and -1.0 < binary.high < -0.8
    multi = informedness_metric.informedness_interval(np.diag([30, 20, 5]), confidence_level=LEVEL, n_resamples=500, seed=0)
    # Every item right: resampling alone could not move, so the stuck rows get pseudo-items; never [1, 1].
    assert 0.8 < multi.low < 1.0 and multi.high == 1.0
    adjusted = balanced_accuracy_metric.recall_mean_interval([0, 0, 0], [5, 5, 5], confidence_level=LEVEL, adjusted=True)
    assert adjusted.low == pytest.approx(-0.5) and adjusted.high > -0.5
    # zero_division=1.0: a class without references counts as a fixed 1.0, with no sampling error.
    fixed = balanced_accuracy_metric.recall_mean_interval([5, 0], [10, 0], confidence_level=LEVEL, zero_division=1.0)
    alone = balanced_accuracy_metric.recall_mean_interval([5], [10], confidence_level=LEVEL)
    assert fixed.low == pytest.approx((alone.low + 1) / 2) and fixed.high == pytest.approx((alone.high + 1) / 2)
    with pytest.raises(ValueError, match="ci_method: 'agresti_coull' has no analytic form for multi-class informedness"):
        informedness_metric.informedness_interval(np.diag([3, 2, 1]), confidence_level=LEVEL, method="agresti_coull")


def test_binary_columns_interval_reduces_like_the_multilabel_definition():
    tp, positives, tn, negatives = [8, 0, 3], [10, 0, 3], [80, 50, 0], [90, 60, 0]
    macro = binary_columns_interval(tp, positives, tn, negatives, confidence_level=LEVEL, method="wilson")
    # skip: label 1 has TNR only, label 2 TPR only; the macro average is a weighted sum of those rates.
    direct = binomial.rate_sum_interval([8, 3, 80, 50], [10, 3, 90, 60], [1 / 6, 1 / 3, 1 / 6, 1 / 3], method="wilson")
    assert macro.as_list() == pytest.approx(direct.as_list(), abs=1e-12)
    micro = binary_columns_interval(tp, positives, tn, negatives, confidence_level=LEVEL, average="micro", method="wilson")
    pooled = binomial.rate_sum_interval([11, 130], [13, 150], [0.5, 0.5], method="wilson")
    assert micro.as_list() == pytest.approx(pooled.as_list(), abs=1e-12)


def test_kish_effective_sizes():
    assert binomial.effective_sizes([4.0], [4.0]).tolist() == [4.0]  # four weights of 1
    assert binomial.effective_sizes([8.0], [16.0]).tolist() == [4.0]  # four weights of 2: same information
    assert binomial.effective_sizes([4.0], [5.0]).tolist() == [3.2]  # weights 0.5, 0.5, 1.5, 1.5


@pytest.mark.parametrize(
    "kwargs, error, pattern",
    [
        (dict(confidence_level=1.0), ValueError, r"confidence_level: expected a number in \(0, 1\) such as 0.95, found 1.0"),
        (dict(confidence_level="95%"), TypeError, r"confidence_level: expected a number in \(0, 1\) such as 0.95, found the string '95%'"),
        (dict(confidence_level=0.95, ci_method="bca"), ValueError, r"ci_method: expected one of \('score', 'agresti_coull', 'wilson', 'bootstrap'\) or None, found 'bca'"),
        (dict(confidence_level=0.95, n_resamples=0), ValueError, r"n_resamples: expected an integer in \[1, 1,000,000\], found 0"),
        (dict(confidence_level=0.95, n_resamples=10**9), ValueError, r"n_resamples: expected an integer in \[1, 1,000,000\], found 1000000000"),
        (dict(confidence_level=0.95, n_resamples=2.5), TypeError, r"n_resamples: expected a positive integer, found float"),
        (dict(confidence_level=0.95, seed=-1), TypeError, r"seed: expected a non-negative integer or None, found -1"),
    ],
)
def test_argument_errors_name_the_argument(balanced_accuracy, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        balanced_accuracy.compute(references=[0, 1, 1], predictions=[0, 1, 0], **kwargs)


# ---------------------------------------------------------------- balanced_accuracy with confidence_level


def test_documented_interval_example(balanced_accuracy):
    references = [1] * 50 + [0] * 950
    predictions = [1] * 40 + [0] * 10 + [0] * 900 + [1] * 50
    result = balanced_accuracy.compute(references=references, predictions=predictions, confidence_level=0.95)
    assert list(result) == ["balanced_accuracy", "balanced_accuracy_ci"]
    point = (40 / 50 + 900 / 950) / 2
    assert result["balanced_accuracy"] == pytest.approx(point, abs=1e-15)
    assert result["balanced_accuracy_ci"] == pytest.approx(score_sum_reference([40, 900], [50, 950], [0.5, 0.5]), abs=1e-7)
    # Agresti-Coull per class (TPR 40/50, TNR 900/950) combined by MOVER, written out here: still selectable.
    z = 1.959963984540054
    below, above = [], []
    for x, n in ((40, 50), (900, 950)):
        n_tilde, p_tilde = n + z * z, (x + z * z / 2) / (n + z * z)
        half = z * math.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
        below.append((x / n - (p_tilde - half)) / 2)
        above.append((p_tilde + half - x / n) / 2)
    result = balanced_accuracy.compute(references=references, predictions=predictions, confidence_level=0.95, ci_method="agresti_coull")
    assert result["balanced_accuracy_ci"] == pytest.approx([point - math.hypot(*below), point + math.hypot(*above)], abs=1e-12)


def test_default_interval_against_its_definition_written_out():
    """The score interval with the gamma bound, against SciPy on its definition: many classes, rates at 1, tiny classes."""
    cases = [
        ([40, 900], [50, 950], [0.5, 0.5]),
        ([5, 8, 20], [5, 8, 20], [1 / 3] * 3),  # every item right: the score end of Wilson on sum(n - 1), not [1, 1]
        ([3, 9, 1, 12, 4], [5, 10, 3, 12, 9], [0.2] * 5),
        ([2, 1], [3, 40], [0.5, 0.5]),  # near 0: the gamma bound on the successes
        (list(range(1, 9)), [8] * 8, [0.125] * 8),
    ]
    for successes, trials, weights in cases:
        found = binomial.rate_sum_interval(successes, trials, weights, method="score").as_list()
        assert found == pytest.approx(score_sum_reference(successes, trials, weights), abs=1e-6), (successes, trials)


def test_module_interval_is_the_shared_function_for_every_option(balanced_accuracy):
    rng = np.random.default_rng(4)
    for case in range(40):
        num_classes = int(rng.integers(2, 6))
        references = rng.choice(num_classes, 150, p=rng.dirichlet(np.ones(num_classes)))
        predictions = np.where(rng.random(150) < 0.7, references, rng.integers(0, num_classes, 150))
        options = dict(
            adjusted=bool(case % 2),
            zero_division=("skip", 0.0, 1.0)[case % 3],
            class_mask=None if case % 4 else [0, 1],
            ci_method=vocabulary.CI_METHODS[case % 3],
        )
        result = balanced_accuracy.compute(
            references=references, predictions=predictions, task="multiclass", num_classes=num_classes,
            confidence_level=0.9, n_resamples=500, seed=case, **options,
        )
        correct, support = class_counts(references, predictions, num_classes)
        expected = balanced_accuracy_metric.recall_mean_interval(
            correct, support, confidence_level=0.9, method=options["ci_method"], n_resamples=500, seed=case,
            class_mask=None if options["class_mask"] is None else np.array(options["class_mask"]),
            zero_division=options["zero_division"], adjusted=options["adjusted"],
        )
        assert result["balanced_accuracy_ci"] == pytest.approx(expected.as_list(), nan_ok=True)
        if options["ci_method"] != "bootstrap" and not math.isnan(result["balanced_accuracy"]):
            low, high = result["balanced_accuracy_ci"]
            assert low <= result["balanced_accuracy"] <= high


def test_results_are_plain_python_floats(balanced_accuracy):
    result = balanced_accuracy.compute(references=[0, 1, 1, 0, 1], predictions=[0, 1, 0, 0, 1], confidence_level=0.9, ci_method="bootstrap", seed=0)
    json.dumps(result)
    assert all(type(value) is float for value in result["balanced_accuracy_ci"])


def test_equal_weights_give_the_unweighted_interval_and_unequal_weights_widen_it(balanced_accuracy):
    references = [0] * 60 + [1] * 20
    predictions = [0] * 50 + [1] * 10 + [1] * 15 + [0] * 5
    plain = balanced_accuracy.compute(references=references, predictions=predictions, confidence_level=LEVEL)
    doubled = balanced_accuracy.compute(references=references, predictions=predictions, confidence_level=LEVEL, sample_weight=[2.0] * 80)
    assert doubled["balanced_accuracy_ci"] == pytest.approx(plain["balanced_accuracy_ci"], abs=1e-12)
    uneven = np.where(np.arange(80) % 2 == 0, 0.5, 1.5)  # same means per class, Kish size 80% of n
    weighted = balanced_accuracy.compute(references=references, predictions=predictions, confidence_level=LEVEL, sample_weight=uneven)
    assert weighted["balanced_accuracy_ci"][1] - weighted["balanced_accuracy_ci"][0] > plain["balanced_accuracy_ci"][1] - plain["balanced_accuracy_ci"][0]


def test_fixed_threshold_interval_and_auto_threshold_refusal(balanced_accuracy):
    references = [0, 1, 1, 0, 1, 0, 0, 1]
    scores = [0.1, 0.8, 0.4, 0.3, 0.9, 0.6, 0.2, 0.7]
    result = balanced_accuracy.compute(references=references, predictions=scores, threshold=0.5, confidence_level=LEVEL)
    labels = balanced_accuracy.compute(references=references, predictions=[int(s >= 0.5) for s in scores], confidence_level=LEVEL)
    assert result == labels
    with pytest.raises(ValueError, match=r"confidence_level: no interval with threshold='auto'\. The threshold is fitted"):
        balanced_accuracy.compute(references=references, predictions=scores, threshold="auto", confidence_level=LEVEL)


def test_undefined_value_has_an_undefined_interval(balanced_accuracy):
    result = balanced_accuracy.compute(references=[-100, -100], predictions=[0, 1], ignore_index=-100, confidence_level=LEVEL)
    assert result["reason"] == "empty_after_ignore_index" and all(math.isnan(v) for v in result["balanced_accuracy_ci"])
    result = balanced_accuracy.compute(references=[0, 1, 0], predictions=[0, 2, 2], num_classes=3, class_mask=[2], confidence_level=LEVEL)
    assert result["reason"] == "empty_class_mask_after_filtering" and all(math.isnan(v) for v in result["balanced_accuracy_ci"])


def test_no_interval_keys_without_confidence_level(balanced_accuracy):
    assert balanced_accuracy.compute(references=[0, 1], predictions=[0, 1], ci_method="bootstrap") == {"balanced_accuracy": 1.0}


# ---------------------------------------------------------------- coverage (small; the full study is studies/golden_set_coverage/study.py)


@pytest.mark.parametrize(
    "size, prior, recalls",
    [
        (50, [0.5, 0.5], [0.9, 0.8]),
        (200, [0.9, 0.1], [0.9, 0.8]),
        (1000, [0.97, 0.03], [0.9, 0.8]),
        (200, [0.97, 0.03], [0.98, 0.95]),
        (1000, list(coverage_study.SKEWED_PRIOR), list(coverage_study.SKEWED_RECALLS)),
    ],
)
def test_default_interval_covers_balanced_accuracy(size, prior, recalls):
    rng = np.random.default_rng(size)
    result = coverage_study.balanced_accuracy_coverage(rng, 2000, size, prior, recalls, binomial.DEFAULT_CI_METHOD, 1)
    assert result.coverage >= 0.93, result
    # Not bought with width: at most 1.3 times the narrower of Agresti-Coull and Wilson where that covers too.
    others = [coverage_study.balanced_accuracy_coverage(np.random.default_rng(size), 2000, size, prior, recalls, method, 1)
              for method in ("agresti_coull", "wilson")]
    covering = [other.mean_width for other in others if other.coverage >= 0.93]
    assert not covering or result.mean_width <= 1.3 * min(covering), (result, others)


def test_bootstrap_covers_multiclass_informedness():
    result = coverage_study.informedness_coverage(np.random.default_rng(5), 1000, 200, 1000)
    assert 0.93 <= result.coverage <= 0.97, result


def test_bootstrap_with_a_tiny_class_no_longer_falls_short():
    """A class of about 6 items with nearly every item right: the plain percentile bootstrap covered
    below 0.9 here, as its class rarely moves; rates at 0 or 1 now resample with pseudo-items."""
    result = coverage_study.balanced_accuracy_coverage(np.random.default_rng(6), 1000, 200, [0.97, 0.03], [0.98, 0.95], "bootstrap", 1000)
    assert result.coverage >= 0.93 and result.smallest_class_median <= 6


def test_histogram_youden_search_matches_the_core():
    """The threshold='auto' evidence re-searches thresholds on score histograms: same maximum as the core."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        labels = rng.integers(0, 2, 60)
        labels[:2] = [0, 1]
        scores = np.round(labels + rng.normal(0, 1, 60), 1)  # ties on purpose
        distinct, inverse = np.unique(-scores, return_inverse=True)
        positives = np.bincount(inverse[labels == 1], minlength=distinct.size)
        negatives = np.bincount(inverse[labels == 0], minlength=distinct.size)
        _, tpr, tnr = thresholds.youden_thresholds(scores[:, None], labels[:, None])
        assert coverage_study.best_youden_from_histograms(positives, negatives) == pytest.approx(tpr[0] + tnr[0] - 1, abs=1e-12)


def tied_topk_coverage(rng, num_sets, size, method):
    """Balanced top-k accuracy with ties: each sample's hit is 0, 1/2 (tied at the k-th place) or 1.

    4 classes with prior (0.70, 0.20, 0.07, 0.03); half hits for 10-40% of each class. The
    interval treats a half hit as a 0/1 hit with the same mean (larger variance): conservative.
    """
    prior = np.array([0.70, 0.20, 0.07, 0.03])
    hit_values = np.array([0.0, 0.5, 1.0])
    hit_shares = np.array([[0.05, 0.10, 0.85], [0.10, 0.20, 0.70], [0.15, 0.30, 0.55], [0.20, 0.40, 0.40]])
    support = rng.multinomial(size, prior, size=num_sets)
    hits = rng.multinomial(support, hit_shares) @ hit_values  # fractional per-class hit sums
    interval = balanced_accuracy_metric.recall_mean_interval(
        hits, support, confidence_level=LEVEL, method=method, n_resamples=1000, seed=int(rng.integers(2**31))
    )
    truth = float(np.mean(hit_shares @ hit_values))
    return coverage_study.summarise(interval.low, interval.high, truth, (support > 0).all(axis=-1), support)


@pytest.mark.parametrize("size", [50, 200, 1000])
def test_default_interval_is_conservative_with_tied_topk_hits(size):
    """The balanced_topk_accuracy card: with fractional (tied) hits the default covers at least 95%."""
    result = tied_topk_coverage(np.random.default_rng(size + 1), 2000, size, binomial.DEFAULT_CI_METHOD)
    assert 0.95 <= result.coverage <= 1.0, result


def test_documented_multilabel_coverage_with_independent_and_correlated_label_errors():
    """The balanced_accuracy_multilabel card: on target with independent label errors, short with correlated ones."""
    independent = coverage_study.multilabel_coverage(np.random.default_rng(10), 2000, 1000, correlated=False)
    assert 0.93 <= independent.coverage <= 0.97, independent
    correlated = coverage_study.multilabel_coverage(np.random.default_rng(9), 2000, 200, correlated=True)
    assert correlated.coverage < 0.93, correlated


# ---------------------------------------------------------------- one averaging: the interval of the module's value


@pytest.fixture(scope="module")
def informedness_module():
    return load_module("informedness")


@pytest.mark.parametrize("seed", range(12))
def test_every_analytic_interval_contains_the_modules_value_exactly(seed, balanced_accuracy, informedness_module):
    """Intervals reduce with the modules' Averaging and rates and are centred on their value:
    low <= value <= high holds exactly (no rounding gap), for every option that changes the
    averaging; and informedness_average is the informedness module's value to the last digit."""
    rng = np.random.default_rng(seed)
    num_classes = int(rng.integers(2, 5))
    references = rng.integers(0, num_classes, 40)
    predictions = np.where(rng.random(40) < 0.6, references, rng.integers(0, num_classes, 40))
    weights = rng.uniform(0.1, 3.0, 40) if seed % 2 else None
    options = dict(num_classes=num_classes + 1, zero_division=("skip", 0.0, 1.0)[seed % 3],
                   class_mask=None if seed % 4 else [0, num_classes])  # class num_classes has no samples
    for adjusted in (False, True) if options["class_mask"] is None else (False,):  # adjusted with a mask is refused
        for method in ("agresti_coull", "wilson"):
            result = balanced_accuracy.compute(predictions=predictions, references=references, sample_weight=weights, adjusted=adjusted,
                                confidence_level=LEVEL, ci_method=method, **options)
            low, high = result["balanced_accuracy_ci"]
            if not math.isnan(result["balanced_accuracy"]):
                assert low <= result["balanced_accuracy"] <= high
    informedness = informedness_module
    result = informedness.compute(predictions=predictions, references=references, sample_weight=weights, average="macro",
                                  labels=list(range(num_classes)))
    matrix = sklearn_confusion_matrix(references, predictions, labels=np.arange(num_classes), sample_weight=weights)
    if weights is None:  # integer counts: the same numbers in, the same value out
        assert float(informedness_metric.informedness_average(matrix, "macro")) == result["informedness"]
    if num_classes == 2:
        binary = informedness.compute(predictions=predictions, references=references, sample_weight=weights, confidence_level=LEVEL)
        assert binary["informedness_ci"][0] <= binary["informedness"] <= binary["informedness_ci"][1]


# ---------------------------------------------------------------- informedness: gradient and delta method


def _finite_difference_gradient(confusion, average, averaging, step=1e-5):
    numeric = np.zeros_like(confusion)
    for cell in np.ndindex(confusion.shape):
        bump = np.zeros_like(confusion)
        bump[cell] = step
        numeric[cell] = (
            informedness_metric.informedness_average(confusion + bump, average, averaging=averaging)
            - informedness_metric.informedness_average(confusion - bump, average, averaging=averaging)
        ) / (2 * step)
    return numeric


@pytest.mark.parametrize("num_classes", range(2, 9))
@pytest.mark.parametrize("average", ["bookmaker", "macro", "weighted"])
@pytest.mark.parametrize("zero_division", ["skip", 0.0, 1.0])
@pytest.mark.parametrize("masked", [False, True])
def test_informedness_gradient_matches_central_finite_differences(num_classes, average, zero_division, masked):
    rng = np.random.default_rng(num_classes * 10 + masked)
    confusion = rng.integers(0, 25, (num_classes, num_classes)) + rng.random((num_classes, num_classes))
    if num_classes > 3:
        confusion[1, :] = 0.0  # a class without references (predicted, though): undefined J_1
    mask = np.array([0, num_classes - 1, 1]) if masked and num_classes > 2 else (np.array([0]) if masked else None)
    averaging = Averaging(num_classes, mask, zero_division=zero_division)
    analytic = informedness_metric.informedness_gradient(confusion, average, averaging)
    numeric = _finite_difference_gradient(confusion, average, averaging)
    # Rows without references: a step there makes the class defined (not differentiable).
    rows = confusion.sum(axis=1) > 0
    assert np.abs(analytic - numeric)[rows].max() < 1e-7
    assert abs((confusion * analytic).sum()) < 1e-12  # degree-0 homogeneity (Euler)


def test_informedness_gradient_is_vectorised_and_fast_at_150_classes():
    rng = np.random.default_rng(3)
    batch = rng.integers(0, 20, (4, 5, 5)).astype(float)
    stacked = informedness_metric.informedness_gradient(batch, "bookmaker")
    for index in range(4):
        assert np.allclose(stacked[index], informedness_metric.informedness_gradient(batch[index], "bookmaker"), rtol=0, atol=1e-15)
    confusion = rng.integers(0, 50, (150, 150)).astype(float) + np.diag(np.full(150, 5000.0))
    started = time.perf_counter()
    gradient = informedness_metric.informedness_gradient(confusion, "bookmaker")
    assert time.perf_counter() - started < 0.5  # milliseconds in practice; loose for loaded machines
    assert gradient.shape == (150, 150)


def test_informedness_gradient_is_nan_where_the_value_is_undefined():
    assert np.isnan(informedness_metric.informedness_gradient(np.array([[0.0, 0, 0], [0, 0, 0], [0, 0, 5]]), "bookmaker")).all()


def _independent_delta(confusion, average, level, pseudo_items):
    """theta +- z sqrt(sum n psi^2) with psi from finite differences of an own implementation of informedness."""

    def value(cells):
        total = cells.sum()
        support, predicted, tp = cells.sum(axis=1), cells.sum(axis=0), np.diag(cells)
        per_class = tp / support - (predicted - tp) / (total - support)
        weights = {"bookmaker": predicted, "macro": np.ones_like(support), "weighted": support}[average]
        return float((weights * per_class).sum() / weights.sum())

    smoothed = confusion + pseudo_items / confusion.shape[0]
    gradient = np.zeros_like(confusion)
    for cell in np.ndindex(confusion.shape):
        bump = np.zeros_like(confusion)
        bump[cell] = 1e-6
        gradient[cell] = (value(smoothed + bump) - value(smoothed - bump)) / 2e-6
    half = NormalDist().inv_cdf(0.5 + level / 2) * math.sqrt((smoothed * gradient**2).sum())
    return [max(-1.0, value(confusion) - half), min(1.0, value(confusion) + half)]


@pytest.mark.parametrize("average", ["bookmaker", "macro", "weighted"])
@pytest.mark.parametrize("pseudo_items", [0.0, 0.5])
def test_delta_interval_equals_an_independent_computation(average, pseudo_items):
    rng = np.random.default_rng(11)
    confusion = rng.integers(1, 40, (4, 4)).astype(float) + np.diag([60.0, 30, 20, 10])
    interval = informedness_metric.informedness_delta_interval(confusion, confidence_level=0.9, average=average, pseudo_items=pseudo_items)
    assert interval.as_list() == pytest.approx(_independent_delta(confusion, average, 0.9, pseudo_items), abs=1e-8)
    via_method = informedness_metric.informedness_interval(confusion, confidence_level=0.9, method="delta", average=average)
    if pseudo_items == 0.5:  # the default
        assert via_method.as_list() == interval.as_list()


def test_binary_delta_interval_is_youdens_wald_interval():
    # J = TPR - FPR with TPR 40/50, TNR 45/50: var = TPR FNR / P + TNR FPR / N (no pseudo-items).
    interval = informedness_metric.informedness_delta_interval([[45, 5], [10, 40]], confidence_level=0.95, pseudo_items=0)
    half = NormalDist().inv_cdf(0.975) * math.sqrt(0.8 * 0.2 / 50 + 0.9 * 0.1 / 50)
    assert interval.as_list() == pytest.approx([0.7 - half, 0.7 + half], abs=1e-12)


def test_delta_interval_with_unit_squared_weights_is_the_unweighted_one_and_scales_with_variance_scale():
    rng = np.random.default_rng(12)
    confusion = rng.integers(0, 30, (5, 5)).astype(float) + np.diag(np.full(5, 40.0))
    plain = informedness_metric.informedness_delta_interval(confusion, confidence_level=0.95)
    weighted = informedness_metric.informedness_delta_interval(confusion, confidence_level=0.95, squared_weights=confusion.copy())
    assert weighted.as_list() == pytest.approx(plain.as_list(), abs=1e-14)
    value = float(informedness_metric.informedness_average(confusion))
    doubled = informedness_metric.informedness_delta_interval(confusion, confidence_level=0.95, variance_scale=4.0)
    assert doubled.high - value == pytest.approx(2 * (plain.high - value), rel=1e-12)
    batch = informedness_metric.informedness_delta_interval(np.stack([confusion, confusion]), confidence_level=0.95, variance_scale=[1.0, 4.0])
    assert [batch.low[0], batch.high[0]] == pytest.approx(plain.as_list(), abs=1e-14)
    assert batch.high[1] == pytest.approx(doubled.high, abs=1e-14)


def test_delta_interval_is_nan_with_a_reason_below_two_reference_classes():
    interval = informedness_metric.informedness_delta_interval([[0, 0, 0], [0, 0, 0], [1, 2, 5]], confidence_level=0.95, zero_division=0.0)
    assert math.isnan(interval.low) and interval.reason == "fewer_than_two_reference_classes"


def _own_informedness(cells, average):
    """Informedness written out from its definition (J_c = TPR_c - FPR_c, weighted by the average)."""
    total = cells.sum()
    support, predicted, tp = cells.sum(axis=1), cells.sum(axis=0), np.diag(cells)
    per_class = tp / support - (predicted - tp) / (total - support)
    weights = {"bookmaker": predicted, "macro": np.ones_like(support), "weighted": support}[average]
    return float((weights * per_class).sum() / weights.sum())


def _independent_score(confusion, average, level):
    """The documented linearised score interval, written out: each coefficient w_ij from moving a small
    amount of row i from the diagonal to column j in an own informedness (central differences), the
    row's errors one binomial with weight sign * sqrt(sum_j q_ij w_ij^2), q the row's error shares with
    0.5 pseudo-items over its K - 1 error cells, and the SciPy score interval with the gamma bound
    (tests/support/score_reference.py) of that sum of rates."""
    confusion = np.asarray(confusion, dtype=float)
    num_classes = confusion.shape[0]
    value = _own_informedness(confusion, average)
    support = confusion.sum(axis=1)
    coefficients = np.zeros_like(confusion)
    for i, j in np.ndindex(confusion.shape):
        if i != j:
            move = np.zeros_like(confusion)
            move[i, i], move[i, j] = -1e-6, 1e-6
            per_item = (_own_informedness(confusion + move, average) - _own_informedness(confusion - move, average)) / 2e-6
            coefficients[i, j] = support[i] * per_item
    errors = support - np.diag(confusion)
    weights, successes, shift = [], [], 0.0
    for i in range(num_classes):
        others = [j for j in range(num_classes) if j != i]
        shares = confusion[i, others] + 0.5 / (num_classes - 1)
        shares = shares / shares.sum()
        weight = math.copysign(math.sqrt(float(shares @ coefficients[i, others] ** 2)), float(shares @ coefficients[i, others]))
        rate = errors[i] / support[i]
        shift -= weight * rate
        if weight < 0:  # w e = w + |w| (1 - e): the rows' right answers with the weight's size
            shift += weight
            successes.append(support[i] - errors[i])
        else:
            successes.append(errors[i])
        weights.append(abs(weight))
    low, high = score_sum_reference(successes, support, weights, level)
    low, high = min(value + shift + low, value), max(value + shift + high, value)
    return [max(low, -1.0), min(high, 1.0)]


@pytest.mark.parametrize("average", ["bookmaker", "macro", "weighted"])
@pytest.mark.parametrize(
    "confusion",
    [
        [[45, 1, 0], [0, 44, 1], [1, 0, 8]],  # near-perfect, a class of 9
        [[30, 2, 1, 0], [1, 25, 3, 1], [0, 2, 20, 0], [1, 0, 0, 4]],  # four classes, one of 5
        [[20, 5, 5], [6, 12, 2], [1, 1, 3]],  # mid
        [[10, 0, 0], [0, 10, 0], [0, 0, 3]],  # every item right
        [[50, 6, 4], [4, 24, 2], [1, 2, 7]],  # the module's documented three-class example
    ],
)
def test_score_interval_equals_an_independent_computation(average, confusion):
    interval = informedness_metric.informedness_score_interval(confusion, confidence_level=LEVEL, average=average)
    assert interval.as_list() == pytest.approx(_independent_score(confusion, average, LEVEL), abs=2e-6)
    assert informedness_metric.informedness_interval(confusion, confidence_level=LEVEL, average=average).as_list() == interval.as_list()


def test_score_interval_of_macro_with_equal_classes_is_the_score_interval_of_a_mean_of_recalls():
    # Macro J with three classes of 20: J = 1 - sum_ij n_ij (1/R_i + 1/O_j) / 3 = 1.5 mean(recall) - 0.5 exactly,
    # every coefficient 0.5: the interval is the SciPy score interval of 0.5 sum recall, shifted by -0.5.
    confusion = [[18, 1, 1], [0, 20, 0], [2, 1, 17]]
    low, high = score_sum_reference([18, 20, 17], [20, 20, 20], [0.5, 0.5, 0.5], LEVEL)
    interval = informedness_metric.informedness_score_interval(confusion, confidence_level=LEVEL, average="macro")
    assert interval.as_list() == pytest.approx([low - 0.5, high - 0.5], abs=2e-6)


def test_binary_score_interval_is_the_binary_default():
    for confusion in ([[45, 5], [10, 40]], [[950, 0], [3, 12]], [[20, 0], [0, 5]]):
        linearised = informedness_metric.informedness_score_interval(confusion, confidence_level=LEVEL)
        binary = informedness_metric.informedness_interval(confusion, confidence_level=LEVEL)  # TPR + TNR - 1 as a sum of rates
        assert linearised.as_list() == pytest.approx(binary.as_list(), abs=1e-12)


def test_score_interval_is_never_the_certainty_of_a_perfect_judge_and_nan_below_two_classes():
    interval = informedness_metric.informedness_score_interval([[30, 0, 0], [0, 20, 0], [0, 0, 5]], confidence_level=LEVEL)
    assert interval.high == 1.0 and 0.5 < interval.low < 1.0
    missing = informedness_metric.informedness_score_interval([[0, 0, 0], [0, 0, 0], [1, 2, 5]], confidence_level=LEVEL)
    assert math.isnan(missing.low) and missing.reason == "fewer_than_two_reference_classes"


def test_score_interval_is_vectorised_and_fast_at_150_classes():
    rng = np.random.default_rng(5)
    confusion = rng.integers(0, 3, (150, 150)).astype(float) + np.diag(np.full(150, 40.0))
    informedness_metric.informedness_interval(confusion, confidence_level=LEVEL)
    started = time.perf_counter()
    single = informedness_metric.informedness_interval(confusion, confidence_level=LEVEL)
    assert time.perf_counter() - started < 0.5  # the benchmark's allowance for one K = 150 interval
    batch = informedness_metric.informedness_interval(np.stack([confusion, confusion[::-1, ::-1]]), confidence_level=LEVEL)
    assert [float(batch.low[0]), float(batch.high[0])] == pytest.approx(single.as_list(), abs=1e-12)


def _simulated_coverage(method, sets):
    """Coverage at 95% in the review's ceiling cell: 3 classes of 48/47/5 items, the judge right with
    probability 0.97 (0.90 on the class of 5), its errors spread evenly; bookmaker."""
    rng = np.random.default_rng(2026)
    sizes = np.array([48, 47, 5])
    rows = np.full((3, 3), 0.015)
    np.fill_diagonal(rows, 0.97)
    rows[2] = [0.05, 0.05, 0.90]
    truth = _own_informedness(sizes[:, None] * rows, "bookmaker")
    confusion = np.stack([rng.multinomial(sizes[i], rows[i], size=sets) for i in range(3)], axis=1).astype(float)
    interval = informedness_metric.informedness_interval(confusion, confidence_level=LEVEL, method=method)
    return float(np.mean((interval.low <= truth) & (truth <= interval.high)))


def test_ceiling_cell_coverage_separates_the_score_interval_from_the_delta_method():
    # studies/multiclass_informedness (2,000 sets): delta 0.915, score 0.986; 600 seeded sets keep them apart.
    assert _simulated_coverage("delta", 600) < 0.93
    assert _simulated_coverage(None, 600) >= 0.95


def test_rate_sum_intervals_refuse_delta_naming_the_methods_accepted():
    with pytest.raises(ValueError, match=r"expected one of \('score', 'agresti_coull', 'wilson', 'bootstrap'\)"):
        balanced_accuracy_metric.recall_mean_interval([8, 5], [10, 10], confidence_level=0.95, method="delta")


def test_auto_resamples_bootstrap_uses_fewer_resamples_for_large_matrices():
    assert binomial.auto_resamples(9) == 10_000 and binomial.auto_resamples(150 * 150) == 1_111
    confusion = np.array([[40.0, 5, 5], [3, 20, 2], [1, 1, 8]])
    auto = informedness_metric.informedness_interval(confusion, confidence_level=0.95, method="bootstrap", n_resamples=None, seed=4)
    explicit = informedness_metric.informedness_interval(confusion, confidence_level=0.95, method="bootstrap", n_resamples=10_000, seed=4)
    assert auto.as_list() == explicit.as_list()
