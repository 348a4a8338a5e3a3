"""judges= in balanced_accuracy and informedness: several judges ranked on one golden set (issue 32).

Independent references: the covariance of the judges' estimates against the definition
(stratified multinomial, written out here) and against a Monte Carlo of golden sets; the
maxT critical value and adjusted p-values against SciPy's multivariate normal CDF (Genz);
the J = 2 p-value against the module's own paired comparison (``baseline_predictions``,
a separate call); each judge's value against a plain compute of that judge alone.
"""

import dataclasses
import json
import math
from collections import Counter
import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from scipy.stats import norm
from sklearn.metrics import balanced_accuracy_score

from shared.counting.judges import count_judges_batch
from shared.counting.confusion import count_labels
from shared.counting.store import Store
from shared.stats.ranking import correlation_of
from shared.stats.ranking import judge_covariance
from shared.stats.ranking import maxt_p_values
from shared.stats.ranking import maxt_quantile
from shared.stats.ranking import pair_covariance
from shared.tooling.modules import LABEL_MODULES
from shared.tooling.modules import module as registry_entry


def value_key(name):
    """The result key of the module's value (the registry's ``value_key``; a module's name need not be it)."""
    return registry_entry(name).value_key


NAMES = LABEL_MODULES


@pytest.fixture(scope="module")
def modules():
    from conftest import load_module

    return {name: load_module(name) for name in NAMES}


def golden_set(seed=0, size=300, num_classes=2, accuracies=(0.9, 0.8, 0.85), prevalence=0.3, shared=0.5):
    """References and judges that share hard items: on a hard item (share ``shared`` of the items
    a judge errs on) every judge errs together; elsewhere each errs on its own."""
    rng = np.random.default_rng(seed)
    prior = [1 - prevalence] + [prevalence / (num_classes - 1)] * (num_classes - 1)
    references = rng.choice(num_classes, size=size, p=prior)
    hard = rng.random(size)
    judges = {}
    for index, accuracy in enumerate(accuracies):
        wrong = np.where(rng.random(size) < shared, hard < 1 - accuracy, rng.random(size) < 1 - accuracy)
        other = (references + rng.integers(1, num_classes, size)) % num_classes
        judges[f"judge_{index}"] = np.where(wrong, other, references)
    return references, judges


def plain_types(value):
    if isinstance(value, dict):
        return all(isinstance(key, str) and plain_types(item) for key, item in value.items())
    if isinstance(value, list):
        return all(plain_types(item) for item in value)
    return value is None or type(value) in (bool, int, float, str)


# ---------------------------------------------------------------- statistics
def test_pair_covariance_is_the_stratified_multinomial_covariance():
    """Balanced accuracy's estimates: Cov = sum_r (p_r(both right) - p_r(i) p_r(j)) / (m^2 n_r)."""
    rng = np.random.default_rng(3)
    joint = rng.integers(0, 30, size=(3, 3, 3)).astype(float)
    totals = joint.sum(axis=(1, 2))
    gradient = np.diag(1.0 / (3 * totals))  # d BA / d C[r, r]
    both = np.array([joint[r, r, r] for r in range(3)]) / totals
    right_a = np.array([joint[r, r, :].sum() for r in range(3)]) / totals
    right_b = np.array([joint[r, :, r].sum() for r in range(3)]) / totals
    expected = ((both - right_a * right_b) / (9 * totals)).sum()
    assert math.isclose(pair_covariance(joint, None, gradient, gradient, 0.0), expected, rel_tol=1e-12)


def test_judge_covariance_matches_a_monte_carlo_of_golden_sets():
    """Three correlated judges, classes of fixed size: the covariance of the three balanced accuracies
    over 20,000 simulated golden sets against judge_covariance of the expected joint counts."""
    rng = np.random.default_rng(5)
    sizes = np.array([120, 60])
    # One J-way distribution per class over (judge 0, 1, 2) right/wrong, judges sharing hard items.
    probabilities = []
    for accuracy in (0.9, 0.7):
        cells = np.zeros((2, 2, 2))
        hard = 1 - accuracy
        cells[0, 0, 0] = hard * 0.5
        cells[1, 1, 1] = accuracy * 0.6
        rest = 1 - cells.sum()
        cells[1, 1, 0] = cells[1, 0, 1] = cells[0, 1, 1] = rest / 4
        cells[1, 0, 0] = rest / 4
        probabilities.append(cells / cells.sum())
    draws = 20_000
    values = np.zeros((draws, 3))
    for r, (size, cells) in enumerate(zip(sizes, probabilities)):
        counts = rng.multinomial(size, cells.ravel(), size=draws).reshape(draws, 2, 2, 2)
        right = np.stack([counts[:, 1].sum(axis=(1, 2)), counts[:, :, 1].sum(axis=(1, 2)), counts[:, :, :, 1].sum(axis=(1, 2))], axis=1)
        values += right / size / 2
    simulated = np.cov(values, rowvar=False)
    # Expected joint counts of each pair: (reference r, a = right ? r : other, b likewise), binary.
    joints = {}
    for i, j in ((0, 1), (0, 2), (1, 2)):
        joint = np.zeros((2, 2, 2))
        for r, (size, cells) in enumerate(zip(sizes, probabilities)):
            pair = cells.sum(axis=3 - i - j)  # margin over the third judge
            for right_a in (0, 1):
                for right_b in (0, 1):
                    joint[r, r if right_a else 1 - r, r if right_b else 1 - r] = size * pair[right_a, right_b]
        joints[(i, j)] = joint
    gradients = [np.diag(1.0 / (2 * sizes)) for _ in range(3)]
    # Each judge's own counts: the margin of a pair it is in, over the other judge.
    own = np.stack([joints[(0, 1)].sum(axis=2), joints[(0, 1)].sum(axis=1), joints[(0, 2)].sum(axis=1)])
    computed = judge_covariance(np.stack([joints[pair] for pair in ((0, 1), (0, 2), (1, 2))]), None, own, None, np.stack(gradients))
    # The pseudo-item's smoothing is O(1 / n): within 3% (the Monte Carlo error is about 1%).
    assert np.allclose(computed, simulated, rtol=0.05, atol=2e-5), (computed, simulated)


@pytest.mark.parametrize("correlation", [np.full((4, 4), 0.5) + 0.5 * np.eye(4), np.eye(3),
                                         np.array([[1, 0.8, 0.2], [0.8, 1, 0.4], [0.2, 0.4, 1.0]])])
def test_maxt_critical_value_and_p_values_against_scipy(correlation):
    size = correlation.shape[0]
    critical = maxt_quantile(0.95, correlation)
    covered = multivariate_normal(np.zeros(size), correlation).cdf(np.full(size, critical), lower_limit=np.full(size, -critical))
    assert abs(covered - 0.95) < 0.004
    raw = np.array([0.001, 0.01, 0.03][: size - 1] + [0.2])
    adjusted = maxt_p_values(raw, correlation)
    for p, found in zip(raw, adjusted):
        z = norm.isf(p / 2)
        expected = 1 - multivariate_normal(np.zeros(size), correlation).cdf(np.full(size, z), lower_limit=np.full(size, -z))
        assert abs(found - expected) < max(0.004, 0.1 * expected), (p, found, expected)


def test_tiny_p_values_are_adjusted_by_bonferroni_in_the_unresolved_tail():
    adjusted = maxt_p_values([1e-20, 0.0, 1e-300], np.eye(3) * 0.5 + 0.5)
    assert np.allclose(adjusted, [3 * 1e-20, 0.0, 3 * 1e-300], rtol=1e-12, atol=0)


def test_one_comparison_is_not_adjusted_and_correlation_has_unit_diagonal():
    assert maxt_p_values([0.0123], np.eye(1)).tolist() == [0.0123]
    correlation = correlation_of(np.array([[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 0.0]]))
    assert correlation.tolist() == [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]


# ---------------------------------------------------------------- the modules
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("num_classes", [2, 3])
def test_two_judges_p_value_is_the_paired_comparisons(modules, name, num_classes):
    references, judges = golden_set(1, 250, num_classes, (0.85, 0.75))
    (a, first), (b, second) = judges.items()
    paired = modules[name].compute(references=references, predictions=first, baseline_predictions=second, confidence_level=0.95)
    ranked = modules[name].compute(references=references, judges=judges, confidence_level=0.95)
    entries = {entry["name"]: entry for entry in ranked["judge_ranking"]}
    worse = b if paired[value_key(name)] >= paired[f"baseline_{value_key(name)}"] else a
    # The ranking computes its pairs' differences in one vectorised call (leading axis: the pairs); for
    # multi-class informedness numpy's sums along it may round in the last place (numpy 2.4).
    assert entries[worse]["p_value"] == pytest.approx(paired[f"{value_key(name)}_difference_p_value"], rel=1e-13, abs=0)
    assert entries[a][value_key(name)] == paired[value_key(name)] and entries[b][value_key(name)] == paired[f"baseline_{value_key(name)}"]


@pytest.mark.parametrize("name", NAMES)
def test_two_judges_p_value_with_weights_clusters_and_exact_mid_p(modules, name):
    references, judges = golden_set(2, 60, 2, (0.95, 0.9), prevalence=0.1)
    rng = np.random.default_rng(0)
    weights = rng.uniform(0.5, 2, references.size)
    clusters = np.repeat(np.arange(20), 3)
    first, second = judges.values()
    for extra in ({}, {"sample_weight": weights}, {"clusters": clusters}):
        paired = modules[name].compute(references=references, predictions=first, baseline_predictions=second, **extra)
        ranked = modules[name].compute(references=references, judges=judges, **extra)
        assert ranked["judge_ranking"][1]["p_value"] == paired[f"{value_key(name)}_difference_p_value"], extra


@pytest.mark.parametrize("name", NAMES)
def test_clustered_exact_mid_p_far_in_the_tail_is_a_number(modules, name):
    """A clustered comparison whose p-value is below 1e-16 (found by the study: the exact mid-p's
    deflation by the design effect, inv_cdf(1 - p/2), refused it and the compute raised
    StatisticsError): a p-value, the same in the ranking. With clusters it is now the cluster swap
    test's: every one of the 60 clusters favours the perfect judge, so only the two all-alike sign
    patterns reach the observed sum, and the mid-p is below 2^-50."""
    references = np.array([0, 1] * 60)
    perfect = references.copy()
    wrong = 1 - references
    wrong[::12] = references[::12]  # 10 items right, 110 wrong: about 60 discordant pairs of items
    clusters = np.arange(references.size) // 2
    paired = modules[name].compute(references=references, predictions=perfect, baseline_predictions=wrong, clusters=clusters)
    p_value = paired[f"{value_key(name)}_difference_p_value"]
    assert 0.0 <= p_value < 1e-10 and math.isfinite(p_value)
    ranked = modules[name].compute(references=references, judges={"perfect": perfect, "wrong": wrong}, clusters=clusters)
    assert ranked["judge_ranking"][1]["p_value"] == p_value


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case", ["binary_small", "weights", "clusters", "macro_five_classes"])
def test_judges_intervals_computed_together_equal_each_judge_alone(modules, name, case, monkeypatch):
    """The ranking computes the J judges' intervals in one vectorised call (``SPEC.intervals``):
    each equals the interval of a separate one-judge compute at the marginal level (small golden
    sets, where the gamma bound's series runs to a different length for each judge; weights;
    clusters; five classes), and the whole result equals the ranking with each judge's interval
    and each pair's p-value computed by itself (``SPEC.intervals`` removed, one paired comparison
    per pair), to the last digit."""
    num_classes, size = (2, 40) if case == "binary_small" else (5 if case == "macro_five_classes" else 3, 150)
    references, judges = golden_set(21, size, num_classes, (0.95, 0.8, 0.9, 0.7, 0.99))
    rng = np.random.default_rng(22)
    options = {}
    if case == "weights":
        options["sample_weight"] = rng.uniform(0.2, 3.0, size)
    if case == "clusters":
        options["clusters"] = rng.integers(0, 30, size)
    if case == "macro_five_classes" and name == "informedness":
        options["average"] = "macro"
    metric = modules[name]
    result = metric.compute(references=references, judges=judges, confidence_level=0.95, return_judge_p_values=True, **options)
    level = result["judge_ranking_marginal_level"]
    for entry in result["judge_ranking"]:
        alone = metric.compute(references=references, predictions=judges[entry["name"]], confidence_level=level, **options)
        assert math.isfinite(entry[f"{value_key(name)}_ci"][0])
        if case in ("weights", "clusters"):
            # A judge's weighted or clustered counts in the ranking come from its pair tables, summed
            # in another order than a one-judge compute's: the same to about 1e-16 (before batching too).
            assert entry[f"{value_key(name)}_ci"] == pytest.approx(alone[f"{value_key(name)}_ci"], abs=1e-12, rel=0)
        else:
            assert entry[f"{value_key(name)}_ci"] == alone[f"{value_key(name)}_ci"]
    spec = type(metric).SPEC
    monkeypatch.setattr(type(metric), "SPEC", dataclasses.replace(spec, intervals=None))
    # The pairs' p-values one paired comparison at a time too (the module's helpers share one namespace).
    helpers = type(metric)._from_counts.__globals__
    monkeypatch.setitem(helpers, "pair_p_values", lambda spec, pairs, options: [helpers["pair_p_value"](spec, paired, options)
                                                                              for paired in pairs])
    one_by_one = metric.compute(references=references, judges=judges, confidence_level=0.95, return_judge_p_values=True, **options)
    assert spec.intervals is not None
    if case == "weights" and name == "informedness":
        # Multi-class informedness's weighted difference on a leading axis of pairs and alone may round
        # apart in the last place (numpy 2.4's sums along the axis): the p-values to 1e-13.
        p_values = [value for row in result.pop("judge_p_values") for value in row if value is not None]
        alone = [value for row in one_by_one.pop("judge_p_values") for value in row if value is not None]
        assert alone == pytest.approx(p_values, rel=1e-13, abs=0, nan_ok=True)
    assert one_by_one == result


@pytest.mark.parametrize("name", NAMES)
def test_each_judge_is_a_plain_compute_and_intervals_widen_to_the_maxt_level(modules, name):
    references, judges = golden_set(4, 200, 3, (0.9, 0.8, 0.85, 0.7))
    result = modules[name].compute(references=references, judges=judges, confidence_level=0.9)
    level = result["judge_ranking_marginal_level"]
    assert 0.9 < level < 1 - 0.1 / 4  # maxT: above the level, below Bonferroni's
    for entry in result["judge_ranking"]:
        alone = modules[name].compute(references=references, predictions=judges[entry["name"]], confidence_level=level)
        assert entry[value_key(name)] == alone[value_key(name)]
        assert entry[f"{value_key(name)}_ci"] == alone[f"{value_key(name)}_ci"]
    values = [entry[value_key(name)] for entry in result["judge_ranking"]]
    assert values == sorted(values, reverse=True)
    best = result["judge_ranking"][0]["name"]
    top = modules[name].compute(references=references, predictions=judges[best], confidence_level=0.9)
    assert {key: result[key] for key in top} == top
    assert result["best_judges"] == [entry["name"] for entry in result["judge_ranking"] if entry["in_best_set"]]
    assert result["best_judges"][0] == best and result["judge_ranking"][0]["p_value"] is None
    assert plain_types(result)


@pytest.mark.parametrize("name", NAMES)
def test_add_batch_in_pieces_and_merged_stores_equal_one_compute(modules, name, tmp_path):
    references, judges = golden_set(6, 301, 3, (0.9, 0.8, 0.85))
    whole = modules[name].compute(references=references, judges=judges, confidence_level=0.95, seed=1)
    metric = modules[name]
    for start in range(0, references.size, 50):
        metric.add_batch(references=references[start:start + 50], judges={k: v[start:start + 50] for k, v in judges.items()})
    assert metric.compute(confidence_level=0.95, seed=1) == whole
    # Stores merge by addition, through their files as processes hand them over.
    halves = [count_judges_batch(count_labels, None, references[part], {"judges": {k: v[part] for k, v in judges.items()}})
              for part in (slice(0, 150), slice(150, None))]
    for index, store in enumerate(halves):
        store.save(str(tmp_path / f"{index}.npz"))
    merged = Store.load(str(tmp_path / "0.npz"))
    merged.merge(Store.load(str(tmp_path / "1.npz")))
    one = count_judges_batch(count_labels, None, references, {"judges": judges})
    for table in one.tables:
        left, right = one.tables[table].result(), merged.tables[table].result()
        order_left = np.lexsort([left.keys[key] for key in left.keys])
        order_right = np.lexsort([right.keys[key] for key in right.keys])
        assert left.n[order_left].tolist() == right.n[order_right].tolist()


@pytest.mark.parametrize("name", NAMES)
def test_add_one_item_at_a_time_equals_one_compute(modules, name):
    references, judges = golden_set(12, 30, 2, (0.9, 0.8, 0.85))
    metric = modules[name]
    for index, reference in enumerate(references.tolist()):
        metric.add(reference=reference, judges={judge: int(labels[index]) for judge, labels in judges.items()})
    assert metric.compute() == metric.compute(references=references, judges=judges)


@pytest.mark.parametrize("num_classes, count, offset, weighted", [
    (3, 4, 0, False),  # every judge in one bincount of combined codes
    (5, 10, 0, False),  # judges in groups: one bincount per pair of groups
    (13, 4, 0, False),  # classes too many for groups: one bincount per pair
    (3, 5, -2, False),  # labels from -2: codes relative to the lowest label
    (3, 5, 10**15, False),  # wide labels: codes relative to the lowest label
    (60, 3, 0, False),  # more labels than the bincounts take: each pair's distinct cells
    (4, 5, "text", False),  # strings: codes from the sorted distinct values
    (4, 5, 0, True),  # weights: their sums and their squares' sums beside the counts
    (2, 45, 0, False),  # many judges: every pair at once, from products of one-hot labels
    (3, 42, "text", True),  # many judges, strings and weights
])
def test_pair_tables_count_each_pair_of_judges(num_classes, count, offset, weighted):
    """The pairs' table holds, per (judge i, judge j, reference, label of i, label of j), how many
    items have those labels (and their weights' sums), and the judges' own table per (judge,
    reference, label): against Counters over the items, for each way the joint counts are counted."""
    rng = np.random.default_rng(num_classes * 100 + count)
    size = 5_000 if count < 40 else 300
    shift = (lambda codes: np.char.add("c", codes.astype(str))) if offset == "text" else (lambda codes: codes + offset)
    codes = rng.integers(0, num_classes, size)
    references = shift(codes)
    judges = {f"j{index}": shift(np.where(rng.random(size) < 0.6, codes, rng.integers(0, num_classes, size))) for index in range(count)}
    weights = rng.uniform(0, 2, size) if weighted else None
    store = count_judges_batch(count_labels, None, references, {"judges": judges, "sample_weight": weights})
    names = list(judges)
    pairs, own = store.tables["_judges/pairs"].result(), store.tables["_judges/own"].result()
    found_pairs = Counter()
    found_weights = Counter()
    for row in range(pairs.n.size):
        key = tuple(pairs.keys[name][row].item() for name in ("first", "second", "references", "predictions", "baseline_predictions"))
        found_pairs[key] += int(pairs.n[row])
        if weighted:
            found_weights[key] += float(pairs.w[row])
    expected, expected_weights = Counter(), Counter()
    for i in range(count):
        for j in range(i + 1, count):
            for item, key in enumerate(zip(references.tolist(), judges[names[i]].tolist(), judges[names[j]].tolist())):
                expected[(i, j, *key)] += 1
                if weighted:
                    expected_weights[(i, j, *key)] += float(weights[item])
    assert found_pairs == expected
    if weighted:
        assert found_weights.keys() == expected_weights.keys()
        assert all(found_weights[key] == pytest.approx(expected_weights[key], rel=1e-12) for key in expected_weights)
    mine = Counter()
    for row in range(own.n.size):
        mine[tuple(own.keys[name][row].item() for name in ("judge", "references", "predictions"))] += int(own.n[row])
    assert mine == Counter((i, *key) for i in range(count) for key in zip(references.tolist(), judges[names[i]].tolist()))


def test_held_counts_do_not_grow_with_the_items():
    sizes = []
    for size in (1_000, 100_000):
        references, judges = golden_set(7, size, 3, (0.9, 0.8, 0.85, 0.7))
        store = count_judges_batch(count_labels, None, references, {"judges": judges})
        sizes.append(sum(table.result().n.size for table in store.tables.values()))
    assert max(sizes) <= 6 * 27 + 4 * 9  # J (J - 1) / 2 pairs of K^3 cells and J judges of K^2, whatever N


def held_state(store):
    """What a store holds between add_batch calls: count cells (dense boxes and sparse row
    blocks), their bytes, and raw per-item values (none for label judges)."""
    arrays = [array for table in store.tables.values()
              for array in [*table.box.values(), *(array for block in table.rows for array in block.values())]]
    raw = sum(chunk.size for chunks in store.raw.values() for chunk in chunks if chunk is not None)
    return {"cells": sum(int(table.result().n.size) for table in store.tables.values()),
            "bytes": sum(array.nbytes for array in arrays) + sum(values.nbytes for values in store.moments.values()),
            "raw values": raw}


@pytest.mark.parametrize("name", NAMES)
def test_label_judges_streamed_through_add_batch_hold_state_independent_of_n(modules, name):
    # Label judges are counted (pairs of judges x K^3 cells, judges x K^2), never kept per item:
    # the module's store after 2 or 100 batches of 1,000 items is the same size.
    metric = modules[name]
    held = {}
    for size in (2_000, 100_000):
        references, judges = golden_set(11, size, 3, (0.9, 0.8, 0.85, 0.7))
        weights = np.random.default_rng(size).random(size)
        for start in range(0, size, 1_000):
            chunk = slice(start, start + 1_000)
            metric.add_batch(references=references[chunk], judges={key: values[chunk] for key, values in judges.items()},
                             sample_weight=weights[chunk])
        held[size] = held_state(metric.writer)
        streamed = metric.compute()
        direct = metric.compute(references=references, judges=judges, sample_weight=weights)
        assert [entry["name"] for entry in streamed["judge_ranking"]] == [entry["name"] for entry in direct["judge_ranking"]]
        for mine, theirs in zip(streamed["judge_ranking"], direct["judge_ranking"]):
            assert mine[value_key(name)] == pytest.approx(theirs[value_key(name)], rel=1e-12)
    assert held[2_000] == held[100_000]
    assert held[100_000]["raw values"] == 0 and held[100_000]["cells"] <= 6 * 27 + 4 * 9  # whatever N
    assert held[100_000]["bytes"] < 100_000  # a few KB: under one byte per item of the larger stream


@pytest.mark.parametrize("name", NAMES)
def test_options_apply_to_every_judge(modules, name):
    references, judges = golden_set(8, 200, 2, (0.9, 0.8, 0.85))
    words = {name: np.where(labels == 1, "unsafe", "safe") for name, labels in judges.items()}
    text_references = np.where(references == 1, "unsafe", "safe")
    padded = np.where(np.arange(references.size) % 17 == 0, -100, references)
    weights = np.random.default_rng(1).uniform(0, 2, references.size)
    cases = [
        dict(references=text_references, judges=words, pos_label="unsafe"),
        dict(references=text_references, judges=words, labels=["safe", "unsafe"]),
        dict(references=padded, judges=judges, ignore_index=-100),
        dict(references=references, judges=judges, sample_weight=weights),
        dict(references=references, judges=judges, clusters=np.arange(references.size) // 4, confidence_level=0.95),
    ]
    for case in cases:
        result = modules[name].compute(**case)
        for entry in result["judge_ranking"]:
            alone = {key: value for key, value in case.items() if key not in ("judges", "confidence_level")}
            expected = modules[name].compute(**alone, predictions=case["judges"][entry["name"]])
            # Weighted sums are added in another order (per pair of judges): equal to rounding.
            assert math.isclose(entry[value_key(name)], expected[value_key(name)], rel_tol=1e-13), (case.keys(), entry)


@pytest.mark.parametrize("name", NAMES)
def test_a_label_only_one_judge_gives_is_a_class_for_all_and_warned_naming_the_judge(modules, name):
    # Declared by labels=[...]: class 2 (no reference has it) is a class for every judge, warned.
    references = [0, 1, 1, 0, 1, 0, 0, 1]
    judges = {"a": [0, 1, 1, 0, 1, 0, 0, 0], "b": [0, 1, 0, 0, 1, 0, 1, 1], "c": [0, 1, 2, 0, 1, 0, 0, 1]}
    with pytest.warns(UserWarning, match=r"judges\['c'\]: .*class 2"):
        result = modules[name].compute(references=references, judges=judges, labels=[0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for entry in result["judge_ranking"]:
            alone = modules[name].compute(references=references, predictions=judges[entry["name"]], labels=[0, 1, 2])
            assert entry[value_key(name)] == alone[value_key(name)]


@pytest.mark.parametrize("name", NAMES)
def test_a_judge_with_one_value_outside_the_golden_classes_is_refused_unless_declared(modules, name):
    # One item labelled 2 beside a 0/1 golden set: ranked at a mean of recalls over 0 and 1 with
    # only a warning before; now refused, naming the judge, the value, the classes and labels=.
    references = [0, 1] * 20
    judges = {"a": list(references), "b": list(references)}
    judges["b"][3] = 2
    message = (r"judges\['b'\]: expected labels of the golden set's 2 classes \[0, 1\], found 3 distinct values \[0, 1, 2\], "
               r"1 of them no reference class \(\[2\]\); map the labels .* pass labels=\[\.\.\.\] .*threshold=")
    with pytest.raises(ValueError, match=message):
        modules[name].compute(references=references, judges=judges)
    metric = modules[name]
    metric.add_batch(references=references[:20], judges={key: values[:20] for key, values in judges.items()})
    metric.add_batch(references=references[20:], judges={key: values[20:] for key, values in judges.items()})
    with pytest.raises(ValueError, match=message):
        metric.compute()
    # Declared with num_classes: ranked, b's value that of its predictions alone (class 2 warned).
    with pytest.warns(UserWarning, match="class 2"):
        ranked = modules[name].compute(references=references, judges=judges, num_classes=3)
        alone = modules[name].compute(references=references, predictions=judges["b"], num_classes=3)
    entry = next(entry for entry in ranked["judge_ranking"] if entry["name"] == "b")
    assert entry[value_key(name)] == alone[value_key(name)]


@pytest.mark.parametrize("name", NAMES)
def test_another_vocabulary_sharing_one_class_is_refused_for_judges_and_predictions(modules, name):
    # "I" for "incorrect": the value would be 0.5 (one recall of 1, one of 0) with a warning.
    references = ["correct", "incorrect"] * 10
    other = ["correct", "I"] * 10
    for argument, case in [("predictions", dict(predictions=other)),
                           (r"judges\['a'\]", dict(judges={"a": other, "b": list(references)}))]:
        with pytest.raises(ValueError, match=argument + r": expected labels of the golden set's 2 classes \['correct', "
                                             r"'incorrect'\], found 2 distinct values \['I', 'correct'\], 1 of them no reference "
                                             r"class \(\['I'\]\); map the labels to the references' values, or pass labels="):
            modules[name].compute(references=references, **case)
    # Declared, the extra class is a class: ranked at the value of its predictions alone.
    labels = ["I", "correct", "incorrect"]
    with pytest.warns(UserWarning, match="class 'I'"):
        alone = modules[name].compute(references=references, predictions=other, labels=labels)
        ranked = modules[name].compute(references=references, judges={"a": other, "b": list(references)}, labels=labels)
    entry = next(entry for entry in ranked["judge_ranking"] if entry["name"] == "a")
    assert entry[value_key(name)] == alone[value_key(name)]
    if name == "balanced_accuracy":  # recalls 1 and 0 over the two golden classes, as scikit-learn has it
        with pytest.warns(UserWarning):
            assert alone[value_key(name)] == balanced_accuracy_score(references, other) == 0.5


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", NAMES)
def test_bad_judges_are_refused_naming_them(modules, name):
    metric = modules[name]
    references = [0, 1, 1, 0]
    with pytest.raises(ValueError, match=r"judges\['b'\]: expected one label per reference \(4\), found 3"):
        metric.compute(references=references, judges={"a": [0, 1, 1, 0], "b": [0, 1, 1]})
    # A label outside the classes: the single-system path's error, naming the judge.
    with pytest.raises(ValueError) as single:
        metric.compute(references=references, predictions=[0, 1, 2, 0], labels=[0, 1])
    with pytest.raises(ValueError) as ranked:
        metric.compute(references=references, judges={"a": [0, 1, 1, 0], "b": [0, 1, 2, 0]}, labels=[0, 1])
    assert str(ranked.value) == str(single.value).replace("predictions:", "judges['b']:", 1)
    with pytest.raises(TypeError, match="names that are strings"):
        metric.compute(references=references, judges={1: [0, 1, 1, 0], "b": [0, 1, 1, 0]})
    with pytest.raises(ValueError, match="distinct names"):
        metric.compute(references=references, predictions=[0, 1, 1, 0], judges={"predictions": [0, 1, 1, 0]})
    with pytest.raises(ValueError, match="baseline_predictions: expected it or judges"):
        metric.compute(references=references, baseline_predictions=[0, 1, 1, 0], judges={"a": [0, 1, 1, 0], "b": [0, 1, 1, 0]})
    metric.add_batch(references=references, judges={"a": [0, 1, 1, 0], "b": [0, 1, 1, 0]})
    with pytest.raises(ValueError, match=r"judges: expected '\[\"a\", \"b\"\]' like the earlier batches, found '\[\"a\", \"c\"\]'"):
        metric.add_batch(references=references, judges={"a": [0, 1, 1, 0], "c": [0, 1, 1, 0]})
    with pytest.raises(ValueError, match="judges: expected .* like the earlier batches, found 'not given'"):
        metric.add_batch(references=references, predictions=[0, 1, 1, 0])
    assert metric.compute()["best_judges"] == ["a", "b"]


@pytest.mark.parametrize("name", NAMES)
def test_one_judge_is_a_plain_result_with_a_warning(modules, name):
    references, judges = golden_set(9, 100, 2, (0.9,))
    with pytest.warns(UserWarning, match="one judge given"):
        result = modules[name].compute(references=references, judges=judges, confidence_level=0.95)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = modules[name].compute(references=references, predictions=judges["judge_0"], confidence_level=0.95)
    assert result == plain


@pytest.mark.parametrize("name", NAMES)
def test_without_confidence_level_the_ranking_tests_at_95_percent_without_intervals(modules, name):
    references, judges = golden_set(10, 150, 2, (0.9, 0.88, 0.6))
    result = modules[name].compute(references=references, judges=judges)
    with_level = modules[name].compute(references=references, judges=judges, confidence_level=0.95)
    for entry, other in zip(result["judge_ranking"], with_level["judge_ranking"]):
        assert f"{value_key(name)}_ci" not in entry
        assert entry["p_value"] == other["p_value"] and entry["in_best_set"] == other["in_best_set"]
        assert entry["in_best_set"] == (entry["p_value"] is None or entry["p_value"] >= 0.05)
    assert json.loads(json.dumps(result)) == result


@pytest.mark.parametrize("name", NAMES)
def test_pairwise_p_values_are_each_pairs_paired_p_adjusted_over_all_pairs(modules, name):
    references, judges = golden_set(13, 150, 2, (0.9, 0.8, 0.85, 0.75))
    result = modules[name].compute(references=references, judges=judges, return_judge_p_values=True)
    order = [entry["name"] for entry in result["judge_ranking"]]
    matrix = result["judge_p_values"]
    pairs = len(order) * (len(order) - 1) // 2
    for row, first in enumerate(order):
        assert matrix[row][row] is None
        for column, second in enumerate(order):
            if row == column:
                continue
            assert matrix[row][column] == matrix[column][row]
            paired = modules[name].compute(references=references, predictions=judges[first], baseline_predictions=judges[second])
            raw = paired[f"{value_key(name)}_difference_p_value"]
            assert raw <= matrix[row][column] <= min(1.0, pairs * raw) + 1e-15  # maxT: between raw and Bonferroni
    two = dict(list(judges.items())[:2])
    only = modules[name].compute(references=references, judges=two, return_judge_p_values=True)
    paired = modules[name].compute(references=references, predictions=two["judge_0"], baseline_predictions=two["judge_1"])
    assert only["judge_p_values"][0][1] == paired[f"{value_key(name)}_difference_p_value"]  # one pair: not adjusted


# ---------------------------------------------------------------- the Space
def test_space_ranks_pasted_judges_and_draws_their_forest_plot(modules):
    from shared.space.app import compute_page
    from shared.space.controls import default_options

    metric = modules["balanced_accuracy"]
    options = default_options(metric)
    values = [option.default_shown() if hasattr(option, "default_shown") else "" for option in options]
    names = [option.name for option in options]
    references, judges = golden_set(11, 40, 2, (0.9, 0.8, 0.7))
    values[names.index("judges")] = json.dumps({name: labels.tolist() for name, labels in judges.items()})
    values[names.index("confidence_level")] = "0.95"
    values[names.index("return_judge_p_values")] = True
    page = compute_page(metric, options, ("confusion", "recall"), "paste", "", json.dumps(references.tolist()), None, values)
    assert page.ok, page.message
    expected = metric.compute(references=references, judges=judges, confidence_level=0.95, return_judge_p_values=True)
    assert json.loads(page.result_json) == json.loads(json.dumps(expected))
    axes = page.figure.axes[0]
    rows = sorted(zip(axes.get_yticks(), (label.get_text() for label in axes.get_yticklabels())), reverse=True)
    assert [text for _, text in rows] == [entry["name"] for entry in expected["judge_ranking"]]  # best at the top
    assert len(page.figure.axes) >= 2 and "Pairwise" in page.figure.axes[1].get_title()  # the p-value matrix beside it


def test_space_ranks_a_csv_of_judges(modules, tmp_path):
    """A CSV with a references column and one column per judge (and clusters) gives the ranking."""
    from shared.space.app import compute_page
    from shared.space.controls import default_options

    metric = modules["informedness"]
    options = default_options(metric)
    values = [option.default_shown() if hasattr(option, "default_shown") else "" for option in options]
    names = [option.name for option in options]
    values[names.index("confidence_level")] = "0.95"
    references, judges = golden_set(14, 60, 2, (0.9, 0.8, 0.7))
    clusters = np.arange(references.size) // 3
    lines = ["references,gpt,llama,rules,clusters"]
    lines += [f"{r},{a},{b},{c},{g}" for r, a, b, c, g in zip(references, *judges.values(), clusters)]
    path = tmp_path / "judges.csv"
    path.write_text("\n".join(lines) + "\n")
    page = compute_page(metric, options, ("confusion",), "csv", "", "", str(path), values)
    assert page.ok, page.message
    renamed = dict(zip(("gpt", "llama", "rules"), judges.values()))
    expected = metric.compute(references=references, judges=renamed, clusters=clusters, confidence_level=0.95)
    assert json.loads(page.result_json) == json.loads(json.dumps(expected))


def test_pairwise_p_values_beyond_fifty_judges_are_refused_before_any_ranking(modules):
    """Every pair's maxT takes a pairs x pairs correlation: past 50 judges (1,225 pairs) the option is
    refused, naming it, the limit and what was found; the ranking itself still runs."""
    rng = np.random.default_rng(40)
    references = (rng.random(40) < 0.3).astype(int)
    judges = {f"j{index}": np.where(rng.random(40) < 0.8, references, 1 - references) for index in range(51)}
    with pytest.raises(ValueError, match=r"return_judge_p_values: .* at most 50 judges \(1,225 pairs\), found 51 \(1,275 pairs\)"):
        modules["balanced_accuracy"].compute(references=references, judges=judges, return_judge_p_values=True)
    ranked = modules["balanced_accuracy"].compute(references=references, judges=judges)
    assert len(ranked["judge_ranking"]) == 51 and ranked["best_judges"]
