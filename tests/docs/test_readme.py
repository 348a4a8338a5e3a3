"""The root README's examples are exact: each `# {...}` line of the quick start is the printed
result of the call above it, and the Trainer recipe (docs/trainer.md) runs as written (issue 26:
on any head). The README is a first screen: the two commands early, a bounded size, and every
relative link in it and in docs/ leads to a file (and heading) that exists."""

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
    """docs/trainer.md, the page the README's Trainer summary links to."""
    page = (REPO_ROOT / "docs" / "trainer.md").read_text(encoding="utf-8")
    assert page.startswith("# Use with 🤗 Transformers' Trainer\n")
    return page


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


# ---------------------------------------------------------------- the README as a first screen


def documents():
    return [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]


def github_anchors(text):
    """The ids GitHub gives the headings of a Markdown text: lower case, punctuation and emoji
    dropped, spaces to hyphens, a repeated id suffixed -1, -2, ... Headings in code blocks do
    not count."""
    anchors, seen, fenced = set(), {}, False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        anchors.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def test_github_anchors_follow_githubs_rules():
    text = "# Use with 🤗 Transformers' Trainer\n## Corrected prevalence from a judge's labels\n```\n# not a heading\n```\n" \
           "## How to Use\n### How to Use\n#### Judge selection: the published simulation and ours\n"
    assert github_anchors(text) == {"use-with--transformers-trainer", "corrected-prevalence-from-a-judges-labels",
                                    "how-to-use", "how-to-use-1", "judge-selection-the-published-simulation-and-ours"}


def relative_links(text):
    """(target, anchor) of every Markdown link that is not a web address, outside code blocks."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        yield path, anchor


@pytest.mark.parametrize("document", documents(), ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(document):
    text = document.read_text(encoding="utf-8")
    links = list(relative_links(text))
    assert links, "no relative link found: the link pattern is broken"
    for path, anchor in links:
        target = (document.parent / path).resolve() if path else document
        assert target.exists(), f"{document.name}: {path} does not exist"
        assert REPO_ROOT in target.parents or target == REPO_ROOT, f"{document.name}: {path} leaves the repository"
        if anchor:
            assert target.suffix == ".md", f"{document.name}: an anchor into {path}"
            assert anchor in github_anchors(target.read_text(encoding="utf-8")), f"{document.name}: no heading #{anchor} in {path}"


def test_every_docs_page_is_linked_from_the_readme_and_links_back():
    readme_links = {path for path, _ in relative_links((REPO_ROOT / "README.md").read_text(encoding="utf-8"))}
    pages = sorted((REPO_ROOT / "docs").glob("*.md"))
    assert len(pages) >= 6
    for page in pages:
        assert f"docs/{page.name}" in readme_links, page.name
        assert "../README.md" in {path for path, _ in relative_links(page.read_text(encoding="utf-8"))}, page.name


def test_the_two_commands_are_on_the_first_screen_and_the_readme_is_short():
    raw = (REPO_ROOT / "README.md").read_bytes()
    assert len(raw) <= 14_000
    lines = raw.decode("utf-8").splitlines()
    first_screen = lines[:60]
    for command in ("make demo", "make test"):
        assert any(line.strip().startswith(command) for line in first_screen), command
    # What it is, then the table of the four modules, before the commands.
    table = [number for number, line in enumerate(lines) if line.startswith("| [`")]
    assert len(table) == 4 and table[-1] < next(n for n, line in enumerate(lines) if line.strip().startswith("make demo"))


def test_the_readme_says_how_to_run_a_space_and_which_python_to_use():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "`.venv/bin/python your_script.py`" in readme and "`source .venv/bin/activate`" in readme
    command = ("make vendor && .venv/bin/pip install -r balanced_accuracy/requirements.txt"
               " && .venv/bin/python balanced_accuracy/app.py")
    assert command in readme
    # What the command names exists, and its requirements are what the app imports need.
    requirements = (REPO_ROOT / "balanced_accuracy" / "requirements.txt").read_text(encoding="utf-8")
    assert "gradio==" in requirements and "matplotlib" in requirements
    assert "app.launch()" in (REPO_ROOT / "balanced_accuracy" / "app.py").read_text(encoding="utf-8")
    assert re.search(r"^vendor:", (REPO_ROOT / "Makefile").read_text(encoding="utf-8"), flags=re.M)


def test_the_readme_and_docs_tell_what_is_not_how_it_came_to_be():
    for document in documents():
        text = document.read_text(encoding="utf-8")
        assert not re.search(r"\bissue\s*#?\d+|#\d{2,}\b", text, flags=re.I), document.name
