"""Count with Dask over partitioned Parquet, then compute the metrics from the counts.

The metrics here are functions of counts: a K x K confusion matrix (balanced accuracy,
informedness) or one 2 x 2 table per label (multilabel). So a data set too large for one
machine need not reach Python as samples: a distributed engine counts the (reference,
prediction) pairs where the data lives - here Dask DataFrame's group-by, run by its
default local scheduler - and the modules take the counts with
``compute(confusion_matrix=M, labels=...)``.

The script writes a partitioned Parquet data set (several files; an imbalanced 5-class
problem with string labels, optional per-sample weights, and three binary tags), counts
it with Dask, computes from the counts, and checks that the results equal the modules'
direct computation on the concatenated samples.

Usage::

    python examples/dask_counts.py                     # 200,000 rows in 8 files
    python examples/dask_counts.py --rows 5000000 --files 32 --weighted

Needs ``dask[dataframe]`` (tests/requirements.txt pins it).
"""

import argparse
import math
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

import evaluate

REPO_ROOT = Path(__file__).resolve().parents[1]
CLASSES = ["cat", "dog", "bird", "fish", "newt"]
PRIOR = [0.60, 0.22, 0.10, 0.06, 0.02]  # imbalanced: accuracy would reward predicting "cat"
RIGHT = [0.95, 0.80, 0.70, 0.60, 0.50]  # how often the model is right, per true class
TAGS = ["urgent", "spam", "refund"]


def write_dataset(folder: Path, rows: int, files: int, seed: int = 0) -> List[Path]:
    """``files`` Parquet files of about ``rows / files`` rows each: columns reference,
    prediction (strings), weight (float) and, per tag, reference_<tag> / prediction_<tag> (0/1)."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for part in range(files):
        size = rows // files + (part < rows % files)
        reference = rng.choice(len(CLASSES), size=size, p=PRIOR)
        guess = rng.choice(len(CLASSES), size=size, p=PRIOR)  # a wrong model guesses from the prior
        prediction = np.where(rng.random(size) < np.take(RIGHT, reference), reference, guess)
        columns = {
            "reference": np.take(CLASSES, reference),
            "prediction": np.take(CLASSES, prediction),
            "weight": rng.uniform(0.5, 2.0, size).round(3),
        }
        for index, tag in enumerate(TAGS):
            truth = rng.random(size) < 0.05 * (index + 1)
            columns[f"reference_{tag}"] = truth.astype(np.int8)
            columns[f"prediction_{tag}"] = np.where(rng.random(size) < 0.85, truth, rng.random(size) < 0.1).astype(np.int8)
        path = folder / f"part-{part:03d}.parquet"
        pd.DataFrame(columns).to_parquet(path, index=False)
        paths.append(path)
    return paths


def count_pairs(folder: Path, weighted: bool = False) -> Tuple[np.ndarray, List[str]]:
    """The confusion matrix (rows = references, columns = predictions) counted by Dask, and its
    labels: sample counts, or weight sums with ``weighted``."""
    frame = dd.read_parquet(str(folder))
    grouped = frame.groupby(["reference", "prediction"])
    cells = (grouped["weight"].sum() if weighted else grouped.size()).compute()  # a small pandas Series
    labels = sorted(set(cells.index.get_level_values(0)) | set(cells.index.get_level_values(1)))
    position = {label: index for index, label in enumerate(labels)}
    matrix = np.zeros((len(labels), len(labels)), dtype=np.float64 if weighted else np.int64)
    for (reference, prediction), value in cells.items():
        matrix[position[reference], position[prediction]] = value
    return matrix, labels


def count_tags(folder: Path) -> np.ndarray:
    """One [[tn, fp], [fn, tp]] table per tag (scikit-learn's multilabel_confusion_matrix
    layout), from four Dask sums per tag computed in one pass."""
    frame = dd.read_parquet(str(folder))
    sums = []
    for tag in TAGS:
        truth, guess = frame[f"reference_{tag}"] == 1, frame[f"prediction_{tag}"] == 1
        sums += [(~truth & ~guess).sum(), (~truth & guess).sum(), (truth & ~guess).sum(), (truth & guess).sum()]
    values = dask.compute(*sums)
    return np.array(values, dtype=np.int64).reshape(len(TAGS), 2, 2)


def load(name: str, **options):
    return evaluate.load(str(REPO_ROOT / name), **options)


def from_counts(matrix: np.ndarray, labels: List[str], tables: Optional[np.ndarray] = None) -> Dict[str, dict]:
    """The metrics from the counts alone."""
    results = {
        "balanced_accuracy": load("balanced_accuracy").compute(confusion_matrix=matrix, labels=labels, return_per_class=True),
        "informedness": load("informedness").compute(confusion_matrix=matrix, labels=labels),
    }
    if tables is not None:
        results["balanced_accuracy_multilabel"] = load("balanced_accuracy_multilabel").compute(confusion_matrix=tables)
    return results


def from_samples(paths: List[Path], weighted: bool = False) -> Dict[str, dict]:
    """The same metrics computed directly on the concatenated samples (the check)."""
    frame = pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)
    weights = {"sample_weight": frame["weight"].to_numpy()} if weighted else {}
    samples = {"references": frame["reference"].to_numpy(), "predictions": frame["prediction"].to_numpy()}
    results = {
        "balanced_accuracy": load("balanced_accuracy").compute(**samples, **weights, return_per_class=True),
        "informedness": load("informedness").compute(**samples, **weights),
    }
    if not weighted:
        tags = {kind: frame[[f"{kind}_{tag}" for tag in TAGS]].to_numpy() for kind in ("reference", "prediction")}
        results["balanced_accuracy_multilabel"] = load("balanced_accuracy_multilabel").compute(
            references=tags["reference"], predictions=tags["prediction"]
        )
    return results


def same(counted: Dict[str, dict], direct: Dict[str, dict], weighted: bool) -> bool:
    """Equal results: exactly for counts; for weights up to the order of the floating-point sums."""
    if counted.keys() != direct.keys():
        return False
    for name in counted:
        for key, value in direct[name].items():
            mine = counted[name].get(key)
            pairs = list(zip(mine, value)) if isinstance(value, list) and isinstance(mine, list) else [(mine, value)]
            for left, right in pairs:
                if isinstance(right, float) and weighted:
                    if not math.isclose(left, right, rel_tol=1e-12, abs_tol=1e-12):
                        return False
                elif left != right:
                    return False
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--weighted", action="store_true", help="count weight sums (the 'weight' column) instead of samples")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        paths = write_dataset(Path(folder) / "pairs", args.rows, args.files, args.seed)
        matrix, labels = count_pairs(Path(folder) / "pairs", weighted=args.weighted)
        tables = None if args.weighted else count_tags(Path(folder) / "pairs")
        counted = from_counts(matrix, labels, tables)
        direct = from_samples(paths, weighted=args.weighted)
    print(f"{args.rows:,} rows in {args.files} Parquet files, counted by Dask {dask.__version__} "
          f"({'weight sums' if args.weighted else 'samples'}):")
    print(pd.DataFrame(matrix, index=labels, columns=labels).to_string())
    for name, result in counted.items():
        print(f"{name}: {result}")
    equal = same(counted, direct, args.weighted)
    print("equal to the direct computation on the concatenated samples:", equal)
    return 0 if equal else 1


if __name__ == "__main__":
    raise SystemExit(main())
