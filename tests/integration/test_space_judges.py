"""The Space's judges panel without a browser: the ranking table, intervals by default, the
warnings and refusals in the status line, and a figure whose texts stay inside it.

(tests/integration/test_space_browser.py drives the same panel in Chromium.)
"""

import json
import math
import os
import warnings

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from shared.space import app as space_app
from shared.space import controls as space_options
from shared.space import judges as space_judges
from conftest import load_module

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

JUDGES = ("gpt", "rules")


@pytest.fixture(scope="module")
def balanced_accuracy():
    return load_module("balanced_accuracy")


def golden_set(seed=7, size=80):
    """0/1 references, two judges' labels and one judge's integer scores (a "confidence" of 10-90 in steps of 10)."""
    rng = np.random.default_rng(seed)
    references = (rng.random(size) < 0.35).astype(int)
    judges = {name: np.where(rng.random(size) < right, references, 1 - references)
              for name, right in zip(JUDGES, (0.9, 0.7))}
    scores = 10 * np.clip(np.round(10 * (0.3 + 0.4 * references + rng.normal(0, 0.2, size))), 1, 9).astype(int)
    return references, judges, scores


def page_of(metric, references, judges, **typed):
    """The page for ``judges`` pasted (predictions empty) with ``typed`` options as typed in their boxes."""
    options = space_options.default_options(metric)
    names = [option.name for option in options]
    values = [option.default_shown() for option in options]
    values[names.index("judges")] = json.dumps({name: np.asarray(labels).tolist() for name, labels in judges.items()})
    for name, text in typed.items():
        values[names.index(name)] = text
    return space_app.compute_page(metric, options, ("confusion",), "paste", "", json.dumps(np.asarray(references).tolist()),
                                  None, values)


def test_judges_get_simultaneous_intervals_and_a_table_by_default(balanced_accuracy):
    """Was: with judges and default options the forest plot had no intervals (dots only) and the
    ranking was only JSON. Now the page asks for intervals at 0.95 and shows one row per judge."""
    references, judges, _ = golden_set()
    page = page_of(balanced_accuracy, references, judges)
    assert page.ok and not page.warnings, (page.message, page.warnings)
    assert "confidence_level=0.95" in page.message
    expected = balanced_accuracy.compute(references=references, judges=judges, confidence_level=0.95)
    assert json.loads(page.result_json) == json.loads(json.dumps(expected))
    assert all(len(entry["balanced_accuracy_ci"]) == 2 for entry in expected["judge_ranking"])
    assert f"Best set ({len(expected['best_judges'])} of 2 judges): {', '.join(expected['best_judges'])}." in page.message

    headers, rows = page.ranking
    assert headers == ["judge", "balanced_accuracy", "simultaneous 95% interval", "p vs best", "in best set"]
    assert len(rows) == 2
    for row, entry in zip(rows, expected["judge_ranking"]):
        low, high = entry["balanced_accuracy_ci"]
        assert row[:3] == [entry["name"], f"{entry['balanced_accuracy']:.4f}", f"[{low:.4f}, {high:.4f}]"]
        assert row[3] == ("best" if entry["p_value"] is None else f"{entry['p_value']:.4f}" if entry["p_value"] >= 1e-3
                          else f"{entry['p_value']:.2g}")
        assert row[4] == ("yes" if entry["in_best_set"] else "no")
    # The forest plot draws each interval: one error bar per judge.
    forest = page.figure.axes[0]
    assert len(forest.containers) == 2

    # A level typed in the Intervals tab is kept.
    typed = page_of(balanced_accuracy, references, judges, confidence_level="90%")
    assert json.loads(typed.result_json) == json.loads(json.dumps(
        balanced_accuracy.compute(references=references, judges=judges, confidence_level=0.9)))
    assert typed.ranking[0][2] == "simultaneous 90% interval"


@pytest.mark.parametrize("name", ["balanced_accuracy", "informedness"])
def test_a_judge_giving_scores_is_never_a_green_check(name):
    """Was: a judge giving scores (integers 10-90 against 0/1 references) showed a green "✓ Computed"
    beside its 0.0 (balanced accuracy; informedness: undefined, with a reason only in the JSON),
    the warning only in the server's log. Now the status line either lists the warning naming
    the judge (computed: ⚠) or refuses (✗), never ✓."""
    references, judges, scores = golden_set()
    page = page_of(load_module(name), references, {**judges, "confidence": scores})
    status = space_app.status_html(page)
    assert "✓" not in status and "space-status ok" not in status
    if page.ok:
        assert "space-status warning" in status and status.count("<li>") == len(page.warnings)
        assert any(text.startswith("judges['confidence']: ") for text in page.warnings), page.warnings
        # Its row in the table has a note: the module's reason, or a pointer to the warning.
        (row,) = [row for row in page.ranking[1] if row[0] == "confidence"]
        (entry,) = [entry for entry in json.loads(page.result_json)["judge_ranking"] if entry["name"] == "confidence"]
        assert page.ranking[0][-1] == "note" and row[-1] in ("warned: see the status line", entry.get("reason"))
    else:
        assert "space-status error" in status and "✗ Not computed" in status
        assert "confidence" in page.message


def test_a_refusal_is_a_red_line_naming_the_argument(balanced_accuracy):
    references, judges, _ = golden_set()
    page = page_of(balanced_accuracy, references, {"gpt": judges["gpt"], "short": judges["rules"][:10]})
    status = space_app.status_html(page)
    assert not page.ok and "short" in page.message and page.ranking is None
    assert "space-status error" in status and "✗ Not computed: " in status and "✓" not in status


def test_warnings_are_captured_user_warnings_once_library_notices_left_to_the_log():
    def compute():
        warnings.warn("judges['a']: something to see", UserWarning)
        warnings.warn("judges['a']: something to see", UserWarning)
        warnings.warn("a library's deprecation", DeprecationWarning)
        return 1

    with warnings.catch_warnings(record=True) as logged:
        warnings.simplefilter("always")
        value, found = space_app.computed_with_warnings(compute)
    assert value == 1 and found == ["judges['a']: something to see"]
    assert [str(warning.message) for warning in logged] == ["a library's deprecation"]


def drawn_boxes(figure):
    """Each axes' box of all it draws (its title, labels, tick labels, annotations) and its title's box."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    return [(axes.get_tightbbox(renderer), axes.title.get_window_extent(renderer)) for axes in figure.axes]


def test_the_ranking_figure_has_a_colour_bar_and_no_text_outside_it():
    """Was: the p-value matrix had no colour bar and the forest plot's title (it listed the best
    set) ran past the figure's edge (x1 = 851 px of 720 with these names, no matrix) or over the
    matrix's title."""
    entries = []
    names = ["a-judge-with-a-very-long-name-indeed", "gpt-4o-mini (prompt v2)", "llama", "rules", "coin"]
    for index, name in enumerate(names):
        value = 0.9 - 0.1 * index
        entries.append({"name": name, "balanced_accuracy": value, "balanced_accuracy_ci": [value - 0.08, value + 0.07],
                        "p_value": None if index == 0 else 10.0 ** -index, "in_best_set": index < 2})
    matrix = [[None if i == j else 10.0 ** -max(i, j) for j in range(5)] for i in range(5)]
    alone = {"judge_ranking": entries, "best_judges": names[:2]}
    for result in (alone, {**alone, "judge_p_values": matrix}):
        figure = space_app.draw_ranking(result)
        if "judge_p_values" in result:
            forest, heatmap, colour_bar = figure.axes
            assert colour_bar.get_ylabel() == "adjusted p-value" and heatmap.get_title().startswith("Pairwise")
        else:
            (forest,) = figure.axes
        frame = figure.bbox
        boxes = drawn_boxes(figure)
        for drawn, _ in boxes:
            assert frame.x0 - 1 <= drawn.x0 and drawn.x1 <= frame.x1 + 1 and frame.y0 - 1 <= drawn.y0 and drawn.y1 <= frame.y1 + 1, drawn
        titles = [title for _, title in boxes if title.width > 0]
        assert all(not a.overlaps(b) for i, a in enumerate(titles) for b in titles[i + 1:])
        # Long names are cut, not dropped to an ellipsis.
        assert [label.get_text() for label in forest.get_yticklabels()][0] == "a-judge-with-a-very-lon…"


def test_undefined_values_and_an_empty_best_set_draw_and_read():
    """A golden set of one class: values NaN, no best judge (the module's result then warns)."""
    result = {"judge_ranking": [
        {"name": "a", "balanced_accuracy": math.nan, "balanced_accuracy_ci": [math.nan, math.nan], "p_value": None,
         "in_best_set": False},
        {"name": "b", "balanced_accuracy": math.nan, "balanced_accuracy_ci": [math.nan, math.nan], "p_value": math.nan,
         "in_best_set": False, "reason": "one class"}],
        "best_judges": [], "judge_p_values": [[None, math.nan], [math.nan, None]]}
    assert space_app.draw_ranking(result) is not None
    headers, rows = space_judges.ranking_table(result, 0.95)
    assert headers[-1] == "note"
    assert rows == [["a", "undefined", "undefined", "undefined", "no", ""], ["b", "undefined", "undefined", "undefined", "no", "one class"]]
    assert "No judge could be ranked best" in space_judges.ranking_summary(result)


def test_optimal_thresholds_get_their_column():
    result = {"judge_ranking": [
        {"name": "scores", "informedness": 0.6, "p_value": None, "in_best_set": True, "optimal_threshold": 0.4375},
        {"name": "labels", "informedness": 0.5, "p_value": 0.2, "in_best_set": True}], "best_judges": ["scores", "labels"]}
    headers, rows = space_judges.ranking_table(result)
    assert headers == ["judge", "informedness", "p vs best", "in best set", "optimal_threshold"]
    assert rows == [["scores", "0.6000", "best", "yes", "0.4375"], ["labels", "0.5000", "0.2000", "yes", ""]]
    (forest,) = space_app.draw_ranking(result).axes
    assert [label.get_text() for label in forest.get_yticklabels()] == ["scores\n(threshold 0.438)", "labels"]


def test_a_threshold_per_judge_reaches_the_module(balanced_accuracy):
    """The threshold box passes a JSON object (a threshold per judge) to the module, whose check decides."""
    (threshold,) = [option for option in space_options.default_options(balanced_accuracy) if option.name == "threshold"]
    assert threshold.parse('{"confidence": "auto"}') == {"confidence": "auto"}
    with pytest.raises(space_app.InputError, match="found a JSON object"):
        space_options.Value("threshold").parse('{"a": 1}')  # a box without per-judge values still refuses one


def test_a_plot_that_cannot_be_drawn_is_a_warning_not_a_check(balanced_accuracy, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no room")

    monkeypatch.setattr(space_app, "draw", broken)
    options = space_options.default_options(balanced_accuracy)
    page = space_app.compute_page(balanced_accuracy, options, ("confusion",), "paste", "[0, 1, 1]", "[0, 1, 0]", None,
                                  [option.default_shown() for option in options])
    assert page.ok and page.figure is None and page.warnings == ["No plot: no room"]
    assert json.loads(page.result_json) == balanced_accuracy.compute(predictions=[0, 1, 1], references=[0, 1, 0])
    assert "space-status warning" in space_app.status_html(page)
