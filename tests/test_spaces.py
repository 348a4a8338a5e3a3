"""Each module's Space app builds on current Gradio and computes what the metric computes."""

import json
import runpy

import pytest

import space_app
from conftest import MODULE_NAMES, REPO_ROOT, load_module


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_app_builds_and_its_examples_compute(name, monkeypatch):
    monkeypatch.chdir(REPO_ROOT / name)
    monkeypatch.syspath_prepend(str(REPO_ROOT / name))
    namespace = runpy.run_path(str(REPO_ROOT / name / "app.py"), run_name="space")
    assert namespace["app"] is not None
    metric = load_module(name)
    for predictions, references, options in namespace["EXAMPLES"]:
        shown = json.loads(space_app.run_metric(metric, predictions, references, options))
        expected = metric.compute(predictions=json.loads(predictions), references=json.loads(references), **json.loads(options))
        assert shown == json.loads(json.dumps(expected))


@pytest.mark.parametrize(
    "predictions, references, options, message",
    [
        ("", "[0, 1]", "", "predictions: please enter some values"),
        ("[0, 1", "[0, 1]", "", "predictions: not valid JSON"),
        ("[0, 1]", "[0, 1]", "{'a': 1}", "options: not valid JSON"),
        ("[0, 1]", "[0, 1]", "[1]", "options: expected a JSON object"),
        ("[0, 1]", "[0, 1, 1]", "", "expected the same shape"),
        ("__import__('os').system('true')", "[0]", "", "expected"),
        ("1\n" * (space_app.MAX_VALUES + 1), "[0]", "", "too many values"),
    ],
)
def test_bad_input_gives_a_message_not_a_traceback(balanced_accuracy, predictions, references, options, message):
    shown = json.loads(space_app.run_metric(balanced_accuracy, predictions, references, options))
    assert message in shown["error"]
