"""Issue 26, "a new user's first hour": each trip-wire's reproducer, now a test.

Each test starts from the call the issue reported (what it did before is in its docstring)
and checks what it does now against scikit-learn or an independent computation in the test.
"""

import math
import re
import warnings

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score

from conftest import MODULE_NAMES, load_module
from shared.counting.store import Store
from shared.tooling.modules import CLASS_MODULES, LABEL_MODULES, MODULES, module


@pytest.fixture(scope="module")
def metrics():
    return {name: load_module(name) for name in MODULE_NAMES}


def binary_scores(rng, size, positive_mean, scale=1.0, offset=0.0):
    """References (about 30% positive) and scores that separate them imperfectly."""
    references = (rng.random(size) < 0.3).astype(int)
    scores = offset + scale * (references * positive_mean + rng.normal(0.0, 1.0, size))
    return references, scores


# ---------------------------------------------------------------- the two-split threshold recipe


def test_a_threshold_tuned_on_dev_logits_reports_on_test_logits(metrics):
    """Was: compute(references=y_test, predictions=logits_test, threshold=0.466) raised "expected probabilities
    in [0, 1] with a numeric threshold ... use threshold='auto' for logits", i.e. advice to tune on the test split."""
    metric = metrics["balanced_accuracy"]
    rng = np.random.default_rng(26)
    y_dev, logits_dev = binary_scores(rng, 400, 1.5, offset=-1.0)
    y_test, logits_test = binary_scores(rng, 300, 1.5, offset=-1.0)
    assert logits_test.min() < 0 < 1 < logits_test.max()  # logits, not probabilities
    tuned = metric.compute(references=y_dev.tolist(), predictions=logits_dev.tolist(), threshold="auto")
    threshold = tuned["optimal_threshold"]
    report = metric.compute(references=y_test.tolist(), predictions=logits_test.tolist(), threshold=threshold)
    # The same rule "auto" tunes with: positive iff score >= threshold.
    assert report["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y_test, logits_test >= threshold), abs=1e-15)
    # The reproducer's own number, on the same test logits.
    fixed = metric.compute(references=y_test.tolist(), predictions=logits_test.tolist(), threshold=0.466)
    assert fixed["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y_test, logits_test >= 0.466), abs=1e-15)


def test_a_judges_tuned_score_threshold_reports_on_the_test_split(metrics):
    """Was: "auto" returned optimal_threshold 6.5 on a judge's 1-10 dev scores, and the test
    split then got "threshold: expected a number in [0, 1], found 6.5"."""
    metric = metrics["balanced_accuracy"]
    rng = np.random.default_rng(6)

    def judge(size):
        references = (rng.random(size) < 0.2).astype(int)
        scores = np.clip(np.rint(4 + 3 * references + rng.normal(0, 1.6, size)), 1, 10).astype(int)
        return references, scores

    y_dev, scores_dev = judge(500)
    y_test, scores_test = judge(300)
    tuned = metric.compute(references=y_dev.tolist(), predictions=scores_dev.tolist(), threshold="auto")
    threshold = tuned["optimal_threshold"]
    assert 1 < threshold < 10 and threshold % 1 == 0.5  # a midpoint between two integer scores
    report = metric.compute(references=y_test.tolist(), predictions=scores_test.tolist(), threshold=threshold)
    assert report["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y_test, scores_test >= threshold), abs=1e-15)
    assert metric.compute(references=[0, 1, 1, 0], predictions=[3, 8, 7, 5], threshold=6.5) == {"balanced_accuracy": 1.0}


def test_per_label_thresholds_tuned_on_dev_logits_report_on_test_logits(metrics):
    """Was: "expected per-label thresholds in [0, 1] or inf, found [-1.41, ...]" for thresholds
    tuned on a sigmoid head's logits."""
    metric = metrics["balanced_accuracy_multilabel"]
    rng = np.random.default_rng(41)

    def head(size):
        references = (rng.random((size, 3)) < [0.2, 0.4, 0.1]).astype(int)
        logits = -1.5 + references * [1.0, 2.0, 1.5] + rng.normal(0, 1.0, (size, 3))
        return references, logits

    y_dev, logits_dev = head(400)
    y_test, logits_test = head(300)
    tuned = metric.compute(references=y_dev.tolist(), predictions=logits_dev.tolist(), from_probas=True, threshold="auto")
    thresholds = tuned["per_label_thresholds"]
    assert min(thresholds) < 0  # thresholds on the logits' scale
    report = metric.compute(references=y_test.tolist(), predictions=logits_test.tolist(), from_probas=True,
                            threshold=thresholds, return_per_label=True)
    expected = [balanced_accuracy_score(y_test[:, label], logits_test[:, label] >= thresholds[label]) for label in range(3)]
    assert report["per_label_ba"] == pytest.approx(expected, abs=1e-15)
    assert report["balanced_accuracy"] == pytest.approx(np.mean(expected), abs=1e-15)
    # The reproducer's shape: a negative threshold in the list.
    listed = metric.compute(references=[[1, 0], [0, 1]], predictions=[[0.3, -2.0], [-1.5, 0.2]], from_probas=True,
                            threshold=[-1.41, 0.1])
    assert listed == {"balanced_accuracy": 1.0}


def test_a_numeric_threshold_applies_to_both_systems_scores_alike(metrics):
    """A comparison cuts both systems' logits with the one number, as each system alone."""
    metric = metrics["balanced_accuracy"]
    rng = np.random.default_rng(7)
    references, system = binary_scores(rng, 200, 2.0, offset=-1.0)
    baseline = system + rng.normal(0, 1.0, system.size)
    result = metric.compute(references=references.tolist(), predictions=system.tolist(), baseline_predictions=baseline.tolist(),
                            threshold=-0.4)
    assert result["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, system >= -0.4), abs=1e-15)
    assert result["baseline_balanced_accuracy"] == pytest.approx(balanced_accuracy_score(references, baseline >= -0.4), abs=1e-15)


@pytest.mark.parametrize(
    "name, kwargs, name_in_message",
    [
        ("balanced_accuracy", dict(references=[0, 1, 1], predictions=[0.2, 0.9, 0.6], threshold=6.5), "predictions"),
        ("balanced_accuracy", dict(references=[0, 1, 1], predictions=[0, 1, 1], threshold=-1.41), "predictions"),
        ("balanced_accuracy", dict(references=[0, 1, 1], predictions=[-2.0, 1.5, 0.3], baseline_predictions=[0.1, 0.8, 0.7],
                                   threshold=6.5), "baseline_predictions"),
        ("balanced_accuracy_multilabel", dict(references=[[1, 0], [0, 1]], predictions=[[0.9, 0.2], [0.1, 0.7]], from_probas=True,
                                              threshold=[-1.41, 0.5]), "predictions"),
    ],
)
def test_only_a_surely_wrong_threshold_is_refused_and_the_message_says_why(metrics, name, kwargs, name_in_message):
    """A threshold outside [0, 1] with predictions all in [0, 1] makes every sample one class."""
    with pytest.raises(ValueError) as raised:
        metrics[name].compute(**kwargs)
    message = str(raised.value)
    assert message.startswith(f"threshold: expected a threshold on the scale of {name_in_message}, found ")
    assert "nothing is positive" in message or "everything is positive" in message
    assert "auto" not in message  # no advice to tune on the data being reported


def test_no_message_about_scores_suggests_tuning_on_the_reported_data(metrics):
    """The hints for scores passed as labels point to another split, never to "auto" on these data."""
    for name, kwargs in [("balanced_accuracy", {}), ("informedness", {})]:
        with pytest.raises(ValueError) as raised:
            metrics[name].compute(references=[0, 1, 1], predictions=[0.2, 0.9, 0.6], **kwargs)
        message = str(raised.value)
        assert "another split" in message, message
        assert not re.search(r"use threshold='auto'|threshold='auto' for", message), message


# ---------------------------------------------------------------- padding counted as a class


def padding_warnings(caught):
    return [warning for warning in caught if "looks like padding" in str(warning.message)]


def test_minus_100_in_references_warns_once_and_names_ignore_index(metrics):
    """Was: compute(references=[0, 1, -100, 1], predictions=[0, 1, 1, 1]) returned 0.667 with
    classes [-100, 0, 1] and no warning."""
    metric = metrics["balanced_accuracy"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = metric.compute(references=[0, 1, -100, 1], predictions=[0, 1, 1, 1], return_per_class=True)
    (warning,) = padding_warnings(caught)
    assert warning.category is UserWarning and warning.filename == __file__  # points at the user's call
    assert str(warning.message).startswith("references: -100 looks like padding")
    assert "ignore_index=-100" in str(warning.message)
    # The value is what the counts say (documented: -100 is then a class), and ignore_index drops it.
    assert result["classes"] == [-100, 0, 1]
    assert result["balanced_accuracy"] == pytest.approx(balanced_accuracy_score([0, 1, -100, 1], [0, 1, 1, 1]), abs=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dropped = metric.compute(references=[0, 1, -100, 1], predictions=[0, 1, 1, 1], ignore_index=-100)
    assert dropped == {"balanced_accuracy": 1.0}


def test_255_in_uint8_segmentation_maps_warns_and_255_in_int64_does_not(metrics):
    metric = metrics["balanced_accuracy"]
    references = np.array([[0, 1, 255], [1, 1, 0]], dtype=np.uint8)
    predictions = np.array([[0, 1, 1], [1, 0, 0]], dtype=np.uint8)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metric.compute(references=references, predictions=predictions)
    (warning,) = padding_warnings(caught)
    assert "255 looks like padding" in str(warning.message) and "ignore_index=255" in str(warning.message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a class 255 among int64 labels is an ordinary class
        metric.compute(references=references.astype(np.int64), predictions=predictions.astype(np.int64))
        metric.compute(references=references, predictions=predictions, ignore_index=255)


def test_the_padding_warning_comes_once_per_compute_when_streamed(load):
    metric = load("balanced_accuracy")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metric.add_batch(references=[0, -100, 1], predictions=[0, 1, 1])
        metric.add_batch(references=[-100, 1], predictions=[0, 1])
        metric.add_batch(references=np.array([255, 0], dtype=np.uint8), predictions=[1, 0])
        metric.compute()
    (warning,) = padding_warnings(caught)
    assert "-100 looks like padding" in str(warning.message) and "255 looks like padding" in str(warning.message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metric.add_batch(references=[0, -100, 1], predictions=[0, 1, 1])
        metric.compute()
        metric.compute(references=[0, -100], predictions=[0, 0])
    assert len(padding_warnings(caught)) == 2  # one per compute


def test_the_uint8_note_survives_the_distributed_hand_over(tmp_path):
    """Process 0 merges the others' stores from files: the dtype note travels with the counts."""
    from shared.counting.confusion import count_labels

    store = count_labels([0, 1], np.array([255, 1], dtype=np.uint8))
    store.save(str(tmp_path / "store.npz"))
    merged = Store()
    merged.merge(count_labels([0, 1], [0, 1]))
    merged.merge(Store.load(str(tmp_path / "store.npz")))
    assert merged.reference_dtypes == {"uint8", "int64"}


def test_informedness_warns_too_and_labels_given_explicitly_do_not(metrics):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics["informedness"].compute(references=[0, 1, -100, 1], predictions=[0, 1, 1, 1])
    assert len(padding_warnings(caught)) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the user named -100 as a class
        metrics["balanced_accuracy"].compute(references=[0, 1, -100, 1], predictions=[0, 1, 1, 1], labels=[-100, 0, 1])


@pytest.mark.parametrize(
    "name, kwargs, value",
    [
        ("balanced_accuracy_multilabel", dict(references=[[0, 1], [-100, 1]], predictions=[[0, 1], [1, 1]]), -100),
        ("balanced_accuracy_multilabel", dict(references=np.array([[0, 1], [255, 1]], np.uint8), predictions=[[0, 1], [1, 1]]), 255),
        ("balanced_topk_accuracy", dict(references=[0, -100], predictions=[[0.2, 0.8], [0.5, 0.5]]), -100),
        ("balanced_topk_accuracy", dict(references=np.array([0, 255], np.uint8), predictions=[[0.2, 0.8], [0.5, 0.5]]), 255),
        ("balanced_accuracy", dict(references=[0, 1, -100], predictions=[0, 1, 1], num_classes=2), -100),
    ],
)
def test_where_padding_cannot_be_a_class_the_error_names_ignore_index(metrics, name, kwargs, value):
    """Multilabel references are 0/1 and top-k references are score columns: there padding
    was already an error, which now says what the value probably is."""
    with pytest.raises(ValueError, match=rf"^references: .*\. {value} looks like padding .*: pass ignore_index={value} "):
        metrics[name].compute(**kwargs)


# ---------------------------------------------------------------- errors that say more


@pytest.mark.parametrize(
    "name, typo, meant",
    [
        ("balanced_accuracy", "reference", "references"),
        ("balanced_accuracy", "prediction", "predictions"),
        ("balanced_accuracy", "treshold", "threshold"),
        ("informedness", "unlabelled_predictions", "unlabeled_predictions"),
        ("balanced_accuracy_multilabel", "sample_weights", "sample_weight"),
        ("balanced_topk_accuracy", "klist", "k_list"),
    ],
)
def test_an_unknown_argument_lists_every_argument_and_suggests_the_closest(metrics, name, typo, meant):
    """Was: compute(reference=[...]) listed only the options, naming neither references nor predictions."""
    metric = metrics[name]
    with pytest.raises(TypeError) as raised:
        metric.compute(**{typo: [0, 1]})
    message = str(raised.value)
    assert message.startswith(f"{typo}: expected an argument of {name} (data: predictions, references, ")
    assert message.endswith(f"found an unknown argument. Did you mean `{meant}`?")
    listed = message.split(" (", 1)[1].rsplit("), found", 1)[0]
    for argument in ["predictions", "references", *metric.INPUTS, *metric.OPTIONS]:
        assert re.search(rf"(?<![\w]){argument}(?![\w])", listed), argument


def test_options_given_to_add_batch_say_where_options_go(load):
    """Was: add_batch(..., ignore_index=-100) said "Bad inputs for evaluation module"."""
    metric = load("balanced_accuracy")
    with pytest.raises(ValueError, match=r"^ignore_index: expected it as an option of compute\(\.\.\., ignore_index=\.\.\.\) "
                                         r"or evaluate\.load\(\.\.\., ignore_index=\.\.\.\), found it given to add_batch"):
        metric.add_batch(references=[0, 1], predictions=[0, 1], ignore_index=-100)
    with pytest.raises(ValueError, match=r"^reference: expected an input of add_batch \(predictions, references, sample_weight, "
                                         r"baseline_predictions, clusters, judges\), found an unknown argument\. Did you mean `references`\?"):
        metric.add_batch(reference=[0, 1], predictions=[0, 1])
    with pytest.raises(ValueError, match=r"^ignore_index: .* found it given to add;"):
        metric.add(reference=0, prediction=0, ignore_index=-100)
    assert len(metric) == 0  # nothing was added by the refused calls
    with pytest.raises(TypeError, match=r"^references: expected options at evaluate\.load \(.*\), found a data argument; "
                                        r"pass data to compute\(\.\.\.\) or add_batch\(\.\.\.\)"):
        load("balanced_accuracy", references=[0, 1])


def test_topk_one_hot_references_say_references_are_class_indices(metrics):
    """Was: "predictions and references: expected the same number of samples, found 2 and 6"."""
    metric = metrics["balanced_topk_accuracy"]
    one_hot = [[0, 1, 0], [1, 0, 0]]
    scores = [[0.1, 0.8, 0.1], [0.7, 0.2, 0.1]]
    with pytest.raises(ValueError, match=r"^references: expected one class per sample, shape \(N,\): an index 0\.\.K-1 into the "
                                         r"score columns \(or a name from `labels`\), found shape \(2, 3\); for one-hot rows "
                                         r"pass their argmax"):
        metric.compute(references=one_hot, predictions=scores)
    assert metric.compute(references=np.argmax(one_hot, axis=-1), predictions=scores) == {"balanced_topk_accuracy": 1.0}
    assert metric.compute(references=[[1], [0]], predictions=scores) == {"balanced_topk_accuracy": 1.0}  # a column is fine


# By the kind of the module's inputs (the registry's ``inputs``).
EMPTY_CALLS = {
    "labels": [dict(references=[], predictions=[]), dict(references=[0, 1], predictions=[0, 1], sample_weight=[0, 0]),
               dict(confusion_matrix=[[0, 0], [0, 0]])],
    "indicators": [dict(references=[], predictions=[]), dict(references=np.zeros((0, 3)), predictions=np.zeros((0, 3))),
                   dict(references=[[0, 1]], predictions=[[0, 1]], sample_weight=[0]),
                   dict(confusion_matrix=[[[0, 0], [0, 0]]])],
    "scores": [dict(references=[], predictions=[]), dict(references=[], predictions=np.zeros((0, 3))),
               dict(references=[0, 1], predictions=[[0.9, 0.1], [0.2, 0.8]], sample_weight=[0, 0])],
}
MAIN_KEY = {entry.name: entry.value_key for entry in MODULES}


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_empty_input_is_one_reasoned_nan_in_every_module(metrics, name):
    """Was: balanced accuracy gave NaN with "no_reference_classes", informedness NaN with
    "no_samples", and multilabel and top-k raised for compute(references=[], predictions=[])."""
    for kwargs in EMPTY_CALLS[module(name).inputs]:
        result = metrics[name].compute(**kwargs)
        assert set(result) == {MAIN_KEY[name], "reason"}, kwargs
        assert math.isnan(result[MAIN_KEY[name]]) and result["reason"] == "no_samples", kwargs
        with_interval = metrics[name].compute(**kwargs, confidence_level=0.95)
        assert with_interval["reason"] == "no_samples" and all(math.isnan(x) for x in with_interval[f"{MAIN_KEY[name]}_ci"])


def test_empty_batches_streamed_then_real_ones_count_as_usual(load):
    for name, empty, batch in [
        ("balanced_accuracy_multilabel", dict(references=[], predictions=[]), dict(references=[[1, 0], [0, 1]], predictions=[[1, 0], [1, 1]])),
        ("balanced_topk_accuracy", dict(references=[], predictions=[]), dict(references=[0, 1], predictions=[[0.9, 0.1], [0.6, 0.4]])),
    ]:
        metric = load(name)
        metric.add_batch(**empty)
        metric.add_batch(**batch)
        metric.add_batch(**empty)
        assert metric.compute() == load(name).compute(**batch)
        metric.add_batch(**empty)
        assert metric.compute()["reason"] == "no_samples"


def test_every_card_documents_the_empty_input_reason():
    from conftest import REPO_ROOT

    for name in MODULE_NAMES:
        card = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")
        outputs = card.split("### Output Values", 1)[1].split("\n### ", 1)[0]
        assert '`"no_samples"` (empty input: no samples, or only samples of weight 0; the same in all four modules)' in " ".join(
            outputs.split()), name


# ---------------------------------------------------------------- issue 33: silent traps

# A judge's golden set of 10 "fail" and 10 "pass" items: TPR of "fail" 0.8, FPR of "fail" 0.1.
GOLDEN_REFERENCES = ["fail"] * 10 + ["pass"] * 10
GOLDEN_PREDICTIONS = ["fail"] * 8 + ["pass"] * 2 + ["fail"] + ["pass"] * 9
JUDGED = ["fail"] * 4 + ["pass"] * 6  # the judge's labels on new data: 40% "fail"


def rogan_gladen(references, predictions, judged, positive):
    references, predictions, judged = (np.asarray(values) == positive for values in (references, predictions, judged))
    tpr, fpr = predictions[references].mean(), predictions[~references].mean()
    return (judged.mean() - fpr) / (tpr - fpr)


def test_pass_fail_labels_need_pos_label_for_the_corrected_prevalence(metrics, load):
    """Was: with "pass"/"fail" labels and no pos_label, corrected_prevalence was the rate of
    "pass" (the alphabetically second class) without a word."""
    metric = metrics["informedness"]
    golden = dict(references=GOLDEN_REFERENCES, predictions=GOLDEN_PREDICTIONS)
    message = ("pos_label: expected it with labels other than 0/1 to say which class the corrected prevalence is of; "
               "found classes ['fail', 'pass'] and pos_label=None. Pass pos_label='fail' (or 'pass').")
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        metric.compute(**golden, unlabeled_predictions=JUDGED)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        metric.compute(**golden, unlabeled_predictions=JUDGED, prevalence_method="ppi")
    # Two labels given in an order are not a choice of class either (scikit-learn ignores their order too).
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        metric.compute(**golden, unlabeled_predictions=JUDGED, labels=["fail", "pass"])
    with pytest.raises(ValueError, match=re.escape("pos_label: expected it with the labels 0/1 in another order to say which "
                                                   "class the corrected prevalence is of; found classes [1, 0] and "
                                                   "pos_label=None. Pass pos_label=1 (or 0).")):
        metric.compute(references=[0, 0, 1, 1], predictions=[0, 1, 1, 1], unlabeled_predictions=[0, 1], labels=[1, 0])
    # With pos_label: the Rogan-Gladen estimate of that class, by hand; at compute or at load.
    for positive in ("fail", "pass"):
        result = metric.compute(**golden, unlabeled_predictions=JUDGED, pos_label=positive)
        assert result["corrected_prevalence_class"] == positive
        assert result["corrected_prevalence"] == pytest.approx(rogan_gladen(GOLDEN_REFERENCES, GOLDEN_PREDICTIONS, JUDGED, positive),
                                                               abs=1e-12)
        assert load("informedness", pos_label=positive).compute(**golden, unlabeled_predictions=JUDGED) == result
    assert metric.compute(**golden, unlabeled_predictions=JUDGED, pos_label="fail")["corrected_prevalence"] == pytest.approx(3 / 7)
    # Informedness itself, and balanced accuracy, are the same for either class: no pos_label needed.
    assert metric.compute(**golden) == {"informedness": pytest.approx(0.7)}
    assert metrics["balanced_accuracy"].compute(**golden) == {"balanced_accuracy": pytest.approx(0.85)}


def test_per_group_rates_of_two_labels_other_than_0_1_need_pos_label_too(metrics):
    """The per-group TPR and FPR are one class's rates: the same ambiguity, the same rule."""
    metric = metrics["informedness"]
    golden = dict(references=GOLDEN_REFERENCES, predictions=GOLDEN_PREDICTIONS, groups=["a", "b"] * 10)
    with pytest.raises(ValueError, match=re.escape("pos_label: expected it with labels other than 0/1 to say which class the "
                                                   "per-group TPR and FPR are of; found classes ['fail', 'pass'] and "
                                                   "pos_label=None. Pass pos_label='fail' (or 'pass').")):
        metric.compute(**golden)
    with pytest.raises(ValueError, match=re.escape("pos_label: expected it with labels other than 0/1 to say which class the "
                                                   "corrected prevalence and the per-group TPR and FPR are of; found classes")):
        metric.compute(**golden, unlabeled_predictions=JUDGED)
    result = metric.compute(**golden, pos_label="fail")
    assert result["per_group"]["a"]["tpr"] == pytest.approx(0.8) and result["per_group"]["a"]["fpr"] == pytest.approx(0.2)
    # More than two classes report one value per class: nothing to choose.
    three = metric.compute(references=["a", "b", "c", "a"], predictions=["a", "b", "c", "b"], unlabeled_predictions=["a", "c"],
                           groups=[1, 1, 2, 2])
    assert len(three["corrected_prevalence"]) == 3 and "recall" in three["per_group"][1]


def test_0_1_labels_keep_class_1_as_the_default_positive_class(metrics):
    metric = metrics["informedness"]
    references, predictions = [0] * 10 + [1] * 10, [0] * 8 + [1] * 2 + [0] + [1] * 9  # "fail" = 0
    judged = [0] * 4 + [1] * 6
    default = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged)
    assert default == metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged, pos_label=1)
    assert default["corrected_prevalence_class"] == 1
    assert default["corrected_prevalence"] == pytest.approx(rogan_gladen(references, predictions, judged, 1), abs=1e-12)
    as_booleans = metric.compute(references=np.array(references, bool), predictions=np.array(predictions, bool),
                                 unlabeled_predictions=np.array(judged, bool))
    assert as_booleans == default


def nd_batches(name, rng):
    """Three N-d batches of four leading elements for each module (top-k: scores over 3 classes)."""
    batches = []
    for _ in range(3):
        if name == "balanced_topk_accuracy":
            references = rng.integers(0, 3, (4, 8))
            batches.append(dict(predictions=rng.random((4, 8, 3)), references=references))
        elif name == "balanced_accuracy_multilabel":
            batches.append(dict(predictions=rng.integers(0, 2, (4, 3)), references=rng.integers(0, 2, (4, 3))))
        else:
            labels = rng.integers(0, 3, (4, 8, 8))
            batches.append(dict(predictions=np.where(rng.random(labels.shape) < 0.8, labels, rng.integers(0, 3, labels.shape)),
                                references=labels))
    return batches


CI_KEY = {entry.name: entry.ci_key for entry in MODULES}
NOT_COUNTED_WARNING = (r"^clusters: the interval is NaN \(reason 'clusters_not_counted'\): add_batch counted N-d batches without "
                       r"their clusters \(one per leading element\), as evaluate\.load had no confidence_level\. Pass it to "
                       r"evaluate\.load\(\.\.\., confidence_level=0\.95\) so that batches count their clusters \(or pass "
                       r"clusters= with each batch\)\.$")


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_a_streamed_interval_whose_clusters_were_not_counted_warns_with_the_fix(load, name):
    """Was: N-d batches through add_batch, then compute(confidence_level=0.95), gave [nan, nan]
    with reason "clusters_not_counted" and no warning."""
    batches = nd_batches(name, np.random.default_rng(0))
    metric = load(name)
    for batch in batches:
        metric.add_batch(**batch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = metric.compute(confidence_level=0.95)
    (warning,) = [warning for warning in caught if "clusters_not_counted" in str(warning.message)]
    assert warning.category is UserWarning and re.match(NOT_COUNTED_WARNING, str(warning.message))
    assert all(math.isnan(x) for x in result[CI_KEY[name]]) and result[f"{CI_KEY[name]}_reason"] == "clusters_not_counted"
    # The fix the warning names: the level at load, and the batches count their clusters.
    fixed = load(name, confidence_level=0.95)
    for batch in batches:
        fixed.add_batch(**batch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = fixed.compute()
    assert not any(math.isnan(x) for x in result[CI_KEY[name]]) and result["num_clusters"] == 12


def test_the_issues_reproducer_warns(load):
    metric = load("balanced_accuracy")
    rng = np.random.default_rng(0)
    for _ in range(3):
        labels = rng.integers(0, 3, (4, 8, 8))
        metric.add_batch(predictions=labels, references=labels)
    with pytest.warns(UserWarning, match=NOT_COUNTED_WARNING):
        result = metric.compute(confidence_level=0.95)
    assert result["balanced_accuracy"] == 1.0 and result["balanced_accuracy_ci_reason"] == "clusters_not_counted"


def eval_batches(rng, sizes, num_classes=3):
    """What a Trainer with eval_do_concat_batches=False passes: lists of per-batch logits and labels."""
    labels = [rng.integers(0, num_classes, size) for size in sizes]
    logits = [rng.normal(size=(size, num_classes)) + 1.5 * np.eye(num_classes)[batch] for size, batch in zip(sizes, labels)]
    return logits, labels


FEW_FROM_LEADING_AXIS = (r"^clusters: the interval rests on 4 clusters \(fewer than 10\); its variance has few degrees of "
                         r"freedom, so the interval is rough\. The clusters are the leading axis of the N-d inputs \(no "
                         r"clusters= given\)\. If the inputs were a list of per-batch arrays \(e\.g\. from Trainer with "
                         r"eval_do_concat_batches=False\), it read as one array with a batch per row, so each batch became "
                         r"one cluster: join the batches with np\.concatenate\(\.\.\., axis=0\), or pass clusters= naming "
                         r"the independent units\.$")


@pytest.mark.parametrize("name", CLASS_MODULES)
def test_a_list_of_equal_eval_batches_says_its_clusters_came_from_the_leading_axis(metrics, name):
    """Was: Trainer's per-batch lists (eval_do_concat_batches=False) read as one N-d array: each
    eval batch one cluster (num_clusters 4, a wider interval) and nothing said so."""
    metric = metrics[name]
    logits, labels = eval_batches(np.random.default_rng(33), [16] * 4)
    predictions = logits if name == "balanced_topk_accuracy" else [batch.argmax(-1) for batch in logits]
    with pytest.warns(UserWarning, match=FEW_FROM_LEADING_AXIS):
        listed = metric.compute(predictions=predictions, references=labels, confidence_level=0.95)
    assert listed["num_clusters"] == 4 and listed["clusters_from"] == "leading_axis"
    assert list(listed)[-3:] == ["num_clusters", "design_effect", "clusters_from"]
    # Joined, the samples are independent: no clusters, and the same value.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        joined = metric.compute(predictions=np.concatenate(predictions, axis=0), references=np.concatenate(labels, axis=0),
                                confidence_level=0.95)
    assert not {"num_clusters", "design_effect", "clusters_from"} & set(joined)
    assert joined[MAIN_KEY[name]] == listed[MAIN_KEY[name]]
    # Clusters given: their own, and the few-clusters warning without the per-batch cause.
    with pytest.warns(UserWarning, match=r"^clusters: the interval rests on 4 clusters \(fewer than 10\); .* is rough\.$"):
        given = metric.compute(predictions=predictions, references=labels, clusters=[0, 1, 2, 3], confidence_level=0.95)
    assert given["num_clusters"] == 4 and "clusters_from" not in given
    # No interval, no clusters: the value alone, as before.
    assert metric.compute(predictions=predictions, references=labels) == {MAIN_KEY[name]: listed[MAIN_KEY[name]]}


def test_clusters_from_the_leading_axis_are_named_with_a_baseline_and_when_streamed(metrics, load):
    metric = metrics["balanced_accuracy"]
    rng = np.random.default_rng(34)
    references = rng.integers(0, 2, (12, 6))
    system, baseline = (np.where(rng.random(references.shape) < accuracy, references, 1 - references) for accuracy in (0.8, 0.7))
    compared = metric.compute(predictions=system, references=references, baseline_predictions=baseline, confidence_level=0.95)
    assert compared["num_clusters"] == 12 and compared["clusters_from"] == "leading_axis"
    assert "balanced_accuracy_difference_design_effect" in compared
    streamed = load("balanced_accuracy", confidence_level=0.95)
    for start in range(0, 12, 4):
        streamed.add_batch(predictions=system[start:start + 4], references=references[start:start + 4])
    result = streamed.compute()
    assert result["num_clusters"] == 12 and result["clusters_from"] == "leading_axis"
    assert result == metric.compute(predictions=system, references=references, confidence_level=0.95)
    # 1-D samples with their own clusters say nothing of an axis.
    flat = metric.compute(predictions=system.ravel(), references=references.ravel(), clusters=np.repeat(np.arange(12), 6),
                          confidence_level=0.95)
    assert flat["num_clusters"] == 12 and "clusters_from" not in flat
    assert flat["balanced_accuracy_ci"] == result["balanced_accuracy_ci"]


@pytest.mark.parametrize("name", CLASS_MODULES)
def test_a_ragged_list_of_eval_batches_suggests_concatenating_them(metrics, name):
    """Was: a ragged last batch failed on "ragged rows" without saying what the list was."""
    logits, labels = eval_batches(np.random.default_rng(35), [16, 16, 16, 5])
    predictions = logits if name == "balanced_topk_accuracy" else [batch.argmax(-1) for batch in logits]
    first = "references" if name == "balanced_topk_accuracy" else "predictions"  # the argument coerced first
    with pytest.raises(ValueError, match=rf"^{first}: expected a rectangular array \(every row the same length\), found ragged "
                                         r"rows \(.*\)\. The items are arrays of shapes \(16,\), \.\.\., \(5,\), alike but for their first "
                                         r"axis: per-batch arrays \(e\.g\. from Trainer with eval_do_concat_batches=False\); "
                                         r"pass np\.concatenate\(\.\.\., axis=0\) to join them\.$"):
        metrics[name].compute(predictions=predictions, references=labels)
    joined = metrics[name].compute(predictions=np.concatenate(predictions, axis=0), references=np.concatenate(labels, axis=0))
    assert 0 <= joined[MAIN_KEY[name]] <= 1
    if name == "balanced_topk_accuracy":  # the score arrays are the batches of the other argument
        with pytest.raises(ValueError, match=r"^predictions: .* The items are arrays of shapes \(16, 3\), \.\.\., \(5, 3\), alike"):
            metrics[name].compute(predictions=logits, references=np.concatenate(labels, axis=0))
    # Ragged nested lists (not arrays) are not batches: the message stays as it was.
    with pytest.raises(ValueError, match=r"found ragged rows \(.*\)\.$") as raised:
        metrics[name].compute(predictions=[[0, 1], [1]], references=[[0, 1], [1]])
    assert "concatenate" not in str(raised.value)


def test_the_readme_says_how_to_pass_trainer_batches_that_are_not_concatenated():
    from conftest import REPO_ROOT

    page = (REPO_ROOT / "docs" / "trainer.md").read_text(encoding="utf-8")  # the README's Trainer page
    assert page.startswith("# Use with 🤗 Transformers' Trainer\n")
    trainer = " ".join(page.split())
    assert "`TrainingArguments(eval_do_concat_batches=False)` hands `compute_metrics` a list of per-batch arrays" in trainer
    assert "np.concatenate(eval_pred.predictions, axis=0), np.concatenate(eval_pred.label_ids, axis=0)" in trainer
    assert 'clusters_from: "leading_axis"' in trainer


TYPO_REFERENCES, TYPO_PREDICTIONS = ["safe", "unsafe", "unsafe", "safe"], ["Safe", "unsafe", "safe", "safe"]


def test_a_label_typo_is_refused_in_informedness_as_in_balanced_accuracy(metrics):
    """Was: informedness.compute(predictions=['Safe', 'unsafe', 'safe', 'safe'], ...) returned
    0.1667 without a word, while balanced_accuracy warned; then both warned, and a value of
    labels of another vocabulary (a typo of a class of a two-class golden set) was returned."""
    typo = r" Probably a typo in the labels \('Safe' for 'safe'\): fix the predicted labels, or map them before computing\.$"
    for name in ("informedness", "balanced_accuracy"):
        with pytest.raises(ValueError, match=r"^predictions: expected labels of the golden set's 2 classes \['safe', 'unsafe'\], "
                                             r"found 3 distinct values \['Safe', 'safe', 'unsafe'\], 1 of them no reference class "
                                             r"\(\['Safe'\]\); map the labels to the references' values, or pass labels=\[\.\.\.\] "
                                             r"\(or num_classes\) listing every class, the ones the golden set lacks too\." + typo):
            metrics[name].compute(predictions=TYPO_PREDICTIONS, references=TYPO_REFERENCES)
    # Declared by labels=[...], 'Safe' is a class the golden set lacks: warned in both, with the typo named.
    declared = ["Safe", "safe", "unsafe"]
    with pytest.warns(UserWarning, match=r"^Informedness is undefined for class 'Safe': no reference samples\. It is left out "
                                         r"of the average \(zero_division='skip'\), which then averages the other classes; "
                                         r"pass zero_division=0\.0 to count it as 0\." + typo):
        result = metrics["informedness"].compute(predictions=TYPO_PREDICTIONS, references=TYPO_REFERENCES, labels=declared)
    # The value is what "skip" documents: J of 'safe' (0) and 'unsafe' (0.5), weighted by their predictions (2 and 1).
    assert result == {"informedness": pytest.approx((2 * 0.0 + 1 * 0.5) / 3, abs=1e-15)}
    with pytest.warns(UserWarning, match=r"^Recall is undefined for class 'Safe': no reference samples\. It is left out of the "
                                         r"average \(zero_division='skip'\), which is then the mean recall of the other "
                                         r"classes \(in a binary task, the recall of the other class alone\); pass "
                                         r"zero_division=0\.0 to count it as 0\." + typo):
        result = metrics["balanced_accuracy"].compute(predictions=TYPO_PREDICTIONS, references=TYPO_REFERENCES, labels=declared)
    with pytest.warns(UserWarning, match="y_pred contains classes not in y_true"):  # scikit-learn's warning of the same
        expected = balanced_accuracy_score(TYPO_REFERENCES, TYPO_PREDICTIONS)
    assert result == {"balanced_accuracy": pytest.approx(expected, abs=1e-15)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numeric zero_division is the user's explicit choice, in both
        for name in ("informedness", "balanced_accuracy"):
            metrics[name].compute(predictions=TYPO_PREDICTIONS, references=TYPO_REFERENCES, labels=declared, zero_division=0.0)


def test_the_rule_is_the_same_in_both_modules_and_only_names_typos_it_can_see(metrics):
    # A predicted class without references, not a typo: the warning alone.
    with pytest.warns(UserWarning) as caught:
        metrics["informedness"].compute(references=[0, 0, 1, 1], predictions=[0, 2, 1, 2])
    (message,) = [str(warning.message) for warning in caught]
    assert message.startswith("Informedness is undefined for class 2: no reference samples.") and "typo" not in message
    for name in ("informedness", "balanced_accuracy"):
        with pytest.raises(ValueError) as raised:
            metrics[name].compute(references=["safe", "safe", "unsafe"], predictions=["safe", "unsafe ", "unsafe"])
        assert "Probably a typo in the labels ('unsafe ' for 'unsafe')" in str(raised.value)
    with pytest.warns(UserWarning) as caught:
        metrics["balanced_accuracy"].compute(references=["safe", "safe"], predictions=["safe", "unsafe"], labels=["safe", "unsafe"])
    assert "typo" not in str(caught[0].message)  # 'unsafe' is no variant of 'safe'
    # An undefined informedness (one reference class) has its reason; nothing is left out of an average.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = metrics["informedness"].compute(references=[0, 0, 0], predictions=[0, 1, 1])
    assert result["reason"] == "fewer_than_two_reference_classes"


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_class_scores_given_as_labels_suggest_argmax_or_the_topk_module(metrics, name):
    """Was: "predictions and references: expected the same shape, found (2, 2) and (2,)"."""
    scores = [[0.9, 0.1], [0.2, 0.8]]
    with pytest.raises(ValueError, match=r"^predictions and references: expected the same shape, found \(2, 2\) and \(2,\)\. "
                                         r"Predictions of shape \(2, 2\) look like class scores \(one column per class\): pass "
                                         r"their argmax over the last axis \(np\.argmax\(predictions, axis=-1\)\) as labels, or "
                                         r"use the balanced_topk_accuracy module, which takes the scores themselves\.$"):
        metrics[name].compute(predictions=scores, references=[0, 1])
    assert metrics[name].compute(predictions=np.argmax(scores, axis=-1), references=[0, 1]) == {MAIN_KEY[name]: 1.0}
    assert metrics["balanced_topk_accuracy"].compute(predictions=scores, references=[0, 1]) == {"balanced_topk_accuracy": 1.0}
    # Other mismatches keep the plain message.
    with pytest.raises(ValueError, match=r"^predictions and references: expected the same shape, found \(3,\) and \(2,\)\.$"):
        metrics[name].compute(predictions=[0, 1, 1], references=[0, 1])
