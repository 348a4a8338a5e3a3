"""examples/dask_counts.py: Dask counts over partitioned Parquet give what the samples give.

The counts Dask makes are checked against scikit-learn's confusion matrices of the same
samples; the metrics from those counts against scikit-learn's balanced_accuracy_score and
against the modules' direct computation on the concatenated samples.
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score, confusion_matrix, multilabel_confusion_matrix

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "examples"))
import dask_counts  # noqa: E402


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dask") / "pairs"
    paths = dask_counts.write_dataset(folder, rows=20_000, files=5, seed=3)
    frame = pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)
    return folder, paths, frame


def tags(frame, kind):
    return frame[[f"{kind}_{tag}" for tag in dask_counts.TAGS]].to_numpy()


def test_the_data_set_is_partitioned_and_imbalanced(dataset):
    folder, paths, frame = dataset
    assert sorted(folder.glob("*.parquet")) == sorted(paths) and len(paths) == 5
    assert len(frame) == 20_000
    shares = frame["reference"].value_counts(normalize=True)
    assert shares["cat"] > 0.5 and shares["newt"] < 0.05


def test_dask_counts_are_scikit_learns_confusion_matrices(dataset):
    folder, _, frame = dataset
    matrix, labels = dask_counts.count_pairs(folder)
    assert labels == sorted(dask_counts.CLASSES)
    assert np.array_equal(matrix, confusion_matrix(frame["reference"], frame["prediction"], labels=labels))
    weighted, _ = dask_counts.count_pairs(folder, weighted=True)
    expected = confusion_matrix(frame["reference"], frame["prediction"], labels=labels, sample_weight=frame["weight"])
    np.testing.assert_allclose(weighted, expected, rtol=1e-12)
    tables = dask_counts.count_tags(folder)
    assert np.array_equal(tables, multilabel_confusion_matrix(tags(frame, "reference"), tags(frame, "prediction")))


def test_metrics_from_dask_counts_equal_scikit_learn_and_the_direct_computation(dataset):
    folder, paths, frame = dataset
    matrix, labels = dask_counts.count_pairs(folder)
    counted = dask_counts.from_counts(matrix, labels, dask_counts.count_tags(folder))
    assert counted["balanced_accuracy"]["balanced_accuracy"] == pytest.approx(
        balanced_accuracy_score(frame["reference"], frame["prediction"]), abs=1e-12
    )
    per_tag = [balanced_accuracy_score(truth, guess) for truth, guess in zip(tags(frame, "reference").T, tags(frame, "prediction").T)]
    assert counted["balanced_accuracy_multilabel"]["balanced_accuracy"] == pytest.approx(np.mean(per_tag), abs=1e-12)
    assert counted == dask_counts.from_samples(paths)  # counts are integers: exactly equal
    assert dask_counts.same(counted, dask_counts.from_samples(paths), weighted=False)


def test_weighted_counts_equal_scikit_learn_and_the_direct_computation(dataset):
    folder, paths, frame = dataset
    matrix, labels = dask_counts.count_pairs(folder, weighted=True)
    counted = dask_counts.from_counts(matrix, labels)
    assert counted["balanced_accuracy"]["balanced_accuracy"] == pytest.approx(
        balanced_accuracy_score(frame["reference"], frame["prediction"], sample_weight=frame["weight"]), rel=1e-12
    )
    direct = dask_counts.from_samples(paths, weighted=True)
    assert dask_counts.same(counted, direct, weighted=True)
    assert counted["informedness"]["informedness"] == pytest.approx(direct["informedness"]["informedness"], rel=1e-12)


def test_a_changed_count_is_caught_by_the_check(dataset):
    folder, paths, _ = dataset
    matrix, labels = dask_counts.count_pairs(folder)
    direct = dask_counts.from_samples(paths)
    del direct["balanced_accuracy_multilabel"]  # compared without tag tables
    assert dask_counts.same(dask_counts.from_counts(matrix, labels), direct, weighted=False)
    matrix[0, 1] += 1  # one sample more than the data holds
    assert not dask_counts.same(dask_counts.from_counts(matrix, labels), direct, weighted=False)


@pytest.mark.parametrize("options", [[], ["--weighted"]])
def test_the_script_runs_and_reports_equality(options):
    finished = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "dask_counts.py"), "--rows", "4000", "--files", "3", *options],
        capture_output=True, text=True, timeout=300,
    )
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-3000:]
    assert "equal to the direct computation on the concatenated samples: True" in finished.stdout
    assert "balanced_accuracy: {'balanced_accuracy': " in finished.stdout and "informedness: {'informedness': " in finished.stdout
