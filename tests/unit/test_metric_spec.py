"""A new metric needs only a spec: a toy metric (specificity averaged over classes) declared by
its value alone gets its interval, cluster-robust interval and paired comparison from the
shared path, each checked here against a direct computation written from the formulas
(per-sample influences, not the counts code under test)."""

import math
from statistics import NormalDist

import datasets
import evaluate
import numpy as np
import pytest
from scipy import stats

from shared.glue.metric import LabelsMetric
from shared.glue.reduction import rate_spec

LEVEL = 0.95
Z = NormalDist().inv_cdf(0.975)


def mean_specificity(matrix):
    """Mean over classes of TN_c / (TN_c + FP_c), from a K x K confusion matrix."""
    matrix = np.asarray(matrix, dtype=np.float64)
    total, rows, columns, diagonal = matrix.sum(), matrix.sum(axis=1), matrix.sum(axis=0), np.diagonal(matrix)
    negatives = total - rows
    true_negatives = total - rows - columns + diagonal
    return float(np.mean(true_negatives / negatives))


class MeanSpecificity(LabelsMetric):
    """The toy metric: nothing but its spec and its (empty) docs."""

    SPEC = rate_spec("mean_specificity", mean_specificity)

    def _info(self):
        return evaluate.MetricInfo(description="toy", citation="", inputs_description="",
                                   features=datasets.Features({"predictions": datasets.Value("int64"),
                                                               "references": datasets.Value("int64")}))


def direct_gradient(value, matrix, step=1e-5):
    """d value / d count of each cell, by forward differences on a copy (independent of the module)."""
    matrix = np.asarray(matrix, dtype=np.float64)
    base, gradient = value(matrix), np.zeros(matrix.shape)
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            moved = matrix.copy()
            moved[i, j] += step
            gradient[i, j] = (value(moved) - base) / step
    return gradient


def confusion(references, predictions, k):
    matrix = np.zeros((k, k))
    np.add.at(matrix, (references, predictions), 1.0)
    return matrix


def within_class_variance(psi, references):
    """sum_i (psi_i - mean of psi over the items of i's reference class)^2."""
    total = 0.0
    for c in np.unique(references):
        values = psi[references == c]
        total += float(np.sum((values - values.mean()) ** 2))
    return total


def data(seed, n=240, k=3):
    rng = np.random.default_rng(seed)
    references = rng.integers(0, k, n)
    predictions = np.where(rng.random(n) < 0.7, references, rng.integers(0, k, n))
    baseline = np.where(rng.random(n) < 0.6, references, rng.integers(0, k, n))
    return references, predictions, baseline


@pytest.mark.parametrize("seed", [0, 1])
def test_value_and_interval_match_the_delta_method_written_out(seed):
    references, predictions, _ = data(seed)
    result = MeanSpecificity().compute(predictions=predictions, references=references, confidence_level=LEVEL)
    matrix = confusion(references, predictions, 3)
    assert result["mean_specificity"] == pytest.approx(mean_specificity(matrix), abs=1e-15)
    psi = direct_gradient(mean_specificity, matrix)[references, predictions]
    half = Z * math.sqrt(within_class_variance(psi, references))
    assert result["mean_specificity_ci"] == pytest.approx([result["mean_specificity"] - half, result["mean_specificity"] + half], abs=1e-6)
    assert isinstance(result["mean_specificity"], float) and "num_clusters" not in result


def test_clusters_give_the_bell_mccaffrey_design_effect_and_t_interval():
    references, predictions, _ = data(2, n=300)
    clusters = np.repeat(np.arange(30), 10)
    result = MeanSpecificity().compute(predictions=predictions, references=references, clusters=clusters, confidence_level=LEVEL)
    matrix = confusion(references, predictions, 3)
    psi = direct_gradient(mean_specificity, matrix)[references, predictions]
    sums = np.bincount(clusters, weights=psi)
    sums -= sums.mean()
    leverage = np.bincount(clusters, weights=psi**2) / np.sum(psi**2)
    measured = float(np.sum(sums**2 / (1 - leverage)) / np.sum(psi**2))
    assert result["num_clusters"] == 30
    assert result["design_effect"] == pytest.approx(measured, rel=1e-4)
    df = min(30.0, 1.0 / np.sum(leverage**2)) - 1.0
    factor = max(measured, 1.0) * (stats.t.ppf(0.975, df) / Z) ** 2
    half = Z * math.sqrt(within_class_variance(psi, references) * factor)
    value = result["mean_specificity"]
    assert result["mean_specificity_ci"] == pytest.approx([value - half, value + half], abs=1e-5)
    # Every item its own cluster: the independent interval (the design effect exactly 1, no t widening).
    alone = MeanSpecificity().compute(predictions=predictions, references=references, clusters=np.arange(300),
                                      confidence_level=LEVEL)
    independent = MeanSpecificity().compute(predictions=predictions, references=references, confidence_level=LEVEL)
    width = np.diff(independent["mean_specificity_ci"])[0]
    assert alone["design_effect"] == pytest.approx(1.0, abs=1e-12)
    assert alone["mean_specificity_ci"] == pytest.approx(independent["mean_specificity_ci"], abs=1e-12)


def test_paired_comparison_matches_the_delta_method_on_joint_counts():
    references, predictions, baseline = data(3, n=400)
    result = MeanSpecificity().compute(predictions=predictions, references=references, baseline_predictions=baseline,
                                       confidence_level=LEVEL)
    system_matrix, baseline_matrix = confusion(references, predictions, 3), confusion(references, baseline, 3)
    difference = mean_specificity(system_matrix) - mean_specificity(baseline_matrix)
    assert result["baseline_mean_specificity"] == pytest.approx(mean_specificity(baseline_matrix), abs=1e-15)
    assert result["mean_specificity_difference"] == pytest.approx(difference, abs=1e-15)
    psi = (direct_gradient(mean_specificity, system_matrix)[references, predictions]
           - direct_gradient(mean_specificity, baseline_matrix)[references, baseline])
    se = math.sqrt(within_class_variance(psi, references))
    assert result["mean_specificity_difference_ci"] == pytest.approx([difference - Z * se, difference + Z * se], abs=1e-6)
    assert result["mean_specificity_difference_p_value"] == pytest.approx(2 * (1 - NormalDist().cdf(abs(difference) / se)), abs=1e-6)
    # With clusters, the comparison is cluster-robust and says so.
    clustered = MeanSpecificity().compute(predictions=predictions, references=references, baseline_predictions=baseline,
                                          clusters=np.repeat(np.arange(40), 10), confidence_level=LEVEL)
    assert clustered["num_clusters"] == 40 and clustered["mean_specificity_difference_design_effect"] > 0
    assert clustered["mean_specificity_difference"] == result["mean_specificity_difference"]


def test_streamed_batches_give_the_result_of_one_call():
    references, predictions, baseline = data(4)
    metric = MeanSpecificity()
    for start in range(0, 240, 60):
        metric.add_batch(predictions=predictions[start:start + 60], references=references[start:start + 60],
                         baseline_predictions=baseline[start:start + 60])
    streamed = metric.compute(confidence_level=LEVEL)
    once = MeanSpecificity().compute(predictions=predictions, references=references, baseline_predictions=baseline,
                                     confidence_level=LEVEL)
    assert streamed == once
