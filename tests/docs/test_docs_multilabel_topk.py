"""The multilabel and top-k cards and their pages (docs/multilabel.md, docs/top-k.md) are exact.

Every doctest of a card and of its page runs; the card's one-line `# {...}` output is the printed
result; the cards stay short and link their page; and the numbers the examples show are
recomputed independently: values by hand from the definitions, intervals by SciPy from the score
interval's definition (tests/support/score_reference.py), design effects from the formulas the
pages write out.
"""

import ast
import doctest
import re
import sys

import numpy as np
import pytest
from scipy import stats

from conftest import REPO_ROOT, load_module

sys.path.insert(0, str(REPO_ROOT / "examples"))
from score_reference import score_sum_reference  # noqa: E402

PAGES = {"balanced_accuracy_multilabel": "multilabel.md", "balanced_topk_accuracy": "top-k.md"}
CARD_BYTES = 12_000


def card(name):
    return (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")


def page(name):
    return (REPO_ROOT / "docs" / PAGES[name]).read_text(encoding="utf-8")


def python_blocks(text):
    return "\n".join(block.split("```", 1)[0] for block in text.split("```python")[1:])


@pytest.mark.parametrize("name", list(PAGES))
@pytest.mark.parametrize("where", ["card", "page"])
def test_every_doctest_of_the_card_and_its_page_runs_as_written(name, where, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    text = card(name) if where == "card" else page(name)
    test = doctest.DocTestParser().get_doctest(python_blocks(text), {"metric": load_module(name), "nan": float("nan")},
                                              f"{name} {where}", None, 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("name", list(PAGES))
def test_the_how_to_use_output_line_is_the_printed_result(name, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    block = card(name).split("## How to Use", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    call = block.split("metric.compute(", 1)[1].split("\n# ", 1)
    expected = call[1].strip()
    arguments = ast.parse(f"f({call[0].strip()}", mode="eval").body
    kwargs = {keyword.arg: ast.literal_eval(keyword.value) for keyword in arguments.keywords}
    assert repr(load_module(name).compute(**kwargs)) == expected


@pytest.mark.parametrize("name", list(PAGES))
def test_the_card_is_short_and_links_its_page_which_links_back(name):
    assert len(card(name).encode("utf-8")) <= CARD_BYTES
    assert f"](../docs/{PAGES[name]}" in card(name)
    assert f"](../{name}/README.md)" in page(name) and "](../README.md)" in page(name)
    assert card(name).count("@article{") + card(name).count("@inproceedings{") <= 3


# ---------------------------------------------------------------- the numbers, independently


TAGS = [[1, 1]] * 10 + [[1, 0]] * 10 + [[0, 1]] * 40 + [[0, 0]] * 140
TAGGED = ([[1, 1]] * 8 + [[0, 1]] * 2 + [[1, 0]] * 8 + [[0, 0]] * 2 + [[0, 1]] * 35 + [[0, 0]] * 5
          + [[1, 1]] * 9 + [[0, 1]] * 6 + [[0, 0]] * 125)
Z = stats.norm.ppf(0.975)


def multilabel_macro_by_hand(references, predictions, clusters):
    """Macro BA, its per-rate counts and its design effect as docs/multilabel.md writes them:
    psi of an entry = (right - rate) / size / (2L); D = G/(G-1) sum_g (u_g - mean u)^2 / sum psi^2."""
    references, predictions = np.asarray(references), np.asarray(predictions)
    size, labels = references.shape
    psi, successes, trials, rates = np.zeros((size, labels)), [], [], []
    for label in range(labels):
        positive = references[:, label] == 1
        right = predictions[:, label] == references[:, label]
        for part in (positive, ~positive):
            rate = right[part].mean()
            psi[part, label] = (right[part] - rate) / part.sum() / (2 * labels)
            successes.append(right[part].sum())
            trials.append(part.sum())
            rates.append(rate)
    sums = np.bincount(np.asarray(clusters), weights=psi.sum(axis=1))
    groups = sums.size
    effect = groups / (groups - 1) * np.sum((sums - sums.mean()) ** 2) / np.sum(psi ** 2)
    return float(np.mean(rates)), np.array(successes, float), np.array(trials, float), effect, groups


@pytest.mark.parametrize("clusters", [list(range(200)), [i // 4 for i in range(200)],
                                      np.unique(np.sort(np.random.default_rng(3).integers(0, 30, 200)), return_inverse=True)[1].tolist()])
def test_multilabel_interval_and_design_effect_are_the_definitions(clusters):
    """The card's interval examples (each sample a cluster; 50 documents of 4) and one with 30 unequal clusters."""
    value, successes, trials, effect, groups = multilabel_macro_by_hand(TAGS, TAGGED, clusters)
    assert value == pytest.approx(((16 / 20 + 171 / 180) / 2 + (45 / 50 + 135 / 150) / 2) / 2)
    scale = max(effect, 1.0) * (stats.t.ppf(0.975, groups - 1) / Z) ** 2
    expected = score_sum_reference(successes / scale, trials / scale, [0.25] * 4)
    result = load_module("balanced_accuracy_multilabel").compute(references=TAGS, predictions=TAGGED, confidence_level=0.95,
                                                                 clusters=clusters)
    assert result["balanced_accuracy"] == pytest.approx(value, abs=1e-12)
    assert result["num_clusters"] == groups and result["design_effect"] == pytest.approx(effect, rel=1e-9)
    assert result["balanced_accuracy_ci"] == pytest.approx(expected, abs=1e-6)
    shown = " ".join(page("balanced_accuracy_multilabel").split())
    if groups == 200:
        assert f"[{expected[0]:.4f}, {expected[1]:.4f}] with design effect {effect:.3f}" in shown
    if groups == 50:
        assert f"D = {effect:.3f} and the interval widens from" in shown and f"to [{expected[0]:.4f}, {expected[1]:.4f}]" in shown


CLASSES = [0] * 40 + [1] * 20 + [2] * 10
CLASS_SCORES = ([[0.6, 0.3, 0.1]] * 36 + [[0.3, 0.6, 0.1]] * 4 + [[0.2, 0.7, 0.1]] * 15 + [[0.5, 0.3, 0.2]] * 5
                + [[0.1, 0.2, 0.7]] * 6 + [[0.5, 0.2, 0.3]] * 4)


def topk_design_effect_by_hand(hit, references, clusters):
    """Bell & McCaffrey's design effect as docs/top-k.md writes it: cluster sums of
    psi = (hit - recall) / size / K divided by 1 - h_g (h_g the cluster's share of sum psi^2),
    t on min(G, 1 / sum h^2) - 1 degrees of freedom."""
    size, recall = np.bincount(references), np.bincount(references, weights=hit) / np.bincount(references)
    psi = (hit - recall[references]) / size[references] / size.size
    sums = np.bincount(clusters, weights=psi)
    share = np.bincount(clusters, weights=psi ** 2) / np.sum(psi ** 2)
    effect = np.sum(sums ** 2 / (1 - share)) / np.sum(psi ** 2)
    return effect, max(1.0, min(sums.size, 1 / np.sum(share ** 2)) - 1), sums.size


def test_topk_interval_examples_are_the_definitions():
    references, scores = np.array(CLASSES), np.array(CLASS_SCORES)
    hit = (scores.argmax(axis=1) == references).astype(float)
    hits, sizes = np.bincount(references, weights=hit), np.bincount(references).astype(float)
    assert (hits / sizes).tolist() == [0.9, 0.75, 0.6]
    metric = load_module("balanced_topk_accuracy")
    plain = metric.compute(predictions=CLASS_SCORES, references=CLASSES, k=1, confidence_level=0.95)
    expected = score_sum_reference(hits, sizes, [1 / 3] * 3)
    assert plain["balanced_topk_accuracy"] == pytest.approx(0.75) and plain["balanced_topk_accuracy_ci"] == pytest.approx(expected, abs=1e-6)
    clusters = [i % 10 for i in range(70)]
    effect, freedom, groups = topk_design_effect_by_hand(hit, references, np.array(clusters))
    scale = max(effect, 1.0) * (stats.t.ppf(0.975, freedom) / Z) ** 2
    clustered_expected = score_sum_reference(hits / scale, sizes / scale, [1 / 3] * 3)
    clustered = metric.compute(predictions=CLASS_SCORES, references=CLASSES, k=1, confidence_level=0.95, clusters=clusters)
    assert clustered["num_clusters"] == groups == 10 and clustered["design_effect"] == pytest.approx(effect, rel=1e-9)
    assert clustered["balanced_topk_accuracy_ci"] == pytest.approx(clustered_expected, abs=1e-6)
    shown = " ".join(page("balanced_topk_accuracy").split())
    assert f"[{expected[0]:.4f}, {expected[1]:.4f}] to [{clustered_expected[0]:.4f}, {clustered_expected[1]:.4f}]" in shown
    assert f"design effect {effect:.2f} on 10 clusters" in shown


def test_topk_tie_example_is_the_expected_hit():
    """docs/top-k.md: hit = min(1, max(0, (k - g) / (t + 1))) per sample, by hand."""
    def hit(row, true, k):
        higher = sum(score > row[true] for score in row)
        tied = sum(score == row[true] for score in row) - 1
        return min(1.0, max(0.0, (k - higher) / (tied + 1)))

    rows, references = [[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]], [0, 2]
    recalls = [hit(row, true, 1) for row, true in zip(rows, references)]
    assert recalls == [0.5, 1 / 3]
    result = load_module("balanced_topk_accuracy").compute(predictions=rows, references=references, k=1, return_per_class=True)
    assert result["balanced_topk_accuracy"] == pytest.approx(np.mean(recalls))
    assert result["per_class_recall"][0] == 0.5 and np.isnan(result["per_class_recall"][1])


def test_the_cards_demo_values_are_the_demos():
    """The Values sections and the pages quote examples/demo_multilabel.py and examples/demo_topk.py."""
    import demo_multilabel
    import demo_topk

    multilabel_card = " ".join(card("balanced_accuracy_multilabel").split())
    multilabel_page = " ".join(page("balanced_accuracy_multilabel").split())
    rows = demo_multilabel.rows()
    at_half = {row[3].split("(")[1].rstrip(")"): row for row in rows if "threshold 0.5" in row[0]}
    tuned = next(row for row in rows if "tuned on a dev split" in row[0])
    never = next(row for row in rows if "always 'no'" in row[0])
    assert f"per-entry accuracy {at_half['macro'][2]:.3f} but macro BA {at_half['macro'][4]:.3f}" in multilabel_card
    assert f"scores {never[2]:.3f} and {never[4]:.3f}" in multilabel_card
    assert (f"Per-entry accuracy is {at_half['macro'][2]:.3f}; macro BA {at_half['macro'][4]:.3f}, weighted "
            f"{at_half['weighted'][4]:.3f}, micro {at_half['micro'][4]:.3f}") in multilabel_page
    thresholds = tuned[0].split("thresholds ")[1].split(" ")[0]
    assert f"({thresholds}) raise macro BA on the test split to {tuned[4]:.3f}" in multilabel_page
    assert f"per-entry accuracy {never[2]:.3f} and macro BA {never[4]:.3f}" in multilabel_page
    topk = {row[0]: row for row in demo_topk.rows()}
    topk_card = " ".join(card("balanced_topk_accuracy").split())
    logistic, frequency = (topk[f"{case}, top-1"] for case in
                           ("digits (long tail), logistic regression", "digits, classes ranked by training frequency"))
    assert f"accuracy {logistic[2]:.3f} but balanced top-1 {logistic[4]:.3f}" in topk_card
    assert f"scores {frequency[2]:.3f} and exactly {frequency[4]:.3f}" in topk_card
    table = page("balanced_topk_accuracy")
    for case, label in (("digits (long tail), logistic regression", "logistic regression"),
                        ("digits, classes ranked by training frequency", "classes ranked by training frequency (input ignored)")):
        cells = [f"{topk[f'{case}, top-{k}'][column]:.3f}" for k in (1, 3) for column in (2, 4)]
        assert f"| {label} | {' | '.join(cells)} |" in table
