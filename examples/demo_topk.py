"""Demo rows for balanced top-k accuracy: long-tailed digits, k in [1, 3], offline.

``rows()`` returns rows of the demo table (case, data, plain top-k accuracy, metric,
value) for ``examples/demo.py``. The plain top-k accuracy comes from scikit-learn's
``top_k_accuracy_score``; the balanced value from the ``balanced_topk_accuracy`` module.

    python examples/demo_topk.py
"""

import numpy as np
from sklearn.metrics import top_k_accuracy_score

K_LIST = [1, 3]


def rows():
    # Imported here, not at the top: demo.py imports this file, and this file reuses demo.py's data.
    from demo_data import digits_data, fit, load_metric

    metric = load_metric("balanced_topk_accuracy")
    x_train, x_test, y_train, y_test = digits_data()
    classes = np.arange(10)
    counts = np.bincount(y_test, minlength=10)
    data = f"10 classes, {counts.max()}..{counts.min()} per class, n={len(y_test)}"

    model_scores = fit(x_train, y_train, 0).predict_proba(x_test)
    # Ranks the classes by training frequency, whatever the input: the head classes first.
    frequency_order = np.lexsort((classes, -np.bincount(y_train, minlength=10)))
    prior_scores = np.tile(-np.argsort(frequency_order).astype(float), (len(y_test), 1))

    table = []
    for case, scores in (
        ("digits (long tail), logistic regression", model_scores),
        ("digits, classes ranked by training frequency", prior_scores),
    ):
        result = metric.compute(predictions=scores, references=y_test, k_list=K_LIST, confidence_level=0.95)
        for k in K_LIST:
            plain = top_k_accuracy_score(y_test, scores, k=k, labels=classes)
            table.append((f"{case}, top-{k}", data, float(plain), f"balanced_top{k}_accuracy", result[f"balanced_top{k}_accuracy"], result[f"balanced_top{k}_accuracy_ci"]))
    return table


if __name__ == "__main__":
    from demo_data import print_table

    print_table(rows())
