"""The root README's examples are exact: each `# {...}` line of the quick start is the printed
result of the call above it, and the Trainer recipe runs as written (issue 26: on any head)."""

import ast
import doctest
import re

import evaluate
import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score, confusion_matrix

from conftest import REPO_ROOT


def test_quick_start_outputs_are_exact(monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    namespace = {"evaluate": evaluate}
    statement, checked = [], 0
    for line in quick_start.splitlines():
        if line.startswith("# {"):
            source = "\n".join(statement)
            value = eval(compile(ast.Expression(ast.parse(source, mode="eval").body), "<readme>", "eval"), namespace)
            assert repr(value) == line[2:], source
            statement, checked = [], checked + 1
        elif line.strip() and not line.startswith("#"):
            if statement and not re.match(r"^\s", line) and not statement[-1].rstrip().endswith(","):
                exec("\n".join(statement), namespace)
                statement = []
            statement.append(re.sub(r"\s+#.*$", "", line))
    assert checked == 6


def trainer_section():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("## Use with 🤗 Transformers' Trainer", 1)[1].split("\n## ", 1)[0]


def trainer_recipe(num_labels):
    """The README's compute_metrics, run as written: the modules loaded from their folders and
    ``model`` a head of ``num_labels`` classes."""
    from types import SimpleNamespace

    code = trainer_section().split("```python", 1)[1].split("```", 1)[0].replace('"<namespace>/', '"./')
    namespace = {"model": SimpleNamespace(config=SimpleNamespace(num_labels=num_labels))}
    exec(code, namespace)
    return namespace


def by_hand(matrix):
    """Balanced accuracy, macro and bookmaker informedness from a confusion matrix (rows: references)."""
    matrix = np.asarray(matrix, dtype=float)
    total, support, predicted = matrix.sum(), matrix.sum(axis=1), matrix.sum(axis=0)
    tpr = np.diag(matrix) / support
    fpr = (predicted - np.diag(matrix)) / (total - support)
    return tpr.mean(), (tpr - fpr).mean(), float(np.sum(predicted / total * (tpr - fpr)))


@pytest.mark.parametrize("num_labels", [3, 7])
def test_trainer_recipe_runs_on_any_head_and_logs_what_it_says(monkeypatch, num_labels):
    """Was: k_list=[1, 5] failed at the end of the first epoch on a 3-class head."""
    monkeypatch.chdir(REPO_ROOT)
    namespace = trainer_recipe(num_labels)
    rng = np.random.default_rng(num_labels)
    labels = rng.integers(0, num_labels, 200)
    logits = rng.normal(size=(200, num_labels)) + 1.5 * np.eye(num_labels)[labels]
    logged = namespace["compute_metrics"]((logits, labels))
    top = min(5, num_labels)
    assert list(logged) == ["balanced_accuracy", "macro_informedness", "balanced_top1_accuracy", f"balanced_top{top}_accuracy"]
    if num_labels == 3:
        comment = trainer_section().split("# a 3-class head logs ", 1)[1].split("\n", 1)[0]
        assert comment.split(", ") == [f"eval_{key}" for key in logged]
    predictions = logits.argmax(-1)
    matrix = confusion_matrix(labels, predictions, labels=list(range(num_labels)))
    balanced, macro, _ = by_hand(matrix)
    assert logged["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(labels, predictions), abs=1e-12)
    assert logged["macro_informedness"] == pytest.approx(macro, abs=1e-12)
    ranks = (logits > logits[np.arange(200), labels][:, None]).sum(axis=1)  # classes scored above the true one (no ties)
    for k in (1, top):
        recall = [np.mean(ranks[labels == c] < k) for c in range(num_labels)]
        assert logged[f"balanced_top{k}_accuracy"] == pytest.approx(np.mean(recall), abs=1e-12)


def test_trainer_section_example_of_the_three_averages_is_exact(monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    namespace = trainer_recipe(3)
    section = trainer_section()
    block = [text.split("```", 1)[0] for text in section.split("```python")[1:] if ">>>" in text][0]
    test = doctest.DocTestParser().get_doctest(block, namespace, "README Trainer", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test, clear_globs=False)
    assert runner.summarize(verbose=False).failed == 0
    # The printed values, by hand from the two matrices: the first wins only under bookmaker.
    first, second = (by_hand(test.globs[name]) for name in ("gives_up_on_2", "predicts_all"))
    assert [round(x, 3) for x in first] == [0.65, 0.475, 0.677] and [round(x, 3) for x in second] == [0.733, 0.6, 0.619]
    assert first[0] < second[0] and first[1] < second[1] and first[2] > second[2]
