"""Demo: accuracy next to the imbalance-robust metrics on real data, offline.

Uses scikit-learn's bundled data sets (no download), made imbalanced by subsampling, and
the metric modules of this repository loaded with ``evaluate.load`` from their folders.

    python examples/demo.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from demo_data import accuracy, breast_cancer_data, digits_data, fit, load_metric, print_table  # noqa: E402
from demo_informedness import rows as informedness_rows  # noqa: E402
from demo_multilabel import rows as multilabel_rows  # noqa: E402
from demo_topk import rows as topk_rows  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402


def balanced_accuracy_rows():
    metric = load_metric("balanced_accuracy")

    def row(case, data, references, predictions, **options):
        result = metric.compute(references=references, predictions=predictions, confidence_level=0.95, **options)
        hard = predictions >= options["threshold"] if "threshold" in options else predictions
        return (case, data, accuracy(references, hard), "balanced_accuracy", result["balanced_accuracy"], result["balanced_accuracy_ci"])

    x_train, x_test, y_train, y_test = breast_cancer_data()
    x_fit, x_dev, y_fit, y_dev = train_test_split(x_train, y_train, test_size=0.5, stratify=y_train, random_state=1)
    model = fit(x_fit, y_fit, 0)
    dev_scores = model.predict_proba(x_dev)[:, 1]
    test_scores = model.predict_proba(x_test)[:, 1]
    # Tune the threshold on a dev split and report it on the test split: tuned and reported
    # on the same data it would be optimistic.
    tuned = metric.compute(references=y_dev, predictions=dev_scores, threshold="auto")["optimal_threshold"]
    data = f"{y_test.mean():.1%} malignant, n={len(y_test)}"
    rows = [
        row("breast cancer, threshold 0.5", data, y_test, test_scores, threshold=0.5),
        row(f"breast cancer, Youden threshold {tuned:.3f} (tuned on a dev split)", data, y_test, test_scores, threshold=tuned),
        row("breast cancer, always 'benign'", data, y_test, np.zeros_like(y_test)),
    ]

    x_train, x_test, y_train, y_test = digits_data()
    counts = np.bincount(y_test, minlength=10)
    data = f"10 classes, {counts.max()}..{counts.min()} per class, n={len(y_test)}"
    rows.append(row("digits (long tail), logistic regression", data, y_test, fit(x_train, y_train, 0).predict(x_test)))
    majority = np.full_like(y_test, np.bincount(y_train).argmax())
    rows.append(row("digits, always the majority class", data, y_test, majority))
    return rows


SECTIONS = [balanced_accuracy_rows, informedness_rows, topk_rows, multilabel_rows]


def main():
    rows, seen = [], set()
    for section in SECTIONS:
        for row in section():
            # Sections may repeat a row another already showed (same case and metric).
            if (row[0], row[3]) not in seen:
                seen.add((row[0], row[3]))
                rows.append(row)
    print_table(rows)


if __name__ == "__main__":
    main()
