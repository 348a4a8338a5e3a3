"""Cluster-robust intervals (issue 25): ``clusters=`` and the N-d default, in every label module.

The design effect each module reports is checked against one computed here independently:
each sample's influence is the numerical derivative of the metric with respect to that
sample's weight (scikit-learn's ``balanced_accuracy_score`` with ``sample_weight``, or
Powers' bookmaker informedness written out below), summed per cluster.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import balanced_accuracy_score

from shared.stats.distributions import t_quantile
from shared.tooling.modules import CLASS_MODULES, LABEL_MODULES
from shared.tooling.modules import module as registry_entry


def value_key(name):
    """The result key of the module's value (the registry's ``value_key``; a module's name need not be it)."""
    return registry_entry(name).value_key


def numeric_influence(metric, references, predictions, step=1e-6):
    """d metric / d (weight of sample i), by central differences, for every sample."""
    base = np.ones(len(references))
    influence = np.empty(len(references))
    for i in range(len(references)):
        up, down = base.copy(), base.copy()
        up[i] += step
        down[i] -= step
        influence[i] = (metric(references, predictions, up) - metric(references, predictions, down)) / (2 * step)
    return influence


def expected_design_effect(influence, clusters):
    """sum_g (sum_{i in g} psi_i - mean)^2 / (1 - h_g) over sum_i psi_i^2, with h_g = sum_{i in g} psi_i^2 /
    sum_i psi_i^2 (Bell & McCaffrey's correction under working independence; G / (G - 1) for equal h_g)."""
    _, cluster = np.unique(clusters, return_inverse=True)
    groups = cluster.max() + 1
    per_cluster = np.array([influence[cluster == g].sum() for g in range(groups)])
    per_cluster -= per_cluster.mean()
    leverage = np.array([np.sum(influence[cluster == g] ** 2) for g in range(groups)]) / np.sum(influence**2)
    return np.sum(per_cluster**2 / (1 - leverage)) / np.sum(influence**2)


def test_equal_leverage_is_the_usual_small_sample_factor():
    influence = np.array([0.5, 0.5, -0.5, -0.5, 0.25, -0.25])
    clusters = np.array([0, 0, 1, 1, 2, 2])
    per_cluster = np.array([1.0, -1.0, 0.0])
    leverage = np.array([0.5, 0.5, 0.125]) / 1.125
    assert expected_design_effect(influence, clusters) == pytest.approx(np.sum(per_cluster**2 / (1 - leverage)) / 1.125)
    # Two clusters alike: 1 / (1 - 1/2) is G / (G - 1); sums +1 and -1 over sum psi^2 = 1.
    alike = np.array([0.5, 0.5, -0.5, -0.5])
    assert expected_design_effect(alike, np.arange(4) // 2) == pytest.approx(2 / (2 - 1) * (1 + 1) / 1.0)


def bookmaker_informedness(references, predictions, weights, num_classes=3):
    """Powers' bookmaker informedness sum_c (predicted share of c) (TPR_c - FPR_c), weighted."""
    matrix = np.zeros((num_classes, num_classes))
    np.add.at(matrix, (references, predictions), weights)
    total = matrix.sum()
    value = 0.0
    for c in range(num_classes):
        support, predicted, tp = matrix[c].sum(), matrix[:, c].sum(), matrix[c, c]
        value += predicted / total * (tp / support - (predicted - tp) / (total - support))
    return value


def conversations(rng, groups=30, low=3, high=10):
    sizes = rng.integers(low, high + 1, groups)
    return np.repeat(np.arange(groups), sizes)


def test_t_quantile_matches_scipy():
    for df in (1, 2, 3, 4, 5, 9, 19, 49, 199, 2000):
        for probability in (0.9, 0.95, 0.975, 0.995, 0.9995):
            assert t_quantile(probability, df) == pytest.approx(stats.t.ppf(probability, df), abs=1e-8)


def test_balanced_accuracy_design_effect_is_the_linearised_variance_ratio(load):
    rng = np.random.default_rng(11)
    clusters = conversations(rng)
    hard = rng.random(clusters.max() + 1)[clusters]
    references = rng.choice(3, clusters.size, p=[0.6, 0.3, 0.1])
    predictions = np.where(rng.random(clusters.size) < 0.95 - 0.5 * hard, references, rng.integers(0, 3, clusters.size))
    result = load("balanced_accuracy").compute(predictions=predictions, references=references, clusters=clusters, confidence_level=0.95)

    def metric(y, p, w):
        return balanced_accuracy_score(y, p, sample_weight=w)

    expected = expected_design_effect(numeric_influence(metric, references, predictions), clusters)
    assert result["design_effect"] == pytest.approx(expected, rel=1e-6)
    assert result["num_clusters"] == clusters.max() + 1
    plain = load("balanced_accuracy").compute(predictions=predictions, references=references, confidence_level=0.95)
    width, plain_width = (np.diff(r["balanced_accuracy_ci"])[0] for r in (result, plain))
    assert result["design_effect"] > 1 and width > plain_width


def test_informedness_design_effect_is_the_linearised_variance_ratio(load):
    rng = np.random.default_rng(12)
    clusters = conversations(rng, groups=25)
    hard = rng.random(clusters.max() + 1)[clusters]
    references = rng.choice(3, clusters.size, p=[0.5, 0.3, 0.2])
    predictions = np.where(rng.random(clusters.size) < 0.9 - 0.5 * hard, references, rng.integers(0, 3, clusters.size))
    result = load("informedness").compute(predictions=predictions, references=references, clusters=clusters, confidence_level=0.95)
    expected = expected_design_effect(numeric_influence(bookmaker_informedness, references, predictions), clusters)
    assert result["informedness"] == pytest.approx(bookmaker_informedness(references, predictions, np.ones(clusters.size)), abs=1e-12)
    assert result["design_effect"] == pytest.approx(expected, rel=1e-6)


def test_paired_difference_design_effect_is_that_of_the_difference(load):
    rng = np.random.default_rng(13)
    clusters = conversations(rng)
    hard = rng.random(clusters.max() + 1)[clusters]
    references = (rng.random(clusters.size) < 0.3).astype(int)
    system = np.where(rng.random(clusters.size) < 0.95 - 0.4 * hard, references, 1 - references)
    baseline = np.where(rng.random(clusters.size) < 0.85 - 0.4 * hard, references, 1 - references)
    result = load("balanced_accuracy").compute(predictions=system, references=references, baseline_predictions=baseline,
                                               clusters=clusters, confidence_level=0.95)

    def difference(y, both, w):
        return balanced_accuracy_score(y, both[0], sample_weight=w) - balanced_accuracy_score(y, both[1], sample_weight=w)

    influence = numeric_influence(difference, references, np.stack([system, baseline]))
    assert result["balanced_accuracy_difference_design_effect"] == pytest.approx(expected_design_effect(influence, clusters), rel=1e-6)
    alone = load("balanced_accuracy").compute(predictions=system, references=references, baseline_predictions=baseline,
                                              confidence_level=0.95)
    assert result["balanced_accuracy_difference"] == alone["balanced_accuracy_difference"]


def sign_pattern_mid_p(per_cluster):
    """The two-sided mid-p over every sign pattern of the clusters' contributions, enumerated here."""
    signs = 1 - 2 * ((np.arange(2 ** per_cluster.size)[:, None] >> np.arange(per_cluster.size)) & 1)
    totals = np.abs(signs @ per_cluster)
    observed, tolerance = abs(per_cluster.sum()), 1e-9 * np.abs(per_cluster).sum()
    return np.mean(totals > observed + tolerance) + 0.5 * np.mean(np.abs(totals - observed) <= tolerance)


@pytest.mark.parametrize("name, classes", [("balanced_accuracy", 3), ("informedness", 2)])
def test_paired_p_value_with_clusters_swaps_the_systems_within_clusters(load, name, classes):
    """With clusters, the comparison's p-value is the randomisation test that swaps the two systems'
    predictions within clusters: each cluster's contribution to the difference changes sign. For a
    mean of recalls (and binary J = TPR + TNR - 1) an item's contribution is written out here:
    (A right - B right) / (classes averaged x its class's count), and J's is twice balanced
    accuracy's. 13 conversations: all 8,192 sign patterns are enumerated."""
    rng = np.random.default_rng(31)
    clusters = conversations(rng, groups=13)
    hard = rng.random(clusters.max() + 1)[clusters]
    references = rng.choice(classes, clusters.size, p=[0.6, 0.3, 0.1][:classes] / np.sum([0.6, 0.3, 0.1][:classes]))
    wrong = (references + 1 + rng.integers(0, classes - 1, clusters.size)) % classes
    system = np.where(rng.random(clusters.size) < 0.9 - 0.4 * hard, references, wrong)
    baseline = np.where(rng.random(clusters.size) < 0.8 - 0.4 * hard, references, wrong)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = load(name).compute(predictions=system, references=references, baseline_predictions=baseline,
                                    clusters=clusters)
    sizes = np.bincount(references, minlength=classes)
    scale = 1.0 if name == "informedness" else 1.0 / classes
    contribution = scale * ((system == references).astype(float) - (baseline == references)) / sizes[references]
    per_cluster = np.bincount(clusters, contribution)
    assert result[f"{value_key(name)}_difference"] == pytest.approx(per_cluster.sum(), abs=1e-12)
    assert result[f"{value_key(name)}_difference_p_value"] == pytest.approx(sign_pattern_mid_p(per_cluster), abs=1e-12)
    assert result["num_clusters"] == 13


def test_weighted_paired_p_value_with_clusters_swaps_weighted_contributions(load):
    """With sample weights a recall is a weighted share, so an item's contribution is its weight times
    (A right - B right) / (classes x its class's weight)."""
    rng = np.random.default_rng(4)
    clusters = np.repeat(np.arange(12), rng.integers(3, 9, 12))
    references = rng.choice(3, clusters.size, p=[0.6, 0.3, 0.1])
    weights = rng.uniform(0.5, 2.0, clusters.size)
    system = np.where(rng.random(clusters.size) < 0.8, references, (references + 1) % 3)
    baseline = np.where(rng.random(clusters.size) < 0.75, references, (references + 2) % 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = load("balanced_accuracy").compute(predictions=system, references=references, baseline_predictions=baseline,
                                                   clusters=clusters, sample_weight=weights)
    class_weight = np.bincount(references, weights, minlength=3)
    contribution = weights * ((system == references).astype(float) - (baseline == references)) / (3 * class_weight[references])
    per_cluster = np.bincount(clusters, contribution)
    assert result["balanced_accuracy_difference"] == pytest.approx(per_cluster.sum(), abs=1e-12)
    assert result["balanced_accuracy_difference_p_value"] == pytest.approx(sign_pattern_mid_p(per_cluster), abs=1e-12)


def test_paired_p_value_with_every_item_alone_is_the_independent_test(load):
    rng = np.random.default_rng(32)
    references = rng.choice(3, 150, p=[0.6, 0.3, 0.1])
    system = np.where(rng.random(150) < 0.85, references, (references + 1) % 3)
    baseline = np.where(rng.random(150) < 0.75, references, (references + 2) % 3)
    metric = load("balanced_accuracy")
    alone = metric.compute(predictions=system, references=references, baseline_predictions=baseline, clusters=np.arange(150))
    plain = metric.compute(predictions=system, references=references, baseline_predictions=baseline)
    assert alone["balanced_accuracy_difference_p_value"] == plain["balanced_accuracy_difference_p_value"]


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_leading_axis_is_the_default_cluster_and_clusters_override_it(load, name):
    rng = np.random.default_rng(14)
    references = rng.integers(0, 3, (12, 40))
    difficulty = rng.random((12, 1))
    predictions = np.where(rng.random(references.shape) < 0.95 - 0.6 * difficulty, references, rng.integers(0, 3, references.shape))
    metric = load(name)
    default = metric.compute(predictions=predictions, references=references, confidence_level=0.95)
    explicit = metric.compute(predictions=predictions.ravel(), references=references.ravel(), confidence_level=0.95,
                              clusters=np.repeat(np.arange(12), 40))
    # Issue 33: the same interval, and the default clusters say where they came from.
    assert default == {**explicit, "clusters_from": "leading_axis"} and "clusters_from" not in explicit
    assert default["num_clusters"] == 12
    # clusters= overrides the default: pairs of images as one cluster each.
    paired = metric.compute(predictions=predictions, references=references, confidence_level=0.95, clusters=np.arange(12) // 2)
    assert paired["num_clusters"] == 6


@pytest.mark.parametrize("name", CLASS_MODULES)
def test_results_without_an_interval_do_not_change_with_clusters(load, name):
    rng = np.random.default_rng(15)
    references = rng.integers(0, 3, 90)
    predictions = rng.normal(size=(90, 3)) + np.eye(3)[references] if name == "balanced_topk_accuracy" else \
        np.where(rng.random(90) < 0.7, references, rng.integers(0, 3, 90))
    metric = load(name)
    plain = metric.compute(predictions=predictions, references=references)
    assert metric.compute(predictions=predictions, references=references, clusters=np.arange(90) // 3) == plain


def test_streamed_batches_equal_one_compute(load):
    rng = np.random.default_rng(16)
    clusters = np.array([f"conversation-{i}" for i in conversations(rng, groups=20)])
    references = rng.integers(0, 2, clusters.size)
    predictions = np.where(rng.random(clusters.size) < 0.8, references, 1 - references)
    metric = load("balanced_accuracy")
    once = metric.compute(predictions=predictions, references=references, clusters=clusters, confidence_level=0.9)
    # A conversation split across batches is still one cluster.
    for part in np.array_split(np.arange(clusters.size), 7):
        metric.add_batch(predictions=predictions[part], references=references[part], clusters=clusters[part])
    assert metric.compute(confidence_level=0.9) == once


@pytest.mark.parametrize("predictions", [[0, 1, 0, 1], [0.2, 0.7, 0.4, 0.9]], ids=["labels", "scores"])
def test_a_batch_without_clusters_beside_one_with_them_is_refused(load, predictions):
    # Before, scores kept for a compute-time threshold were merged anyway: a KeyError 'clusters' at
    # add_batch in one order, and NumPy's "weights and list don't have the same length" at compute in the other.
    metric = load("balanced_accuracy")
    for first, second in (({"clusters": [0, 0, 1, 1]}, {}), ({}, {"clusters": [0, 0, 1, 1]})):
        metric.add_batch(predictions=predictions, references=[0, 1, 0, 1], **first)
        with pytest.raises(ValueError, match="^clusters: expected .* like the earlier batches, found"):
            metric.add_batch(predictions=predictions, references=[0, 1, 0, 1], **second)
        metric.compute(threshold=0.5)  # the refused batch was not added; the next run starts empty
    whole = metric.compute(predictions=predictions * 2, references=[0, 1, 0, 1, 1, 1, 0, 0], clusters=[0, 0, 1, 1, 2, 2, 3, 3],
                           threshold=0.5, confidence_level=0.9)
    metric.add_batch(predictions=predictions, references=[0, 1, 0, 1], clusters=[0, 0, 1, 1])
    metric.add_batch(predictions=predictions, references=[1, 1, 0, 0], clusters=[2, 2, 3, 3])
    assert metric.compute(threshold=0.5, confidence_level=0.9) == whole


def test_n_d_batches_need_their_clusters_counted_for_a_later_interval(load):
    rng = np.random.default_rng(17)
    maps = rng.integers(0, 3, (4, 8, 8))
    metric = load("balanced_accuracy")
    for image in maps:
        metric.add_batch(predictions=image[None], references=image[None])
    with pytest.warns(UserWarning, match=r"^clusters: the interval is NaN \(reason 'clusters_not_counted'\)"):  # issue 33
        result = metric.compute(confidence_level=0.95)
    assert math.isnan(result["balanced_accuracy_ci"][0]) and result["balanced_accuracy_ci_reason"] == "clusters_not_counted"
    counted = load("balanced_accuracy", confidence_level=0.95)
    for image in maps:
        counted.add_batch(predictions=image[None], references=image[None])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = counted.compute()
    assert result["num_clusters"] == 4 and "balanced_accuracy_ci_reason" not in result
    assert any("4 clusters (fewer than 10)" in str(warning.message) for warning in caught)


@pytest.mark.parametrize("name", CLASS_MODULES)
def test_bad_clusters(load, name):
    metric = load(name)
    references = [0, 1, 2, 0, 1, 2]
    predictions = np.eye(3)[references] if name == "balanced_topk_accuracy" else references
    with pytest.raises(ValueError, match=r"^clusters: expected one cluster id per sample \(6\), found 5\."):
        metric.compute(predictions=predictions, references=references, clusters=[0, 0, 1, 1, 2], confidence_level=0.95)
    result = metric.compute(predictions=predictions, references=references, clusters=[7] * 6, confidence_level=0.95)
    reasons = {key: value for key, value in result.items() if key.endswith("_ci_reason")}
    assert list(reasons.values()) == ["single_cluster"]
    assert all(math.isnan(bound) for bound in result[next(iter(reasons))[: -len("_reason")]])


def test_topk_token_scores_are_clustered_by_sequence(load):
    rng = np.random.default_rng(18)
    references = rng.integers(0, 4, (15, 20))
    scores = rng.normal(size=(15, 20, 4)) + np.eye(4)[references] * rng.random((15, 1, 1)) * 3
    metric = load("balanced_topk_accuracy")
    default = metric.compute(predictions=scores, references=references, k=2, confidence_level=0.95)
    flat = metric.compute(predictions=scores.reshape(-1, 4), references=references.ravel(), k=2, confidence_level=0.95,
                          clusters=np.repeat(np.arange(15), 20))
    assert default == {**flat, "clusters_from": "leading_axis"} and default["num_clusters"] == 15  # issue 33: named


def test_corrected_prevalence_with_golden_conversations(load):
    rng = np.random.default_rng(19)
    clusters = conversations(rng, groups=40)
    hard = rng.random(clusters.max() + 1)[clusters]
    references = (rng.random(clusters.size) < 0.4).astype(int)
    predictions = np.where(rng.random(clusters.size) < 0.97 - 0.5 * hard, references, 1 - references)
    unlabeled = (rng.random(3000) < 0.5).astype(int)
    metric = load("informedness")
    plain = metric.compute(predictions=predictions, references=references, unlabeled_predictions=unlabeled, confidence_level=0.95)
    clustered = metric.compute(predictions=predictions, references=references, unlabeled_predictions=unlabeled,
                               confidence_level=0.95, clusters=clusters)
    assert clustered["corrected_prevalence"] == pytest.approx(plain["corrected_prevalence"], abs=1e-12)
    assert clustered["corrected_prevalence_design_effect"] > 0
    if clustered["corrected_prevalence_design_effect"] > 1:
        assert np.diff(clustered["corrected_prevalence_ci"])[0] > np.diff(plain["corrected_prevalence_ci"])[0]
    ppi = metric.compute(predictions=predictions, references=references, unlabeled_predictions=unlabeled, confidence_level=0.95,
                         clusters=clusters, prevalence_method="ppi")
    assert ppi["corrected_prevalence_ci_reason"] == "ppi_needs_independent_golden_items"


def test_multiclass_corrected_prevalence_design_effect_is_the_largest_over_the_classes(load):
    """The golden set's design effect of three corrected prevalences: each class's prevalence's own variance
    ratio (its numeric influence, Bell & McCaffrey as above), the one of the largest factor reported (the
    factor widened from z to t on the Kish effective number of clusters less one), as the module's default
    was studied (studies/prevalence_models)."""
    rng = np.random.default_rng(23)
    clusters = conversations(rng, groups=30)
    hard = rng.random(clusters.max() + 1)[clusters]
    references = rng.choice(3, clusters.size, p=[0.5, 0.3, 0.2])
    predictions = np.where(rng.random(clusters.size) < 0.95 - 0.4 * hard, references, rng.integers(0, 3, clusters.size))
    unlabeled = rng.choice(3, 2000, p=[0.4, 0.35, 0.25])
    result = load("informedness").compute(predictions=predictions, references=references, unlabeled_predictions=unlabeled,
                                          clusters=clusters, confidence_level=0.95)
    shares = np.bincount(unlabeled, minlength=3) / unlabeled.size

    def prevalence(j):
        def value(y, p, w):
            matrix = np.zeros((3, 3))
            np.add.at(matrix, (y, p), w)
            rates = matrix / matrix.sum(axis=1, keepdims=True)  # [reference, label]
            return np.linalg.solve(rates.T, shares)[j]
        return value

    z = stats.norm.ppf(0.975)
    found = []
    for j in range(3):
        influence = numeric_influence(prevalence(j), references, predictions)
        measured = expected_design_effect(influence, clusters)
        _, cluster = np.unique(clusters, return_inverse=True)
        leverage = np.bincount(cluster, weights=influence**2) / np.sum(influence**2)
        freedom = max(1.0, min(cluster.max() + 1.0, 1.0 / np.sum(leverage**2)) - 1.0)
        found.append((max(measured, 1.0) * (stats.t.ppf(0.975, freedom) / z) ** 2, measured))
    assert result["corrected_prevalence"] == pytest.approx(np.clip(np.linalg.solve(
        (np.bincount(references * 3 + predictions, minlength=9).reshape(3, 3) / np.bincount(references, minlength=3)[:, None]).T,
        shares), 0, 1).tolist(), abs=1e-9)
    assert len({round(measured, 6) for _, measured in found}) == 3  # the classes differ: the rule is seen
    assert result["corrected_prevalence_design_effect"] == pytest.approx(max(found)[1], rel=1e-6)


def test_baseline_difference_takes_the_larger_design_effect_of_both_models(load):
    """Both models' corrections rest on one clustered golden set: the difference's interval (and each model's)
    takes the larger of the two prevalences' design effects, here the baseline's (each its numeric influence,
    Bell & McCaffrey as above), and equals the difference of the mapping {A, B} (one pair: at the level itself)."""
    rng = np.random.default_rng(29)
    clusters = conversations(rng, groups=40)
    hard = rng.random(clusters.max() + 1)[clusters]
    references = (rng.random(clusters.size) < 0.5).astype(int)
    # The judge misses positives by conversation; its false positives are independent.
    predictions = np.where(references == 1, rng.random(clusters.size) < 0.97 - 0.6 * hard,
                           rng.random(clusters.size) < 0.08).astype(int)
    first = (rng.random(2000) < 0.5).astype(int)
    second = (rng.random(2000) < 0.12).astype(int)

    def prevalence(share):
        def value(y, p, w):  # Rogan-Gladen with weighted rates
            tpr = np.sum(w * (y == 1) * (p == 1)) / np.sum(w * (y == 1))
            fpr = np.sum(w * (y == 0) * (p == 1)) / np.sum(w * (y == 0))
            return (share - fpr) / (tpr - fpr)
        return value

    z = stats.norm.ppf(0.975)
    _, cluster = np.unique(clusters, return_inverse=True)
    found = []
    for labels in (first, second):
        influence = numeric_influence(prevalence(labels.mean()), references, predictions)
        leverage = np.bincount(cluster, weights=influence**2) / np.sum(influence**2)
        freedom = max(1.0, min(cluster.max() + 1.0, 1.0 / np.sum(leverage**2)) - 1.0)
        measured = expected_design_effect(influence, clusters)
        found.append((max(measured, 1.0) * (stats.t.ppf(0.975, freedom) / z) ** 2, measured))
    assert found[1][0] > found[0][0] * 1.05  # the baseline's is the larger
    metric = load("informedness")
    options = {"confidence_level": 0.95, "seed": 3, "n_resamples": 2000, "clusters": clusters}
    result = metric.compute(predictions=predictions, references=references, unlabeled_predictions=first,
                            unlabeled_baseline_predictions=second, **options)
    for key in ("corrected_prevalence", "corrected_prevalence_difference", "baseline_corrected_prevalence"):
        assert result[f"{key}_design_effect"] == pytest.approx(found[1][1], rel=1e-6), key
    mapped = metric.compute(predictions=predictions, references=references, unlabeled_predictions={"a": first, "b": second},
                            **options)
    assert mapped["corrected_prevalence_design_effect"] == pytest.approx(found[1][1], rel=1e-6)
    (pair,) = mapped["prevalence_differences"]
    assert pair["corrected_prevalence_difference_ci"] == pytest.approx(result["corrected_prevalence_difference_ci"], abs=1e-12)


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_every_item_its_own_cluster_is_the_independent_interval(load, name):
    """The review's reproducer: a 5-item rare class with one item misclassified, and clusters that
    hold one item each. No cluster holds two items, so nothing is estimated beyond independence:
    the design effect is 1 and the interval the unclustered one, exactly (it was [0.319, 0.978]
    against [0.653, 0.965], one item taking most of the leverage)."""
    references = np.array([0] * 195 + [1] * 5)
    predictions = references.copy()
    predictions[:10] = 1
    predictions[195] = 0
    metric = load(name)
    alone = metric.compute(references=references, predictions=predictions, clusters=np.arange(200), confidence_level=0.95)
    plain = metric.compute(references=references, predictions=predictions, confidence_level=0.95)
    key = f"{value_key(name)}_ci"
    assert alone["design_effect"] == 1.0 and alone["num_clusters"] == 200
    assert alone[key] == plain[key]
