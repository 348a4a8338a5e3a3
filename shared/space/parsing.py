"""What a Space reads: pasted values, an uploaded CSV, options typed as JSON, the card's examples.

Input is parsed as data only (JSON, numbers, strings), never evaluated as code; oversized
or malformed input raises ``InputError``, which the page shows as a message. Part of the
Space app (``space_app.py``).
"""

import csv
import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple



MAX_INPUT_CHARS = 2_000_000  # per text box
MAX_VALUES = 200_000  # samples (rows)
MAX_UPLOAD_BYTES = 5_000_000  # CSV file size
MAX_OPTION_CHARS = 10_000  # a one-line option such as `labels`


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
    "clusters": ("clusters", "cluster", "conversation", "conversation_id"),
    "baseline_predictions": ("baseline_predictions", "baseline_prediction", "baseline"),
    "groups": ("groups", "group"),
    "unlabeled_predictions": ("unlabeled_predictions", "unlabeled"),
    "unlabeled_baseline_predictions": ("unlabeled_baseline_predictions", "unlabeled_baseline"),
}
# Per-sample columns besides predictions and references that every module takes.
SAMPLE_COLUMNS = ("sample_weight", "clusters")
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


def read_judges_csv(path) -> Optional[Dict[str, Any]]:
    """A CSV of judges (issue 32): a ``references`` column and one column per judge (any other name;
    ``sample_weight`` and ``clusters`` keep their meaning), as ``{"references": [...], JUDGES: {name:
    [...]}, ...}``; None when the file is not one (no references column, or no judge column)."""
    if os.path.getsize(path) > MAX_UPLOAD_BYTES:
        return None  # read_csv says why
    try:
        with open(path, encoding="utf-8-sig", newline="") as file:
            text = file.read()
    except UnicodeDecodeError:
        return None
    header_line = text.split("\n", 1)[0]
    for delimiter in (",", ";", "\t"):
        names = [name.strip() for name in header_line.split(delimiter)]
        lowered = [name.lower() for name in names]
        known = {alias: column for column, aliases in _CSV_COLUMNS.items() for alias in aliases}
        if any(known.get(name) == "references" for name in lowered) and len(names) >= 2:
            break
    else:
        return None
    roles = [known.get(name, JUDGES) for name in lowered]
    if JUDGES not in roles or "predictions" in roles:
        return None
    unknown = [name for name, role in zip(names, roles) if role not in ("references", JUDGES, *SAMPLE_COLUMNS)]
    if unknown:
        raise InputError(f"CSV: a file of judges has references, sample_weight, clusters and one column per judge, found {unknown}.")
    columns: Dict[str, Any] = {"references": [], JUDGES: {name: [] for name, role in zip(names, roles) if role == JUDGES}}
    columns.update({role: [] for role in roles if role in SAMPLE_COLUMNS})
    for line, row in enumerate(csv.reader(text.splitlines()[1:], delimiter=delimiter), start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(columns["references"]) >= MAX_VALUES:
            raise InputError(f"CSV: too many rows (the limit is {MAX_VALUES:,}).")
        for position, (name, role) in enumerate(zip(names, roles)):
            value = _parse_cell(row[position] if position < len(row) else "", name, line)
            (columns[JUDGES][name] if role == JUDGES else columns[role]).append(value)
    return columns


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




# The second system's predictions (a paired comparison): a box beside predictions, or a CSV column.
BASELINE = "baseline_predictions"
JUDGES = "judges"  # several judges ranked: a JSON object of labels, predictions then optional
UNLABELED = "unlabeled_predictions"  # a judge's labels on new data: a list, or a JSON object of models' labels

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



def optional_csv_columns(metric) -> List[str]:
    """The CSV columns besides predictions and references that the module takes."""
    return [name for name in SAMPLE_COLUMNS + (BASELINE,) + _JUDGE_COLUMNS if name in getattr(metric, "INPUTS", ("sample_weight",))]


def judges_csv_note(metric) -> str:
    """The upload help's sentence on a CSV of judges, for a module that ranks them (``judges``)."""
    if JUDGES not in getattr(metric, "INPUTS", ()):
        return ""
    return (" To rank several judges on one golden set, upload `references` and one column per judge, named after "
            "the judge (any other name; `sample_weight` and `clusters` keep their meaning), without a `predictions` "
            "column: e.g. `references,gpt,llama,rules`. A judge's column holds its labels, in the references' "
            "classes; the page shows the ranking as a table and a forest plot.")


def unlabeled_csv_note(metric) -> str:
    if "unlabeled_predictions" not in getattr(metric, "INPUTS", ()):
        return ""
    return (" The judge's labels on unlabeled data go in a column `unlabeled_predictions` of any length: "
            "leave its cell empty on golden rows it has no value for, and the golden cells empty on rows that hold "
            "only an unlabeled label.")



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


