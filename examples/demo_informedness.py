"""Demo section: informedness next to accuracy and balanced accuracy, on the demo's data.

``rows()`` returns rows for ``examples/demo.py``'s table (case, data, accuracy, metric,
value). Besides the models, it scores guessers that draw each prediction from the class
prior of the training split: accuracy gives them a "baseline credit" (about Σ_c π_c²),
balanced accuracy reads 1/K, informedness reads about 0.

    python examples/demo_informedness.py
"""

import numpy as np

GUESS_DRAWS = 100  # guessers are scored as the mean over this many draws (one draw is noisy)


def _rows_for_case(case, data, references, predictions, balanced_accuracy, informedness):
    """A balanced-accuracy row and an informedness row; predictions may be several draws."""
    draws = predictions if isinstance(predictions, list) else [predictions]
    accuracy = float(np.mean([np.mean(references == p) for p in draws]))
    ba = float(np.mean([balanced_accuracy.compute(references=references, predictions=p)["balanced_accuracy"] for p in draws]))
    if len(draws) > 1:  # a mean over guessing draws has no interval of its own
        j = float(np.mean([informedness.compute(references=references, predictions=p)["informedness"] for p in draws]))
        return [(case, data, accuracy, "balanced_accuracy", ba), (case, data, accuracy, "informedness", j)]
    result = informedness.compute(references=references, predictions=draws[0], confidence_level=0.95, seed=0)
    return [(case, data, accuracy, "balanced_accuracy", ba), (case, data, accuracy, "informedness", result["informedness"], result["informedness_ci"])]


def _prior_guesses(train_targets, size, rng, num_classes):
    prior = np.bincount(train_targets, minlength=num_classes) / len(train_targets)
    return [rng.choice(num_classes, size=size, p=prior) for _ in range(GUESS_DRAWS)]


def rows():
    import demo_data as demo
    from sklearn.model_selection import train_test_split

    balanced_accuracy = demo.load_metric("balanced_accuracy")
    informedness = demo.load_metric("informedness")
    rng = np.random.default_rng(0)
    table = []

    # The same model, split and case names as demo.py's balanced-accuracy section.
    x_train, x_test, y_train, y_test = demo.breast_cancer_data()
    x_fit, _, y_fit, _ = train_test_split(x_train, y_train, test_size=0.5, stratify=y_train, random_state=1)
    model = demo.fit(x_fit, y_fit, 0)
    thresholded = (model.predict_proba(x_test)[:, 1] >= 0.5).astype(int)
    data = f"{y_test.mean():.1%} malignant, n={len(y_test)}"
    table += _rows_for_case("breast cancer, threshold 0.5", data, y_test, thresholded, balanced_accuracy, informedness)
    table += _rows_for_case("breast cancer, always 'benign'", data, y_test, np.zeros_like(y_test), balanced_accuracy, informedness)
    table += _rows_for_case(
        f"breast cancer, guessing from the class prior (mean of {GUESS_DRAWS} draws)",
        data, y_test, _prior_guesses(y_train, len(y_test), rng, 2), balanced_accuracy, informedness,
    )

    x_train, x_test, y_train, y_test = demo.digits_data()
    model = demo.fit(x_train, y_train, 0)
    counts = np.bincount(y_test, minlength=10)
    data = f"10 classes, {counts.max()}..{counts.min()} per class, n={len(y_test)}"
    predictions = model.predict(x_test)
    table += _rows_for_case("digits (long tail), logistic regression", data, y_test, predictions, balanced_accuracy, informedness)
    # Bookmaker weights follow the predictions: rare classes the model seldom predicts weigh
    # little. Macro informedness weighs every class the same, like balanced accuracy.
    macro = informedness.compute(references=y_test, predictions=predictions, average="macro")["informedness"]
    table.append(("digits (long tail), logistic regression", data, table[-1][2], "informedness (macro)", macro))
    majority = np.full_like(y_test, np.bincount(y_train).argmax())
    table += _rows_for_case("digits, always the majority class", data, y_test, majority, balanced_accuracy, informedness)
    table += _rows_for_case(
        f"digits, guessing from the class prior (mean of {GUESS_DRAWS} draws)",
        data, y_test, _prior_guesses(y_train, len(y_test), rng, 10), balanced_accuracy, informedness,
    )
    return table


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from demo_data import print_table

    print_table(rows())
