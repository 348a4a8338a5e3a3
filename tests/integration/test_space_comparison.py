"""The Spaces of balanced_accuracy and informedness compare two judges (baseline_predictions).

Without a browser, as tests/integration/test_spaces.py: the page's handler, the CSV column, the
plots' values (both judges' per-class recall against scikit-learn, the difference and its
interval against the module's own result) and the API parameter.
"""

import json
import os

import numpy as np
import pytest
from sklearn.metrics import recall_score

from shared.space import app as space_app
from conftest import app_controls, space_helper, REPO_ROOT, load_module, run_app
from shared.tooling.modules import LABEL_MODULES
from shared.tooling.modules import module as registry_entry


def value_key(name):
    """The result key of the module's value (the registry's ``value_key``; a module's name need not be it)."""
    return registry_entry(name).value_key


os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

NAMES = LABEL_MODULES
REFERENCES = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2]
JUDGE_A = [0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 2, 2]
JUDGE_B = [0, 1, 0, 0, 1, 2, 1, 0, 1, 0, 2, 1]


@pytest.fixture(scope="module")
def apps():
    return {name: run_app(name) for name in NAMES}


def page(name, namespace, metric, predictions, references, options, source="paste", csv_path=None):
    space_app = space_helper(namespace)  # the app's own helper: its controls and page functions
    controls = app_controls(namespace, metric)
    (shown,) = space_app.example_rows(controls, [[predictions, references, json.dumps(options)]])
    return space_app.compute_page(metric, controls, namespace["PLOTS"], source, shown[0], shown[1],
                                  csv_path, shown[2:])


@pytest.mark.parametrize("name", NAMES)
def test_the_second_box_adds_the_comparison_and_its_plots(name, apps):
    metric = load_module(name)
    options = {"baseline_predictions": JUDGE_B, "confidence_level": 0.95}
    shown = page(name, apps[name], metric, json.dumps(JUDGE_A), json.dumps(REFERENCES), options)
    assert shown.ok and not any("No plot" in text for text in shown.warnings), (shown.message, shown.warnings)
    expected = metric.compute(predictions=JUDGE_A, references=REFERENCES, **options)
    assert json.loads(shown.result_json) == json.loads(json.dumps(expected))
    assert f"{value_key(name)}_difference_ci" in expected
    titles = [axes.get_title() for axes in shown.figure.axes]
    assert "Recall per class of both judges" in titles
    assert "Recall per class" not in titles  # the first judge's recall is in the comparison's panel
    difference = expected[f"{value_key(name)}_difference"]
    assert f"Difference: {difference:+.4f}, p = {expected[f'{value_key(name)}_difference_p_value']:.3g}" in titles
    # The bars are both judges' recall per class (scikit-learn), the error bar the module's interval.
    (bars,) = [axes for axes in shown.figure.axes if axes.get_title() == "Recall per class of both judges"]
    heights = [patch.get_height() for patch in bars.patches]
    expected_heights = list(recall_score(REFERENCES, JUDGE_A, average=None)) + list(recall_score(REFERENCES, JUDGE_B, average=None))
    np.testing.assert_allclose(heights, expected_heights)
    (panel,) = [axes for axes in shown.figure.axes if axes.get_title().startswith("Difference")]
    low, high = expected[f"{value_key(name)}_difference_ci"]
    (legend,) = [text.get_text() for text in panel.get_legend().get_texts()]
    assert legend == f"interval [{low:.3f}, {high:.3f}]"
    # Empty box: one judge, no comparison panels.
    alone = page(name, apps[name], metric, json.dumps(JUDGE_A), json.dumps(REFERENCES), {})
    assert alone.ok and "difference" not in alone.result_json
    assert not any(axes.get_title().startswith("Difference") for axes in alone.figure.axes)


@pytest.mark.parametrize("name", NAMES)
def test_the_csv_column_baseline_predictions(name, apps, tmp_path):
    metric = load_module(name)
    path = tmp_path / "judges.csv"
    rows = "\n".join(f"{a},{r},{b}" for a, r, b in zip(JUDGE_A, REFERENCES, JUDGE_B))
    path.write_text("predictions,references,baseline_predictions\n" + rows + "\n", encoding="utf-8")
    # A pasted baseline goes with pasted data: the CSV's own column is used.
    shown = page(name, apps[name], metric, "", "", {"baseline_predictions": [0, 1]}, source="csv", csv_path=str(path))
    assert shown.ok, shown.message
    expected = metric.compute(predictions=JUDGE_A, references=REFERENCES, baseline_predictions=JUDGE_B)
    assert json.loads(shown.result_json) == json.loads(json.dumps(expected))
    without = tmp_path / "one.csv"
    without.write_text("predictions,references\n" + "\n".join(f"{a},{r}" for a, r in zip(JUDGE_A, REFERENCES)) + "\n")
    alone = page(name, apps[name], metric, "", "", {"baseline_predictions": JUDGE_B}, source="csv", csv_path=str(without))
    assert alone.ok and json.loads(alone.result_json) == metric.compute(predictions=JUDGE_A, references=REFERENCES)


@pytest.mark.parametrize("name", NAMES)
def test_a_bad_baseline_is_a_message(name, apps):
    metric = load_module(name)
    shown = page(name, apps[name], metric, json.dumps(JUDGE_A), json.dumps(REFERENCES), {"baseline_predictions": [0, 1]})
    assert not shown.ok and "baseline_predictions: expected predictions, references and baseline_predictions of one shape" in shown.message


@pytest.mark.parametrize("name", NAMES)
def test_the_api_has_a_baseline_predictions_parameter(name, apps):
    app, options = apps[name]["app"], app_controls(apps[name], load_module(name))
    parameters = app.get_api_info()["named_endpoints"]["/compute"]["parameters"]
    assert "baseline_predictions" in [parameter["parameter_name"] for parameter in parameters]
    (compute,) = [block_fn for block_fn in app.fns.values() if block_fn.api_name == "compute"]
    values = {option.name: option.default_shown() for option in options}
    values["baseline_predictions"] = json.dumps(JUDGE_B)
    _, result_json, figure, _ = compute.fn("paste", json.dumps(JUDGE_A), json.dumps(REFERENCES), None,
                                        *(values[option.name] for option in options))
    expected = load_module(name).compute(predictions=JUDGE_A, references=REFERENCES, baseline_predictions=JUDGE_B)
    assert json.loads(result_json) == json.loads(json.dumps(expected))


def test_the_cards_worked_example_draws(apps):
    """The card's golden set of 1,000 items (Table 1, most overlap) through the page."""
    import sys

    sys.path.insert(0, str(REPO_ROOT / "examples"))
    import compare_judges

    references, a, b = compare_judges.golden_set_items(overlap="most")
    metric = load_module("balanced_accuracy")
    shown = page("balanced_accuracy", apps["balanced_accuracy"], metric, json.dumps(a.tolist()), json.dumps(references.tolist()),
                 {"baseline_predictions": b.tolist(), "confidence_level": 0.95})
    assert shown.ok, shown.message
    result = json.loads(shown.result_json)
    assert [round(x, 4) for x in result["balanced_accuracy_difference_ci"]] == [0.0160, 0.1050]
