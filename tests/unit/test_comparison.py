"""shared/comparison.py: the paired difference of two systems on one golden set, from joint counts.

Expected values come from scikit-learn on generated samples, from a one-vs-rest formula
checked against scikit-learn's confusion matrix, or from a small simulation; none is a
number copied from this code's own output.
"""

import doctest

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score
from sklearn.metrics import confusion_matrix

from shared.metrics.balanced_accuracy import balanced_accuracy_difference
from shared.metrics.informedness import informedness_difference
from shared.stats import paired_tests
from shared.metrics import balanced_accuracy as balanced_accuracy_metric
from shared.stats import binomial
from shared.metrics import informedness as informedness_metric
from conftest import load_study


def joint_counts(references, predictions, baseline, num_classes, weights=None):
    """joint[r, a, b] (and the squared-weight sums) counted with np.add.at, item by item."""
    joint = np.zeros((num_classes,) * 3)
    squared = np.zeros((num_classes,) * 3)
    weights = np.ones(len(references)) if weights is None else np.asarray(weights, dtype=float)
    np.add.at(joint, (references, predictions, baseline), weights)
    np.add.at(squared, (references, predictions, baseline), weights**2)
    return joint, squared


def correlated_samples(rng, size, num_classes, prior, accuracy_a, accuracy_b, copy):
    """Items labelled by two judges; B copies A's label with probability ``copy``."""
    references = rng.choice(num_classes, size=size, p=prior)
    noise_a = rng.integers(0, num_classes, size)
    noise_b = rng.integers(0, num_classes, size)
    predictions = np.where(rng.random(size) < accuracy_a, references, noise_a)
    own = np.where(rng.random(size) < accuracy_b, references, noise_b)
    baseline = np.where(rng.random(size) < copy, predictions, own)
    return references, predictions, baseline


def one_vs_rest_informedness(references, predictions, num_classes, average):
    """Per class J_c = TPR_c - FPR_c from sklearn's confusion matrix, averaged as the module does."""
    matrix = confusion_matrix(references, predictions, labels=list(range(num_classes))).astype(float)
    total = matrix.sum()
    per_class, weights = [], []
    for c in range(num_classes):
        tp = matrix[c, c]
        fn = matrix[c].sum() - tp
        fp = matrix[:, c].sum() - tp
        tn = total - tp - fn - fp
        per_class.append(tp / (tp + fn) - fp / (fp + tn))
        weights.append({"bookmaker": tp + fp, "macro": 1.0, "weighted": tp + fn}[average])
    return float(np.dot(weights, per_class) / np.sum(weights))


# ---------------------------------------------------------------- values against scikit-learn


@pytest.mark.parametrize("num_classes", [2, 3, 5])
@pytest.mark.parametrize("method", ["newcombe", "bootstrap"])
def test_balanced_accuracy_difference_is_the_difference_of_sklearn_values(num_classes, method):
    rng = np.random.default_rng(num_classes)
    prior = rng.dirichlet(np.ones(num_classes) * 3)
    references, predictions, baseline = correlated_samples(rng, 800, num_classes, prior, 0.7, 0.6, 0.5)
    joint, _ = joint_counts(references, predictions, baseline, num_classes)
    result = balanced_accuracy_difference(joint, method=method, n_resamples=500, seed=0)
    expected_a = balanced_accuracy_score(references, predictions)
    expected_b = balanced_accuracy_score(references, baseline)
    assert result["value"] == pytest.approx(expected_a, abs=1e-12)
    assert result["baseline_value"] == pytest.approx(expected_b, abs=1e-12)
    assert result["difference"] == pytest.approx(expected_a - expected_b, abs=1e-12)
    low, high = result["difference_ci"]
    assert low <= result["difference"] <= high
    assert 0.0 <= result["p_value"] <= 1.0


def test_adjusted_and_weighted_balanced_accuracy_match_sklearn():
    rng = np.random.default_rng(7)
    references, predictions, baseline = correlated_samples(rng, 600, 4, [0.4, 0.3, 0.2, 0.1], 0.7, 0.65, 0.4)
    weights = rng.uniform(0.2, 3.0, references.size)
    joint, squared = joint_counts(references, predictions, baseline, 4, weights)
    result = balanced_accuracy_difference(joint, joint_w2=squared, adjusted=True)
    expected_a = balanced_accuracy_score(references, predictions, sample_weight=weights, adjusted=True)
    expected_b = balanced_accuracy_score(references, baseline, sample_weight=weights, adjusted=True)
    assert result["difference"] == pytest.approx(expected_a - expected_b, abs=1e-12)
    low, high = result["difference_ci"]
    assert low < result["difference"] < high


def test_class_mask_and_zero_division_follow_the_mean_of_selected_recalls():
    rng = np.random.default_rng(3)
    references, predictions, baseline = correlated_samples(rng, 500, 3, [0.5, 0.3, 0.2], 0.8, 0.6, 0.3)
    joint, _ = joint_counts(references, predictions, baseline, 4)  # class 3: no references
    recall = lambda guess, c: float(np.mean(guess[references == c] == c))  # noqa: E731
    masked = balanced_accuracy_difference(joint, class_mask=[0, 2])
    expected = (recall(predictions, 0) + recall(predictions, 2)) / 2 - (recall(baseline, 0) + recall(baseline, 2)) / 2
    assert masked["difference"] == pytest.approx(expected, abs=1e-12)
    # zero_division=1: the empty class counts as 1 for both systems (a fixed convention).
    filled = balanced_accuracy_difference(joint, zero_division=1.0)
    skipped = balanced_accuracy_difference(joint)
    assert filled["value"] == pytest.approx((3 * skipped["value"] + 1.0) / 4, abs=1e-12)
    assert filled["difference"] == pytest.approx(skipped["difference"] * 3 / 4, abs=1e-12)
    assert np.allclose(filled["difference_ci"], np.multiply(skipped["difference_ci"], 3 / 4))
    empty = balanced_accuracy_difference(joint, class_mask=[3])
    assert np.isnan(empty["difference"]) and empty["reason"] == "empty_class_mask_after_filtering"


@pytest.mark.parametrize("average", ["bookmaker", "macro", "weighted"])
@pytest.mark.parametrize("num_classes", [2, 4])
@pytest.mark.parametrize("method", [None, "delta", "bootstrap"])
def test_informedness_difference_is_the_difference_of_one_vs_rest_values(average, num_classes, method):
    rng = np.random.default_rng(10 * num_classes + len(average))
    prior = rng.dirichlet(np.ones(num_classes) * 3)
    references, predictions, baseline = correlated_samples(rng, 700, num_classes, prior, 0.6, 0.55, 0.5)
    joint, _ = joint_counts(references, predictions, baseline, num_classes)
    result = informedness_difference(joint, average=average, method=method, n_resamples=400, seed=1)
    expected_a = one_vs_rest_informedness(references, predictions, num_classes, average)
    expected_b = one_vs_rest_informedness(references, baseline, num_classes, average)
    assert result["value"] == pytest.approx(expected_a, abs=1e-12)
    assert result["difference"] == pytest.approx(expected_a - expected_b, abs=1e-12)
    low, high = result["difference_ci"]
    assert low <= result["difference"] <= high
    if num_classes == 2:  # Youden's J = 2 BA - 1
        assert result["difference"] == pytest.approx(
            2 * (balanced_accuracy_score(references, predictions) - balanced_accuracy_score(references, baseline)), abs=1e-12
        )


@pytest.mark.parametrize("average", ["bookmaker", "macro", "weighted"])
def test_informedness_gradient_matches_finite_differences(average):
    rng = np.random.default_rng(5)
    confusion = rng.integers(1, 30, (4, 4)).astype(float)
    analytic = informedness_metric.informedness_gradient(confusion, average)
    numeric = np.zeros_like(confusion)
    step = 1e-6
    for cell in np.ndindex(confusion.shape):
        bump = np.zeros_like(confusion)
        bump[cell] = step
        numeric[cell] = (
            informedness_metric.informedness_average(confusion + bump, average) - informedness_metric.informedness_average(confusion - bump, average)
        ) / (2 * step)
    assert np.allclose(analytic, numeric, atol=1e-7)


# ---------------------------------------------------------------- symmetry and identical systems


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "function, options",
    [
        (balanced_accuracy_difference, {"method": "newcombe"}),
        (balanced_accuracy_difference, {"method": "bootstrap", "seed": 3, "n_resamples": 300}),
        (balanced_accuracy_difference, {"adjusted": True, "class_mask": [0, 1]}),
        (informedness_difference, {}),
        (informedness_difference, {"average": "macro", "method": "bootstrap", "seed": 3, "n_resamples": 300}),
    ],
)
def test_swapping_the_systems_flips_the_difference_and_its_interval_exactly(function, options, weighted):
    rng = np.random.default_rng(11)
    for num_classes in (2, 3):
        references, predictions, baseline = correlated_samples(rng, 300, num_classes, np.ones(num_classes) / num_classes, 0.7, 0.6, 0.6)
        weights = rng.uniform(0.5, 2.0, references.size) if weighted else None
        joint, squared = joint_counts(references, predictions, baseline, num_classes, weights)
        swapped_joint, swapped_squared = joint_counts(references, baseline, predictions, num_classes, weights)
        w2 = (squared, swapped_squared) if weighted else (None, None)
        forward = function(joint, joint_w2=w2[0], **options)
        backward = function(swapped_joint, joint_w2=w2[1], **options)
        assert backward["difference"] == -forward["difference"]
        assert backward["difference_ci"] == [-forward["difference_ci"][1], -forward["difference_ci"][0]]
        assert backward["p_value"] == forward["p_value"]
        assert (backward["value"], backward["baseline_value"]) == (forward["baseline_value"], forward["value"])


@pytest.mark.parametrize("method", ["newcombe", "bootstrap"])
def test_identical_systems_give_zero_difference_and_p_value_one(method):
    rng = np.random.default_rng(2)
    references, predictions, _ = correlated_samples(rng, 400, 3, [0.5, 0.3, 0.2], 0.7, 0.7, 0.0)
    joint, _ = joint_counts(references, predictions, predictions, 3)
    for result in (
        balanced_accuracy_difference(joint, method=method, seed=0, n_resamples=300),
        informedness_difference(joint, method="delta" if method == "newcombe" else method, seed=0, n_resamples=300),
    ):
        assert result["difference"] == 0.0 and result["p_value"] == 1.0
        low, high = result["difference_ci"]
        assert low <= 0.0 <= high and low == -high


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="joint"):
        balanced_accuracy_difference(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="joint_w2"):
        balanced_accuracy_difference(np.ones((2, 2, 2)), joint_w2=np.ones((3, 3, 3)))
    with pytest.raises(ValueError, match="method"):
        informedness_difference(np.ones((3, 3, 3)), method="newcombe")
    with pytest.raises(ValueError, match="class_mask"):
        balanced_accuracy_difference(np.ones((2, 2, 2)), class_mask=[5])


# ---------------------------------------------------------------- the p-value and the paired interval


def test_mid_p_is_mcnemars_mid_p_for_one_stratum():
    """One class: the exact mid-p McNemar test from the binomial distribution directly."""
    from math import comb

    for first_only, second_only in [(7, 1), (3, 3), (12, 4), (0, 5)]:
        m = first_only + second_only
        pmf = [comb(m, k) / 2**m for k in range(m + 1)]
        high = max(first_only, second_only)
        one_sided = sum(pmf[high + 1 :]) + 0.5 * pmf[high]
        expected = min(1.0, 2 * one_sided)
        assert paired_tests.stratified_mcnemar_mid_p([2 * m + 1], [first_only], [second_only]) == pytest.approx(expected, rel=1e-12)


def test_newcombe_without_correlation_is_the_unpaired_square_and_add():
    """phi = 0 (independent margins): MOVER of the two Wilson intervals (binomial.rate_sum_interval)."""
    # 2 x 2 table with both * neither == first_only * second_only: zero sample correlation.
    both, first_only, second_only, neither = 20.0, 10.0, 40.0, 20.0
    total = both + first_only + second_only + neither
    _, low, high = paired_tests.newcombe_paired_interval(both, first_only, second_only, neither)
    unpaired = binomial.rate_sum_interval(
        [both + first_only, both + second_only], [total, total], [1.0, -1.0], method="wilson", bounds=(-1.0, 1.0)
    )
    assert [float(low), float(high)] == pytest.approx(unpaired.as_list(), abs=1e-12)


def test_paired_interval_is_narrower_than_combining_the_separate_intervals():
    rng = np.random.default_rng(4)
    references, predictions, baseline = correlated_samples(rng, 1000, 3, [0.6, 0.3, 0.1], 0.75, 0.7, 0.8)
    joint, _ = joint_counts(references, predictions, baseline, 3)
    paired = balanced_accuracy_difference(joint)
    support = joint.sum(axis=(1, 2))
    halves = []
    for guess in (predictions, baseline):
        correct = np.array([np.sum((references == c) & (guess == c)) for c in range(3)])
        value = balanced_accuracy_score(references, guess)
        interval = balanced_accuracy_metric.recall_mean_interval(correct, support, confidence_level=0.95, method="wilson")
        halves.append((value - interval.low, interval.high - value))
    (a_below, a_above), (b_below, b_above) = halves
    separate = np.hypot(a_below, b_above) + np.hypot(a_above, b_below)
    width = paired["difference_ci"][1] - paired["difference_ci"][0]
    assert width < 0.8 * separate


def test_small_simulation_coverage_and_type_one_error():
    """300 golden sets per setting, judges agreeing on 85% of items: loose bands (Monte Carlo
    error at 300 sets is about 1.3 points for coverage)."""
    study = load_study("paired_comparison")

    rng = np.random.default_rng(2024)
    for name, check in (("A better", "coverage"), ("equal", "type_one")):
        judges = study.BINARY_JUDGES[name]
        probabilities, _ = study.binary_joint(judges, 0.85)
        joint = study.simulate(rng, 300, [280, 120], probabilities)
        (tpr_a, tnr_a), (tpr_b, tnr_b) = judges
        truth = (tpr_a + tnr_a - tpr_b - tnr_b) / 2
        result = balanced_accuracy_difference(joint)
        low, high = result["difference_ci"]
        coverage = np.mean((low <= truth) & (truth <= high))
        assert 0.91 <= coverage <= 0.99
        if check == "type_one":
            assert 0.02 <= np.mean(result["p_value"] < 0.05) <= 0.09
        informed = informedness_difference(joint, method="delta")
        low, high = informed["difference_ci"]
        assert 0.91 <= np.mean((low <= 2 * truth) & (2 * truth <= high)) <= 0.99


def test_docstring_examples():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs = {"np": np, "balanced_accuracy_difference": balanced_accuracy_difference,
             "informedness_difference": informedness_difference}
    for function in (balanced_accuracy_difference, informedness_difference):
        for test in finder.find(function, globs=globs):
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0 and results.attempted > 0
