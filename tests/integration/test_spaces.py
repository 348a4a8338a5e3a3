"""Each module's Space app builds on current Gradio and shows what the metric computes.

Without a browser (tests/integration/test_space_browser.py drives the real pages): the apps build,
their controls cover every argument, each example computes through the page's handler to
the direct result with a plot; pasted and CSV input parse as data; bad input of any kind
is a message; the plots' counts agree with the metrics and with scikit-learn.
"""

import json
import os

import numpy as np
import pytest
from sklearn.metrics import roc_curve as sklearn_roc_curve

from shared.space import app as space_app
from shared.space import plots as space_plots
from shared.space import parsing as space_parsing
from shared.space import controls as space_options
from shared.counting.counts import safe_ratio
from conftest import app_controls, space_helper, MODULE_NAMES, REPO_ROOT, load_module, run_app

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # offline: no usage pings from the apps built here


@pytest.fixture(scope="module")
def apps():
    """``{name: namespace of its app.py}``, run as a Space runs it."""
    return {name: run_app(name) for name in MODULE_NAMES}


def page_for(name, namespace, metric, row, source="paste", csv_path=None):
    space_app = space_helper(namespace)  # the app's own helper: its controls and page functions
    options = app_controls(namespace, metric)
    plots = namespace["PLOTS"]  # what its app.py passes to build_app
    (shown,) = space_app.example_rows(options, [row])
    return space_app.compute_page(metric, options, plots, source, shown[0], shown[1], csv_path, shown[2:])


def same_json(result_json, expected):
    return json.loads(result_json) == json.loads(json.dumps(expected))


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_app_builds_and_its_examples_compute_with_a_plot(name, apps):
    namespace = apps[name]
    assert namespace["app"] is not None
    metric = load_module(name)
    assert namespace["EXAMPLES"]
    for predictions, references, options in namespace["EXAMPLES"]:
        expected = metric.compute(predictions=json.loads(predictions), references=json.loads(references), **json.loads(options))
        assert same_json(space_app.run_metric(metric, predictions, references, options), expected)
        page = page_for(name, namespace, metric, [predictions, references, options])
        assert page.ok, page.message
        assert same_json(page.result_json, expected)
        assert page.figure is not None and page.figure.axes, page.message
        assert not any("No plot" in text for text in page.warnings), page.warnings  # a plot that fails is a warning


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_every_argument_of_the_module_has_a_control(name, apps):
    metric = load_module(name)
    controls = [option.name for option in app_controls(apps[name], metric)]
    assert len(controls) == len(set(controls))
    assert set(controls) == set(space_options.module_arguments(metric))
    documented = space_app.describe_arguments(metric.inputs_description)
    assert set(controls) <= set(documented), "every control gets its help text from the module's docs"


def takes(option, value):
    """Whether the module's check of ``option`` takes ``value``."""
    try:
        option.check(value, "zero_division")
    except (ValueError, TypeError):
        return False
    return True


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_the_controls_come_from_the_modules_options_and_inputs(name, apps):
    """The page shows a control per option of the module's OPTIONS and per input of its INPUTS
    (predictions and references have boxes of their own): a checkbox for a flag, a dropdown
    of a choice(...) check's choices starting on the default, a list box for an input."""
    metric = load_module(name)
    helper = space_helper(apps[name])  # the app's own control classes
    controls = {option.name: option for option in app_controls(apps[name], metric)}
    parameters = apps[name]["app"].get_api_info()["named_endpoints"]["/compute"]["parameters"]
    assert [parameter["parameter_name"] for parameter in parameters][3:] == list(controls)  # what the built page shows
    assert set(controls) == (set(metric.OPTIONS) | set(metric.INPUTS)) - {"predictions", "references"}
    for option_name, option in metric.OPTIONS.items():
        control = controls[option_name]
        assert (type(control) is helper.Flag) == isinstance(option.default, bool), option_name
        if isinstance(control, helper.Flag):
            assert control.default == option.default
        choices = getattr(option.check, "choices", None)
        if choices is not None:
            assert type(control) is helper.Choice and set(control.choices.values()) == set(choices), option_name
        if isinstance(control, helper.Choice):
            assert control.choices[control.default_shown()] == option.default, option_name
            for value in control.choices.values():
                option.check(value, option_name)  # every value offered is one the module takes
        if type(control) in (helper.Value, helper.Values):
            assert control.placeholder and not control.placeholder.startswith("default"), \
                f"{option_name}: no placeholder in shared/space/presentation.py"
    for input_name in set(metric.INPUTS) - {"predictions", "references"}:
        # baseline_predictions beside the predictions; judges (issue 32) a JSON object of judges' labels.
        kind = {"baseline_predictions": helper.SecondPredictions, "judges": helper.JudgeLabels,
                "unlabeled_predictions": helper.UnlabeledLabels}.get(input_name, helper.Values)
        assert type(controls[input_name]) is kind and controls[input_name].placeholder, input_name
    # Of the documented values, those the module takes (informedness refuses 1.0: its own test file
    # checks that), and no other.
    offered = [str(value) for value in ("skip", 0.0, 1.0) if takes(metric.OPTIONS["zero_division"], value)]
    assert list(controls["zero_division"].choices) == offered
    assert controls["n_resamples"].maximum == helper.MAX_PAGE_RESAMPLES and controls["confidence_level"].percent


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_the_app_offers_the_cards_examples(name, apps):
    card = space_parsing.card_examples(REPO_ROOT / name)
    assert card, f"{name}/README.md has no literal metric.compute(...) examples"
    offered = [list(row) for row in apps[name]["EXAMPLES"]]
    for row in card:
        assert row in offered


def test_card_examples_read_literals_only(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "README.md").write_text(
        "---\ntitle: T\n---\n"
        ">>> scores = [[0.7, 0.3], [0.2, 0.8]]\n"
        ">>> metric.compute(predictions=scores, references=[0, 1], k=1)\n"
        ">>> metric.compute(references=[0, 1],\n"
        "...                predictions=[1, 1])\n"
        f">>> metric.compute(predictions=__import__('pathlib').Path({str(marker)!r}).touch(), references=[0])\n"
        ">>> metric.compute(predictions=np.array([0, 1]), references=[0, 1])\n"
    )
    assert space_parsing.card_examples(tmp_path) == [
        ["[[0.7, 0.3], [0.2, 0.8]]", "[0, 1]", '{"k": 1}'],
        ["[1, 1]", "[0, 1]", "{}"],
    ]
    assert not marker.exists()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[0, 1, 1]", [0, 1, 1]),
        ("0, 1, 1", [0, 1, 1]),
        ("0\n1\n\n1\n", [0, 1, 1]),
        ("safe; unsafe\tsafe", ["safe", "unsafe", "safe"]),
        ('"safe"\n"unsafe"', ["safe", "unsafe"]),
        ("0.7, 0.3\n0.2, 0.8", [[0.7, 0.3], [0.2, 0.8]]),
        ("[0.7, 0.3]\n[0.2, 0.8]", [[0.7, 0.3], [0.2, 0.8]]),
        ("[[0.7, 0.3],\n [0.2, 0.8]]", [[0.7, 0.3], [0.2, 0.8]]),
        ("__import__('os').system('true')", ["__import__('os').system('true')"]),
    ],
)
def test_pasted_values_parse_as_data(text, expected):
    assert space_app.parse_values(text, "predictions") == expected


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def test_csv_columns_any_order_separator_and_json_rows(tmp_path):
    plain = write(tmp_path / "a.csv", "\ufeffid,References,predictions\n1,0,1\n2,1,1\n\n3,1,0\n")
    assert space_app.read_csv(plain) == {"predictions": [1, 1, 0], "references": [0, 1, 1]}
    rows = write(tmp_path / "b.csv", 'predictions;reference;weight\n"[0.7, 0.3]";0;1\n"[0.2, 0.8]";1;0.5\n')
    assert space_app.read_csv(rows) == {
        "predictions": [[0.7, 0.3], [0.2, 0.8]], "references": [0, 1], "sample_weight": [1, 0.5]
    }
    strings = write(tmp_path / "c.tsv", "predictions\treferences\nsafe\tunsafe\nunsafe\tunsafe\n")
    assert space_app.read_csv(strings) == {"predictions": ["safe", "unsafe"], "references": ["unsafe", "unsafe"]}


@pytest.mark.parametrize(
    "content, message",
    [
        ("pred,ref\n0,1\n", "expected a header row naming the columns 'predictions' and 'references'"),
        ("predictions,references\n", "no rows"),
        ("predictions,references\n0,\n", "CSV line 2: the references cell is empty"),
        ("predictions,references\n0\n", "CSV line 2: expected a references cell"),
        ('predictions,references\n"[0.7, 0.3",1\n', "CSV line 2, predictions: not valid JSON"),
        ("predictions,references\n" + "0,1\n" * (space_app.MAX_VALUES + 1), "too many rows"),
    ],
)
def test_bad_csv_gives_a_message(tmp_path, content, message):
    with pytest.raises(space_app.InputError, match=message.replace("(", r"\(").replace("[", r"\[")):
        space_app.read_csv(write(tmp_path / "bad.csv", content))


def test_csv_size_and_encoding_limits(tmp_path):
    big = write(tmp_path / "big.csv", "predictions,references\n" + "0,1\n" * (space_app.MAX_UPLOAD_BYTES // 4 + 1))
    with pytest.raises(space_app.InputError, match="file too large"):
        space_app.read_csv(big)
    latin = write(tmp_path / "latin.csv", "predictions,references\nsûr,sûr\n", encoding="latin-1")
    with pytest.raises(space_app.InputError, match="not UTF-8"):
        space_app.read_csv(latin)


def test_the_csv_path_computes_like_a_direct_call(balanced_accuracy, apps, tmp_path):
    path = write(tmp_path / "judge.csv", "predictions,references,sample_weight\n0.2,0,1\n0.9,1,2\n0.1,1,1\n0.3,0,0.5\n")
    page = page_for("balanced_accuracy", apps["balanced_accuracy"], balanced_accuracy, ["", "", '{"threshold": "auto"}'],
                    source="csv", csv_path=str(path))
    assert page.ok, page.message
    assert "4 rows of judge.csv" in page.message
    expected = balanced_accuracy.compute(predictions=[0.2, 0.9, 0.1, 0.3], references=[0, 1, 1, 0],
                                         sample_weight=[1, 2, 1, 0.5], threshold="auto")
    assert same_json(page.result_json, expected)
    assert len(page.figure.axes) >= 3  # heatmap (+ colour bar), recall bars, ROC
    twice = page_for("balanced_accuracy", apps["balanced_accuracy"], balanced_accuracy,
                     ["", "", '{"sample_weight": [1, 1, 1, 1]}'], source="csv", csv_path=str(path))
    assert not twice.ok and "sample_weight: given both in the CSV and in the option box" in twice.message
    missing = page_for("balanced_accuracy", apps["balanced_accuracy"], balanced_accuracy, ["", "", "{}"], source="csv")
    assert not missing.ok and "please upload a file" in missing.message


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
        ("[" * 100_000 + "]" * 100_000, "[0]", "", "predictions: the JSON is nested too deeply"),
        ("x" * (space_parsing.MAX_INPUT_CHARS + 1), "[0]", "", "predictions: input too large"),
        ('{"a": 1}', "[0]", "", "predictions: expected a list of values, found dict"),
        ("[NaN, 1]", "[0, 1]", "", "predictions: expected"),
        ('[{"a": 1}]', "[0]", "", "predictions: expected numbers or strings"),
        ("[0, 1]", "[0, 1]", '{"task": "trinary"}', "task: expected one of"),
        ("[0, 1]", "[0, 1]", '{"no_such_option": 1}', "no_such_option"),
    ],
)
def test_bad_input_gives_a_message_not_a_traceback(balanced_accuracy, predictions, references, options, message):
    shown = json.loads(space_app.run_metric(balanced_accuracy, predictions, references, options))
    assert message in shown["error"]


@pytest.mark.parametrize(
    "option, raw, message",
    [
        (space_options.Value("threshold"), '["auto"', "threshold: not valid JSON"),
        (space_options.Value("threshold"), '{"a": 1}', "found a JSON object"),
        (space_options.Value("n_resamples", maximum=100_000), "1000000000", "n_resamples: at most 100,000"),
        (space_options.Value("pos_label"), "x" * (space_parsing.MAX_OPTION_CHARS + 1), "input too large"),
        (space_options.Values("labels"), "[1, 2", "labels: not valid JSON"),
        (space_options.Choice("task", choices={"infer": None, "binary": "binary"}), "trinary", "task: expected one of"),
    ],
)
def test_bad_option_values_give_a_message(option, raw, message):
    with pytest.raises(space_app.InputError, match=message.replace("[", r"\[")):
        option.parse(raw)


def test_controls_round_trip_every_kind_of_value():
    options = [
        space_options.Choice("task", choices={"infer": None, "binary": "binary"}),
        space_options.Choice("zero_division", choices={"skip": "skip", "0.0": 0.0, "1.0": 1.0}),
        space_options.Value("threshold"),
        space_options.Value("pos_label"),
        space_options.Values("labels"),
        space_app.Flag("adjusted"),
    ]
    given = {"task": "binary", "zero_division": 1, "threshold": "auto", "pos_label": "1", "labels": ["0", "1"], "adjusted": True}
    (row,) = space_app.example_rows(options, [["[0]", "[0]", json.dumps(given)]])
    assert row[2:] == ["binary", "1.0", "auto", '"1"', '["0", "1"]', True]
    assert space_app.parse_option_values(options, row[2:]) == given
    defaults = [option.default_shown() for option in options]
    assert space_app.parse_option_values(options, defaults) == {}
    assert space_options.Value("threshold").parse("0.5") == 0.5 and space_options.Value("ignore_index").parse("-100") == -100
    with pytest.raises(ValueError, match="options .'nope'. have no control"):
        space_app.example_rows(options, [["[0]", "[0]", '{"nope": 1}']])


def test_an_unexpected_error_is_a_message_and_the_next_request_works(balanced_accuracy):
    class Broken:
        def compute(self, **kwargs):
            raise RuntimeError("disk full")

    options = [space_app.Flag("return_per_class")]
    page = space_app.compute_page(Broken(), options, (), "paste", "[0, 1]", "[0, 1]", None, [False])
    assert not page.ok and page.message == "could not compute (RuntimeError: disk full)"
    assert "Traceback" not in space_app.status_html(page)
    page = space_app.compute_page(balanced_accuracy, options, ("confusion",), "paste", "[0, 1]", "[0, 1]", None, [True])
    assert page.ok and json.loads(page.result_json)["balanced_accuracy"] == 1.0


def test_status_escapes_what_the_user_typed(balanced_accuracy):
    options = [space_options.Values("labels")]
    page = space_app.compute_page(balanced_accuracy, options, (), "paste", '["<img src=x onerror=alert(1)>"]', '["a"]',
                                  None, ['["a"]'])
    assert not page.ok
    shown = space_app.status_html(page)
    assert "<img" not in shown and "&lt;img" in shown


def test_status_shows_quotes_as_quotes(balanced_accuracy):
    """Was (issue 26): the status line echoed &#x27;safe&#x27; (API clients read this HTML as it is)."""
    options = [space_options.Values("labels")]
    page = space_app.compute_page(balanced_accuracy, options, (), "paste", '["safe", "x"]', '["a", "a"]', None, ['["a"]'])
    shown = space_app.status_html(page)
    assert "&#x27;" not in shown and "&quot;" not in shown
    assert "found unknown value(s) ['safe', 'x']" in shown
    page = space_app.compute_page(balanced_accuracy, options, (), "paste", '["<b>&\'"]', '["a"]', None, ['["a"]'])
    assert "&lt;b&gt;&amp;'" in space_app.status_html(page)  # markup is still escaped, quotes stay


@pytest.mark.parametrize("typed, expected", [("95%", 0.95), (" 90 % ", 0.9), ("0.95", 0.95), ("99.9%", 0.999)])
def test_a_confidence_level_may_be_typed_as_a_percentage(balanced_accuracy, apps, typed, expected):
    """Was (issue 26): "95%" was reported as "confidence_level: ... found str"."""
    options = app_controls(apps["balanced_accuracy"], balanced_accuracy)
    (level,) = [option for option in options if option.name == "confidence_level"]
    assert level.parse(typed) == pytest.approx(expected, abs=1e-15)
    values = [option.default_shown() for option in options]
    values[options.index(level)] = typed
    helper = space_helper(apps["balanced_accuracy"])  # the app's own controls and page functions
    page = helper.compute_page(balanced_accuracy, options, (), "paste", "[0, 1, 1, 0, 1]", "[0, 1, 0, 0, 1]", None, values)
    assert page.ok, page.message
    direct = balanced_accuracy.compute(predictions=[0, 1, 1, 0, 1], references=[0, 1, 0, 0, 1], confidence_level=expected)
    assert same_json(page.result_json, direct)


def test_a_percentage_that_is_not_a_number_says_what_is_expected(balanced_accuracy):
    with pytest.raises(space_app.InputError, match=r"^confidence_level: expected a number such as 0\.95 or 95%, found 'high%'"):
        space_options.Value("confidence_level", percent=True).parse("high%")
    # Without the Space's parsing (an API call to the module itself), the message names the string.
    with pytest.raises(TypeError, match=r"^confidence_level: expected a number in \(0, 1\) such as 0\.95, found the string '95%'"):
        balanced_accuracy.compute(predictions=[0, 1], references=[0, 1], confidence_level="95%")


def legend_overlaps(figure):
    """(panel title, what) for each text or bar that a panel's legend covers."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    covered = []
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent(renderer)
        covered += [(axes.get_title(), text.get_text()) for text in axes.texts
                    if text.get_text() and box.overlaps(text.get_window_extent(renderer))]
        covered += [(axes.get_title(), "a bar") for patch in axes.patches
                    if patch.get_height() and box.overlaps(patch.get_window_extent(renderer))]
    return covered


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_no_legend_covers_a_bar_or_its_label(name, apps):
    """Was (issue 26): the legend (lower right) covered a bar label."""
    namespace = apps[name]
    metric = load_module(name)
    for row in namespace["EXAMPLES"]:
        page = page_for(name, namespace, metric, row)
        assert page.figure is not None
        assert legend_overlaps(page.figure) == [], row
    # A corrected prevalence near 1 (its label at the top of the panel) and recalls of 1.
    informedness = load_module("informedness")
    result = informedness.compute(references=[0] * 10 + [1] * 10, predictions=[0] * 10 + [1] * 10,
                                  unlabeled_predictions=[1] * 19 + [0], confidence_level=0.95, seed=0)
    figure = space_app.draw(("informedness", "prevalence"), informedness, [0] * 10 + [1] * 10, [0] * 10 + [1] * 10,
                            {"unlabeled_predictions": [1] * 19 + [0]}, result)
    assert legend_overlaps(figure) == []


# ----------------------------------------------------------------------------------------
# The plots' numbers
# ----------------------------------------------------------------------------------------


def generated_cases(seed=0, count=25):
    rng = np.random.default_rng(seed)
    for case in range(count):
        n = int(rng.integers(20, 200))
        k = int(rng.integers(2, 6))
        references = rng.integers(0, k, n)
        predictions = np.where(rng.random(n) < 0.6, references, rng.integers(0, k, n))
        arguments = {}
        if case % 2:
            arguments["sample_weight"] = rng.random(n).round(3).tolist()
        if case % 3 == 0:
            references[rng.random(n) < 0.1] = -100
            arguments["ignore_index"] = -100
        if case % 5 == 1:
            names = np.array(["ant", "bee", "cat", "dog", "eel"])
            references = np.where(references == -100, "pad", names[np.clip(references, 0, 4)])
            predictions = names[predictions]
            arguments["labels"] = names[:k].tolist()
            if "ignore_index" in arguments:
                arguments["ignore_index"] = "pad"
        yield predictions.tolist(), references.tolist(), arguments


def test_confusion_counts_agree_with_balanced_accuracy(balanced_accuracy):
    for predictions, references, arguments in generated_cases():
        result = balanced_accuracy.compute(predictions=predictions, references=references, return_per_class=True, **arguments)
        found = space_app.confusion(balanced_accuracy, predictions, references, arguments, result)
        assert found.classes == result["classes"]
        recall = safe_ratio(np.diagonal(found.matrix), found.matrix.sum(axis=1))
        np.testing.assert_allclose(recall, result["per_class_recall"])
        np.testing.assert_allclose(found.matrix.sum(axis=1), result["support_per_class"])
        np.testing.assert_allclose(space_app.per_class_rates(found)["recall"], result["per_class_recall"])


def test_informedness_bars_agree_with_the_module():
    if "informedness" not in MODULE_NAMES:
        pytest.fail("the informedness module folder is missing")
    informedness = load_module("informedness")
    for predictions, references, arguments in generated_cases(seed=1):
        result = informedness.compute(predictions=predictions, references=references, return_per_class=True, **arguments)
        found = space_app.confusion(informedness, predictions, references, arguments, result)
        assert found.classes == result["classes"]
        np.testing.assert_allclose(space_app.per_class_rates(found)["informedness"], result["per_class_informedness"])


def test_roc_curve_matches_scikit_learn_and_the_youden_point_is_its_best(balanced_accuracy):
    rng = np.random.default_rng(2)
    for case in range(30):
        n = int(rng.integers(10, 300))
        references = rng.integers(0, 2, n)
        scores = np.round(references * 0.8 + rng.normal(0, 0.7, n), 1)  # rounded: many ties
        weights = rng.random(n) if case % 2 else None
        thresholds, fpr, tpr = space_plots.roc_curve(scores, references, weights)
        expected_fpr, expected_tpr, expected_thresholds = sklearn_roc_curve(
            references, scores, sample_weight=weights, drop_intermediate=False
        )
        np.testing.assert_allclose(fpr, expected_fpr)
        np.testing.assert_allclose(tpr, expected_tpr)
        np.testing.assert_allclose(thresholds[1:], expected_thresholds[1:])

        arguments = {"threshold": "auto"} if weights is None else {"threshold": "auto", "sample_weight": weights.tolist()}
        result = balanced_accuracy.compute(predictions=scores.tolist(), references=references.tolist(), **arguments)
        found = space_app.confusion(balanced_accuracy, scores.tolist(), references.tolist(), arguments, result)
        assert found.threshold == result["optimal_threshold"]
        point_tpr = found.matrix[1, 1] / found.matrix[1].sum()
        point_fpr = found.matrix[0, 1] / found.matrix[0].sum()
        assert (found.recall[1], found.fall_out[1]) == pytest.approx((point_tpr, point_fpr))  # the ROC panel's point
        assert point_tpr - point_fpr == pytest.approx(np.max(tpr - fpr))
        assert point_tpr - point_fpr == pytest.approx(2 * result["balanced_accuracy"] - 1)


def test_recall_at_k_curve_rises_to_one():
    if "balanced_topk_accuracy" not in MODULE_NAMES:
        pytest.fail("the balanced_topk_accuracy module folder is missing")
    metric = load_module("balanced_topk_accuracy")
    rng = np.random.default_rng(3)
    for width in (3, 7, 50):
        scores = rng.normal(size=(120, width)).tolist()
        references = rng.integers(0, width, 120).tolist()
        k_values, balanced, _, chosen = space_plots._topk_curve(metric, scores, references, {"k_list": [2]})
        assert k_values[0] == 1 and k_values[-1] == width and 2 in k_values and chosen == [2]
        assert len(k_values) <= space_plots.MAX_TOPK_POINTS + 1
        curve = [balanced[k] for k in k_values]
        assert all(low <= high + 1e-12 for low, high in zip(curve, curve[1:]))
        assert curve[-1] == 1.0
        assert balanced[2] == metric.compute(predictions=scores, references=references, k=2)["balanced_topk_accuracy"]


def test_large_inputs_draw_summaries_not_unreadable_plots(balanced_accuracy):
    rng = np.random.default_rng(4)
    references = rng.integers(0, 300, 5_000)
    predictions = np.where(rng.random(5_000) < 0.5, references, rng.integers(0, 300, 5_000))
    options = [space_app.Flag("return_per_class")]
    page = space_app.compute_page(balanced_accuracy, options, ("confusion", "recall"), "paste",
                                  json.dumps(predictions.tolist()), json.dumps(references.tolist()), None, [False])
    assert page.ok, page.message
    heatmap, bars = page.figure.axes[:2]
    assert "too many" in heatmap.texts[0].get_text()
    assert "300 classes" in bars.get_title()


def test_empty_input_computes_without_a_plot(balanced_accuracy):
    options = [space_app.Flag("return_per_class")]
    page = space_app.compute_page(balanced_accuracy, options, ("confusion", "recall"), "paste", "[]", "[]", None, [False])
    expected = balanced_accuracy.compute(predictions=[], references=[])
    assert page.ok and same_json(page.result_json, expected) and page.figure is None


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_api_parameters_are_named_after_the_modules_arguments(name, apps):
    """gradio_client's view_api() shows the Compute endpoint's parameters by these names (not param_4, ...).

    Built offline: the names and defaults are the app's API info, as a Space serves it at
    /gradio_api/info; the call goes through the event's function as gradio makes it.
    """
    metric = load_module(name)
    app, options = apps[name]["app"], app_controls(apps[name], metric)
    api = app.get_api_info()
    assert list(api["named_endpoints"]) == ["/compute"] and not api["unnamed_endpoints"]  # page-only events are private
    parameters = api["named_endpoints"]["/compute"]["parameters"]
    names = [parameter["parameter_name"] for parameter in parameters]
    assert names == ["predictions", "references", "csv_file", *(option.name for option in options)]
    assert set(names[3:]) == set(space_options.module_arguments(metric))
    defaults = {parameter["parameter_name"]: parameter["parameter_default"] for parameter in parameters}
    # An option a client leaves out is sent as the control's initial value: the module's default.
    assert [defaults[option.name] for option in options] == [option.default_shown() for option in options]
    assert all(parameter["parameter_has_default"] for parameter in parameters)

    (compute,) = [block_fn for block_fn in app.fns.values() if block_fn.api_name == "compute"]
    status, result_json, _, _ = compute.fn("paste", *(defaults[parameter] for parameter in names))
    expected = metric.compute(predictions=json.loads(defaults["predictions"]), references=json.loads(defaults["references"]))
    assert same_json(result_json, expected), status


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_api_outputs_are_named(name, apps):
    """Was (issue 26): gradio_client's view_api() showed the status output as value_44."""
    returns = apps[name]["app"].get_api_info()["named_endpoints"]["/compute"]["returns"]
    assert [(output["label"], output["component"]) for output in returns] == [("status", "Html"), ("result", "Code"),
                                                                             ("plots", "Plot"), ("ranking", "Dataframe")]


def test_api_client_sends_a_csv_with_empty_pasted_values(apps, tmp_path):
    """The README: an API client cannot switch the page's tab, so an upload with nothing pasted is read."""
    app, options = apps["balanced_accuracy"]["app"], app_controls(apps["balanced_accuracy"], load_module("balanced_accuracy"))
    (compute,) = [block_fn for block_fn in app.fns.values() if block_fn.api_name == "compute"]
    csv_path = write(tmp_path / "data.csv", "predictions,references\n0,0\n1,1\n0,1\n0,0\n")
    defaults = [option.default_shown() for option in options]
    status, result_json, _, _ = compute.fn("paste", "", "", str(csv_path), *defaults)
    assert json.loads(result_json) == {"balanced_accuracy": 0.75} and "4 rows of data.csv" in status
    _, pasted_json, _, _ = compute.fn("paste", "[1, 1]", "[0, 1]", str(csv_path), *defaults)  # pasted values win
    assert json.loads(pasted_json) == {"balanced_accuracy": 0.5}


def test_api_signature_refuses_an_option_named_like_an_input():
    with pytest.raises(ValueError, match="references"):
        space_app.api_signature([space_app.Flag("references")])
