"""Numbers the cards quote from examples/ and from edge cases: each is recomputed here. A figure may
be on the card or on a docs/ page the card links to (``card_and_linked_pages``).

The balanced_accuracy card's prevalence-correction recipe lives in
examples/prevalence_correction.py and its coverage table in studies/golden_set_coverage/results.md;
the cards keep a summary whose counts must be the table's.
"""

import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO_ROOT, card_and_linked_pages, load_module, load_study
from shared.tooling.modules import MODULE_NAMES

sys.path.insert(0, str(REPO_ROOT / "examples"))
import prevalence_correction  # noqa: E402

coverage_study = load_study("golden_set_coverage")


def card(name):
    return (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- prevalence correction


def test_prevalence_recipe_prints_the_cards_numbers_and_is_the_studys_code():
    shown = prevalence_correction.corrected_prevalence(flagged=400, benchmark_size=2000, tp=63, positives=83, fp=133, negatives=917)
    assert float(shown[0]) == pytest.approx((400 / 2000 - 133 / 917) / (63 / 83 - 133 / 917), abs=1e-12)
    assert coverage_study.corrected_prevalence is prevalence_correction.corrected_prevalence  # one copy of the recipe
    printed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "prevalence_correction.py")], capture_output=True, text=True, check=True
    ).stdout
    assert "corrected prevalence 0.0895, 95% interval [0.0443, 0.1368]" in printed
    text = card_and_linked_pages("balanced_accuracy")
    assert "0.0895, 95% interval [0.0443,\n0.1368]" in text
    assert "def corrected_prevalence" not in text  # moved to examples/, the card names it
    assert "examples/prevalence_correction.py" in text


def test_prevalence_recipe_covers():
    coverage, _ = coverage_study.prevalence_correction_coverage(np.random.default_rng(8), 1000, 800, 0.1, 2000, 0.05, 0.8, 0.1, 1000)
    assert 0.93 <= coverage <= 0.97


# ---------------------------------------------------------------- coverage table and its summaries


GOLDEN_SET_COVERAGE_COMMAND = "OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/golden_set_coverage/study.py"


def coverage_rows():
    """The balanced-accuracy rows of studies/golden_set_coverage/results.md, which must be the output of its named command."""
    text = (REPO_ROOT / "studies" / "golden_set_coverage" / "results.md").read_text(encoding="utf-8")
    assert f"Written by `{GOLDEN_SET_COVERAGE_COMMAND}` on " in text
    rows = [line.split("|")[1:-1] for line in text.splitlines() if line.startswith("| binary") or line.startswith("| 4 classes")]
    assert len(rows) == 21
    return [(cells[0].strip(), [cell.strip() for cell in cells[3:7]]) for cells in rows]


def coverage_of(cell):
    return float(re.match(r"\**([\d.]+)", cell).group(1))


def within_target(cell):
    coverage = float(re.match(r"\**([\d.]+)", cell).group(1))
    assert (0.93 <= coverage <= 0.97) == (not cell.startswith("**")), cell  # bold marks the misses
    return 0.93 <= coverage <= 0.97


def test_coverage_summaries_count_the_table():
    rows = coverage_rows()
    # Columns: score (the default), agresti_coull, wilson, bootstrap.
    counts = [sum(within_target(cells[method]) for _, cells in rows) for method in range(4)]
    assert counts == [10, 19, 16, 9]
    default = [coverage_of(cells[0]) for _, cells in rows]
    assert min(default) >= 0.93 and sum(value > 0.97 for value in default) == 11
    text = " ".join(card_and_linked_pages("balanced_accuracy").split())
    assert f"the default covered {min(default):.3f}–{max(default):.3f} in all 21 settings" in text
    assert "conservative, in 11 of them" in text
    assert "`agresti_coull` stayed in 93–97% in 19 of 21 settings, `wilson` in 16, the bootstrap in 9" in text
    binary = [cells for label, cells in rows if label.startswith("binary")]
    assert len(binary) == 18 and all(coverage_of(cells[0]) >= 0.93 for cells in binary)
    assert sum(coverage_of(cells[0]) > 0.97 for cells in binary) == 10
    assert "at least 0.93 in all 18 binary settings, above 0.97 in 10 of them" in " ".join(card_and_linked_pages("informedness").split())
    assert "19 of 21" not in card("informedness")  # the card itself; its intervals page quotes it for balanced accuracy
    assert "studies/golden_set_coverage/results.md" in card_and_linked_pages("balanced_accuracy")


def golden_set_section(heading):
    """The table rows (lists of cells) of one section of studies/golden_set_coverage/results.md."""
    text = (REPO_ROOT / "studies" / "golden_set_coverage" / "results.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ") and not set(line) <= set("|-") and not line.startswith(("| truth", "| golden set", "| prevalence |"))]


def test_the_pages_quote_the_golden_set_studys_other_sections():
    """The threshold="auto" refusal, the prevalence recipe and the 3-class bootstrap figures on the docs pages
    (and in the refusal messages) are studies/golden_set_coverage/results.md's."""
    auto = [float(row[2]) for row in golden_set_section('threshold="auto"')]
    assert len(auto) == 4
    low, high = round(100 * min(auto)), round(100 * max(auto))
    intervals_page = " ".join((REPO_ROOT / "docs" / "intervals.md").read_text(encoding="utf-8").split())
    assert f"achievable balanced accuracy in only {low}–{high}% of simulated sets" in intervals_page
    for module in ("balanced_accuracy", "multilabel"):
        assert f"in only {low}-{high}% of" in (REPO_ROOT / "shared" / "metrics" / f"{module}.py").read_text(encoding="utf-8")
    recipe = [float(row[2]) for row in golden_set_section("Prevalence correction")]
    assert len(recipe) == 6
    prevalence_page = " ".join((REPO_ROOT / "docs" / "prevalence.md").read_text(encoding="utf-8").split())
    assert f"{100 * min(recipe):.1f}–{100 * max(recipe):.1f}% of 10,000 simulated golden sets" in prevalence_page
    population = [row[3].split(" ")[0].strip("*") for row in golden_set_section("Informedness, 3 classes") if row[0].startswith("population")]
    assert f"bootstrap at {' / '.join(population)} with its own draws" in intervals_page


# ---------------------------------------------------------------- edge cases the cards describe


def test_balanced_accuracy_edge_cases_in_the_card():
    metric = load_module("balanced_accuracy")
    with pytest.warns(UserWarning, match=r"^Recall is undefined for class 1: no reference samples"):
        no_positives = metric.compute(references=[0] * 10, predictions=[0] * 8 + [1] * 2, return_per_class=True, confidence_level=0.95)
    assert no_positives["balanced_accuracy"] == pytest.approx(0.8)
    assert np.isnan(no_positives["per_class_recall"][1]) and len(no_positives["balanced_accuracy_ci"]) == 2
    counted = metric.compute(references=[0] * 10, predictions=[0] * 8 + [1] * 2, zero_division=0.0)
    assert counted["balanced_accuracy"] == pytest.approx(0.4)
    references = np.repeat(np.arange(10), 1000)
    guesses = np.random.default_rng(0).integers(0, 10, 10_000)
    with pytest.raises(ValueError, match="^adjusted: no chance correction for an average over class_mask"):
        metric.compute(references=references, predictions=guesses, adjusted=True, class_mask=[0, 1])
    # The value the card quotes for the former rule, chance = 1/|mask|, computed by hand from the recalls.
    recalls = metric.compute(references=references, predictions=guesses, return_per_class=True)["per_class_recall"]
    former = (np.mean(recalls[:2]) - 1 / 2) / (1 - 1 / 2)
    unmasked = metric.compute(references=references, predictions=guesses, adjusted=True)
    assert round(former, 3) == -0.804 and round(unmasked["balanced_accuracy"], 3) == 0.005
    text = card_and_linked_pages("balanced_accuracy")
    assert "warns and returns\n  0.8" in text and "(0.4 here)" in text and "−0.804" in text and "0.005" in text
    assert "is refused** (ValueError)" in text


def test_informedness_zero_division_edge_case_in_the_card():
    metric = load_module("informedness")
    references, predictions = [0, 0, 1, 1], [0, 2, 1, 2]
    assert metric.compute(references=references, predictions=predictions)["informedness"] == pytest.approx(0.5)
    assert metric.compute(references=references, predictions=predictions, zero_division=0.0)["informedness"] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="^zero_division: expected 'skip' or 0.0 for informedness"):
        metric.compute(references=references, predictions=predictions, zero_division=1.0)
    text = card_and_linked_pages("informedness")
    assert '`"skip"` gives 0.5 and `zero_division=0.0` gives 0.25. **1.0 is refused**' in " ".join(text.split())


def per_label_data(prevalences, rates, size=200):
    """(N, L) references and predictions with exactly the given per-label prevalence, TPR and TNR."""
    references, predictions = [], []
    for prevalence, (tpr, tnr) in zip(prevalences, rates):
        positives = round(size * prevalence)
        negatives = size - positives
        tp, tn = round(positives * tpr), round(negatives * tnr)
        assert tp == positives * tpr and tn == negatives * tnr  # the rates are exact
        references.append([1] * positives + [0] * negatives)
        predictions.append([1] * tp + [0] * (positives - tp) + [0] * tn + [1] * (negatives - tn))
    return np.array(references).T.tolist(), np.array(predictions).T.tolist()


def test_micro_multilabel_moves_with_prevalence_and_macro_does_not():
    """The multilabel card: same per-label TPR/TNR, prevalences swapped, micro 0.844 vs 0.684, macro 0.75."""
    metric = load_module("balanced_accuracy_multilabel")
    rates = [(0.9, 0.6), (0.6, 0.9), (0.6, 0.9)]  # (TPR, TNR) per label: BA 0.75 each
    values = {}
    for prevalences in [(0.5, 0.05, 0.05), (0.05, 0.5, 0.5)]:
        references, predictions = per_label_data(prevalences, rates)
        values[prevalences] = {
            average: metric.compute(references=references, predictions=predictions, average=average)["balanced_accuracy"]
            for average in ("macro", "micro")
        }
    first, second = values.values()
    assert first["macro"] == pytest.approx(0.75) and second["macro"] == pytest.approx(0.75)
    assert round(first["micro"], 3) == 0.844 and round(second["micro"], 3) == 0.684
    assert first["micro"] == pytest.approx(0.5 * (0.51 / 0.6 + 2.01 / 2.4))  # pooled TPR and TNR, by hand
    text = card("balanced_accuracy_multilabel")
    assert "0.844" in text and "0.684" in text


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_cards_have_use_and_reference_sections_and_name_the_type_errors(name):
    headings = re.findall(r"^## (.+)$", card(name), flags=re.M)
    assert headings.index("When to Use and When Not to Use") < headings.index("Metric Description")
    assert "Further References" in headings
    text = card_and_linked_pages(name)
    assert "TypeError" in text and "mix strings and" in text and "complex `sample_weight`" in text


# ---------------------------------------------------------------- the two-split threshold recipe


def card_section(name, heading):
    """The section under ``heading`` in the card or a docs/ page it links to, up to the next heading."""
    text = card_and_linked_pages(name)
    start = text.index(heading)
    following = re.search(r"\n#{2,} ", text[start + len(heading):])  # the next heading (## or ###)
    return text[start:start + len(heading) + following.start() if following else None]


def youden_by_brute_force(references, scores):
    """The highest threshold among those with the best TPR + TNR (candidates: +inf, the
    midpoints between adjacent distinct scores, the lowest score), with scikit-learn's BA."""
    from sklearn.metrics import balanced_accuracy_score

    distinct = sorted(set(scores), reverse=True)
    candidates = [np.inf] + [(high + low) / 2 for high, low in zip(distinct, distinct[1:])] + [distinct[-1]]
    values = [balanced_accuracy_score(references, np.asarray(scores) >= cut) for cut in candidates]
    return candidates[int(np.argmax(values))]


@pytest.mark.parametrize(
    "name, heading, globs",
    [
        ("balanced_accuracy", "## A tuned threshold is optimistic", {}),  # docs/balanced-accuracy.md
        ("balanced_accuracy_multilabel", "### Per-label thresholds are optimistic on the data they were tuned on", {}),
    ],
)
def test_the_cards_two_split_recipes_are_exact_doctests(name, heading, globs, monkeypatch):
    import doctest

    monkeypatch.chdir(REPO_ROOT)
    section = card_section(name, heading)
    blocks = "\n".join(block.split("```", 1)[0] for block in section.split("```python")[1:])
    test = doctest.DocTestParser().get_doctest(blocks, {"metric": load_module(name), **globs}, heading, None, 0)
    assert len(test.examples) >= 2
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert "auto" in section and "test" in section and "dev" in section


def test_the_recipes_numbers_are_scikit_learns():
    """The cards' dev thresholds by an independent search, and the test values by scikit-learn."""
    from sklearn.metrics import balanced_accuracy_score

    judge_dev = ([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], [2, 3, 5, 7, 4, 6, 8, 6, 9, 7])
    judge_test = ([0, 0, 0, 0, 0, 1, 1, 1, 1, 0], [1, 4, 7, 3, 5, 9, 5, 8, 10, 6])
    assert youden_by_brute_force(*judge_dev) == 5.5
    assert balanced_accuracy_score(judge_test[0], np.array(judge_test[1]) >= 5.5) == pytest.approx(0.7083333333333333)
    logits_dev = ([0, 0, 0, 0, 1, 1, 1, 1], [-2.1, -1.4, -0.3, -1.8, -0.9, 0.4, -0.5, 1.6])
    logits_test = ([0, 0, 0, 1, 1, 1], [-2.0, -0.8, -1.6, -0.2, -1.0, 0.7])
    assert youden_by_brute_force(*logits_dev) == pytest.approx(-1.15)
    assert balanced_accuracy_score(logits_test[0], np.array(logits_test[1]) >= -1.15) == pytest.approx(0.8333333333333333)
    references = np.array([[1, 0], [0, 0], [1, 1], [0, 1], [0, 0], [1, 0]])
    logits = np.array([[0.3, -2.2], [-1.9, -3.0], [-0.8, -0.4], [-2.5, 0.6], [-1.2, -1.7], [1.4, -2.6]])
    thresholds = [youden_by_brute_force(references[:, label].tolist(), logits[:, label].tolist()) for label in range(2)]
    assert thresholds == pytest.approx([-1.0, -1.05])
    test_references = np.array([[1, 1], [0, 0], [0, 1], [1, 0], [0, 0]])
    test_logits = np.array([[-0.5, -1.3], [-1.6, -0.9], [-2.0, 0.9], [0.8, -2.4], [-0.7, -1.8]])
    per_label = [balanced_accuracy_score(test_references[:, label], test_logits[:, label] >= thresholds[label]) for label in range(2)]
    assert np.mean(per_label) == pytest.approx(0.7083333333333333)


# ---------------------------------------------------------------- the comparison study's tables in the cards


def comparison_study():
    """(summary tables: the methods used and the uncorrected variants, {method: cells}; the two-class rows) of
    studies/paired_comparison/results.md, which must be the output of its named command."""
    text = (REPO_ROOT / "studies" / "paired_comparison" / "results.md").read_text(encoding="utf-8")
    assert "Written by `OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/paired_comparison/study.py` on " in text
    summaries, current = [], None
    for line in text.splitlines():
        if line.startswith("| method |"):
            current = {}
            summaries.append(current)
        elif current is not None and line.startswith("| ") and not line.startswith("|---"):
            method, rows, worst, below, median, _, refused = [cell.strip() for cell in line.strip().strip("|").split("|")]
            current[method] = (rows, re.match(r"([\d.]+ ± [\d.]+),", worst).group(1), below, median, refused)
        elif not line.startswith("|"):
            current = None
    two_classes = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in text.splitlines()
                   if line.startswith("| ") and line.count("|") == 13 and not line.startswith("| judges")]
    return summaries, two_classes


def two_class_summary(rows, column, sets):
    """The summary cells the study would print for the two-class rows alone."""
    values = np.array([float(re.match(r"\**([\d.]+)", row[column]).group(1)) for row in rows])
    least = values.min()
    return (str(len(values)), f"{least:.3f} ± {np.sqrt(least * (1 - least) / sets):.3f}", str(int((values < 0.93).sum())),
            f"{np.median(values):.3f}", "none")


def card_comparison_rows(name):
    """The summary table of docs/comparing-judges.md for the module (linked from its card)."""
    title = {"balanced_accuracy": "balanced accuracy", "informedness": "informedness"}[name]
    section = card_section(name, f"### Coverage and type-I error ({title})")
    assert "Measured by `studies/paired_comparison/study.py`" in section
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 6 and cells[1].isdigit():
            rows[cells[0]] = (cells[1], cells[2], cells[3], cells[4], "none" if cells[5] == "never" else cells[5])
    return rows


def test_the_cards_comparison_tables_are_the_studys():
    (used, uncorrected), two_classes = comparison_study()
    assert len(two_classes) == 304
    sets = {"newcombe": 10_000, "bootstrap": 1_000, "uncorrected newcombe": 10_000, "uncorrected bootstrap": 200}
    expected = {
        "balanced_accuracy": {
            "Newcombe/MOVER, method 10 as published (default)": used["balanced accuracy newcombe"],
            'smoothed bootstrap (`ci_method="bootstrap"`)': used["balanced accuracy bootstrap"],
            "not used: method 10 with uncorrected φ": uncorrected["balanced accuracy newcombe"],
            "not used: bootstrap of the observed shares": uncorrected["balanced accuracy bootstrap"],
        },
        "informedness": {
            "two classes, default (Newcombe/MOVER as published, doubled)": two_class_summary(two_classes, 4, sets["newcombe"]),
            'two classes, `ci_method="bootstrap"` (doubled)': two_class_summary(two_classes, 5, sets["bootstrap"]),
            "three classes, default: delta method, bookmaker": used["informedness delta (bookmaker)"],
            "three classes, delta method, macro": used["informedness delta (macro)"],
            "three classes, delta method, weighted": used["informedness delta (weighted)"],
            'three classes, `ci_method="bootstrap"` (bookmaker)': used["informedness bootstrap (bookmaker)"],
            "not used: two classes, uncorrected φ": two_class_summary(two_classes, 10, sets["uncorrected newcombe"]),
            "not used: two classes, bootstrap of the observed shares": two_class_summary(two_classes, 11, sets["uncorrected bootstrap"]),
            "not used: three classes, delta method on the observed shares (bookmaker)": uncorrected["informedness delta (bookmaker)"],
            "not used: three classes, bootstrap of the observed shares (bookmaker)": uncorrected["informedness bootstrap (bookmaker)"],
        },
    }
    for name, rows in expected.items():
        assert card_comparison_rows(name) == rows
    # Every current method covers at least 0.93 everywhere and refuses nowhere, as the cards say.
    for method, (_, least, below, _, refused) in used.items():
        assert float(least.split(" ± ")[0]) >= 0.93 and below == "0" and refused == "none", method
    # The bootstrap of the observed shares at n = 100 (0.60-0.93 on a grid of larger classes).
    at_100 = [float(re.match(r"\**([\d.]+)", row[11]).group(1)) for row in two_classes if row[1] == "100"]
    text = " ".join(card_and_linked_pages("balanced_accuracy").split())
    assert f"the bootstrap of the observed shares covered {min(at_100):.2f}–{max(at_100):.3f} at n = 100" in text


# ---------------------------------------------------------------- the cluster study's tables in the cards


def cluster_study_rows():
    """{(setting, metric, ci_method): (G, coverage with clusters, coverage as i.i.d. items)} of
    studies/cluster_coverage/results.md, which must be the output of its named command."""
    text = (REPO_ROOT / "studies" / "cluster_coverage" / "results.md").read_text(encoding="utf-8")
    assert "Written by `OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/cluster_coverage/study.py` on " in text
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 12 and cells[0] != "setting":
            rows[(cells[0], cells[3], cells[4])] = (cells[1], cells[6], cells[8])
    return rows


@pytest.mark.parametrize("name", ["balanced_accuracy", "informedness", "balanced_accuracy_multilabel"])
def test_the_cards_cluster_tables_are_the_studys(name):
    """Every row of every cluster-coverage table in the card and the docs/ pages it links to (clusters.md)
    is the study's; at least 4 of them are the module's own."""
    study = cluster_study_rows()
    text = card_and_linked_pages(name)
    assert "`studies/cluster_coverage/study.py`" in text
    quoted, in_table = 0, False
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| setting | clusters | metric | ci_method |"):
            in_table = True
        elif not line.startswith("|"):
            in_table = False
        elif in_table and len(cells) == 6 and not set(cells[0]) <= set("-"):
            setting, clusters, metric, method, with_clusters, independent = cells
            assert study[(setting, metric, method)] == (clusters, with_clusters, independent), line
            quoted += metric.split(" ")[0] == name
    assert quoted >= 4


# ---------------------------------------------------------------- the long-tail study of the modules' intervals

LONG_TAIL_COMMAND = "OMP_NUM_THREADS=1 nice -n 19 python studies/long_tail_modules/study.py"


def long_tail_results():
    """(every cell's default coverage, the worst one the header names, paired type-I rates) of
    studies/long_tail_modules/results.md, which must be the output of its named command."""
    text = (REPO_ROOT / "studies" / "long_tail_modules" / "results.md").read_text(encoding="utf-8")
    assert f"Written by `{LONG_TAIL_COMMAND}` on " in text
    worst = re.search(r'Worst cell of the default \(`ci_method=None`, "score"\): \*\*([\d.]+)\*\* \((.+)\)\.', text)
    default, type_one = {}, {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or cells[0] == "cell" or set(cells[1]) <= set("-"):
            continue
        if len(cells) == 3:  # the paired comparison's rows: rejection rate, sets
            type_one[cells[0]] = float(cells[1])
        else:
            default[cells[0]] = float(re.match(r"\**([\d.]+)", cells[1]).group(1))
    return default, (float(worst.group(1)), worst.group(2)), type_one


def test_long_tail_study_default_covers_every_cell_and_the_paired_test_keeps_its_level():
    default, (worst, cell), type_one = long_tail_results()
    assert len(default) >= 20 and min(default.values()) == worst == default[cell]
    assert worst >= 0.93
    # The paired p-value with clusters (the cluster swap test) keeps its level: 0.03-0.06 at 0.05.
    assert len(type_one) >= 3 and all(0.03 <= rate <= 0.06 for rate in type_one.values()), type_one
    text = " ".join(card_and_linked_pages("balanced_accuracy").split())
    rates = [type_one[next(name for name in type_one if f"G={g} " in name)] for g in (200, 50, 15)]
    assert "type-I error at 0.05 was {:.3f} with every item its own cluster, {:.3f} with 50 clusters and {:.3f}".format(*rates) in text


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_the_cards_quote_the_long_tail_studys_worst_cell(name):
    _, (worst, cell), _ = long_tail_results()
    text = " ".join(card_and_linked_pages(name).split())
    assert "studies/long_tail_modules/study.py" in text
    assert f"{worst:.3f} ({cell})" in text


def test_the_informedness_card_quotes_the_multiclass_studys_worst_cell():
    """studies/multiclass_informedness/results.md, written by its named command, against the card and
    docs/intervals.md (the README's confidence-interval page)."""
    text = (REPO_ROOT / "studies" / "multiclass_informedness" / "results.md").read_text(encoding="utf-8")
    assert "Command: `OMP_NUM_THREADS=1 nice -n 19 python studies/multiclass_informedness/study.py --sets 2000" in text
    worst = re.search(r"Worst cell of the default \(`score`\): ([\d.]+),", text).group(1)
    delta = re.search(r"\*\*delta\*\* ([\d.]+) ", text).group(1)
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| cell") and not line.startswith("| K |")
            and not set(line.replace("|", "").strip()) <= set("-")]
    scores = [float(re.match(r"\**([\d.]+)", cells[6 if len(cells) == 8 else 2].strip()).group(1))
              for cells in (line.strip().strip("|").split("|") for line in rows) if len(cells) in (5, 8)]
    assert scores and min(scores) >= float(worst) >= 0.93
    informedness_card = " ".join(card_and_linked_pages("informedness").split())
    assert f"`ci_method=\"score\"` covered {worst} or more in all 518 cells" in informedness_card
    assert f"fell to 0.915 near the ceiling" in informedness_card and f"and {delta} with a class of 3" in informedness_card
    page = " ".join((REPO_ROOT / "docs" / "intervals.md").read_text(encoding="utf-8").split())
    assert f"worst cell {worst} of 518" in page and f"fell to {delta} with a class of 3 items" in page


def test_the_ranking_page_quotes_the_informedness_ranking_study():
    """docs/ranking-judges.md's figures for multi-class informedness are studies/judge_ranking/results.md's."""
    text = (REPO_ROOT / "studies" / "judge_ranking" / "results.md").read_text(encoding="utf-8")
    section = text.split("## Informedness: three classes", 1)[1]
    first, again = section.split("### Informedness cells below", 1)
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in first.splitlines() if line.startswith("| 3 classes")]
    rechecked = [[cell.strip() for cell in line.strip("|").split("|")] for line in again.splitlines() if line.startswith("| 3 classes")]
    number = (lambda cell: float(re.match(r"\**([\d.]+)", cell).group(1)))
    assert len(rows) == 13 and all(number(row[6]) == 1.0 for row in rows)  # the true best always in the set
    low = sorted((number(row[5]), row[1], row[2], row[4]) for row in rows if number(row[5]) < 0.93)
    assert len(low) == 2 == len(rechecked)
    assert [(row[1], row[2]) for row in rechecked] == [(judges, size) for _, judges, size, _ in low]
    assert all(int(row[4]) == 4 * int(sets) and number(row[5]) >= 0.93 for row, (_, _, _, sets) in zip(rechecked, low))
    others = min(number(row[5]) for row in rows if number(row[5]) >= 0.93)
    page = " ".join((REPO_ROOT / "docs" / "ranking-judges.md").read_text(encoding="utf-8").split())
    (first_low, first_j, first_n, first_sets), (second_low, second_j, second_n, second_sets) = low
    assert (f"The worst family-wise coverage on the first pass was {first_low:.3f} (J = {first_j}, n = {first_n}; {first_sets} sets), "
            f"then {second_low:.3f} (J = {second_j}, n = {second_n}; {second_sets} sets); with four times the sets "
            f"(`--informedness --recheck 4`) they were {number(rechecked[0][5]):.3f} and {number(rechecked[1][5]):.3f}, and every "
            f"other cell was at {others:.3f} or above.") in page


def test_the_clusters_page_quotes_the_leverage_study():
    """docs/clusters.md's figures for the leverage alternatives and the paired tests are
    studies/cluster_leverage/results.md's."""
    text = (REPO_ROOT / "studies" / "cluster_leverage" / "results.md").read_text(encoding="utf-8")
    coverage_part, paired_part = text.split("## Paired comparison", 1)
    rows = lambda part: {cells[0]: cells[1:] for cells in ([c.strip() for c in line.strip("|").split("|")]
                                                           for line in part.splitlines() if line.startswith("| ") and "---" not in line)
                         if cells[0] != "cell"}
    coverage, paired = rows(coverage_part), rows(paired_part)
    harder = [cells for name, cells in coverage.items() if "larger = harder" in name]
    assert len(harder) == 2 and len(paired) == 8
    covered = lambda cell: cell.split(" / ")[0]
    page = " ".join((REPO_ROOT / "docs" / "clusters.md").read_text(encoding="utf-8").split())
    assert f"the default covering {covered(harder[0][0])} and {covered(harder[1][0])} with 20 and 50 conversations" in page
    assert f"against {covered(harder[0][1])} and {covered(harder[1][1])} with design-based leverage" in page
    assert f"covers {covered(harder[0][3])} and {covered(harder[1][3])}" in page
    assert all(float(covered(cells[0])) >= 0.93 for cells in harder)  # the shipped rule holds the coverage rule there
    swap, normal, free = (sorted(float(cells[column]) for cells in paired.values()) for column in range(3))
    # The shipped swap test keeps its level in every cell (target 0.03-0.06 at 0.05); the normal test it replaced did not.
    assert 0.03 <= swap[0] and swap[-1] <= 0.06, swap
    assert (f"the swap test rejected {swap[0]:.3f}-{swap[-1]:.3f} at 0.05 in eight cells of 5 to 50 clusters, where the "
            f"normal test divided by the design effect rejected {normal[0]:.3f}-{normal[-1]:.3f}") in page
    assert f"no floor, t on G - 1: {free[0]:.3f}-{free[-1]:.3f})" in page


def test_the_intervals_page_quotes_the_cells_one_step_inside_the_boundary():
    """docs/intervals.md's and docs/multilabel.md's figures one step inside J = +-1 and a perfect multilabel set are the study's."""
    text = (REPO_ROOT / "studies" / "long_tail_modules" / "results.md").read_text(encoding="utf-8")
    rows = {cells[0]: cells[1:] for cells in ([c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
                                              if line.startswith("| ") and "one step inside" in line)}
    coverage = (lambda cell: re.match(r"\**([\d.]+)", cell).group(1))
    near_one = rows["binary informedness, one step inside: TPR 0.90 (15 positives), TNR 0.995 (85)"]
    near_minus_one = rows["binary informedness, one step inside: TPR 0.10 (15 positives), TNR 0.01 (85)"]
    page = " ".join((REPO_ROOT / "docs" / "intervals.md").read_text(encoding="utf-8").split())
    assert (f"one step inside (TPR 0.90, or 0.10) it covered {coverage(near_one[3])} and {coverage(near_minus_one[3])}, the default "
            f"{coverage(near_one[0])} and {coverage(near_minus_one[0])} at {near_one[5]}x the narrowest method that covered") in page
    assert near_one[5] == near_minus_one[5]
    inside = rows["multilabel macro, L=4, n=30, one step inside: TPR 0.90, TNR 0.97"]
    multilabel = (REPO_ROOT / "docs" / "multilabel.md").read_text(encoding="utf-8")
    assert "| multilabel macro, L=4, n=30, one step inside: TPR 0.90, TNR 0.97 | " + " | ".join(inside) + " |" in multilabel
    joined = " ".join(multilabel.split())
    assert f"one step inside when every rate falls a little ({coverage(inside[3])} at TPR 0.90, TNR 0.97)" in joined
    smallest = rows["multilabel macro, L=4, n=30, one step inside: TPR 0.50 on the label with 3 positives, every other rate 1"]
    assert "| multilabel macro, L=4, n=30, one step inside: TPR 0.50 on the label with 3 positives, every other rate 1 | " + " | ".join(smallest) + " |" in multilabel
    assert (f"{coverage(smallest[3])} with TPR 0.50 on the label with 3 positives and every other rate 1, where the default covers "
            f"{coverage(smallest[0])}") in joined
    assert float(coverage(smallest[3])) < 0.93 <= float(coverage(smallest[0]))  # the bootstrap's narrowness at the boundary does not hold inside
    bound = re.search(r"When every rate is observed at 1 the exact lower end is ([\d.]+): .*the default's lower end is ([\d.]+)\.", text)
    assert f"the exact lower end is {bound.group(1)}" in joined and f"and the default's is {bound.group(2)}" in joined


# ---------------------------------------------------------------- the delta-method study of multi-class informedness


def test_the_intervals_page_quotes_the_informedness_delta_study():
    """docs/intervals.md's 3-class table and its every-average sentence are studies/informedness_delta_interval/results.md's."""
    text = (REPO_ROOT / "studies" / "informedness_delta_interval" / "results.md").read_text(encoding="utf-8")
    command = "OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python studies/informedness_delta_interval/study.py"
    assert f"Written by `{command}` on " in text
    tables = {}
    for part in text.split('## average="')[1:]:
        average = part.split('"', 1)[0]
        rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in part.splitlines() if line[:3] in ("| 5", "| 2", "| 1")]
        # {n: (smallest, {method: "coverage / width"})}; the study's cells end with the misses in brackets.
        tables[average] = {row[0]: (row[2], {method: cell.split(" (")[0] for method, cell in zip(("bootstrap", "delta", "plain"), row[3:6])})
                           for row in rows}
    assert set(tables) == {"bookmaker", "macro", "weighted"} and all(len(rows) == 3 for rows in tables.values())
    page = (REPO_ROOT / "docs" / "intervals.md").read_text(encoding="utf-8")
    assert command in " ".join(page.split())
    for n, (smallest, cells) in tables["bookmaker"].items():
        assert f"| {n} | {smallest} | {cells['delta']} | {cells['bootstrap']} | {cells['plain']} |" in page
    coverage = (lambda average, method: " / ".join(tables[average][n][1][method].split(" / ")[0] for n in ("50", "200", "1000")))
    assert (f"the delta method covered {coverage('macro', 'delta')} (macro) and {coverage('weighted', 'delta')} (weighted) "
            f"at n = 50 / 200 / 1000, the bootstrap {coverage('macro', 'bootstrap')} and {coverage('weighted', 'bootstrap')}.") in " ".join(page.split())
