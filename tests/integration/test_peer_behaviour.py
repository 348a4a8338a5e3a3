"""What evaluate's own metrics do, done by every module: pickling, shared experiment ids,
parallel experiments in one cache_dir, ``combine(...).add``, and sample weights.

Expected values come from each module's peer (``peer_value`` of its own test file:
scikit-learn's balanced_accuracy_score, confusion_matrix, top_k_accuracy_score, per class or per
label where the module averages), or from the same module on the reduced data - never from the
module's own output on the same call.
"""

import multiprocessing
import pickle

import evaluate
import numpy as np
import pytest

from conftest import MODULE_NAMES, load_module, module_tests
from shared.tooling.modules import MODULES
from shared.tooling.modules import module

NUM_CLASSES = 3
NUM_SCORE_COLUMNS = 4
NUM_LABELS = 3
RESULT_KEY = {entry.name: entry.value_key for entry in MODULES}


def load_options(name):
    """Options given at load time: its test file's ``VALUE_OPTIONS`` (top-k: k=2, so that it is not
    plain balanced accuracy); its peer computes the value they ask for."""
    return getattr(module_tests(name), "VALUE_OPTIONS", {})


def make_data(name, seed, size=60):
    """(predictions, references) as the module's kind takes them; every class/label has positives and negatives."""
    rng = np.random.default_rng(seed)
    inputs = module(name).inputs
    if inputs == "indicators":
        references = rng.integers(0, 2, (size, NUM_LABELS))
        references[:2] = [[1] * NUM_LABELS, [0] * NUM_LABELS]
        predictions = np.where(rng.random((size, NUM_LABELS)) < 0.7, references, 1 - references)
        return predictions, references
    if inputs == "scores":
        references = np.r_[np.arange(NUM_SCORE_COLUMNS), rng.integers(0, NUM_SCORE_COLUMNS, size - NUM_SCORE_COLUMNS)]
        scores = rng.random((size, NUM_SCORE_COLUMNS))  # continuous: no ties, so any tie rule agrees
        scores[np.arange(size), references] += rng.random(size) * 0.4
        return scores, references
    references = np.r_[np.arange(NUM_CLASSES), rng.integers(0, NUM_CLASSES, size - NUM_CLASSES)]
    predictions = np.where(rng.random(size) < 0.6, references, rng.integers(0, NUM_CLASSES, size))
    return predictions, references


def peer_value(name, predictions, references, weights=None):
    """The module's value computed by its peer (scikit-learn; per class or per label where it
    averages): ``peer_value`` of its own test file, ``tests/modules/test_<name>.py``."""
    return module_tests(name).peer_value(predictions, references, weights)


def assert_same(found, expected, rel=1e-12):
    """Equal results: the same keys, floats equal up to ``rel`` (lists and dicts element by element)."""
    if isinstance(expected, dict):
        assert isinstance(found, dict) and found.keys() == expected.keys(), (found, expected)
        for key in expected:
            assert_same(found[key], expected[key], rel)
    elif isinstance(expected, list):
        assert isinstance(found, list) and len(found) == len(expected), (found, expected)
        for item, other in zip(found, expected):
            assert_same(item, other, rel)
    elif isinstance(expected, float):
        assert found == pytest.approx(expected, rel=rel, abs=1e-15, nan_ok=True)
    else:
        assert found == expected


@pytest.fixture
def load(tmp_path):
    def _load(name, **kwargs):
        kwargs.setdefault("cache_dir", str(tmp_path / "cache"))
        return load_module(name, **{**load_options(name), **kwargs})

    return _load


# ---------------------------------------------------------------- pickling


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_a_pickled_metric_computes_what_the_original_computes(name, load):
    metric = load(name)
    clone = pickle.loads(pickle.dumps(metric))
    predictions, references = make_data(name, seed=1)
    expected = peer_value(name, predictions, references)
    result = clone.compute(predictions=predictions, references=references)
    assert result == metric.compute(predictions=predictions, references=references)
    assert result[RESULT_KEY[name]] == pytest.approx(expected, abs=1e-12)  # load-time options survive pickling
    # The clone also accumulates batches.
    clone.add_batch(predictions=predictions[:30], references=references[:30])
    clone.add_batch(predictions=predictions[30:], references=references[30:])
    assert clone.compute() == result


# ---------------------------------------------------------------- experiment ids and cache dirs


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_two_instances_sharing_an_experiment_id_keep_their_own_counts(name, load):
    """As evaluate's test_concurrent_metrics: one experiment_id, one cache_dir, no distribution."""
    first, second = load(name, experiment_id="shared"), load(name, experiment_id="shared")
    first_data, second_data = make_data(name, seed=2), make_data(name, seed=3)
    expected = [peer_value(name, *first_data), peer_value(name, *second_data)]
    assert expected[0] != pytest.approx(expected[1])  # the data differ, so a mix-up would show
    assert first.compute(predictions=first_data[0], references=first_data[1])[RESULT_KEY[name]] == pytest.approx(expected[0], abs=1e-12)
    assert second.compute(predictions=second_data[0], references=second_data[1])[RESULT_KEY[name]] == pytest.approx(expected[1], abs=1e-12)
    for start in range(0, 60, 20):  # interleaved batches
        first.add_batch(predictions=first_data[0][start:start + 20], references=first_data[1][start:start + 20])
        second.add_batch(predictions=second_data[0][start:start + 20], references=second_data[1][start:start + 20])
    assert first.compute()[RESULT_KEY[name]] == pytest.approx(expected[0], abs=1e-12)
    assert second.compute()[RESULT_KEY[name]] == pytest.approx(expected[1], abs=1e-12)


def _run_experiment(arguments):
    """One experiment in its own process: its batches into the shared cache_dir, then compute."""
    name, cache_dir, experiment_id, seed = arguments
    metric = load_module(name, cache_dir=cache_dir, experiment_id=experiment_id, **load_options(name))
    predictions, references = make_data(name, seed)
    for start in range(0, len(references), 10):
        metric.add_batch(predictions=predictions[start:start + 10], references=references[start:start + 10])
    return metric.compute()[RESULT_KEY[name]]


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_parallel_experiments_in_one_cache_dir_do_not_mix_counts(name, tmp_path):
    """As evaluate's test_separate_experiments_in_parallel: two processes, two experiment ids, one cache_dir."""
    cache_dir = str(tmp_path / "cache")
    jobs = [(name, cache_dir, f"experiment-{seed}", seed) for seed in (4, 5)]
    # fork, as evaluate's own test (Pool's default on Linux): spawned children would import evaluate again (minutes on a busy machine).
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(_run_experiment, jobs)
    for (_, _, _, seed), result in zip(jobs, results):
        assert result == pytest.approx(peer_value(name, *make_data(name, seed)), abs=1e-12)


# ---------------------------------------------------------------- evaluate.combine


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_combine_add_one_sample_at_a_time_equals_add_batch(name, load):
    """As evaluate's TestCombinedEvaluation.test_add: combine(...).add(prediction, reference) per sample."""
    # With another module of its kind where there is one (evaluate.combine gives both the same inputs).
    partner = next((entry.name for entry in MODULES if entry.inputs == module(name).inputs and entry.name != name
                    and entry.name in MODULE_NAMES), None)
    names = [name] if partner is None else [name, partner]
    predictions, references = make_data(name, seed=6)
    combined = evaluate.combine([load(each) for each in names])
    for prediction, reference in zip(predictions, references):
        combined.add(prediction, reference)
    batched = evaluate.combine([load(each) for each in names])
    batched.add_batch(predictions=predictions, references=references)
    result = combined.compute()
    assert result == batched.compute()
    for each in names:
        assert result[RESULT_KEY[each]] == pytest.approx(peer_value(each, predictions, references), abs=1e-12)


# ---------------------------------------------------------------- sample weights


def weights_with_zeros(seed, size=60):
    rng = np.random.default_rng(seed)
    weights = rng.uniform(0.5, 2.0, size)
    weights[rng.random(size) < 0.3] = 0.0
    weights[:NUM_SCORE_COLUMNS] = 1.0  # every class keeps a sample
    return weights


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_a_zero_weight_is_a_removed_sample(name, load):
    metric = load(name)
    predictions, references = make_data(name, seed=7)
    weights = weights_with_zeros(7)
    kept = weights > 0
    options = {"confidence_level": 0.95, "seed": 0, "n_resamples": 200}
    weighted = metric.compute(predictions=predictions, references=references, sample_weight=weights, **options)
    reduced = metric.compute(predictions=predictions[kept], references=references[kept], sample_weight=weights[kept], **options)
    assert_same(weighted, reduced)
    assert weighted[RESULT_KEY[name]] == pytest.approx(peer_value(name, predictions[kept], references[kept], weights[kept]), abs=1e-12)
    # Through add_batch too, with a batch whose weights are all 0 (the options at load: add_batch then
    # counts what the interval needs, such as each multilabel sample's cluster).
    metric = load(name, **options)
    metric.add_batch(predictions=predictions[:30], references=references[:30], sample_weight=weights[:30])
    metric.add_batch(predictions=predictions[30:], references=references[30:], sample_weight=weights[30:])
    metric.add_batch(predictions=predictions[:5], references=references[:5], sample_weight=np.zeros(5))
    assert_same(metric.compute(), reduced)


@pytest.mark.parametrize("name", MODULE_NAMES)
@pytest.mark.parametrize("scale", [1e-3, 3.7, 1e6])
def test_scaling_every_weight_leaves_the_result_unchanged(name, scale, load):
    metric = load(name)
    predictions, references = make_data(name, seed=8)
    weights = np.random.default_rng(8).uniform(0.5, 2.0, len(references))
    options = {"confidence_level": 0.95, "seed": 0, "n_resamples": 200}
    plain = metric.compute(predictions=predictions, references=references, sample_weight=weights, **options)
    scaled = metric.compute(predictions=predictions, references=references, sample_weight=weights * scale, **options)
    assert_same(scaled, plain, rel=1e-9)
    assert plain[RESULT_KEY[name]] == pytest.approx(peer_value(name, predictions, references, weights), abs=1e-12)
