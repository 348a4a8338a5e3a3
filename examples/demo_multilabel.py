"""Demo rows for balanced_accuracy_multilabel: scikit-learn's digits as a multilabel task, offline.

Each digit image gets four yes/no attributes of its digit (even, prime, has a closed loop,
7 or more), the data is made imbalanced by keeping fewer images of the higher digits, and
a one-vs-rest logistic regression predicts the attributes. ``rows()`` returns rows of the
demo table (case, data, accuracy, metric, value); "accuracy" is the per-entry accuracy
(the share of correct (image, attribute) decisions, 1 - Hamming loss).

    python examples/demo_multilabel.py
"""

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.multiclass import OneVsRestClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
METRIC = "balanced_accuracy_multilabel"

# The attributes of each digit 0..9, one column per label.
ATTRIBUTES = {
    "even": [0, 2, 4, 6, 8],
    "prime": [2, 3, 5, 7],
    "closed loop": [0, 6, 8, 9],
    ">= 7": [7, 8, 9],
}


def digits_multilabel_data(seed=0):
    """Digits with a long tail (digit c keeps 0.75**c of its images), split train/dev/test."""
    rng = np.random.default_rng(seed)
    data = load_digits()
    keep = np.zeros(len(data.target), dtype=bool)
    for digit in range(10):
        members = np.flatnonzero(data.target == digit)
        keep[rng.choice(members, size=max(2, int(round(0.75**digit * len(members)))), replace=False)] = True
    features, digits = data.data[keep], data.target[keep]
    labels = np.stack([np.isin(digits, members) for members in ATTRIBUTES.values()], axis=1).astype(int)
    x_train, x_rest, y_train, y_rest = train_test_split(features, labels, test_size=0.6, stratify=digits, random_state=seed)
    x_dev, x_test, y_dev, y_test = train_test_split(x_rest, y_rest, test_size=0.5, random_state=seed)
    return x_train, x_dev, x_test, y_train, y_dev, y_test


def entry_accuracy(references, predictions):
    return float(np.mean(np.asarray(references) == np.asarray(predictions)))


def rows():
    metric = evaluate.load(str(REPO_ROOT / METRIC))
    x_train, x_dev, x_test, y_train, y_dev, y_test = digits_multilabel_data()
    model = make_pipeline(StandardScaler(), OneVsRestClassifier(LogisticRegression(max_iter=2000, C=0.01)))
    model.fit(x_train, y_train)
    dev_probs, test_probs = model.predict_proba(x_dev), model.predict_proba(x_test)
    prevalence = y_test.mean(axis=0)
    data = f"{len(ATTRIBUTES)} labels, {prevalence.max():.0%}..{prevalence.min():.0%} positive, n={len(y_test)}"

    def row(case, predictions, average="macro", **options):
        result = metric.compute(references=y_test, predictions=predictions, average=average, confidence_level=0.95, **options)
        labels = predictions >= np.asarray(options.get("threshold", 0.5)) if options.get("from_probas") else predictions
        return (case, data, entry_accuracy(y_test, labels), f"{METRIC} ({average})", result["balanced_accuracy"], result["balanced_accuracy_ci"])

    tuned = metric.compute(references=y_dev, predictions=dev_probs, from_probas=True, threshold="auto")
    thresholds = tuned["per_label_thresholds"]
    table = [
        row("digits multilabel, one-vs-rest LR, threshold 0.5", test_probs, average=average, from_probas=True)
        for average in ("macro", "weighted", "micro")
    ]
    table.append(row(
        "digits multilabel, Youden thresholds " + "/".join(f"{t:.2f}" for t in thresholds) + " (tuned on a dev split)",
        test_probs, from_probas=True, threshold=thresholds,
    ))
    table.append(row("digits multilabel, always 'no'", np.zeros_like(y_test)))
    return table


if __name__ == "__main__":
    for line in rows():
        print(" | ".join(f"{cell:.3f}" if isinstance(cell, float) else str(cell) for cell in line))
