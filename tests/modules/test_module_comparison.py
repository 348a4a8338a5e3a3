"""baseline_predictions in balanced_accuracy and informedness: the paired comparison of two systems.

The expected values are the module's own result on each system alone (a separate call
without the comparison), plain subtraction, and ``shared/comparison.py`` called on joint
counts built here independently, item by item, with ``np.add.at`` from the raw arrays
(the statistics themselves are tested against scikit-learn and by simulation in
tests/test_comparison.py). Nothing here is a number copied from the code's output.
"""

import math
import subprocess
import sys

import numpy as np
import pytest

from shared.metrics.balanced_accuracy import balanced_accuracy_difference
from shared.metrics.informedness import informedness_difference
from conftest import REPO_ROOT, card_and_linked_pages
from processes import run_distributed

METRICS = {"balanced_accuracy": balanced_accuracy_difference, "informedness": informedness_difference}


def judges(seed=0, size=400, num_classes=2, prior=None):
    """References and two correlated judges (B copies A on about half of the items)."""
    rng = np.random.default_rng(seed)
    prior = prior if prior is not None else [0.7] + [0.3 / (num_classes - 1)] * (num_classes - 1)
    references = rng.choice(num_classes, size=size, p=prior)
    a = np.where(rng.random(size) < 0.8, references, rng.integers(0, num_classes, size))
    b = np.where(rng.random(size) < 0.5, a, np.where(rng.random(size) < 0.7, references, rng.integers(0, num_classes, size)))
    return references, a, b


def joint_counts(references, a, b, num_classes, weights=None):
    joint = np.zeros((num_classes,) * 3)
    squared = np.zeros((num_classes,) * 3)
    weights = np.ones(len(references)) if weights is None else np.asarray(weights, dtype=float)
    np.add.at(joint, (references, a, b), weights)
    np.add.at(squared, (references, a, b), weights**2)
    return joint, squared


def expected_comparison(name, references, a, b, num_classes, weights=None, **kwargs):
    joint, squared = joint_counts(references, a, b, num_classes, weights)
    return METRICS[name](joint, joint_w2=None if weights is None else squared, **kwargs)


def assert_close(result, expected, tolerance=1e-12):
    """Equal keys, and values equal to ``tolerance`` (lists element by element; NaN equals NaN)."""
    assert set(result) == set(expected)
    for key, value in expected.items():
        assert np.allclose(result[key], value, rtol=0, atol=tolerance, equal_nan=True), (key, result[key], value)


@pytest.fixture(scope="module")
def modules():
    from conftest import load_module

    return {name: load_module(name) for name in METRICS}


@pytest.mark.parametrize("name", list(METRICS))
@pytest.mark.parametrize("num_classes", [2, 3])
def test_values_difference_interval_and_p_value(modules, name, num_classes):
    metric = modules[name]
    references, a, b = judges(seed=num_classes, num_classes=num_classes)
    result = metric.compute(predictions=a, references=references, baseline_predictions=b, confidence_level=0.95, seed=0)
    alone_a = metric.compute(predictions=a, references=references)[name]
    alone_b = metric.compute(predictions=b, references=references)[name]
    assert result[name] == alone_a
    assert result[f"baseline_{name}"] == alone_b
    assert result[f"{name}_difference"] == alone_a - alone_b
    expected = expected_comparison(name, references, a, b, num_classes)
    assert result[f"{name}_difference_ci"] == pytest.approx(list(expected["difference_ci"]), abs=1e-12)
    assert result[f"{name}_difference_p_value"] == pytest.approx(expected["p_value"], abs=1e-12)
    assert all(type(x) is float for x in result[f"{name}_difference_ci"] + [result[f"{name}_difference_p_value"]])
    # The module's own interval of the first system is unchanged by the comparison (multi-class
    # informedness: a bootstrap, hence the seed).
    own = metric.compute(predictions=a, references=references, confidence_level=0.95, seed=0)
    assert result[f"{name}_ci"] == own[f"{name}_ci"]


# Balanced accuracy has one average; informedness has three.
@pytest.mark.parametrize("name, average", [("balanced_accuracy", "bookmaker")]
                         + [("informedness", average) for average in ("bookmaker", "macro", "weighted")])
def test_every_informedness_average_and_the_bootstrap(modules, name, average):
    metric = modules[name]
    references, a, b = judges(seed=7, num_classes=3, size=300)
    options = {"average": average} if name == "informedness" else {}
    result = metric.compute(predictions=a, references=references, baseline_predictions=b, confidence_level=0.9,
                            ci_method="bootstrap", n_resamples=500, seed=3, **options)
    expected = expected_comparison(name, references, a, b, 3, confidence_level=0.9, method="bootstrap", n_resamples=500, seed=3,
                                   **options)
    assert result[f"{name}_difference_ci"] == pytest.approx(list(expected["difference_ci"]), abs=1e-12)
    assert result[f"{name}_difference_p_value"] == pytest.approx(expected["p_value"], abs=1e-12)
    assert result[f"{name}_difference"] == pytest.approx(float(expected["difference"]), abs=1e-12)


def test_informedness_without_interval_gives_the_p_value_only(modules):
    references, a, b = judges(seed=2, num_classes=3)
    result = modules["informedness"].compute(predictions=a, references=references, baseline_predictions=b, average="macro")
    assert "informedness_difference_ci" not in result
    assert result["informedness_difference_p_value"] == pytest.approx(
        expected_comparison("informedness", references, a, b, 3, average="macro")["p_value"], abs=1e-12)


@pytest.mark.parametrize("name", list(METRICS))
def test_swapping_the_systems_flips_difference_and_interval_and_keeps_the_p_value(modules, name):
    metric = modules[name]
    references, a, b = judges(seed=5, num_classes=3)
    for ci_method in (None, "bootstrap"):
        one = metric.compute(predictions=a, references=references, baseline_predictions=b, confidence_level=0.95,
                             ci_method=ci_method, n_resamples=300, seed=1)
        other = metric.compute(predictions=b, references=references, baseline_predictions=a, confidence_level=0.95,
                               ci_method=ci_method, n_resamples=300, seed=1)
        assert other[f"{name}_difference"] == -one[f"{name}_difference"]
        low, high = one[f"{name}_difference_ci"]
        assert other[f"{name}_difference_ci"] == [-high, -low]
        assert other[f"{name}_difference_p_value"] == one[f"{name}_difference_p_value"]


@pytest.mark.parametrize("name", list(METRICS))
def test_identical_systems_differ_by_zero_with_p_value_one(modules, name):
    references, a, _ = judges(seed=4)
    result = modules[name].compute(predictions=a, references=references, baseline_predictions=a, confidence_level=0.95)
    assert result[f"{name}_difference"] == 0.0
    assert result[f"{name}_difference_p_value"] == 1.0
    low, high = result[f"{name}_difference_ci"]
    assert low < 0 < high and low == -high


@pytest.mark.parametrize("name", list(METRICS))
def test_streaming_equals_one_call(load, name):
    references, a, b = judges(seed=9, num_classes=3)
    weights = np.random.default_rng(1).uniform(0.2, 2.0, references.size)
    streamed = load(name)
    for chunk in np.array_split(np.arange(references.size), 5):
        streamed.add_batch(predictions=a[chunk], references=references[chunk], baseline_predictions=b[chunk],
                           sample_weight=weights[chunk])
    kwargs = {"confidence_level": 0.95, "seed": 0}
    one = load(name).compute(predictions=a, references=references, baseline_predictions=b, sample_weight=weights, **kwargs)
    assert_close(streamed.compute(**kwargs), one)


@pytest.mark.parametrize("name", list(METRICS))
def test_string_labels(modules, name):
    words = np.array(["bad", "good", "ok"])
    references, a, b = judges(seed=11, num_classes=3)
    result = modules[name].compute(predictions=words[a], references=words[references], baseline_predictions=words[b],
                                   confidence_level=0.95, seed=0)
    integers = modules[name].compute(predictions=a, references=references, baseline_predictions=b, confidence_level=0.95,
                                     seed=0)
    assert result == integers


@pytest.mark.parametrize("name", list(METRICS))
def test_sample_weight(modules, name):
    references, a, b = judges(seed=12, num_classes=3)
    weights = np.random.default_rng(2).uniform(0, 3, references.size)
    result = modules[name].compute(predictions=a, references=references, baseline_predictions=b, sample_weight=weights,
                                   confidence_level=0.95)
    alone_b = modules[name].compute(predictions=b, references=references, sample_weight=weights)[name]
    # Weight sums are added per triple, then per pair: equal up to the order of float additions.
    assert result[f"baseline_{name}"] == pytest.approx(alone_b, rel=1e-14)
    expected = expected_comparison(name, references, a, b, 3, weights=weights)
    assert result[f"{name}_difference_ci"] == pytest.approx(list(expected["difference_ci"]), abs=1e-9)
    assert result[f"{name}_difference_p_value"] == pytest.approx(expected["p_value"], abs=1e-9)


@pytest.mark.parametrize("name", list(METRICS))
def test_ignore_index_class_mask_and_zero_division_apply_to_both(modules, name):
    references, a, b = judges(seed=13, num_classes=3)
    padded = np.where(np.arange(references.size) % 7 == 0, -100, references)
    kept = padded != -100
    options = {"class_mask": [0, 2], "zero_division": 0.0}
    result = modules[name].compute(predictions=a, references=padded, baseline_predictions=b, ignore_index=-100,
                                   confidence_level=0.95, **options)
    alone_b = modules[name].compute(predictions=b, references=padded, ignore_index=-100, **options)[name]
    assert result[f"baseline_{name}"] == alone_b
    expected = expected_comparison(name, references[kept], a[kept], b[kept], 3, **options)
    assert result[f"{name}_difference_ci"] == pytest.approx(list(expected["difference_ci"]), abs=1e-12)
    assert result[f"{name}_difference_p_value"] == pytest.approx(expected["p_value"], abs=1e-12)


def test_adjusted_balanced_accuracy(modules):
    references, a, b = judges(seed=14, num_classes=3)
    result = modules["balanced_accuracy"].compute(predictions=a, references=references, baseline_predictions=b, adjusted=True,
                                                  confidence_level=0.95)
    assert result["baseline_balanced_accuracy"] == modules["balanced_accuracy"].compute(
        predictions=b, references=references, adjusted=True)["balanced_accuracy"]
    expected = expected_comparison("balanced_accuracy", references, a, b, 3, adjusted=True)
    assert result["balanced_accuracy_difference_ci"] == pytest.approx(list(expected["difference_ci"]), abs=1e-12)


def test_threshold_turns_both_systems_scores_into_labels(modules):
    rng = np.random.default_rng(15)
    references = rng.integers(0, 2, 300)
    scores_a = np.clip(references * 0.4 + rng.uniform(0, 0.6, 300), 0, 1)
    scores_b = np.clip(references * 0.2 + rng.uniform(0, 0.8, 300), 0, 1)
    metric = modules["balanced_accuracy"]
    result = metric.compute(predictions=scores_a, references=references, baseline_predictions=scores_b, threshold=0.5,
                            confidence_level=0.95)
    labels_a, labels_b = (scores_a >= 0.5).astype(int), (scores_b >= 0.5).astype(int)
    assert result["baseline_balanced_accuracy"] == metric.compute(predictions=labels_b, references=references)["balanced_accuracy"]
    assert result["balanced_accuracy"] == metric.compute(predictions=scores_a, references=references, threshold=0.5)["balanced_accuracy"]
    expected = expected_comparison("balanced_accuracy", references, labels_a, labels_b, 2)
    assert result["balanced_accuracy_difference_ci"] == pytest.approx(list(expected["difference_ci"]), abs=1e-12)
    # One system's labels, the other's scores: both are scores of the positive class.
    mixed = metric.compute(predictions=labels_a, references=references, baseline_predictions=scores_b, threshold=0.5)
    assert mixed["balanced_accuracy_difference"] == result["balanced_accuracy_difference"]


def test_threshold_auto_is_refused_with_a_comparison(modules):
    with pytest.raises(ValueError, match="threshold: no comparison with threshold='auto'"):
        modules["balanced_accuracy"].compute(predictions=[0.2, 0.8, 0.6], references=[0, 1, 1], baseline_predictions=[0.1, 0.9, 0.3],
                                             threshold="auto")


@pytest.mark.parametrize("name", list(METRICS))
def test_mixing_batches_with_and_without_a_baseline_is_an_error(load, name):
    metric = load(name)
    metric.add_batch(predictions=[0, 1], references=[0, 1], baseline_predictions=[1, 1])
    with pytest.raises(ValueError, match="baseline_predictions: expected 'given with every batch'.*found 'not given'"):
        metric.add_batch(predictions=[0, 1], references=[0, 1])
    other = load(name)
    other.add_batch(predictions=[0, 1], references=[0, 1])
    with pytest.raises(ValueError, match="baseline_predictions: expected 'not given'"):
        other.add_batch(predictions=[0, 1], references=[0, 1], baseline_predictions=[1, 1])
    # The batches added before are kept.
    assert other.compute() == {name: 1.0}


@pytest.mark.parametrize("name", list(METRICS))
def test_bad_baselines_are_named(modules, name):
    metric = modules[name]
    with pytest.raises(ValueError, match="baseline_predictions: expected predictions, references and baseline_predictions of one shape"):
        metric.compute(predictions=[0, 1, 1], references=[0, 1, 1], baseline_predictions=[0, 1])
    with pytest.raises(ValueError, match=r"baseline_predictions: expected values among `labels`, found unknown value\(s\) \['maybe'\]"):
        metric.compute(predictions=["no", "yes"], references=["no", "yes"], baseline_predictions=["no", "maybe"], labels=["no", "yes"])
    with pytest.raises(ValueError, match=r"baseline_predictions: expected labels in \[0, 2\], found \[3\]"):
        metric.compute(predictions=[0, 1, 2], references=[0, 1, 2], baseline_predictions=[0, 1, 3], num_classes=3)
    if name == "balanced_accuracy":
        with pytest.raises(ValueError, match=r"baseline_predictions: expected labels 0/1 with task='binary', found \[2\]"):
            metric.compute(predictions=[0, 1, 1], references=[0, 1, 1], baseline_predictions=[0, 2, 1], task="binary")
    with pytest.raises(TypeError, match="baseline_predictions: expected string labels like the references, found integers"):
        metric.compute(predictions=["no", "yes"], references=["no", "yes"], baseline_predictions=[0, 1])


@pytest.mark.parametrize("name", list(METRICS))
def test_undefined_values_give_nan_with_a_reason(modules, name):
    # Every reference ignored: nothing to compare.
    result = modules[name].compute(predictions=[0, 1], references=[-1, -1], baseline_predictions=[1, 1], ignore_index=-1,
                                   confidence_level=0.95)
    assert math.isnan(result[f"{name}_difference"]) and math.isnan(result[f"{name}_difference_p_value"])
    assert all(math.isnan(x) for x in result[f"{name}_difference_ci"])
    assert result[f"{name}_difference_reason"] == "empty_after_ignore_index"


def test_informedness_with_one_reference_class_has_no_interval(modules):
    # J is defined only by the zero_division convention: the difference is, the interval is not.
    result = modules["informedness"].compute(predictions=[1, 1, 0, 1], references=[1, 1, 1, 1], baseline_predictions=[1, 0, 0, 1],
                                             zero_division=0.0, confidence_level=0.95)
    assert result["informedness_difference"] == result["informedness"] - result["baseline_informedness"]
    assert math.isnan(result["informedness_difference_p_value"])
    assert result["informedness_difference_reason"] == "fewer_than_two_reference_classes"


def test_distributed_two_processes_equal_one_process(tmp_path):
    from conftest import load_module

    references, a, b = judges(seed=21, num_classes=3, size=200)
    weights = np.random.default_rng(3).uniform(0.5, 2, references.size)
    cases = []
    for name in METRICS:
        for index, kwargs in enumerate([{"confidence_level": 0.95, "seed": 0}, {"confidence_level": 0.9, "ci_method": "bootstrap",
                                                                     "n_resamples": 200, "seed": 0}]):
            cases.append({"id": f"{name}-{index}", "name": name, "folder": str(REPO_ROOT / name), "predictions": a.tolist(),
                          "references": references.tolist(), "kwargs": kwargs,
                          "inputs": {"baseline_predictions": b.tolist(), "sample_weight": weights.tolist()}})
    process_0, process_1 = run_distributed(cases, 2, tmp_path)
    assert all(value is None for value in process_1.values())
    for case in cases:
        single = load_module(case["name"], cache_dir=str(tmp_path / "single")).compute(
            predictions=a, references=references, baseline_predictions=b, sample_weight=weights, **case["kwargs"])
        assert_close(process_0[case["id"]], single)
        assert f"{case['name']}_difference_p_value" in single


# ---------------------------------------------------------------- the cards' worked example (Table 1 of Collot et al.)

# Items per class as (both right, A only right, B only right, neither), derived by hand from
# A: TP 63, FN 20, TN 784, FP 133 and B: TP 47, FN 36, TN 848, FP 69 (83 unsafe, 917 safe).
TABLE_1_SPLITS = {
    "most": {1: (47, 16, 0, 20), 0: (784, 0, 64, 69)},   # B's hits within A's; A's right negatives within B's
    "least": {1: (27, 36, 20, 0), 0: (715, 69, 133, 0)},  # 63 + 47 - 83 = 27 and 784 + 848 - 917 = 715 in common
}
CARD_ROWS = {  # what the cards print for each overlap: agreement, then per metric (difference, interval, p-value)
    "most": ("92.0%", {"balanced_accuracy": ("0.0615", "[0.0160, 0.1050]", "0.0102"),
                       "informedness": ("0.1230", "[0.0320, 0.2100]", "0.0102")}),
    "least": ("74.2%", {"balanced_accuracy": ("0.0615", "[−0.0277, 0.1437]", "0.1789"),
                        "informedness": ("0.1230", "[−0.0554, 0.2874]", "0.1789")}),
}


def table_1_joint(overlap):
    joint = np.zeros((2, 2, 2))
    for label, (both, a_only, b_only, neither) in TABLE_1_SPLITS[overlap].items():
        wrong = 1 - label
        joint[label, label, label] = both
        joint[label, label, wrong] = a_only
        joint[label, wrong, label] = b_only
        joint[label, wrong, wrong] = neither
    return joint


@pytest.mark.parametrize("overlap", ["most", "least"])
def test_worked_example_of_the_cards(overlap):
    from sklearn.metrics import confusion_matrix

    sys.path.insert(0, str(REPO_ROOT / "examples"))
    import compare_judges

    references, a, b = compare_judges.golden_set_items(overlap=overlap)
    # The items reproduce both judges' Table 1 counts ([[TN, FP], [FN, TP]]).
    assert confusion_matrix(references, a).tolist() == [[784, 133], [20, 63]]
    assert confusion_matrix(references, b).tolist() == [[848, 69], [36, 47]]
    joint = table_1_joint(overlap)
    independent, _ = joint_counts(references, a, b, 2)
    assert np.array_equal(independent, joint)
    results, agreement = compare_judges.compare(overlap)
    agree, rows = CARD_ROWS[overlap]
    assert f"{agreement:.1%}" == agree == f"{(joint[0, 0, 0] + joint[0, 1, 1] + joint[1, 0, 0] + joint[1, 1, 1]) / 1000:.1%}"
    difference_ba = (63 / 83 + 784 / 917) / 2 - (47 / 83 + 848 / 917) / 2
    for name, (difference, interval, p_value) in rows.items():
        result = results[name]
        scale = 1 if name == "balanced_accuracy" else 2
        assert result[f"{name}_difference"] == pytest.approx(scale * difference_ba, abs=1e-12)
        expected = METRICS[name](joint)
        assert result[f"{name}_difference_ci"] == pytest.approx(list(expected["difference_ci"]), abs=1e-12)
        assert result[f"{name}_difference_p_value"] == pytest.approx(expected["p_value"], abs=1e-12)
        low, high = result[f"{name}_difference_ci"]
        shown = (f"{result[f'{name}_difference']:.4f}", f"[{low:.4f}, {high:.4f}]".replace("-", "−"),
                 f"{result[f'{name}_difference_p_value']:.4f}")
        assert shown == (difference, interval, p_value)
        card = card_and_linked_pages(name)  # the card and docs/comparing-judges.md, which it links to
        assert f"| {agree} | {difference} | {interval} | {p_value} |" in card
    # The README's judge page rounds the two p-values.
    readme = (REPO_ROOT / "docs" / "choosing-a-judge.md").read_text(encoding="utf-8")
    shown_p = results["balanced_accuracy"]["balanced_accuracy_difference_p_value"]
    assert f"p = {shown_p:.3f}" in readme if overlap == "most" else f"p = {shown_p:.2f};" in readme


@pytest.mark.parametrize("name", list(METRICS))
def test_both_confusion_matrices_in_one_class_order(modules, name):
    from sklearn.metrics import confusion_matrix

    references, a, b = judges(seed=17, num_classes=3)
    b = np.where(b == 2, 3, b)  # a class only the baseline predicts
    result = modules[name].compute(predictions=a, references=references, baseline_predictions=b, return_confusion_matrix=True)
    assert result["classes"] == [0, 1, 2, 3]
    assert result["confusion_matrix"] == confusion_matrix(references, a, labels=[0, 1, 2, 3]).tolist()
    assert result["baseline_confusion_matrix"] == confusion_matrix(references, b, labels=[0, 1, 2, 3]).tolist()


def test_compare_judges_prints_the_verdicts():
    printed = subprocess.run([sys.executable, str(REPO_ROOT / "examples" / "compare_judges.py")], capture_output=True, text=True,
                             check=True).stdout
    assert "judge A is significantly better than judge B at alpha 0.05 (p = 0.0102)" in printed
    assert "judge A is not significantly different from judge B at alpha 0.05 (p = 0.1789)" in printed
    assert "difference 0.0615, 95% interval [0.0160, 0.1050], p-value 0.0102" in printed


def test_a_comparison_with_unlabeled_predictions_and_groups_keeps_every_output(modules, load):
    """informedness with baseline_predictions, unlabeled_predictions and groups at once: each
    output equals what the call without the other inputs gives (the judge corrected for and
    diagnosed per group is `predictions`), in one call and streamed in batches."""
    metric = modules["informedness"]
    rng = np.random.default_rng(5)
    references, a, b = judges(seed=5, num_classes=2, size=240)
    groups = rng.choice(["model_a", "model_b"], 240)
    unlabeled = rng.integers(0, 2, 700)
    options = dict(confidence_level=0.95, seed=0, n_resamples=400)
    everything = metric.compute(references=references, predictions=a, baseline_predictions=b, groups=groups,
                                unlabeled_predictions=unlabeled, **options)
    compared = metric.compute(references=references, predictions=a, baseline_predictions=b, **options)
    judged = metric.compute(references=references, predictions=a, groups=groups, unlabeled_predictions=unlabeled, **options)
    assert everything == {**compared, **judged}
    streamed = load("informedness")
    for start in range(0, 240, 80):
        part = slice(start, start + 80)
        streamed.add_batch(references=references[part], predictions=a[part], baseline_predictions=b[part], groups=groups[part])
    streamed.add_batch(unlabeled_predictions=unlabeled)
    assert streamed.compute(**options) == everything
