"""Demo: accuracy next to the imbalance-robust metrics on real data, offline.

Uses scikit-learn's bundled data sets (no download), made imbalanced by subsampling, and
the metric modules of this repository loaded with ``evaluate.load`` from their folders.

    python examples/demo.py
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import evaluate  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def load_metric(name):
    return evaluate.load(str(REPO_ROOT / name))


def imbalance(features, targets, keep_fraction, rng):
    """Keep every sample of the first class and ``keep_fraction[c]`` of class c."""
    keep = np.zeros(len(targets), dtype=bool)
    for label, fraction in keep_fraction.items():
        members = np.flatnonzero(targets == label)
        keep[rng.choice(members, size=max(2, int(round(fraction * len(members)))), replace=False)] = True
    return features[keep], targets[keep]


def fit(features, targets, seed):
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.05))
    return model.fit(features, targets)


def breast_cancer_data(seed=0):
    """Binary: malignant (label 0 in scikit-learn) made rare; positive class = malignant."""
    rng = np.random.default_rng(seed)
    data = load_breast_cancer()
    malignant = (data.target == 0).astype(int)
    features, targets = imbalance(data.data, malignant, {1: 0.12, 0: 1.0}, rng)
    return train_test_split(features, targets, test_size=0.5, stratify=targets, random_state=seed)


def digits_data(seed=0):
    """10 classes with a long tail: class c keeps a share that falls geometrically."""
    rng = np.random.default_rng(seed)
    data = load_digits()
    features, targets = imbalance(data.data, data.target, {c: 0.7**c for c in range(10)}, rng)
    return train_test_split(features, targets, test_size=0.5, stratify=targets, random_state=seed)


def accuracy(references, predictions):
    return float(np.mean(np.asarray(references) == np.asarray(predictions)))


def balanced_accuracy_rows():
    metric = load_metric("balanced_accuracy")
    rows = []

    x_train, x_test, y_train, y_test = breast_cancer_data()
    x_fit, x_dev, y_fit, y_dev = train_test_split(x_train, y_train, test_size=0.5, stratify=y_train, random_state=1)
    model = fit(x_fit, y_fit, 0)
    dev_scores = model.predict_proba(x_dev)[:, 1]
    test_scores = model.predict_proba(x_test)[:, 1]
    tuned = metric.compute(references=y_dev, predictions=dev_scores, threshold="auto")
    default = metric.compute(references=y_test, predictions=test_scores, threshold=0.5)
    reported = metric.compute(references=y_test, predictions=test_scores, threshold=tuned["optimal_threshold"])
    prevalence = f"{y_test.mean():.1%} malignant, n={len(y_test)}"
    rows.append(("breast cancer, threshold 0.5", prevalence, accuracy(y_test, test_scores >= 0.5), "balanced_accuracy", default["balanced_accuracy"]))
    rows.append((
        f"breast cancer, Youden threshold {tuned['optimal_threshold']:.3f} (tuned on a dev split)",
        prevalence,
        accuracy(y_test, test_scores >= tuned["optimal_threshold"]),
        "balanced_accuracy",
        reported["balanced_accuracy"],
    ))
    constant = np.zeros_like(y_test)
    rows.append(("breast cancer, always 'benign'", prevalence, accuracy(y_test, constant), "balanced_accuracy",
                 metric.compute(references=y_test, predictions=constant)["balanced_accuracy"]))

    x_train, x_test, y_train, y_test = digits_data()
    model = fit(x_train, y_train, 0)
    predictions = model.predict(x_test)
    counts = np.bincount(y_test, minlength=10)
    prevalence = f"10 classes, {counts.max()}..{counts.min()} per class, n={len(y_test)}"
    rows.append(("digits (long tail), logistic regression", prevalence, accuracy(y_test, predictions), "balanced_accuracy",
                 metric.compute(references=y_test, predictions=predictions)["balanced_accuracy"]))
    majority = np.full_like(y_test, np.bincount(y_train).argmax())
    rows.append(("digits, always the majority class", prevalence, accuracy(y_test, majority), "balanced_accuracy",
                 metric.compute(references=y_test, predictions=majority)["balanced_accuracy"]))
    return rows


def print_table(rows):
    header = ("case", "data", "accuracy", "metric", "value")
    widths = [max(len(str(h)), *(len(_cell(r[i])) for r in rows)) for i, h in enumerate(header)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |"
    print(line)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(_cell(c).ljust(w) for c, w in zip(row, widths)) + " |")


def _cell(value):
    return f"{value:.3f}" if isinstance(value, float) else str(value)


SECTIONS = [balanced_accuracy_rows]


def main():
    rows = []
    for section in SECTIONS:
        rows.extend(section())
    print_table(rows)


if __name__ == "__main__":
    main()
