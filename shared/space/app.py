"""The Gradio app shared by every module's Space.

It works on current Gradio (>= 4), unlike ``evaluate.utils.launch_gradio_widget``, which
uses the removed ``gr.inputs``. One builder serves all modules:

* inputs: predictions and references pasted (a JSON list, comma-separated values, or one
  value / one row per line) or a CSV file with ``predictions`` and ``references`` columns
  (optionally ``sample_weight``, and ``baseline_predictions`` where the module compares two
  systems); every option of the module as a control (``Flag``, ``Choice``, ``Value``,
  ``Values``; ``SecondPredictions``: a second predictions box beside the first), described
  by the module's own argument docs;
* outputs: a status line (✓ computed, ⚠ computed with the warnings it gave listed, ✗ not
  computed and why), the result as JSON, a plot of the counts behind it (confusion heatmap,
  per-class recall, ROC curve with the chosen threshold, per-label bars, recall@k
  against k; with a baseline, both judges' recall per class and the difference with its
  interval; two panels to a row), and the metric card one click away. With ``judges``
  (a JSON object, or a CSV of ``references`` and one column per judge): the ranking as a
  table, its forest plot and, with ``return_judge_p_values``, the p-value matrix; intervals
  at 0.95 unless a level is typed.

The page fits a laptop screen (about 2.5 screens at 1280 x 800 on first load): the options
are in a collapsed panel, one tab per group (``presentation.GROUPS``), each with a one-line
help; the examples table shows the values typed and the options an example sets (one
column), not a column per control; the card is in a collapsed panel at the bottom.

Input is parsed as data only (JSON, numbers, strings), never evaluated as code. Oversized
or malformed input and every error of the metric come back as a readable message in the
page, not a traceback, and the app keeps serving the next request.

This file computes a request and builds the page; its parts live beside it:
``space_parsing.py`` (pasted values, CSV, the card's examples), ``space_options.py`` (the
controls), ``space_plots.py`` (the counts' plots) and ``space_judges.py`` (two judges
compared, corrected prevalence). The names a Space's ``app.py`` uses (``build_app``, the
controls, ``card_examples``) and those the tests use are importable from here.
"""

import html
import inspect
import itertools
import json
import threading
import warnings
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple


# Some names are imported only to be importable from here (app.py and the tests use them).
from .judges import comparison_keys
from .judges import comparison_panels
from .judges import draw_judge_p_values
from .judges import draw_judge_ranking
from .judges import draw_prevalence
from .judges import prevalence_summary
from .judges import ranking_summary
from .judges import ranking_table
from .judges import undefined_judges
from .controls import Flag
from .controls import Control
from .controls import SecondPredictions
from .controls import default_options
from .controls import shorten
from .controls import short_help
from .controls import describe_arguments
from .controls import parse_option_values
from .presentation import GROUPS
from .parsing import BASELINE
from .parsing import JUDGES
from .parsing import MAX_UPLOAD_BYTES
from .parsing import MAX_VALUES
from .parsing import SAMPLE_COLUMNS
from .parsing import InputError
from .parsing import add_judge_columns
from .parsing import optional_csv_columns
from .parsing import parse_options
from .parsing import parse_values
from .parsing import read_csv
from .parsing import read_judges_csv
from .parsing import judges_csv_note
from .parsing import split_card
from .parsing import unlabeled_csv_note
from .plots import draw_heatmap
from .plots import draw_per_label
from .plots import draw_roc
from .plots import draw_topk
from .plots import draw_bars
from .plots import class_names
from .plots import per_class_rates
from .plots import confusion


# ----------------------------------------------------------------------------------------
# Computing
# ----------------------------------------------------------------------------------------


def run_metric(metric, predictions_text: str, references_text: str, options_text: str) -> str:
    """Compute and return the result as JSON text; errors come back as ``{"error": message}``."""
    try:
        predictions = parse_values(predictions_text, "predictions")
        references = parse_values(references_text, "references")
        options = parse_options(options_text)
        result = metric.compute(predictions=predictions, references=references, **options)
    except (InputError, ValueError, TypeError) as error:
        return json.dumps({"error": str(error)}, indent=2)
    return json.dumps(result, indent=2)


@dataclass
class Page:
    """What one request shows: a status line, the result JSON, the figure (or None), the
    warnings the computation gave (shown in the status line, never only in the server's log)
    and, with judges, the ranking as a table (``judges.ranking_table``: headers, rows)."""

    ok: bool
    message: str
    result_json: str
    figure: Any = None
    warnings: List[str] = field(default_factory=list)
    ranking: Optional[Tuple[List[str], List[List[str]]]] = None


# With judges and no confidence_level the page asks for intervals at this level: a ranking's
# forest plot without intervals was dots only. Typing a level in the Intervals tab changes it.
JUDGES_CONFIDENCE_LEVEL = 0.95

# warnings.catch_warnings swaps process-wide state: two requests capturing at once (the
# Compute event runs two at a time) would take each other's warnings. One capture at a time.
_CAPTURE = threading.Lock()


def computed_with_warnings(compute, *args, **kwargs) -> Tuple[Any, List[str]]:
    """``compute(*args, **kwargs)`` and the texts of the ``UserWarning``s it gave, in order,
    each once. Other warnings (a library's deprecation notices) go to the log as before."""
    with _CAPTURE:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = compute(*args, **kwargs)
    shown = []
    for warning in caught:
        if issubclass(warning.category, UserWarning):
            shown.append(str(warning.message))
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return value, list(dict.fromkeys(shown))


def compute_page(metric, options: Sequence[Control], plots: Sequence[str], source: str,
                 predictions_text: str, references_text: str, csv_path: Optional[str], option_values: Sequence[Any]) -> Page:
    """Parse the page's inputs, compute, draw; every failure becomes a message."""
    try:
        if source == "csv":
            if not csv_path:
                raise InputError("CSV: please upload a file with the columns predictions and references.")
            judged = read_judges_csv(csv_path)  # references and one column per judge
            columns = read_csv(csv_path) if judged is None else judged
            predictions, references = columns.get("predictions"), columns["references"]
            origin = f"{len(references):,} rows of {Path(csv_path).name}"
        else:
            arguments = parse_option_values(options, option_values)
            ranked = JUDGES in arguments and not (predictions_text or "").strip()  # judges alone: no predictions
            predictions = None if ranked else parse_values(predictions_text, "predictions")
            references = parse_values(references_text, "references")
            columns, origin = {}, f"{len(references):,} pasted samples"
        arguments = parse_option_values(options, option_values)
        for name in SAMPLE_COLUMNS:  # per-sample columns of a CSV, or their option boxes
            if name in columns:
                if name in arguments:
                    raise InputError(f"{name}: given both in the CSV and in the option box; keep one.")
                arguments[name] = columns[name]
        if source == "csv" and JUDGES in columns:
            if JUDGES in arguments:
                raise InputError("judges: given both as the CSV's columns and in the judges box; keep one.")
            arguments[JUDGES] = columns.pop(JUDGES)
        if source == "csv":
            # The second predictions box goes with pasted data; a CSV has its own column.
            arguments.pop(BASELINE, None)
            if BASELINE in columns:
                arguments[BASELINE] = columns[BASELINE]
        add_judge_columns(metric, columns, arguments)
        if JUDGES in arguments and "confidence_level" in metric.OPTIONS and "confidence_level" not in arguments:
            arguments["confidence_level"] = JUDGES_CONFIDENCE_LEVEL  # a ranking with its intervals
        result, found = computed_with_warnings(metric.compute, predictions=predictions, references=references, **arguments)
    except (ValueError, TypeError) as error:  # InputError and the metric's documented errors
        return Page(False, str(error), json.dumps({"error": str(error)}, indent=2))
    except Exception as error:  # noqa: BLE001 - a page shows a message, never a traceback
        message = f"could not compute ({type(error).__name__}: {error})"
        return Page(False, message, json.dumps({"error": message}, indent=2))
    shown = ", ".join(f"{name}={_short_repr(name, value)}" for name, value in arguments.items())
    message = (f"Computed on {origin}" + (f" with {shown}." if shown else ".") + ranking_summary(result)
               + prevalence_summary(result, arguments))
    figure = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the plots compute again: the same warnings, shown once above
            if plots and "judge_ranking" in result:  # several judges: their forest plot instead of one system's plots
                figure = draw_ranking(result)
            elif plots:
                figure = draw(plots, metric, predictions, references, arguments, result)
    except Exception as error:  # noqa: BLE001 - the result stands even if a plot cannot be drawn
        found.append(f"No plot: {error}")
    table = ranking_table(result, arguments.get("confidence_level"), found)  # its notes: the module's warnings
    found += [line for line in undefined_judges(result) if line not in found]
    return Page(True, message, json.dumps(result, indent=2), figure, found, table)


def _short_repr(name: str, value: Any) -> str:
    """An argument's value in the status line; judges by their names (their labels are in the input)."""
    if name == JUDGES and isinstance(value, dict):
        names = ", ".join(map(str, value))
        return f"{len(value)} judges ({names if len(names) <= 60 else names[:59] + '…'})"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"




PANELS_PER_ROW = 2

PLOTS = ("confusion", "recall", "informedness", "roc", "per_label", "topk", "comparison", "prevalence")


def draw_ranking(result: Dict[str, Any]):
    """The forest plot of a ``judge_ranking`` (one row per judge) and, with ``judge_p_values``, their
    matrix under it, with its colour bar: one above the other, each as wide as the plots' column
    (side by side they were drawn at 60% and the titles ran off the figure at 1280 px)."""
    from matplotlib.figure import Figure  # no pyplot: no global state shared between requests

    matrix = "judge_p_values" in result
    size = len(result["judge_ranking"])
    forest = max(2.6, 1.3 + 0.4 * size)
    square = min(7.0, max(3.4, 1.9 + 0.35 * size)) if matrix else 0.0
    figure = Figure(figsize=(7.2, forest + square), layout="constrained")
    if matrix:
        top, bottom = figure.subplots(2, 1, height_ratios=[forest, square])
        draw_judge_ranking(top, result)
        draw_judge_p_values(bottom, result)
    else:
        draw_judge_ranking(figure.add_subplot(1, 1, 1), result)
    return figure


def draw(plots: Sequence[str], metric, predictions, references, arguments: Dict[str, Any], result: Dict[str, Any]):
    """One figure with a panel per applicable plot; None if none applies."""
    from matplotlib.figure import Figure  # no pyplot: no global state shared between requests

    panels = []
    found = None
    if {"confusion", "recall", "informedness", "roc"} & set(plots):
        found = confusion(metric, predictions, references, arguments, result)
        if not found.classes:
            return None  # nothing was counted (no samples, or all ignored)
    for plot in plots:
        if plot == "confusion":
            panels.append(lambda axes: draw_heatmap(axes, found))
        elif plot == "recall" and "comparison" in plots and comparison_keys(result) and arguments.get(BASELINE) is not None:
            continue  # the comparison's panel shows this recall beside the baseline's
        elif plot in ("recall", "informedness"):
            rates = per_class_rates(found)
            series = {"recall": rates["recall"]} if plot == "recall" else rates
            ylabel = "recall" if plot == "recall" else "rate"
            title = "Recall per class" if plot == "recall" else "Recall and informedness (TPR − FPR) per class"
            panels.append(lambda axes, s=series, t=title, y=ylabel: draw_bars(axes, class_names(found.classes), s, t, y))
        elif plot == "roc":
            if found.scores is not None:
                panels.append(lambda axes: draw_roc(axes, found))
        elif plot == "per_label":
            panels.append(lambda axes: draw_per_label(axes, metric, predictions, references, arguments))
        elif plot == "topk":
            panels.append(lambda axes: draw_topk(axes, metric, predictions, references, arguments))
        elif plot == "comparison":
            panels.extend(comparison_panels(metric, predictions, references, arguments, result))
        elif plot == "prevalence":
            if "corrected_prevalence" in result:
                panels.append(lambda axes: draw_prevalence(axes, result, found.classes if found else [], arguments))
        else:
            raise ValueError(f"plots: expected names among {PLOTS}, found {plot!r}.")
    if not panels:
        return None
    # Two panels to a row: four side by side were too small to read beside the result.
    columns = min(PANELS_PER_ROW, len(panels))
    rows = -(-len(panels) // columns)
    figure = Figure(figsize=(4.8 * columns, 4.2 * rows), layout="constrained")
    for index, panel in enumerate(panels):
        panel(figure.add_subplot(rows, columns, index + 1))
    return figure




# ----------------------------------------------------------------------------------------
# The page
# ----------------------------------------------------------------------------------------

_run_ids = itertools.count(1)

CSS = """
.space-status { padding: 0.6em 0.9em; border-radius: 6px; font-size: 0.95em; }
.space-status.ok { background: #ecfdf3; color: #05603a; border: 1px solid #abefc6; }
.space-status.warning { background: #fffaeb; color: #93370d; border: 1px solid #fedf89; }
.space-status.error { background: #fef3f2; color: #b42318; border: 1px solid #fecdca; }
.space-status ul { margin: 0.3em 0 0 1.2em; padding: 0; }
"""

# The examples table (predictions, references, options) is fixed to the page's width: long
# values wrap anywhere, in a smaller font; headers are whole words. No spacing between cells
# (a line drawn inside each instead), so that a click anywhere on a row lands on the row.
# Page-wide rules cannot go in a component's css_template (scoped to it), and Gradio 6 takes
# page CSS only at launch(), which a Space calls without arguments: so a <style> element.
PAGE_CSS = """
#examples table { table-layout: fixed; width: 100%; font-size: 0.85em; border-spacing: 0; }
#examples th, #examples td { white-space: normal; padding: 0.35em;
  box-shadow: inset -1px 0 0 var(--border-color-primary, #e5e7eb); }
#examples td { overflow-wrap: anywhere; word-break: break-word; }
#examples th { overflow-wrap: normal; word-break: keep-all; }
"""


def status_html(page: Optional[Page]) -> str:
    """The status line. ``data-run`` changes with every request (tests wait on it).

    Three kinds: ``ok`` (a green ✓: computed, no warning), ``warning`` (⚠: computed, and
    each warning the computation gave listed first) and ``error`` (✗: not computed, and why;
    a refusal is never shown with a ✓).

    The message is escaped as element text: ``<``, ``>`` and ``&`` become entities, quotes
    stay quotes (they need no escaping outside attributes), so that an API client reading
    this HTML sees ``'safe'``, not ``&#x27;safe&#x27;``.

    >>> print(status_html(Page(True, "Computed on 4 pasted samples.", "{}", warnings=["judges['s']: a <warning>"])))
    <div class="space-status warning" data-run="..." role="status">⚠ Computed, with 1 warning:<ul><li>judges['s']: a &lt;warning&gt;</li></ul>Computed on 4 pasted samples.</div>
    """
    if page is None:
        return '<div class="space-status" data-run="0"></div>'
    opening = '<div class="space-status {kind}" data-run=' + f'"{next(_run_ids)}" role="status">'
    if not page.ok:
        return opening.format(kind="error") + f"✗ Not computed: {html.escape(page.message, quote=False)}</div>"
    if not page.warnings:
        return opening.format(kind="ok") + f"✓ {html.escape(page.message, quote=False)}</div>"
    count = len(page.warnings)
    listed = "".join(f"<li>{html.escape(text, quote=False)}</li>" for text in page.warnings)
    return (opening.format(kind="warning") + f"⚠ Computed, with {count} warning{'s' if count > 1 else ''}:"
            f"<ul>{listed}</ul>{html.escape(page.message, quote=False)}</div>")


def example_table(examples: Sequence[Sequence[str]]) -> List[List[str]]:
    """The examples table's rows: predictions, references and the options an example sets
    (compact JSON; empty when it keeps every default). A click fills in every control
    (``example_rows``), so the table needs no column per control.

    >>> example_table([["[0, 1]", "[1, 1]", "{}"], ["[0]", "[0]", '{"confidence_level": 0.95}']])
    [['[0, 1]', '[1, 1]', ''], ['[0]', '[0]', '{"confidence_level": 0.95}']]
    """
    rows = []
    for predictions, references, options_text in examples:
        given = parse_options(options_text)
        rows.append([predictions, references, json.dumps(given) if given else ""])
    return rows


def example_rows(options: Sequence[Control], examples: Sequence[Sequence[str]]) -> List[list]:
    """Rows of (predictions, references, options JSON) as values of the page's controls."""
    by_name = {option.name: option for option in options}
    rows = []
    for predictions, references, options_text in examples:
        given = parse_options(options_text)
        unknown = set(given) - set(by_name)
        if unknown:
            raise ValueError(f"examples: options {sorted(unknown)} have no control; the controls are {sorted(by_name)}.")
        rows.append([predictions, references] + [
            option.shown(given[option.name]) if option.name in given else option.default_shown() for option in options
        ])
    return rows


API_INPUTS = ("source", "predictions", "references", "csv_file")  # before the options, in this order


def api_signature(options: Sequence[Control]) -> inspect.Signature:
    """The signature the Compute event shows to API clients: one named parameter per input.

    ``source`` is the page's state (which tab was used; not an API parameter), then the
    pasted ``predictions`` and ``references``, the ``csv_file`` and one parameter per
    option, named after the module's argument. From ``csv_file`` on every parameter has a
    default, so ``gradio_client`` users can leave out the file and any option: the client
    then sends the control's initial value, which is the module's default (see
    ``prefill_row``).
    """
    names = [*API_INPUTS, *(option.name for option in options)]
    clashes = sorted({name for name in names if names.count(name) > 1})
    if clashes:
        raise ValueError(f"options: {clashes} clash with the app's own inputs {list(API_INPUTS)}.")
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature(
        [inspect.Parameter(name, kind, default=None if index >= 3 else inspect.Parameter.empty) for index, name in enumerate(names)]
    )


def prefill_row(options: Sequence[Control], rows: Sequence[Sequence[Any]]) -> List[Any]:
    """The page's initial values: an example's data, with every option at the module's default.

    The controls always start at the module's defaults, because an API client that leaves
    an option out sends the control's initial value. Predictions and references come from
    the first example whose options are all defaults, or else from the first example (its
    options are one click away in the examples table).
    """
    defaults = [option.default_shown() for option in options]
    for row in rows:
        if list(row[2:]) == defaults:
            return [row[0], row[1], *defaults]
    return [rows[0][0], rows[0][1], *defaults] if rows else ["", "", *defaults]


def group_rows(options: Sequence[Control], width: int = 4) -> List[List[Optional[Control]]]:
    """One group's controls as rows of ``width``: value controls first, then the
    checkboxes together; a short row of values is padded with None (an empty cell).

    >>> [[control and control.name for control in row] for row in group_rows(
    ...     [Flag("adjusted"), Control("k"), Control("seed"), Flag("return_per_class")], width=3)]
    [['k', 'seed', None], ['adjusted', 'return_per_class']]
    """
    fields = [option for option in options if not isinstance(option, Flag)]
    flags = [option for option in options if isinstance(option, Flag)]
    rows: List[List[Optional[Control]]] = []
    for start in range(0, len(fields), width):
        row: List[Optional[Control]] = list(fields[start : start + width])
        rows.append(row + [None] * (width - len(row)))
    return rows + [flags[start : start + width] for start in range(0, len(flags), width)]


def build_app(metric_name: str, folder, examples, options: Optional[Sequence[Control]] = None,
              plots: Optional[Sequence[str]] = None):
    """A Blocks app for one metric module.

    ``examples`` are rows of (predictions, references, options as a JSON object); the
    first that needs no option pre-fills the page (``prefill_row``). ``options`` lists the controls (default:
    ``default_options``, one per option and input of the module, shown as ``presentation.py``
    says); their help text comes from the module's argument docs.
    ``plots`` names the panels to draw (each module's ``app.py`` passes its ``PLOTS``; default: none).
    """
    import evaluate
    import gradio as gr

    folder = Path(folder)
    metric = evaluate.load(str(folder))
    options = list(options) if options is not None else default_options(metric)
    plots = tuple(plots) if plots is not None else ()
    documented = describe_arguments(metric.inputs_description or "")
    header, body = split_card(folder)
    rows = example_rows(options, examples)
    initial = prefill_row(options, rows)

    with gr.Blocks(title=header.get("title", metric_name)) as app:
        gr.Markdown(f"# {header.get('title', metric_name)}\n\n{header.get('description', '')}")
        source = gr.State("paste")
        controls: Dict[str, Any] = {}
        with gr.Tabs(selected="paste") as tabs:
            with gr.Tab("Paste values", id="paste") as paste_tab:
                with gr.Row():
                    predictions = gr.Textbox(
                        label="predictions", lines=5, max_lines=12, elem_id="predictions", value=initial[0],
                        placeholder="[0, 1, 1, 0]  or  0, 1, 1, 0  or one value (or row of scores) per line",
                    )
                    references = gr.Textbox(
                        label="references", lines=5, max_lines=12, elem_id="references", value=initial[1],
                        placeholder="[0, 1, 0, 0]  or  0, 1, 0, 0  or one value per line",
                    )
                    for option in options:
                        if isinstance(option, SecondPredictions):  # beside predictions, not among the options
                            info = option.info or short_help(documented.get(option.name, ""))
                            controls[option.name] = option.component(gr, info or None, initial[2 + options.index(option)])
            with gr.Tab("Upload CSV", id="csv") as csv_tab:
                judged = JUDGES in getattr(metric, "INPUTS", ())
                csv_file = gr.File(label="CSV with the columns predictions, references (optionally "
                                   f"{', '.join(optional_csv_columns(metric))})"
                                   + ("; or references and one column per judge" if judged else ""),
                                   file_types=[".csv", ".tsv", ".txt"], type="filepath", elem_id="csv")
                gr.Markdown(
                    "The first line names the columns. A cell holding a row of scores is a JSON list, "
                    f'e.g. `"[0.7, 0.2, 0.1]"`. Limits: {MAX_UPLOAD_BYTES // 1_000_000} MB, {MAX_VALUES:,} rows.'
                    + judges_csv_note(metric) + unlabeled_csv_note(metric), elem_id="csv-help",
                )
        # Collapsed, one tab per group: twenty controls with their help were a screen and a half.
        with gr.Accordion("Options", open=False, elem_id="options"):
            groups = {}
            for option in options:
                if not isinstance(option, SecondPredictions):  # beside predictions, not among the options
                    groups.setdefault(option.group, []).append(option)
            ordered = sorted(groups, key=lambda group: list(GROUPS).index(group) if group in GROUPS else len(GROUPS))
            with gr.Tabs(elem_id="option-groups"):
                for group in ordered:
                    with gr.Tab(GROUPS.get(group, group), id=f"options-{group}", elem_id=f"options-{group}"):
                        for row in group_rows(groups[group]):
                            with gr.Row(equal_height=False):
                                for control in row:
                                    if control is None:
                                        gr.HTML("", padding=False)  # keeps the columns of a short row aligned
                                        continue
                                    info = control.info or short_help(documented.get(control.name, ""))
                                    # Module defaults: also what an API client gets for an option it leaves out.
                                    value = initial[2 + options.index(control)]
                                    controls[control.name] = control.component(gr, info or None, value)
        controls = [controls[option.name] for option in options]
        button = gr.Button("Compute", variant="primary", elem_id="compute")
        # Labelled: API clients see the output as "status", not as the component's number (value_44).
        status = gr.HTML(status_html(None), label="status", elem_id="status", padding=False, css_template=CSS)
        # With judges: the ranking as a table (hidden otherwise), above the JSON and the plots.
        ranking = gr.Dataframe(label="ranking", elem_id="ranking", interactive=False, wrap=True, visible=False)
        with gr.Row(equal_height=False):
            # Wide enough that a key and its number share a line; the plots get the rest.
            with gr.Column(scale=2, min_width=400):
                result = gr.Code(label="result", language="json", elem_id="result", interactive=False, wrap_lines=True)
            with gr.Column(scale=3):
                plot = gr.Plot(label="plots", elem_id="plot", format="png")

        def on_compute(chosen_source, predictions_text, references_text, csv_path, *option_values):
            if csv_path and not (predictions_text or "").strip() and not (references_text or "").strip():
                chosen_source = "csv"  # nothing pasted: the uploaded file (how an API client sends a CSV)
            page = compute_page(metric, options, plots, chosen_source, predictions_text, references_text, csv_path,
                                option_values)
            if page.ranking is None:
                table = gr.Dataframe(value=None, visible=False)
            else:
                headers, rows = page.ranking
                table = gr.Dataframe(value={"headers": headers, "data": rows}, headers=headers, visible=True,
                                     label=f"ranking: {len(rows)} judges, best first (p vs best: adjusted by maxT)")
            return status_html(page), page.result_json, page.figure, table

        # gradio names the API's parameters after the function's; ``*option_values`` would
        # show as param_4, param_5, ... in gradio_client, so the signature names each one
        # after the module's argument it sets.
        on_compute.__signature__ = api_signature(options)

        button.click(
            on_compute, inputs=[source, predictions, references, csv_file, *controls], outputs=[status, result, plot, ranking],
            api_name="compute", concurrency_limit=2,
        )
        # The last thing the user touched decides the input: the tab shown, a pasted example, an upload.
        # These page-only events stay out of the API (view_api() lists /compute alone).
        page_only = {"api_visibility": "private"}
        paste_tab.select(lambda: "paste", outputs=source, **page_only)
        csv_tab.select(lambda: "csv", outputs=source, **page_only)
        csv_file.upload(lambda: "csv", outputs=source, **page_only)
        if rows:
            # Three columns (predictions, references, the options an example sets), one page
            # (gradio pages them by 10, hiding the rest behind a pager). A click fills in
            # every control, shows the pasted-values tab, and computes nothing yet.
            shown = gr.Dataset(
                components=["textbox", "textbox", "textbox"], headers=["predictions", "references", "options"],
                samples=example_table(examples), type="index", layout="table", samples_per_page=max(10, len(rows)),
                label="Examples (click to fill in)", elem_id="examples",
            )
            shown.click(
                lambda index: ["paste", gr.Tabs(selected="paste"), *rows[index]],
                inputs=shown, outputs=[source, tabs, predictions, references, *controls], **page_only,
            )
        gr.HTML(f"<style>{PAGE_CSS}</style>", elem_id="page-style", padding=False, container=False)
        # The card (several screens) one click away, not appended to the page.
        with gr.Accordion("Metric card: how to use it, every option, intervals, references", open=False,
                          elem_id="card-panel"):
            gr.Markdown(body, elem_id="card")
    return app
