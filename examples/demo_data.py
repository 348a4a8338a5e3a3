"""Data and helpers shared by the demo sections: scikit-learn's bundled data sets (offline)
made imbalanced by subsampling, a small model, the metric loader and the table printer."""

import os
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


def print_table(rows):
    """A markdown table; a row may carry a sixth cell, the 95% interval of its value."""
    header = ("case", "data", "accuracy", "metric", "value", "95% CI")
    cells = [[_cell(c) for c in row] + [""] * (len(header) - len(row)) for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")


def _cell(value):
    if isinstance(value, list):
        return "[" + ", ".join(f"{v:.3f}" for v in value) + "]"
    return f"{value:.3f}" if isinstance(value, float) else str(value)
