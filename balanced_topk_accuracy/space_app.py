# GENERATED FILE: do not edit. Vendored copy of shared/space_app.py.
# Edit the source in shared/ and run `python shared/vendor.py` to refresh every module folder.
"""The Gradio app shared by every module's Space.

It works on current Gradio (>= 4), unlike ``evaluate.utils.launch_gradio_widget``, which
uses the removed ``gr.inputs``. One builder serves all modules:

* inputs: predictions and references pasted (a JSON list, comma-separated values, or one
  value / one row per line) or a CSV file with ``predictions`` and ``references`` columns
  (optionally ``sample_weight``, and ``baseline_predictions`` where the module compares two
  systems); every option of the module as a control (``Flag``, ``Choice``, ``Value``,
  ``Values``; ``SecondPredictions``: a second predictions box beside the first), described
  by the module's own argument docs;
* outputs: the result as JSON, a plot of the counts behind it (confusion heatmap,
  per-class recall, ROC curve with the chosen threshold, per-label bars, recall@k
  against k; with a baseline, both judges' recall per class and the difference with its
  interval), and the metric card below.

Input is parsed as data only (JSON, numbers, strings), never evaluated as code. Oversized
or malformed input and every error of the metric come back as a readable message in the
page, not a traceback, and the app keeps serving the next request.
"""

import csv
import html
import inspect
import itertools
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np


MAX_INPUT_CHARS = 2_000_000  # per text box
MAX_VALUES = 200_000  # samples (rows)
MAX_UPLOAD_BYTES = 5_000_000  # CSV file size
MAX_OPTION_CHARS = 10_000  # a one-line option such as `labels`
MAX_HEATMAP_CLASSES = 40  # above this a K x K heatmap is unreadable
MAX_BAR_CLASSES = 60  # above this per-class bars become a histogram
MAX_TOPK_POINTS = 20  # k values on the recall@k curve


class InputError(ValueError):
    """Input the page reports back to the user."""


# ----------------------------------------------------------------------------------------
# Parsing pasted and uploaded data (never evaluated as code)
# ----------------------------------------------------------------------------------------

_SEPARATORS = re.compile(r"[,;\t]")


def _parse_scalar(token: str):
    """A number if the token is one, otherwise the token as a string (quotes removed)."""
    token = token.strip().strip('"').strip("'")
    for convert in (int, float):
        try:
            return convert(token)
        except ValueError:
            pass
    return token


def _load_json(text: str, name: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{name}: not valid JSON ({error.msg} at character {error.pos}).") from None
    except RecursionError:
        raise InputError(f"{name}: the JSON is nested too deeply.") from None


def _parse_row(line: str, name: str):
    """One line: a JSON list, a separated row of values, or a single value."""
    if line.startswith("["):
        return _load_json(line, name)
    tokens = [token for token in _SEPARATORS.split(line) if token.strip()]
    return [_parse_scalar(token) for token in tokens] if len(tokens) > 1 else _parse_scalar(line)


def parse_values(text: str, name: str) -> list:
    """Parse a list of values (or of rows).

    Accepted: a JSON array (``[0, 1]``, ``[[0.7, 0.3], [0.2, 0.8]]``); values separated by
    commas, semicolons or tabs on one line; or one value per line, where a line holding
    several values (or a JSON list) is a row.
    """
    text = (text or "").strip()
    if not text:
        raise InputError(f"{name}: please enter some values.")
    if len(text) > MAX_INPUT_CHARS:
        raise InputError(f"{name}: input too large ({len(text):,} characters; the limit is {MAX_INPUT_CHARS:,}).")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) == 1 or (text.startswith(("[", "{")) and not all(line.startswith("[") for line in lines)):
        if text.startswith(("[", "{")):
            values = _load_json(text, name)
        else:
            values = [_parse_scalar(token) for token in _SEPARATORS.split(text) if token.strip()]
    else:
        try:
            values = json.loads(text) if text.startswith("[") else None
        except (json.JSONDecodeError, RecursionError):
            values = None  # one JSON row per line
        if values is None:
            values = [_parse_row(line, name) for line in lines]
    if not isinstance(values, list):
        raise InputError(f"{name}: expected a list of values, found {type(values).__name__}.")
    if len(values) > MAX_VALUES:
        raise InputError(f"{name}: too many values ({len(values):,}; the limit is {MAX_VALUES:,}).")
    return values


_CSV_COLUMNS = {
    "predictions": ("predictions", "prediction"),
    "references": ("references", "reference"),
    "sample_weight": ("sample_weight", "weight", "weights"),
    "baseline_predictions": ("baseline_predictions", "baseline_prediction", "baseline"),
    "groups": ("groups", "group"),
    "unlabeled_predictions": ("unlabeled_predictions", "unlabeled"),
    "unlabeled_baseline_predictions": ("unlabeled_baseline_predictions", "unlabeled_baseline"),
}
# Columns not aligned with the samples (a judge's labels on unlabeled data): their empty
# cells are skipped, and a row holding only them is not a sample.
_CSV_UNALIGNED = ("unlabeled_predictions", "unlabeled_baseline_predictions")


def _parse_cell(cell: str, column: str, line: int):
    cell = cell.strip()
    if not cell:
        raise InputError(f"CSV line {line}: the {column} cell is empty.")
    if cell.startswith("["):
        return _load_json(cell, f"CSV line {line}, {column}")
    return _parse_scalar(cell)


def read_csv(path) -> Dict[str, list]:
    """Columns ``predictions``, ``references`` (and ``sample_weight``, ``baseline_predictions``,
    ``groups``, ``unlabeled_predictions``, ``unlabeled_baseline_predictions`` if present) of a CSV file.

    The first line names the columns (comma, semicolon or tab separated); a cell holding a
    row of scores is a JSON list such as ``"[0.7, 0.2, 0.1]"``. The unlabeled columns may
    be longer or shorter than the others: their empty cells are skipped (see
    ``_CSV_UNALIGNED``).
    """
    size = os.path.getsize(path)
    if size > MAX_UPLOAD_BYTES:
        raise InputError(f"CSV: file too large ({size:,} bytes; the limit is {MAX_UPLOAD_BYTES:,}).")
    try:
        with open(path, encoding="utf-8-sig", newline="") as file:
            text = file.read()
    except UnicodeDecodeError:
        raise InputError("CSV: expected a UTF-8 text file, found bytes that are not UTF-8.") from None
    header_line = text.split("\n", 1)[0]
    for delimiter in (",", ";", "\t"):
        names = [name.strip().lower() for name in header_line.split(delimiter)]
        positions = {
            column: next((names.index(alias) for alias in aliases if alias in names), None)
            for column, aliases in _CSV_COLUMNS.items()
        }
        if positions["predictions"] is not None and positions["references"] is not None:
            break
    else:
        raise InputError(
            "CSV: expected a header row naming the columns 'predictions' and 'references', "
            f"found {header_line.strip()[:200]!r}."
        )
    columns: Dict[str, list] = {column: [] for column, position in positions.items() if position is not None}
    try:
        rows = csv.reader(text.splitlines()[1:], delimiter=delimiter)
        for line, row in enumerate(rows, start=2):
            if not any(cell.strip() for cell in row):
                continue  # blank line
            if max(len(values) for values in columns.values()) >= MAX_VALUES:
                raise InputError(f"CSV: too many rows (the limit is {MAX_VALUES:,}).")
            cell = {column: row[positions[column]].strip() if positions[column] < len(row) else None for column in columns}
            is_sample = any(cell[column] for column in columns if column not in _CSV_UNALIGNED)
            for column in columns:
                if column in _CSV_UNALIGNED:
                    if cell[column]:
                        columns[column].append(_parse_cell(cell[column], column, line))
                    continue
                if not is_sample:
                    continue  # a row of unlabeled values only
                if cell[column] is None:
                    raise InputError(f"CSV line {line}: expected a {column} cell, found only {len(row)} cells.")
                columns[column].append(_parse_cell(row[positions[column]], column, line))
    except csv.Error as error:
        raise InputError(f"CSV: cannot read the file ({error}).") from None
    if not columns["predictions"]:
        raise InputError("CSV: the file has a header but no rows.")
    return columns


# ----------------------------------------------------------------------------------------
# Options: one control per argument of the module
# ----------------------------------------------------------------------------------------

_OMITTED = object()


def describe_arguments(kwargs_description: str) -> Dict[str, str]:
    """``{argument: "(type): description"}`` from a module's ``_KWARGS_DESCRIPTION``."""
    described: Dict[str, str] = {}
    current = None
    for line in kwargs_description.splitlines():
        match = re.match(r"^ {4}(\w+) (\(.*\)):\s*(.*)$", line)
        if match:
            current = match.group(1)
            described[current] = f"{match.group(2)}: {match.group(3)}".strip()
        elif current and line.startswith(" " * 6) and line.strip():
            described[current] += " " + line.strip()
        else:
            current = None
    return described


def _shorten(text: str, limit: int = 160) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + " …"


@dataclass
class Option:
    """One keyword argument of ``compute`` shown as a control; ``info`` defaults to its docs."""

    name: str
    info: Optional[str] = None

    def component(self, gr, info: Optional[str], value: Any):
        """The Gradio control, showing ``value`` (a value of ``shown``)."""
        raise NotImplementedError

    def parse(self, raw: Any) -> Any:
        """The argument's value from the control's value, or ``_OMITTED`` for the default."""
        raise NotImplementedError

    def shown(self, value: Any) -> Any:
        """The control's value that stands for ``value`` (for examples)."""
        raise NotImplementedError

    def default_shown(self) -> Any:
        raise NotImplementedError


@dataclass
class Flag(Option):
    """A boolean argument: a checkbox."""

    default: bool = False

    def component(self, gr, info, value):
        return gr.Checkbox(label=self.name, value=value, info=info, elem_id=f"option-{self.name}")

    def parse(self, raw):
        return _OMITTED if bool(raw) == self.default else bool(raw)

    def shown(self, value):
        if not isinstance(value, bool):
            raise ValueError(f"{self.name}: expected true or false, found {value!r}.")
        return value

    def default_shown(self):
        return self.default


@dataclass
class Choice(Option):
    """An argument with a few allowed values: a dropdown. ``choices`` maps shown text to value."""

    choices: Optional[Dict[str, Any]] = None

    def component(self, gr, info, value):
        return gr.Dropdown(
            choices=list(self.choices), value=value, label=self.name, info=info, elem_id=f"option-{self.name}"
        )

    def parse(self, raw):
        if raw not in self.choices:
            raise InputError(f"{self.name}: expected one of {list(self.choices)}, found {raw!r}.")
        value = self.choices[raw]
        return _OMITTED if raw == self.default_shown() else value

    def shown(self, value):
        for text, choice in self.choices.items():
            same = choice is value if choice is None or value is None else (
                choice == value and isinstance(choice, str) == isinstance(value, str)
            )
            if same:
                return text
        raise ValueError(f"{self.name}: {value!r} is not one of the choices {list(self.choices.values())}.")

    def default_shown(self):
        return next(iter(self.choices))


@dataclass
class Value(Option):
    """A single value typed as JSON (``3``, ``-100``, ``0.5``, ``[1, 2]``) or a bare word (``auto``).

    ``maximum`` caps a number the page accepts (e.g. resamples: the cost of one request).
    """

    placeholder: str = ""
    maximum: Optional[float] = None

    def component(self, gr, info, value):
        return gr.Textbox(
            label=self.name, value=value, placeholder=self.placeholder or "default", info=info, max_lines=1,
            elem_id=f"option-{self.name}",
        )

    def parse(self, raw):
        text = (raw or "").strip()
        if not text:
            return _OMITTED
        if len(text) > MAX_OPTION_CHARS:
            raise InputError(f"{self.name}: input too large ({len(text):,} characters).")
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            if text[0] in "[{\"":
                raise InputError(f"{self.name}: not valid JSON: {text[:80]!r}.") from None
            value = text  # a bare word such as auto or unsafe
        if isinstance(value, dict):
            raise InputError(f"{self.name}: expected a number, a string or a list, found a JSON object.")
        if self.maximum is not None and isinstance(value, (int, float)) and value > self.maximum:
            raise InputError(f"{self.name}: at most {self.maximum:,} in this app, found {value:,}.")
        return _OMITTED if value is None else value

    def shown(self, value):
        if isinstance(value, str):
            try:
                json.loads(value)
            except json.JSONDecodeError:
                return value  # shown bare; quoted only where it would read as a number
        return json.dumps(value)

    def default_shown(self):
        return ""


@dataclass
class Values(Option):
    """A list of values (``labels``, ``class_mask``, ``sample_weight``), parsed like predictions."""

    placeholder: str = ""

    def component(self, gr, info, value):
        return gr.Textbox(
            label=self.name, value=value, placeholder=self.placeholder or "default", info=info, lines=1,
            elem_id=f"option-{self.name}",
        )

    def parse(self, raw):
        if not (raw or "").strip():
            return _OMITTED
        return parse_values(raw, self.name)

    def shown(self, value):
        return json.dumps(value)

    def default_shown(self):
        return ""


# ----------------------------------------------------------------------------------------
# Comparing two systems: a second predictions box (baseline_predictions)
# ----------------------------------------------------------------------------------------

BASELINE = "baseline_predictions"


@dataclass
class SecondPredictions(Values):
    """``baseline_predictions``: a second system's predictions, shown beside the predictions box.

    Optional: left empty, the page computes the metric of ``predictions`` alone. It goes
    with pasted data; with a CSV the column ``baseline_predictions`` plays its part.
    """

    def component(self, gr, info, value):
        return gr.Textbox(
            label=f"{self.name} (optional: a second judge to compare)", value=value, lines=5, max_lines=12,
            placeholder=self.placeholder or "same format as predictions; leave empty for one judge",
            info=info, elem_id=f"option-{self.name}",
        )


def comparison_keys(result: Dict[str, Any]) -> Optional[str]:
    """The metric name whose paired comparison ``result`` holds (``<name>_difference``), or None."""
    return next((key[: -len("_difference")] for key in result if key.endswith("_difference")), None)


def comparison_recalls(metric, predictions, references, arguments: Dict[str, Any]):
    """``(classes, recall of predictions, recall of baseline_predictions)`` per class, from the
    module's own confusion matrices of both systems (one class order)."""
    options = {name: value for name, value in arguments.items() if name not in _INTERVAL_ARGUMENTS}
    counted = metric.compute(predictions=predictions, references=references, **options, return_confusion_matrix=True)
    if "baseline_confusion_matrix" not in counted:
        return [], None, None  # nothing was counted (all ignored)
    recalls = []
    for key in ("confusion_matrix", "baseline_confusion_matrix"):
        matrix = np.asarray(counted[key], dtype=np.float64)
        recalls.append(_safe_ratio(np.diag(matrix), matrix.sum(axis=1)))
    return counted["classes"], recalls[0], recalls[1]


def _draw_comparison_recall(axes, classes, recall, baseline_recall) -> None:
    _draw_bars(axes, _class_names(classes), {"predictions": recall, "baseline_predictions": baseline_recall},
               "Recall per class of both judges", "recall")


def _draw_difference(axes, result: Dict[str, Any], name: str) -> None:
    """The difference (predictions − baseline) with its interval, and the p-value."""
    difference = result[f"{name}_difference"]
    interval = result.get(f"{name}_difference_ci")
    p_value = result.get(f"{name}_difference_p_value")
    axes.axvline(0.0, color="grey", linestyle="--", linewidth=0.8)
    if difference == difference:
        if interval is not None and all(x == x for x in interval):
            low, high = interval
            axes.errorbar([difference], [0], xerr=[[difference - low], [high - difference]], fmt="o", color="tab:blue",
                          capsize=6, label=f"interval [{low:.3f}, {high:.3f}]")
        else:
            axes.plot([difference], [0], "o", color="tab:blue")
        axes.annotate(f"{difference:+.3f}", (difference, 0), textcoords="offset points", xytext=(0, 10), ha="center")
    span = max([abs(x) for x in [difference, *(interval or [])] if x == x] + [0.05]) * 1.3
    axes.set_xlim(-span, span)
    axes.set_yticks([])
    axes.set_xlabel(f"{name} of predictions − of baseline_predictions")
    title = f"Difference: {difference:+.4f}" if difference == difference else "Difference: undefined"
    if p_value is not None:
        title += f", p = {p_value:.3g}" if p_value == p_value else ", p undefined"
    axes.set_title(title)
    if interval is not None and difference == difference:
        axes.legend(fontsize=8, loc="lower right")
    reason = result.get(f"{name}_difference_reason")
    if reason:
        axes.text(0.5, 0.25, reason, transform=axes.transAxes, ha="center", color="tab:red", fontsize=9)


def comparison_panels(metric, predictions, references, arguments: Dict[str, Any], result: Dict[str, Any]) -> list:
    """The comparison's two panels (both judges' recall per class; the difference and its
    interval), or none when no baseline was given."""
    name = comparison_keys(result)
    if name is None or arguments.get(BASELINE) is None:
        return []
    classes, recall, baseline_recall = comparison_recalls(metric, predictions, references, arguments)
    panels = [lambda axes: _draw_difference(axes, result, name)]
    if classes:
        panels.insert(0, lambda axes: _draw_comparison_recall(axes, classes, recall, baseline_recall))
    return panels


def module_arguments(metric) -> Dict[str, Any]:
    """``{argument: default}`` for the options of a module's ``compute``: its declared
    ``OPTIONS`` and per-sample ``INPUTS`` (such as ``sample_weight``, default None)."""
    return {**{name: option.default for name, option in metric.OPTIONS.items()}, **{name: None for name in metric.INPUTS}}


def default_options(metric) -> List[Option]:
    """One control per argument when a module gives no spec: checkboxes for flags, text otherwise."""
    options: List[Option] = []
    for name, default in module_arguments(metric).items():
        if isinstance(default, bool):
            options.append(Flag(name, default=default))
        else:
            options.append(Value(name, placeholder="default" if default is None else f"default: {default!r}"))
    return options


def parse_option_values(options: Sequence[Option], raw_values: Sequence[Any]) -> Dict[str, Any]:
    parsed = {}
    for option, raw in zip(options, raw_values):
        value = option.parse(raw)
        if value is not _OMITTED:
            parsed[option.name] = value
    return parsed


def parse_options(text: str) -> dict:
    """Options typed as one JSON object (used by ``run_metric``)."""
    text = (text or "").strip()
    if not text:
        return {}
    if len(text) > MAX_OPTION_CHARS:
        raise InputError("options: input too large.")
    options = _load_json(text, "options")
    if not isinstance(options, dict):
        raise InputError('options: expected a JSON object such as {"return_per_class": true}.')
    return options


# ----------------------------------------------------------------------------------------
# The card
# ----------------------------------------------------------------------------------------


def split_card(folder: Path) -> Tuple[Dict[str, str], str]:
    """``(front matter as flat key -> text, body)`` of the metric card."""
    card = Path(folder) / "README.md"
    text = card.read_text(encoding="utf-8") if card.is_file() else ""
    header: Dict[str, str] = {}
    if text.startswith("---"):
        _, front, text = text.split("---", 2)
        key = None
        for line in front.splitlines():
            match = re.match(r"^(\w+):\s*(.*)$", line)
            if match:
                key = match.group(1)
                header[key] = "" if match.group(2) in (">-", ">", "|") else match.group(2)
            elif key and line.startswith("  "):
                header[key] = (header[key] + " " + line.strip()).strip()
    return header, text


def card_text(folder: Path) -> str:
    """The metric card without its YAML front matter."""
    return split_card(folder)[1]


def _literal(node, names: Dict[str, Any]) -> Any:
    """A literal (``ast.literal_eval``, which evaluates nothing) or a name bound to one earlier."""
    import ast

    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    return ast.literal_eval(node)


def card_examples(folder: Path) -> List[List[str]]:
    """The card's doctest calls ``metric.compute(...)`` as example rows (predictions, references, options).

    Only literals are read: arguments written as literals, or as names that an earlier
    doctest line bound to a literal (``scores = [[0.7, 0.3], ...]``). Nothing is evaluated;
    a call with any other argument is left out.
    """
    import ast

    statements, current = [], None
    for line in card_text(folder).splitlines():
        stripped = line.strip()
        if stripped.startswith(">>> "):
            current = [stripped[4:]]
            statements.append(current)
        elif stripped.startswith("... ") and current is not None:
            current.append(stripped[4:])
        else:
            current = None
    examples, names = [], {}
    unreadable = (ValueError, TypeError, SyntaxError, RecursionError)
    for statement in statements:
        try:
            tree = ast.parse("\n".join(statement).strip())
        except unreadable:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                try:
                    value = _literal(node.value, names)
                except unreadable:
                    continue
                if isinstance(target, ast.Name):
                    names[target.id] = value
                elif isinstance(target, ast.Tuple) and isinstance(value, tuple) and len(value) == len(target.elts):
                    names.update({t.id: v for t, v in zip(target.elts, value) if isinstance(t, ast.Name)})
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compute"):
                continue
            try:
                arguments = {keyword.arg: _literal(keyword.value, names) for keyword in node.keywords}
            except unreadable:
                continue
            if "predictions" not in arguments or "references" not in arguments or None in arguments:
                continue
            predictions, references = arguments.pop("predictions"), arguments.pop("references")
            examples.append([json.dumps(predictions), json.dumps(references), json.dumps(arguments)])
    return examples


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
    """What one request shows: a status line, the result JSON and the figure (or None)."""

    ok: bool
    message: str
    result_json: str
    figure: Any = None


def compute_page(metric, options: Sequence[Option], plots: Sequence[str], source: str,
                 predictions_text: str, references_text: str, csv_path: Optional[str], option_values: Sequence[Any]) -> Page:
    """Parse the page's inputs, compute, draw; every failure becomes a message."""
    try:
        if source == "csv":
            if not csv_path:
                raise InputError("CSV: please upload a file with the columns predictions and references.")
            columns = read_csv(csv_path)
            predictions, references = columns["predictions"], columns["references"]
            origin = f"{len(references):,} rows of {Path(csv_path).name}"
        else:
            predictions = parse_values(predictions_text, "predictions")
            references = parse_values(references_text, "references")
            columns, origin = {}, f"{len(references):,} pasted samples"
        arguments = parse_option_values(options, option_values)
        if "sample_weight" in columns:
            if "sample_weight" in arguments:
                raise InputError("sample_weight: given both in the CSV and in the option box; keep one.")
            arguments["sample_weight"] = columns["sample_weight"]
        if source == "csv":
            # The second predictions box goes with pasted data; a CSV has its own column.
            arguments.pop(BASELINE, None)
            if BASELINE in columns:
                arguments[BASELINE] = columns[BASELINE]
        add_judge_columns(metric, columns, arguments)
        result = metric.compute(predictions=predictions, references=references, **arguments)
    except (ValueError, TypeError) as error:  # InputError and the metric's documented errors
        return Page(False, str(error), json.dumps({"error": str(error)}, indent=2))
    except Exception as error:  # noqa: BLE001 - a page shows a message, never a traceback
        message = f"could not compute ({type(error).__name__}: {error})"
        return Page(False, message, json.dumps({"error": message}, indent=2))
    shown = ", ".join(f"{name}={_short_repr(value)}" for name, value in arguments.items())
    message = f"Computed on {origin}" + (f" with {shown}." if shown else ".") + prevalence_summary(result)
    figure = None
    if plots:
        try:
            figure = draw(plots, metric, predictions, references, arguments, result)
        except Exception as error:  # noqa: BLE001 - the result stands even if a plot cannot be drawn
            message += f" (No plot: {error})"
    return Page(True, message, json.dumps(result, indent=2), figure)


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


# ----------------------------------------------------------------------------------------
# Plots (counts and values from the metric itself)
# ----------------------------------------------------------------------------------------


@dataclass
class ClassCounts:
    """One-vs-rest counts per class, read off the module's confusion matrix."""

    tp: np.ndarray
    support: np.ndarray
    predicted: np.ndarray
    total: float

    @property
    def fp(self) -> np.ndarray:
        return self.predicted - self.tp


@dataclass
class Confusion:
    """What the metric counted: classes, the (weighted) confusion counts, and scores if thresholded."""

    classes: list
    counts: Optional[ClassCounts]
    matrix: Optional[np.ndarray]  # K x K, rows = references; None when K is too large to draw
    scores: Optional[np.ndarray] = None
    positives: Optional[np.ndarray] = None
    weights: Optional[np.ndarray] = None
    threshold: Optional[float] = None
    positive_index: Optional[int] = None
    tuned: bool = False  # the threshold is the module's Youden-optimal one (threshold="auto")


# Options of an interval: the plots need the counts only.
_INTERVAL_ARGUMENTS = ("confidence_level", "ci_method", "n_resamples", "seed")


def confusion(metric, predictions, references, arguments: Dict[str, Any], result: Dict[str, Any]) -> Confusion:
    """The confusion counts behind a label metric's result, as the module itself returns them
    (``return_confusion_matrix``): the Space never repeats the module's counting.

    For the ROC panel of thresholded scores it also keeps the scores and which references
    are of the positive class (the second of the module's two classes unless `pos_label`).
    """
    options = {name: value for name, value in arguments.items() if name not in _INTERVAL_ARGUMENTS}
    # With threshold="auto" the module finds the same threshold again (scores need not be in [0, 1]).
    threshold = result.get("optimal_threshold", arguments.get("threshold"))
    try:
        counted = metric.compute(predictions=predictions, references=references, **options, return_confusion_matrix=True)
    except ValueError:  # too many classes for a dense matrix: nothing to draw
        return Confusion(classes=[], counts=None, matrix=None)
    if "confusion_matrix" not in counted:
        return Confusion(classes=[], counts=None, matrix=None)  # nothing was counted (no samples, or all ignored)
    matrix = np.asarray(counted["confusion_matrix"], dtype=np.float64)
    classes = counted["classes"]
    counts = ClassCounts(np.diag(matrix).copy(), matrix.sum(axis=1), matrix.sum(axis=0), float(matrix.sum()))
    found = Confusion(classes=classes, counts=counts, matrix=matrix if len(classes) <= MAX_HEATMAP_CLASSES else None,
                      threshold=None if threshold is None else float(threshold), tuned="optimal_threshold" in result)
    if threshold is not None and len(classes) == 2:
        pos_label = arguments.get("pos_label")
        found.positive_index = classes.index(pos_label) if pos_label in classes else 1
        flat_references = np.asarray(references, dtype=object).reshape(-1)
        keep = np.ones(flat_references.size, dtype=bool)
        if arguments.get("ignore_index") is not None:
            keep = flat_references != arguments["ignore_index"]
        found.scores = np.asarray(predictions, dtype=np.float64).reshape(-1)[keep]
        found.positives = flat_references[keep] == classes[found.positive_index]
        weights = arguments.get("sample_weight")
        found.weights = None if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)[keep]
    return found


def _safe_ratio(numerator: Any, denominator: Any) -> np.ndarray:
    """``numerator / denominator`` with NaN where the denominator is 0."""
    numerator, denominator = np.asarray(numerator, dtype=np.float64), np.asarray(denominator, dtype=np.float64)
    return np.divide(numerator, denominator, out=np.full(np.broadcast(numerator, denominator).shape, np.nan), where=denominator > 0)


def _class_names(classes: Sequence[Any]) -> List[str]:
    return [str(value) if len(str(value)) <= 12 else str(value)[:11] + "…" for value in classes]


def _draw_heatmap(axes, found: Confusion) -> None:
    if found.matrix is None:
        axes.axis("off")
        axes.text(0.5, 0.5, f"{len(found.classes)} classes: too many\nfor a confusion heatmap", ha="center", va="center")
        return
    matrix = np.asarray(found.matrix, dtype=np.float64)
    row_share = _safe_ratio(matrix, matrix.sum(axis=1, keepdims=True))
    image = axes.imshow(np.nan_to_num(row_share), cmap="Blues", vmin=0.0, vmax=1.0)
    axes.figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04, label="share of the reference class")
    names = _class_names(found.classes)
    ticks = np.arange(len(names))
    axes.set_xticks(ticks, names, rotation=45 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
    axes.set_yticks(ticks, names)
    axes.set_xlabel("predicted")
    axes.set_ylabel("reference")
    axes.set_title("Confusion matrix")
    if len(names) <= 12:
        for row in range(len(names)):
            for column in range(len(names)):
                count = matrix[row, column]
                text = f"{count:g}" if float(count).is_integer() else f"{count:.3g}"
                color = "white" if row_share[row, column] > 0.6 else "black"
                axes.text(column, row, text, ha="center", va="center", color=color, fontsize=9)


def _draw_bars(axes, names: Sequence[str], series: Dict[str, np.ndarray], title: str, ylabel: str) -> None:
    """Grouped bars per class; NaN (undefined) is marked 'n/a'. One series also gets its mean."""
    defined = np.concatenate([np.asarray(values, dtype=np.float64) for values in series.values()])
    defined = defined[~np.isnan(defined)]
    lower = float(min(0.0, np.floor(defined.min() * 4) / 4)) if defined.size else 0.0
    if len(names) > MAX_BAR_CLASSES:
        for label, values in series.items():
            values = np.asarray(values, dtype=np.float64)
            axes.hist(values[~np.isnan(values)], bins=20, range=(lower, 1.0), alpha=0.7, label=label)
        axes.set_xlabel(ylabel)
        axes.set_ylabel("classes")
        axes.set_title(f"{title} ({len(names)} classes)")
        axes.legend(fontsize=8)
        return
    positions = np.arange(len(names))
    width = 0.8 / len(series)
    for offset, (label, values) in enumerate(series.items()):
        values = np.asarray(values, dtype=np.float64)
        x = positions - 0.4 + width * (offset + 0.5)
        axes.bar(x, np.nan_to_num(values), width=width, label=label)
        for position, value in zip(x, values):
            if np.isnan(value):
                axes.text(position, 0.02, "n/a", ha="center", va="bottom", fontsize=8, rotation=90)
            elif len(names) * len(series) <= 16:
                axes.text(position, value + 0.02, f"{value:.2f}", ha="center", va="bottom", fontsize=8)
    if len(series) == 1 and defined.size:
        axes.axhline(defined.mean(), color="tab:red", linestyle="--", linewidth=1,
                     label=f"mean over defined classes: {defined.mean():.3f}")
    axes.set_xticks(positions, names, rotation=45 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
    axes.set_ylim(lower, 1.12)
    axes.axhline(0.0, color="black", linewidth=0.6)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.legend(fontsize=8, loc="lower right")


def _per_class_rates(found: Confusion) -> Dict[str, np.ndarray]:
    counts = found.counts
    recall = _safe_ratio(counts.tp, counts.support)
    fall_out = _safe_ratio(counts.fp, counts.total - counts.support)
    return {"recall": recall, "informedness": recall - fall_out}


def roc_curve(
    scores: np.ndarray, positives: np.ndarray, weights: Optional[np.ndarray] = None
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ROC curve of one score column: ``(thresholds, fpr, tpr)``, thresholds descending.

    A sample is positive iff score >= threshold. The points are +inf (nothing positive)
    and each distinct score: the cut points ``youden_thresholds`` chooses among (it
    returns the midpoint below the best of them). ``weights`` make the rates weighted;
    FPR (TPR) is NaN when there is no negative (positive) weight.

    Examples
    --------
    >>> thresholds, fpr, tpr = roc_curve(np.array([0.2, 0.9, 0.1, 0.3]), np.array([0, 1, 1, 0]))
    >>> thresholds.tolist(), fpr.tolist(), tpr.tolist()
    ([inf, 0.9, 0.3, 0.2, 0.1], [0.0, 0.0, 0.5, 1.0, 1.0], [0.0, 0.5, 0.5, 0.5, 1.0])
    """
    scores = np.asarray(scores, dtype=np.float64).ravel()
    positives = np.asarray(positives).astype(bool).ravel()
    weights = np.ones(scores.shape) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    order = np.argsort(-scores, kind="stable")
    sorted_scores, sorted_positive, sorted_weights = scores[order], positives[order], weights[order]
    cumulative_tp = np.concatenate([[0.0], np.cumsum(np.where(sorted_positive, sorted_weights, 0.0))])
    cumulative_fp = np.concatenate([[0.0], np.cumsum(np.where(sorted_positive, 0.0, sorted_weights))])
    # A point after the last sample of each run of equal scores (and the empty cut first).
    is_point = np.ones(scores.size + 1, dtype=bool)
    is_point[1:-1] = sorted_scores[:-1] != sorted_scores[1:]
    thresholds = np.concatenate([[np.inf], sorted_scores])[is_point]
    tp, fp = cumulative_tp[is_point], cumulative_fp[is_point]
    return thresholds, _safe_ratio(fp, cumulative_fp[-1]), _safe_ratio(tp, cumulative_tp[-1])


def _draw_roc(axes, found: Confusion) -> None:
    thresholds, fpr, tpr = roc_curve(found.scores, found.positives, found.weights)
    counts, positive = found.counts, found.positive_index
    point_tpr = float(_safe_ratio(counts.tp[positive], counts.support[positive]))
    point_fpr = float(_safe_ratio(counts.fp[positive], counts.total - counts.support[positive]))
    axes.plot(fpr, tpr, drawstyle="default", color="tab:blue", label="ROC")
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=0.8, label="chance")
    point = "Youden point" if found.tuned else "operating point"
    axes.plot([point_fpr], [point_tpr], "o", color="tab:red", markersize=8,
              label=f"{point}: J = TPR − FPR = {point_tpr - point_fpr:.3f}")
    axes.annotate(f"threshold = {found.threshold:.4g}", (point_fpr, point_tpr), textcoords="offset points", xytext=(8, -14),
                  color="tab:red", fontsize=9)
    axes.set_xlim(-0.02, 1.02)
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel("false positive rate (1 − TNR)")
    axes.set_ylabel("true positive rate")
    axes.set_title(f"ROC of class {found.classes[positive]!r}")
    axes.legend(fontsize=8, loc="lower right")


def _topk_curve(metric, predictions, references, arguments: Dict[str, Any]) -> Tuple[List[int], Dict[int, float], Any, List[int]]:
    width = np.shape(np.asarray(predictions, dtype=np.float64))[-1]
    chosen = list(arguments.get("k_list") or [arguments.get("k") or 1])
    if width <= MAX_TOPK_POINTS:
        k_values = list(range(1, width + 1))
    else:
        k_values = sorted({int(k) for k in np.rint(np.geomspace(1, width, MAX_TOPK_POINTS))} | {int(k) for k in chosen})
    others = {name: value for name, value in arguments.items() if name not in ("k", "k_list", "return_per_class")}
    curve = metric.compute(predictions=predictions, references=references, k_list=k_values, return_per_class=True, **others)
    return k_values, curve["balanced_topk_accuracy"], curve.get("per_class_recall"), chosen


def _draw_topk(axes, metric, predictions, references, arguments) -> None:
    k_values, balanced, per_class, chosen = _topk_curve(metric, predictions, references, arguments)
    if per_class and len(next(iter(per_class.values()))) <= 10:
        classes = len(next(iter(per_class.values())))
        for c in range(classes):
            axes.plot(k_values, [per_class[k][c] for k in k_values], color="grey", alpha=0.35, linewidth=1,
                      label="per class" if c == 0 else None)
    axes.plot(k_values, [balanced[k] for k in k_values], marker="o", color="tab:blue", linewidth=2, label="balanced recall@k")
    marked = [k for k in chosen if k in balanced]
    axes.plot(marked, [balanced[k] for k in marked], "o", color="tab:red", markersize=9, label="requested k")
    axes.set_xlabel("k")
    axes.set_ylabel("recall@k (mean over classes)")
    axes.set_ylim(-0.02, 1.05)
    if len(k_values) <= MAX_TOPK_POINTS:
        axes.set_xticks(k_values)
    axes.set_title("Balanced recall@k against k")
    axes.legend(fontsize=8, loc="lower right")


def _draw_per_label(axes, metric, predictions, references, arguments) -> None:
    detail = metric.compute(predictions=predictions, references=references, **{**arguments, "return_per_label": True})
    per_label = np.asarray(detail["per_label_ba"], dtype=np.float64)
    names = arguments.get("label_names") or detail.get("label_names") or [str(i) for i in range(len(per_label))]
    title = "Balanced accuracy per label"
    thresholds = detail.get("per_label_thresholds")
    if thresholds is not None and len(per_label) <= 8:
        names = [f"{name}\n(t={threshold:.3g})" for name, threshold in zip(_class_names(names), thresholds)]
    _draw_bars(axes, _class_names(names) if thresholds is None else names, {"balanced accuracy": per_label}, title,
               "balanced accuracy")


PLOTS = ("confusion", "recall", "informedness", "roc", "per_label", "topk", "comparison", "prevalence")


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
            panels.append(lambda axes: _draw_heatmap(axes, found))
        elif plot == "recall" and "comparison" in plots and comparison_keys(result) and arguments.get(BASELINE) is not None:
            continue  # the comparison's panel shows this recall beside the baseline's
        elif plot in ("recall", "informedness"):
            rates = _per_class_rates(found)
            series = {"recall": rates["recall"]} if plot == "recall" else rates
            ylabel = "recall" if plot == "recall" else "rate"
            title = "Recall per class" if plot == "recall" else "Recall and informedness (TPR − FPR) per class"
            panels.append(lambda axes, s=series, t=title, y=ylabel: _draw_bars(axes, _class_names(found.classes), s, t, y))
        elif plot == "roc":
            if found.scores is not None:
                panels.append(lambda axes: _draw_roc(axes, found))
        elif plot == "per_label":
            panels.append(lambda axes: _draw_per_label(axes, metric, predictions, references, arguments))
        elif plot == "topk":
            panels.append(lambda axes: _draw_topk(axes, metric, predictions, references, arguments))
        elif plot == "comparison":
            panels.extend(comparison_panels(metric, predictions, references, arguments, result))
        elif plot == "prevalence":
            if "corrected_prevalence" in result:
                panels.append(lambda axes: draw_prevalence(axes, result, found.classes if found else []))
        else:
            raise ValueError(f"plots: expected names among {PLOTS}, found {plot!r}.")
    if not panels:
        return None
    figure = Figure(figsize=(4.8 * len(panels), 4.2), layout="constrained")
    for index, panel in enumerate(panels):
        panel(figure.add_subplot(1, len(panels), index + 1))
    return figure



# ----------------------------------------------------------------------------------------
# A judge's labels on unlabeled data: corrected prevalence (informedness)
# ----------------------------------------------------------------------------------------

_JUDGE_COLUMNS = ("groups", "unlabeled_predictions", "unlabeled_baseline_predictions")


def add_judge_columns(metric, columns: Dict[str, list], arguments: Dict[str, Any]) -> None:
    """Pass the CSV's judge columns (groups, unlabeled labels) that the module takes; a column
    given both in the CSV and in its box is refused."""
    for name in _JUDGE_COLUMNS:
        if name not in columns or name not in getattr(metric, "INPUTS", ()):
            continue
        if name in arguments:
            raise InputError(f"{name}: given both in the CSV and in the option box; keep one.")
        arguments[name] = columns[name]


def _format_interval(interval: Any) -> str:
    low, high = interval
    return "" if any(math.isnan(x) for x in (low, high)) else f" [{low:.4f}, {high:.4f}]"


def optional_csv_columns(metric) -> List[str]:
    """The CSV columns besides predictions and references that the module takes."""
    return [name for name in ("sample_weight", BASELINE) + _JUDGE_COLUMNS if name in getattr(metric, "INPUTS", ("sample_weight",))]


def unlabeled_csv_note(metric) -> str:
    if "unlabeled_predictions" not in getattr(metric, "INPUTS", ()):
        return ""
    return (" The judge's labels on unlabeled data go in a column `unlabeled_predictions` of any length: "
            "leave its cell empty on golden rows it has no value for, and the golden cells empty on rows that hold "
            "only an unlabeled label.")


def prevalence_summary(result: Dict[str, Any]) -> str:
    """The corrected prevalence (and difference) in words, for the status line; "" without one."""
    if "corrected_prevalence" not in result:
        return ""
    parts = []
    for key, label in (("corrected_prevalence", "Corrected prevalence"), ("corrected_prevalence_difference", "difference")):
        if key not in result:
            continue
        value = result[key]
        if f"{key}_reason" in result:
            parts.append(f"{label}: undefined ({result[f'{key}_reason']})")
        elif isinstance(value, list):
            intervals = result.get(f"{key}_ci") or [None] * len(value)
            shown = ", ".join(f"{v:.4f}" + (_format_interval(ci) if ci else "") for v, ci in zip(value, intervals))
            parts.append(f"{label} per class: {shown}")
        else:
            parts.append(f"{label} {value:.4f}" + (_format_interval(result[f"{key}_ci"]) if f"{key}_ci" in result else ""))
        if result.get(f"{key}_clipped"):
            parts[-1] += " (clipped)"
    return " " + "; ".join(parts) + "."


def draw_prevalence(axes, result: Dict[str, Any], classes: Sequence[Any]) -> None:
    """The judge's measured shares next to the corrected prevalence, with its interval."""
    corrected = np.atleast_1d(np.asarray(result["corrected_prevalence"], dtype=np.float64))
    measured = np.atleast_1d(np.asarray(result["measured_prevalence"], dtype=np.float64))
    if corrected.size == 1:
        names = [f"{classes[1]!r}" if len(classes) == 2 else "positive class"]
    else:
        names = _class_names(classes) if len(classes) == corrected.size else [str(i) for i in range(corrected.size)]
    positions = np.arange(corrected.size)
    axes.bar(positions - 0.2, measured, width=0.4, color="tab:gray", label="measured by the judge")
    errors = None
    if "corrected_prevalence_ci" in result:
        bounds = np.asarray(result["corrected_prevalence_ci"], dtype=np.float64).reshape(-1, 2)
        errors = np.abs(np.stack([corrected - bounds[:, 0], bounds[:, 1] - corrected]))
    axes.bar(positions + 0.2, np.nan_to_num(corrected), width=0.4, color="tab:blue", yerr=errors, capsize=4,
             label="corrected" + (" (with its interval)" if errors is not None else ""))
    for position, value in zip(positions, corrected):
        text = "n/a" if np.isnan(value) else f"{value:.3f}"
        axes.text(position + 0.2, (0 if np.isnan(value) else value) + 0.02, text, ha="center", va="bottom", fontsize=8)
    axes.set_xticks(positions, names)
    axes.set_ylim(0.0, 1.1)
    axes.set_ylabel("prevalence in the unlabeled data")
    reason = result.get("corrected_prevalence_reason")
    axes.set_title("Corrected prevalence" + (f" (undefined: {reason})" if reason else ""))
    axes.legend(fontsize=8, loc="upper right")

# ----------------------------------------------------------------------------------------
# The page
# ----------------------------------------------------------------------------------------

_run_ids = itertools.count(1)

CSS = """
.space-status { padding: 0.6em 0.9em; border-radius: 6px; font-size: 0.95em; }
.space-status.ok { background: #ecfdf3; color: #05603a; border: 1px solid #abefc6; }
.space-status.error { background: #fef3f2; color: #b42318; border: 1px solid #fecdca; }
"""


def status_html(page: Optional[Page]) -> str:
    """The status line. ``data-run`` changes with every request (tests wait on it)."""
    if page is None:
        return '<div class="space-status" data-run="0"></div>'
    kind, mark = ("ok", "✓") if page.ok else ("error", "⚠")
    return (
        f'<div class="space-status {kind}" data-run="{next(_run_ids)}" role="status">'
        f"{mark} {html.escape(page.message)}</div>"
    )


def example_rows(options: Sequence[Option], examples: Sequence[Sequence[str]]) -> List[list]:
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


def api_signature(options: Sequence[Option]) -> inspect.Signature:
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


def prefill_row(options: Sequence[Option], rows: Sequence[Sequence[Any]]) -> List[Any]:
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


DEFAULT_PLOTS = {
    "balanced_accuracy": ("confusion", "recall", "roc", "comparison"),
    "informedness": ("confusion", "informedness", "comparison", "prevalence"),
    "balanced_accuracy_multilabel": ("per_label",),
    "balanced_topk_accuracy": ("topk",),
}


def build_app(metric_name: str, folder, examples, options: Optional[Sequence[Option]] = None,
              plots: Optional[Sequence[str]] = None):
    """A Blocks app for one metric module.

    ``examples`` are rows of (predictions, references, options as a JSON object); the
    first that needs no option pre-fills the page (``prefill_row``). ``options`` lists the controls (default: one per argument of
    the module's ``compute``); their help text comes from the module's argument docs.
    ``plots`` names the panels to draw (default: ``DEFAULT_PLOTS[metric_name]``).
    """
    import evaluate
    import gradio as gr

    folder = Path(folder)
    metric = evaluate.load(str(folder))
    options = list(options) if options is not None else default_options(metric)
    plots = tuple(plots) if plots is not None else DEFAULT_PLOTS.get(metric_name, ())
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
                            info = option.info or _shorten(documented.get(option.name, ""))
                            controls[option.name] = option.component(gr, info or None, initial[2 + options.index(option)])
            with gr.Tab("Upload CSV", id="csv") as csv_tab:
                csv_file = gr.File(label="CSV with the columns predictions, references (optionally "
                                   f"{', '.join(optional_csv_columns(metric))})",
                                   file_types=[".csv", ".tsv", ".txt"], type="filepath", elem_id="csv")
                gr.Markdown(
                    "The first line names the columns. A cell holding a row of scores is a JSON list, "
                    f'e.g. `"[0.7, 0.2, 0.1]"`. Limits: {MAX_UPLOAD_BYTES // 1_000_000} MB, {MAX_VALUES:,} rows.'
                    + unlabeled_csv_note(metric)
                )
        with gr.Accordion("Options", open=True):
            # Value controls four to a row, then the checkboxes together.
            fields = [option for option in options if not isinstance(option, (Flag, SecondPredictions))]
            flags = [option for option in options if isinstance(option, Flag)]
            for group in [fields[i : i + 4] for i in range(0, len(fields), 4)] + ([flags] if flags else []):
                with gr.Row(equal_height=False):
                    for option in group:
                        info = option.info or _shorten(documented.get(option.name, ""))
                        # Module defaults: also what an API client gets for an option it leaves out.
                        value = initial[2 + options.index(option)]
                        controls[option.name] = option.component(gr, info or None, value)
                    for _ in range(4 - len(group) if len(group) < 4 and group is not flags else 0):
                        gr.HTML("", padding=False)  # keeps the columns of a short row aligned
        controls = [controls[option.name] for option in options]
        button = gr.Button("Compute", variant="primary", elem_id="compute")
        status = gr.HTML(status_html(None), elem_id="status", padding=False, css_template=CSS)
        with gr.Row(equal_height=False):
            with gr.Column(scale=1, min_width=280):
                result = gr.Code(label="result", language="json", elem_id="result", interactive=False, wrap_lines=True)
            with gr.Column(scale=4):
                plot = gr.Plot(label="plots", elem_id="plot", format="png")

        def on_compute(chosen_source, predictions_text, references_text, csv_path, *option_values):
            if csv_path and not (predictions_text or "").strip() and not (references_text or "").strip():
                chosen_source = "csv"  # nothing pasted: the uploaded file (how an API client sends a CSV)
            page = compute_page(metric, options, plots, chosen_source, predictions_text, references_text, csv_path,
                                option_values)
            return status_html(page), page.result_json, page.figure

        # gradio names the API's parameters after the function's; ``*option_values`` would
        # show as param_4, param_5, ... in gradio_client, so the signature names each one
        # after the module's argument it sets.
        on_compute.__signature__ = api_signature(options)

        button.click(
            on_compute, inputs=[source, predictions, references, csv_file, *controls], outputs=[status, result, plot],
            api_name="compute", concurrency_limit=2,
        )
        # The last thing the user touched decides the input: the tab shown, a pasted example, an upload.
        # These page-only events stay out of the API (view_api() lists /compute alone).
        page_only = {"api_visibility": "private"}
        paste_tab.select(lambda: "paste", outputs=source, **page_only)
        csv_tab.select(lambda: "csv", outputs=source, **page_only)
        csv_file.upload(lambda: "csv", outputs=source, **page_only)
        if rows:
            shown = gr.Examples(examples=rows, inputs=[predictions, references, *controls],
                                label="Examples (click to fill in)", elem_id="examples")
            # An example fills the text boxes: show them and compute on them.
            shown.dataset.click(lambda: ("paste", gr.Tabs(selected="paste")), outputs=[source, tabs], **page_only)
        gr.Markdown("---")
        gr.Markdown(body, elem_id="card")
    return app
