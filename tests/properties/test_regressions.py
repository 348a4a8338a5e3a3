"""Failing examples found by the fuzzing of tests/properties/test_fuzz.py, kept as explicit tests.

Each test names the bug it pins (what the call did before the fix) and checks the call
now keeps the contract of ``robustness.check_call``: a plain in-range result, or a
ValueError/TypeError naming the argument - no other exception, no warning.
"""

import inspect
import math
import re
import warnings

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score

from conftest import load_module
from shared.tooling.modules import CLASS_MODULES, LABEL_MODULES, MODULE_NAMES, module
import robustness
from robustness import adjusted_flag, check_call, check_result


@pytest.fixture(scope="module")
def metrics():
    return {name: load_module(name) for name in MODULE_NAMES}


def keeps_contract(metric, name, **kwargs):
    """Call ``compute`` under the contract; returns ("ok", result) or ("error", the error)."""
    argument_names = robustness.argument_names(metric) | set(kwargs) | {"compute"}
    outcome, error = check_call(name, lambda: metric.compute(**kwargs), argument_names, adjusted=adjusted_flag(kwargs))
    return outcome, error if error is not None else metric.compute(**kwargs)


def raises_named(metric, name, error_type, pattern, **kwargs):
    outcome, error = keeps_contract(metric, name, **kwargs)
    assert outcome == "error" and isinstance(error, error_type), (outcome, error)
    assert re.search(pattern, str(error)), str(error)


# ---------------------------------------------------------------- typos in compute arguments


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_a_misspelled_argument_is_named(metrics, name):
    """Was: Python's "_reduce() got an unexpected keyword argument 'averge'" (no "expected")."""
    data = {
        "balanced_accuracy_multilabel": dict(predictions=[[0, 1]], references=[[0, 1]]),
        "balanced_topk_accuracy": dict(predictions=[[0.2, 0.8]], references=[1]),
    }.get(name, dict(predictions=[0, 1], references=[0, 1]))
    raises_named(metrics[name], name, TypeError, r"^averge: expected an argument of " + name + r" \(.*\), found an unknown argument", averge=1, **data)


def test_a_misspelled_argument_after_add_batch_keeps_the_stored_batches(tmp_path):
    """Was: the store was read and its cache file deleted before _reduce rejected the typo:
    every batch was lost. Now the typo fails first and the batches still count."""
    metric = load_module("balanced_accuracy", cache_dir=str(tmp_path))
    metric.add_batch(predictions=[0, 1, 1], references=[0, 1, 0])
    with pytest.raises(TypeError, match="^treshold: expected an argument"):
        metric.compute(treshold=0.5)
    assert metric.compute() == {"balanced_accuracy": 0.75}


# ---------------------------------------------------------------- huge finite floats


def test_huge_finite_scores_raise_no_overflow_warning(metrics):
    """Was: RuntimeWarning "overflow encountered in reduce" from the finiteness check (the
    sum of 1e308 + 1e308 overflows although every value is finite)."""
    outcome, result = keeps_contract(metrics["balanced_topk_accuracy"], "balanced_topk_accuracy",
                                     predictions=[[1e308, 1e308], [-1e308, 1e308]], references=[0, 1])
    assert outcome == "ok" and result == {"balanced_topk_accuracy": 0.75}


def test_huge_finite_labels_raise_the_64_bit_error_without_warning(metrics):
    raises_named(metrics["balanced_accuracy"], "balanced_accuracy", ValueError, r"^references: expected integers that fit in 64 bits",
                 predictions=[0.0, 1.0], references=[1e308, 1e308])


def test_weights_whose_sum_overflows_are_refused(metrics):
    """Was: RuntimeWarning "overflow" and NaN counts; a weighted count must be a finite sum."""
    raises_named(metrics["balanced_accuracy"], "balanced_accuracy", ValueError, r"^sample_weight: expected weights whose sum is a finite float64",
                 predictions=[0, 1], references=[0, 1], sample_weight=[1.7e308, 1.7e308])


def test_informedness_with_weights_near_float64_limits(metrics):
    """Was: RuntimeWarning "overflow encountered in multiply" (J_c multiplies two weighted
    counts of 1e300) and NaN without a reason."""
    references, predictions = [0, 1, 0, 0], [0, 1, 1, 0]
    for scale in (1e300, 1e-300):
        weights = [scale, scale, scale / 4, scale]
        outcome, result = keeps_contract(metrics["informedness"], "informedness", predictions=predictions, references=references,
                                         sample_weight=weights, return_markedness=True)
        expected = keeps_contract(metrics["informedness"], "informedness", predictions=predictions, references=references,
                                  sample_weight=[1, 1, 0.25, 1], return_markedness=True)[1]
        assert outcome == "ok"
        assert result["informedness"] == pytest.approx(expected["informedness"], abs=1e-12)
        assert result["markedness"] == pytest.approx(expected["markedness"], abs=1e-12)


def test_weighted_interval_with_weights_near_float64_limits(metrics):
    """Was: RuntimeWarning "overflow encountered in square" in Kish's effective sizes."""
    references, predictions = [0, 1, 0, 0, 1], [0, 1, 1, 0, 0]
    expected = metrics["balanced_accuracy"].compute(predictions=predictions, references=references, sample_weight=[2, 2, 1, 2, 1],
                                                    confidence_level=0.95)
    outcome, result = keeps_contract(metrics["balanced_accuracy"], "balanced_accuracy", predictions=predictions, references=references,
                                     sample_weight=[2e300, 2e300, 1e300, 2e300, 1e300], confidence_level=0.95)
    assert outcome == "ok"
    assert result["balanced_accuracy"] == pytest.approx(expected["balanced_accuracy"], abs=1e-12)
    assert result["balanced_accuracy_ci"] == pytest.approx(expected["balanced_accuracy_ci"], abs=1e-9)


# ---------------------------------------------------------------- shapes and option types


def test_empty_string_rows_in_multilabel_references(metrics):
    """Was: IndexError while writing the message about string values (there was no value)."""
    raises_named(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel", TypeError,
                 r"^references: expected 0/1 values \(numbers or booleans\), found strings \(dtype",
                 predictions=np.zeros((6, 0), dtype=np.int64), references=np.zeros((6, 0), dtype="S1"))


@pytest.mark.parametrize("name", CLASS_MODULES)
@pytest.mark.parametrize("ignore_index", [[], [-100], {"a": 1}, True])
def test_ignore_index_must_be_one_label_value(metrics, name, ignore_index):
    """Was: "operands could not be broadcast together with shapes (8,) (0,)" for a list."""
    data = dict(predictions=[[0.2, 0.8], [0.6, 0.4]], references=[1, 0]) if name == "balanced_topk_accuracy" else dict(predictions=[0, 1], references=[0, 1])
    raises_named(metrics[name], name, TypeError, r"^ignore_index: expected one label value", ignore_index=ignore_index, **data)


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_ignore_index_that_can_match_no_label_is_refused(metrics, name):
    raises_named(metrics[name], name, ValueError, r"^ignore_index: expected one label value .* found nan", ignore_index=math.nan,
                 predictions=[0, 1], references=[0, 1])
    assert metrics[name].compute(predictions=[0, 1, 1], references=[0, 1, -100], ignore_index=-100.0) == metrics[name].compute(
        predictions=[0, 1], references=[0, 1])


@pytest.mark.parametrize("pos_label", [[], [1], 0.5, 1 + 2j])
def test_pos_label_must_be_one_label_value(metrics, pos_label):
    """Was (thorough profile): pos_label=[] -> "The truth value of an empty array is ambiguous"."""
    error = ValueError if pos_label == 0.5 else TypeError
    raises_named(metrics["balanced_accuracy"], "balanced_accuracy", error, r"^pos_label: expected one label value",
                 predictions=[0], references=[0], pos_label=pos_label)
    # An integral float or a boolean still names a 0/1 class.
    assert metrics["balanced_accuracy"].compute(predictions=[0, 1, 0], references=[0, 1, 1], pos_label=1.0) == {"balanced_accuracy": 0.75}
    assert metrics["balanced_accuracy"].compute(predictions=[0, 1, 0], references=[0, 1, 1], pos_label=True) == {"balanced_accuracy": 0.75}


def test_multilabel_auto_threshold_on_huge_finite_logits(metrics):
    """The threshold search's finiteness test summed the scores: 1e308 + 1e308 overflowed
    (RuntimeWarning); huge finite logits are valid scores."""
    outcome, result = keeps_contract(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel",
                                     predictions=[[1e308], [1e308], [-1e308]], references=[[1], [1], [0]], from_probas=True, threshold="auto")
    assert outcome == "ok" and result["balanced_accuracy"] == 1.0


def test_flags_must_be_booleans(metrics):
    """Was: adjusted={'a': 1} with an interval: "unsupported operand type(s) for &: 'bool' and 'dict'"."""
    raises_named(metrics["balanced_accuracy"], "balanced_accuracy", TypeError, r"^adjusted: expected True or False, found \{'a': 1\}",
                 predictions=[0, 1], references=[0, 1], confidence_level=0.95, adjusted={"a": 1})
    raises_named(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel", TypeError, r"^from_probas: expected True or False",
                 predictions=[[0.2]], references=[[0]], from_probas="yes")
    # 0/1 integers keep working as flags.
    assert metrics["informedness"].compute(predictions=[0, 1], references=[0, 1], return_markedness=1) == {"informedness": 1.0, "markedness": 1.0}


@pytest.mark.parametrize(
    "name, kwargs, pattern",
    [
        ("balanced_accuracy", dict(predictions=["a", "a"], references=["a", "b"], num_classes=2), r"^num_classes: .*found string labels"),
        ("balanced_accuracy", dict(predictions=[5, 5], references=[5, 5], pos_label=5), r"^labels: cannot tell the negative class, found only pos_label=5"),
        ("balanced_accuracy", dict(predictions=[0.1, 0.9], references=[0, 1], threshold="auto", confidence_level=0.95),
         r"^confidence_level: no interval with threshold='auto'.*Found confidence_level=0.95"),
        ("balanced_accuracy", dict(), r"^compute: nothing to compute on.*found nothing stored"),
        ("balanced_accuracy_multilabel", dict(predictions=[[0.1]], references=[[1]], threshold="auto"), r"^threshold: .*found from_probas=False"),
        ("balanced_accuracy_multilabel", dict(predictions=[[0.1]], references=[[1]], from_probas=True, threshold="auto", confidence_level=0.9),
         r"^confidence_level: no interval with threshold='auto'.*Found confidence_level=0.9"),
        ("informedness", dict(predictions=[0, 1, 2], references=[0, 1, 2], confidence_level=0.9, ci_method="wilson"),
         r"^ci_method: 'wilson' has no analytic form .* expected ci_method='score', 'delta', 'bootstrap' or None"),
    ],
)
def test_messages_say_what_was_found(metrics, name, kwargs, pattern):
    """Were: messages without "expected"/"found" (the contract's wording check)."""
    raises_named(metrics[name], name, (ValueError, TypeError), pattern, **kwargs)


# ---------------------------------------------------------------- huge num_classes / n_resamples


def test_num_classes_of_a_billion_materialises_only_the_observed_classes(metrics):
    """Was: np.arange(10**9) and three bincounts of 10^9 (>= 24 GB: MemoryError, or the
    process killed). Unobserved classes have no samples: skipped, or zero_division."""
    references, predictions = [3, 7, 7, 3], [3, 7, 3, 3]
    observed = metrics["balanced_accuracy"].compute(predictions=predictions, references=references)
    huge = keeps_contract(metrics["balanced_accuracy"], "balanced_accuracy", predictions=predictions, references=references, num_classes=10**9)
    assert huge == ("ok", observed)
    # zero_division=0: every unobserved class counts as recall 0.
    outcome, result = keeps_contract(metrics["balanced_accuracy"], "balanced_accuracy", predictions=predictions, references=references,
                                     num_classes=10**9, zero_division=0.0)
    assert result["balanced_accuracy"] == pytest.approx((1.0 + 0.5) / 10**9, rel=1e-12)
    # A class mask over one observed and one unobserved class.
    outcome, result = keeps_contract(metrics["balanced_accuracy"], "balanced_accuracy", predictions=predictions, references=references,
                                     num_classes=10**9, zero_division=1.0, class_mask=[7, 123456789])
    assert result == {"balanced_accuracy": (0.5 + 1.0) / 2}


def test_huge_num_classes_agrees_with_the_dense_computation_below_the_limit(metrics):
    """The same data with num_classes just below (dense) and far above (observed only) the
    materialisation limit: unobserved classes count the same way."""
    from shared.counting import labels

    rng = np.random.default_rng(0)
    references = rng.integers(0, 6, 50)
    predictions = np.where(rng.random(50) < 0.6, references, rng.integers(0, 6, 50))
    for zero_division in ("skip", 0.0, 1.0):
        for num_classes in (8, labels.MAX_MATERIALISED_CLASSES):
            dense = metrics["balanced_accuracy"].compute(predictions=predictions, references=references, num_classes=num_classes,
                                                         zero_division=zero_division, class_mask=[0, 2, 7])
            scaled_up = metrics["balanced_accuracy"].compute(predictions=predictions, references=references, num_classes=10**9,
                                                             zero_division=zero_division, class_mask=[0, 2, 7])
            assert scaled_up["balanced_accuracy"] == pytest.approx(dense["balanced_accuracy"], abs=1e-12)
        if zero_division == 1.0:  # informedness refuses it
            continue
        for average in ("bookmaker", "macro", "weighted"):
            # Without a mask a macro average with a numeric zero_division depends on K itself.
            for class_mask in ([0, 2, 7], None) if zero_division == "skip" or average != "macro" else ([0, 2, 7],):
                options = dict(zero_division=zero_division, average=average, return_markedness=True, class_mask=class_mask)
                dense = metrics["informedness"].compute(predictions=predictions, references=references,
                                                        num_classes=labels.MAX_MATERIALISED_CLASSES, **options)
                sparse = metrics["informedness"].compute(predictions=predictions, references=references, num_classes=10**9, **options)
                assert sparse.keys() == dense.keys()
                for key in ("informedness", "markedness"):
                    assert sparse[key] == pytest.approx(dense[key], abs=1e-12, nan_ok=True)
    check_result("balanced_accuracy", metrics["balanced_accuracy"].compute(predictions=predictions, references=references))


def test_num_classes_beyond_any_array_size(metrics):
    """Was: ValueError "Maximum allowed size exceeded" (np.arange(10**30)), naming nothing."""
    outcome, result = keeps_contract(metrics["informedness"], "informedness", predictions=[3, 7, 3], references=[3, 7, 7], num_classes=10**30)
    assert outcome == "ok" and result == metrics["informedness"].compute(predictions=[3, 7, 3], references=[3, 7, 7])


def test_num_classes_beyond_int64_with_zero_division(metrics):
    """Was (fuzz): OverflowError "Python int too large to convert to C long": with zero_division=0 the
    10**30 - 1 classes without items count as 0 each, and their number did not fit a NumPy integer."""
    outcome, result = keeps_contract(metrics["informedness"], "informedness", predictions=[0], references=[0], zero_division=0,
                                     num_classes=10**30)
    # Bookmaker weighs each class by its share of the predictions: classes never predicted do not move it.
    assert outcome == "ok" and result == metrics["informedness"].compute(predictions=[0], references=[0], zero_division=0)
    macro = metrics["informedness"].compute(predictions=[0, 1, 1], references=[0, 1, 0], zero_division=0, num_classes=10**30,
                                            average="macro")
    assert 0.0 <= macro["informedness"] < 1e-29  # two classes' J_c over 10**30 classes, the rest 0


def test_per_class_lists_of_a_billion_classes_are_refused(metrics):
    for name in LABEL_MODULES:
        raises_named(metrics[name], name, ValueError, r"^return_per_class: per-class lists need at most 1,048,576 classes",
                     predictions=[3, 7], references=[3, 7], num_classes=10**9, return_per_class=True)
    # Below the limit they still come back, one entry per class.
    result = metrics["balanced_accuracy"].compute(predictions=[3, 7], references=[3, 7], num_classes=10, return_per_class=True)
    assert len(result["per_class_recall"]) == 10


def test_a_huge_n_resamples_is_refused_before_allocating(metrics):
    """Was: MemoryError ("Unable to allocate 7.1 PiB") for n_resamples=10**15."""
    raises_named(metrics["balanced_accuracy"], "balanced_accuracy", ValueError, r"^n_resamples: expected",
                 predictions=[0, 1], references=[0, 1], confidence_level=0.95, ci_method="bootstrap", n_resamples=10**15)


def test_the_parity_with_scikit_learn_is_unchanged_by_the_fixes(metrics):
    rng = np.random.default_rng(3)
    references = rng.integers(0, 4, 200)
    predictions = np.where(rng.random(200) < 0.5, references, rng.integers(0, 4, 200))
    weights = rng.random(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = metrics["balanced_accuracy"].compute(predictions=predictions, references=references, sample_weight=weights)
    assert result["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, predictions, sample_weight=weights), abs=1e-12)


# ---------------------------------------------------------------- found by the "thorough" profile


def test_informedness_stays_inside_its_range_with_float_weights(metrics):
    """Was: -1.0000000000000004 (rounding of weighted sums), and -1.0000000017530888 when one
    class held nearly all the weight (other rows computed as total - rows cancelled)."""
    cases = [
        dict(predictions=["safe", "safe", "unsafe"], references=["safe", "unsafe", "safe"], sample_weight=[0.0, 6.453822657942302, 9.949470938228597]),
        dict(predictions=["safe", "unsafe", "safe", "maybe", "safe", "safe", "safe", "unsafe"],
             references=["safe", "unsafe", "safe", "unsafe", "safe", "safe", "safe", "safe"],
             sample_weight=[0.0, 1e300, 0.0, 1.7e308, 0.0, 0.0, 0.0, 1e300],
             labels=["maybe", "safe", "unsafe"]),  # declared: strings outside a two-class golden set are refused
    ]
    for case in cases:
        outcome, result = keeps_contract(metrics["informedness"], "informedness", **case, return_markedness=True, return_per_class=True)
        assert outcome == "ok"
    # The first case is the inverted binary predictor: exactly -1.
    assert keeps_contract(metrics["informedness"], "informedness", **cases[0])[1]["informedness"] == -1.0
    # The second: TPR(unsafe) = 1e300 / (1e300 + 1.7e308), FPR(unsafe) = 1; J_safe = 0 has bias weight 0.
    second = keeps_contract(metrics["informedness"], "informedness", **cases[1])[1]["informedness"]
    assert second == pytest.approx(1e300 / (1e300 + 1.7e308) - 1.0, abs=1e-15)


def test_auto_threshold_between_scores_near_the_float_maximum(metrics):
    """Was: RuntimeWarning "overflow encountered in add" in the midpoint (1e308 + 1e308)."""
    outcome, result = keeps_contract(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel",
                                     predictions=[[0.0, 0.0, 0.0, 1e308]], references=[[0, 0, 0, 0]], from_probas=True, threshold="auto",
                                     sample_weight=[0.0])
    assert outcome == "ok"
    outcome, result = keeps_contract(metrics["balanced_accuracy"], "balanced_accuracy", predictions=[1e308, 1.5e308, -1e308],
                                     references=[1, 1, 0], threshold="auto")
    assert outcome == "ok" and result["balanced_accuracy"] == 1.0 and math.isfinite(result["optimal_threshold"])


def test_adjusted_interval_with_an_integer_flag(metrics):
    """adjusted=1 is True: the interval is on the adjusted scale [-1/(K-1), 1]."""
    outcome, result = keeps_contract(metrics["balanced_accuracy"], "balanced_accuracy", predictions=[0], references=[0], zero_division=0,
                                     confidence_level=0.95, adjusted=1)
    assert outcome == "ok" and result["balanced_accuracy"] == 0.0
    assert -1.0 <= result["balanced_accuracy_ci"][0] <= 0.0 <= result["balanced_accuracy_ci"][1] <= 1.0


# ---------------------------------------------------------------- long string labels (test_resources)


def test_one_long_label_among_short_ones_is_not_a_fixed_width_copy(metrics):
    """Was: np.asarray(labels) made every element as wide as the longest label - 1,000 short
    labels and one of 10^5 characters took 3.2 GB and 16 s (4 bytes x 10^5 x 1,001); with
    10^5 labels it would take 40 GB. Long labels are now shared Python strings."""
    from shared.counting import inputs

    long_label = "x" * 100_000
    references = ["safe"] * 500 + ["unsafe"] * 500 + [long_label] * 3
    predictions = ["safe"] * 400 + ["unsafe"] * 600 + [long_label, "safe", long_label]
    array = inputs.as_array(references, "references")
    assert array.dtype == object and array.nbytes == 8 * len(references)
    short = [label if label != long_label else "long" for label in references], [label if label != long_label else "long" for label in predictions]
    for name in LABEL_MODULES:
        result = metrics[name].compute(predictions=predictions, references=references, return_per_class=True)
        expected = metrics[name].compute(predictions=short[1], references=short[0], return_per_class=True)
        assert result["classes"] == ["safe", "unsafe", long_label] and expected["classes"] == ["long", "safe", "unsafe"]
        assert result[name] == pytest.approx(expected[name], abs=1e-12)
    # Given as labels, by name (top-k), and stored through add_batch: the same values.
    labels = ["safe", "unsafe", long_label]
    assert metrics["balanced_accuracy"].compute(predictions=predictions, references=references, labels=labels)["balanced_accuracy"] == pytest.approx(
        metrics["balanced_accuracy"].compute(predictions=short[1], references=short[0])["balanced_accuracy"], abs=1e-12)
    scores = np.eye(3)[[labels.index(p) for p in predictions]]
    assert metrics["balanced_topk_accuracy"].compute(predictions=scores, references=references, labels=labels)["balanced_topk_accuracy"] == pytest.approx(
        metrics["balanced_accuracy"].compute(predictions=predictions, references=references, labels=labels)["balanced_accuracy"], abs=1e-12)


def test_long_labels_stored_through_add_batch(tmp_path):
    metric = load_module("balanced_accuracy", cache_dir=str(tmp_path))
    long_label = "y" * 100_000
    metric.add_batch(predictions=["a"] * 300 + [long_label] * 100, references=["a"] * 350 + [long_label] * 50)
    metric.add_batch(predictions=["a", long_label], references=[long_label, "a"])
    assert metric.compute(return_per_class=True)["per_class_recall"] == [300 / 351, 50 / 51]


def test_string_columns_of_several_chunks_are_decoded_without_combining():
    """Was: combine_chunks() before decoding: more than 2 GB of text in a stored column (or a
    pandas Arrow-backed Series) raised ArrowInvalid "offset overflow"."""
    import pandas as pd
    import pyarrow as pa

    from shared.counting import inputs

    column = pa.chunked_array([pa.array(["b", "a", "b"]), pa.array(["c", "a"]), pa.array([], type=pa.string())])
    assert inputs.as_array(column, "references").tolist() == ["b", "a", "b", "c", "a"]
    assert inputs.as_array(pa.chunked_array([], type=pa.string()), "references").tolist() == []
    assert inputs.as_array(pd.Series(["u", "v", "u"], dtype="string"), "references").tolist() == ["u", "v", "u"]


def test_multilabel_weighted_counts_never_give_a_negative_rate(metrics):
    """Was: per_label_ba = -9.7e-17 (TN = total - positives - predicted + TP rounded below 0)."""
    outcome, result = keeps_contract(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel",
                                     predictions=[[0, 0, 0], [0, 0, 0], [0, 0, 1]], references=[[0, 0, 0], [0, 0, 1], [0, 0, 0]],
                                     return_per_label=True, sample_weight=[0.0, 1.0, 1.141763149975641])
    assert outcome == "ok" and result["per_label_ba"][2] == 0.0


def test_weighted_multilabel_interval_with_weights_near_float64_limits(metrics):
    """Was: RuntimeWarning "overflow encountered in reduce": the labels' weighted positives
    (1.5e308 each) were summed to normalise the "weighted" average's weights."""
    outcome, result = keeps_contract(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel",
                                     predictions=[[1, 1], [0, 1]], references=[[1, 1], [0, 0]], sample_weight=[1.5e308, 1.0],
                                     average="weighted", confidence_level=0.95)
    assert outcome == "ok" and 0.0 <= result["balanced_accuracy_ci"][0] <= result["balanced_accuracy"] <= result["balanced_accuracy_ci"][1] <= 1.0


def test_multilabel_interval_with_a_weight_near_float64s_smallest(metrics):
    """Was (fuzz): RuntimeWarning "overflow encountered in divide": one sample of weight 5e-324 made the
    influence 1 / 5e-324. Now the contract holds: one sample is one cluster, so no interval, with its reason."""
    outcome, result = keeps_contract(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel",
                                     predictions=[[0]], references=[[0]], sample_weight=[5e-324], confidence_level=0.95)
    assert outcome == "ok" and result["balanced_accuracy"] == 1.0 and result["balanced_accuracy_ci_reason"] == "single_cluster"


def test_micro_multilabel_with_weights_near_float64_limits(metrics):
    """Was (thorough profile): RuntimeWarning "overflow encountered in reduce": "micro" pooled
    the labels' weighted totals (1.7e308 each) into one sum."""
    outcome, result = keeps_contract(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel",
                                     predictions=[[0, 0]] * 7 + [[1, 0]], references=[[0, 0]] * 7 + [[1, 1]], average="micro",
                                     sample_weight=[0.0] * 7 + [1.7e308])
    # Pooled: one positive found of two (weights 1.7e308 each), no negative weight: TPR = 1/2.
    assert outcome == "ok" and result["balanced_accuracy"] == 0.5
    outcome, result = keeps_contract(metrics["balanced_accuracy_multilabel"], "balanced_accuracy_multilabel",
                                     predictions=[[0, 0]] * 7 + [[1, 0]], references=[[0, 0]] * 7 + [[1, 1]], average="micro",
                                     sample_weight=[0.0] * 7 + [1.7e308], confidence_level=0.95)
    assert outcome == "ok" and result["balanced_accuracy"] == 0.5


def test_weight_0_samples_place_no_threshold_cut_point(metrics):
    """Was: threshold="auto" took candidate cut points from the scores of weight-0 samples
    too, so the reported threshold could differ from the one found without those samples
    (their balanced accuracy could not). Now they are left out, as roc_curve leaves them out."""
    from sklearn.metrics import roc_curve

    rng = np.random.default_rng(5)
    references = (rng.random(400) < 0.3).astype(np.int64)
    scores = np.round(np.clip(references * 0.25 + rng.random(400), 0, 1), 3)
    weights = rng.integers(0, 3, 400).astype(float)  # about a third weigh 0
    kept = weights != 0
    ba = metrics["balanced_accuracy"]
    with_zeros = ba.compute(predictions=scores, references=references, threshold="auto", sample_weight=weights)
    dropped = ba.compute(predictions=scores[kept], references=references[kept], threshold="auto", sample_weight=weights[kept])
    assert with_zeros == dropped
    # roc_curve's candidate thresholds come from the weighted samples only: the threshold found
    # gives the best J of its ROC curve.
    false_positive_rate, true_positive_rate, _ = roc_curve(references, scores, sample_weight=weights)
    j = (scores >= with_zeros["optimal_threshold"]).astype(int)
    assert balanced_accuracy_score(references, j, sample_weight=weights) == pytest.approx(
        (1 + np.max(true_positive_rate - false_positive_rate)) / 2, abs=1e-12
    )
    multilabel = metrics["balanced_accuracy_multilabel"]
    two_labels = np.stack([references, 1 - references], axis=1)
    two_scores = np.stack([scores, 1 - scores], axis=1)
    with_zeros = multilabel.compute(predictions=two_scores, references=two_labels, from_probas=True, threshold="auto",
                                    sample_weight=weights, return_per_label=True)
    dropped = multilabel.compute(predictions=two_scores[kept], references=two_labels[kept], from_probas=True, threshold="auto",
                                 sample_weight=weights[kept], return_per_label=True)
    assert with_zeros == dropped


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_an_integer_label_beyond_int64_is_named(metrics, name):
    """Was (found by tests/properties/test_fuzz.py): labels=[0, 2**70] raised OverflowError
    "Python int too large to convert to C long" while encoding, naming nothing."""
    raises_named(metrics[name], name, ValueError, r"^labels: expected integer class values within int64 .* found 1180591620717411303424",
                 predictions=[0], references=[0], labels=[0, 2**70])


@pytest.mark.parametrize("name", CLASS_MODULES)
def test_an_interval_with_a_subnormal_weight_is_computed(metrics, name):
    # Was ValueError('math domain error'): the near-boundary gamma bound's shape, mean ** 2 /
    # variance, underflowed to 0 and log Gamma(0) was taken. Gamma(shape -> 0) is all at 0.
    entry = module(name)
    if entry.inputs == "scores":
        kwargs = dict(predictions=[[0, 0], [0, 0], [0, 0], [0, 0], [1, 0]], references=[1, 0, 0, 0, 1],
                      sample_weight=[1e-300, 0, 0, 0, 1])
    else:
        kwargs = dict(predictions=["safe", "safe", "unsafe"], references=["unsafe", "safe", "safe"],
                      sample_weight=[1, 2e-226, 1])
    outcome, result = keeps_contract(metrics[name], name, confidence_level=0.95, **kwargs)
    assert outcome == "ok", result
    low, high = result[entry.ci_key]
    assert low <= result[entry.value_key] <= high


def test_a_weighted_informedness_interval_with_subnormal_weights(metrics):
    # Was RuntimeWarning "overflow encountered in scalar divide": the squared weights were put on the
    # largest weight's scale with 1 / scale, beyond float64 for a subnormal scale. Informedness does
    # not depend on the weights' scale, so the result is that of the same weights times 1e310
    # (to the few digits subnormal weights keep).
    kwargs = dict(references=[0, 1, 2, 0, 1, 2], predictions=[0, 1, 1, 0, 2, 2], confidence_level=0.95)
    outcome, tiny = keeps_contract(metrics["informedness"], "informedness",
                                   sample_weight=[1e-310, 2e-310, 1e-310, 3e-310, 1e-310, 1e-310], **kwargs)
    assert outcome == "ok", tiny
    normal = metrics["informedness"].compute(sample_weight=[1, 2, 1, 3, 1, 1], **kwargs)
    assert tiny["informedness"] == pytest.approx(normal["informedness"], rel=1e-9)
    assert tiny["informedness_ci"] == pytest.approx(normal["informedness_ci"], rel=1e-9)


def test_whole_number_float_labels_from_2_to_the_53_are_counted_not_dropped(metrics):
    # Before: informedness (whose predictions are labels only) counted a batch of whole-number
    # floats from 2^53 up as nothing: nan with reason 'no_samples' alone, and a streamed batch
    # silently left out of the result. They are the integers they hold, as balanced accuracy reads them.
    metric = metrics["informedness"]
    references, big = [0, 1, 0, 0, 1, 0], 2**60
    as_integers = metric.compute(predictions=[big, 1, 0, 0, 1, 1], references=references)["informedness"]
    assert metric.compute(predictions=[float(big), 1, 0, 0, 1, 1], references=references)["informedness"] == as_integers
    assert math.isfinite(as_integers)
    metric.add_batch(predictions=[0, 1, 1], references=[0, 1, 0])
    metric.add_batch(predictions=[float(big), 1, 0], references=[0, 1, 0])
    streamed = metric.compute()["informedness"]
    whole = metric.compute(predictions=[0, 1, 1, big, 1, 0], references=[0, 1, 0, 0, 1, 0])["informedness"]
    assert streamed == whole


@pytest.mark.parametrize("name", ["balanced_accuracy", "informedness"])
def test_a_baseline_s_non_finite_or_huge_whole_number_values(metrics, name):
    # Before: a NaN in baseline_predictions was reported as "predictions: expected finite values", and
    # (informedness) whole-number floats from 2^53 up in it counted the batch as nothing ('no_samples').
    metric, references, predictions = metrics[name], [0, 1, 0, 0, 1], [0, 1, 1, 0, 1]
    raises_named(metric, name, ValueError, r"^baseline_predictions: expected finite values",
                 predictions=predictions, references=references, baseline_predictions=[0, 1, float("nan"), 0, 1])
    big = 2**60
    as_integers = metric.compute(predictions=predictions, references=references, baseline_predictions=[0, 1, big, 0, 1])
    assert metric.compute(predictions=predictions, references=references,
                          baseline_predictions=[0, 1, float(big), 0, 1]) == as_integers
    assert "reason" not in as_integers and math.isfinite(as_integers[f"baseline_{name}"])
