"""One control per argument of a metric module, described by the module's own argument docs.

``Flag`` (checkbox), ``Choice`` (dropdown), ``Value`` (one JSON value or text), ``Values``
(a list), ``SecondPredictions`` (a second predictions box, for ``baseline_predictions``),
``JudgeLabels`` and ``UnlabeledLabels`` (a JSON object of labels, or for the latter a list);
``default_options`` builds them from a module's ``OPTIONS`` and ``INPUTS``, shown as
``presentation.py`` says. Part of the Space app (``space_app.py``).
"""

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence


from .parsing import BASELINE
from .parsing import JUDGES
from .parsing import UNLABELED
from .parsing import MAX_OPTION_CHARS
from .parsing import InputError
from .parsing import parse_values
from .presentation import Presentation
from .presentation import find_presentation


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


def shorten(text: str, limit: int = 160) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + " …"


def short_help(described: str, limit: int = 90) -> str:
    """A control's one-line help from its argument's docs (``describe_arguments``): the
    description's first sentence (two if the first is very short) without the leading
    ``(type, default)``, which the control and its placeholder already show, at most
    ``limit`` characters; the card has the rest.

    >>> short_help('(int, optional): seed of the generator, for reproducible intervals. Default None.')
    'seed of the generator, for reproducible intervals.'
    >>> short_help('(bool, defaults to False): also return `classes` and `support`; nothing else.')
    'also return `classes` and `support`.'
    >>> short_help('(float): binary only. A number turns scores into labels. Default None.')
    'binary only. A number turns scores into labels.'
    >>> short_help('(float in (0, 1), optional): e.g. 0.95 adds an interval (i.e. a range). Default None.')
    'e.g. 0.95 adds an interval (i.e. a range).'
    """
    text = re.sub(r"\s+", " ", described).strip()
    if text.startswith("("):  # the type, whose parentheses may nest: "(float in (0, 1), optional):"
        end = closing_parenthesis(text)
        text = text[end + 1 :].lstrip(":").strip()
    depth = 0
    for end, character in enumerate(text):
        depth += {"(": 1, ")": -1}.get(character, 0)
        ends = character in ".;" and text[end + 1 : end + 2] in (" ", "") and not text[: end + 1].endswith(("e.g.", "i.e."))
        if depth == 0 and ends and end >= 30:  # a sentence too short to help ("binary only.") takes the next too
            return shorten(text[:end] + ".", limit)
    return shorten(text, limit)


def closing_parenthesis(text: str) -> int:
    """The index of the parenthesis that closes the one ``text`` opens with (its last index if none)."""
    depth = 0
    for end, character in enumerate(text):
        depth += {"(": 1, ")": -1}.get(character, 0)
        if depth == 0:
            return end
    return len(text) - 1


@dataclass
class Control:
    """One keyword argument of ``compute`` shown as a control; ``info`` defaults to its docs.

    ``group``: the tab of the Options panel it is shown in (``presentation.GROUPS``).
    """

    name: str
    info: Optional[str] = None
    group: str = "basic"

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
class Flag(Control):
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
class Choice(Control):
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
class Value(Control):
    """A single value typed as JSON (``3``, ``-100``, ``0.5``, ``[1, 2]``) or a bare word (``auto``).

    ``maximum`` caps a number the page accepts (e.g. resamples: the cost of one request).
    ``percent``: a number followed by ``%`` is a share (``95%`` is 0.95), as people write a
    confidence level. ``mapping``: a JSON object is passed on too (a value per judge, e.g.
    ``{"scores": "auto"}``); whether the module takes one is the module's check to say.
    """

    placeholder: str = ""
    maximum: Optional[float] = None
    percent: bool = False
    mapping: bool = False

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
        if self.percent and text.endswith("%"):
            try:
                return float(text[:-1].strip()) / 100
            except ValueError:
                raise InputError(f"{self.name}: expected a number such as 0.95 or 95%, found {text[:80]!r}.") from None
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            if text[0] in "[{\"":
                raise InputError(f"{self.name}: not valid JSON: {text[:80]!r}.") from None
            value = text  # a bare word such as auto or unsafe
        if isinstance(value, dict) and not self.mapping:
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
class Values(Control):
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



@dataclass
class JudgeLabels(Values):
    """``judges``: a JSON object from each judge's name to its labels (a list, parsed like predictions)."""

    def parse(self, raw):
        text = (raw or "").strip()
        if not text:
            return _OMITTED
        if not text.startswith("{"):
            raise InputError(f'{self.name}: expected a JSON object of judges, e.g. {{"gpt": [0, 1], "llama": [1, 1]}}, found {text[:40]!r}.')
        try:
            judges = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as error:
            raise InputError(f"{self.name}: not a valid JSON object ({error}).") from None
        return {name: parse_values(json.dumps(labels), f"{self.name}[{name!r}]") for name, labels in judges.items()}


@dataclass
class UnlabeledLabels(Values):
    """``unlabeled_predictions``: the judge's labels on new data (a list, parsed like predictions), or a
    JSON object from each evaluated model's name to them (several models through one judge)."""

    def parse(self, raw):
        text = (raw or "").strip()
        if not text.startswith("{"):
            return super().parse(raw)
        try:
            models = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as error:
            raise InputError(f"{self.name}: not a valid JSON object ({error}).") from None
        return {name: parse_values(json.dumps(labels), f"{self.name}[{name!r}]") for name, labels in models.items()}


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



def module_arguments(metric) -> Dict[str, Any]:
    """``{argument: default}`` for the options of a module's ``compute``: its declared
    ``OPTIONS`` and per-sample ``INPUTS`` (such as ``sample_weight``, default None)."""
    return {**{name: option.default for name, option in metric.OPTIONS.items()}, **{name: None for name in metric.INPUTS}}


def default_options(metric) -> List[Control]:
    """One control per argument of the module (``module_arguments``), in the page's order.

    The kind comes from the module: a checkbox for a flag (a boolean default), a dropdown
    for a check with choices, a list box for an input; the rest (placeholder, cap, percent,
    order) from ``presentation.py``.
    """
    placed = []
    for position, (name, default) in enumerate(module_arguments(metric).items()):
        place, shown = find_presentation(name, metric.name)
        option = metric.OPTIONS.get(name)
        control = argument_control(name, default, option.check if option else None, shown)
        placed.append(((place is None, position if place is None else place), control))
    return [control for _, control in sorted(placed, key=lambda item: item[0])]


def argument_control(name: str, default: Any, check: Optional[Callable[[Any, str], Any]], shown: Presentation) -> Control:
    """The control of one argument; ``check`` is its option's check (None for an input)."""
    group = shown.group
    if isinstance(default, bool):
        return Flag(name, group=group, default=default)
    if name == BASELINE:
        return SecondPredictions(name, group=group, placeholder=shown.placeholder)
    if name == JUDGES:
        return JudgeLabels(name, group=group, placeholder=shown.placeholder)
    if name == UNLABELED:
        return UnlabeledLabels(name, group=group, placeholder=shown.placeholder)
    choices = offered_choices(name, default, check, shown) if check is not None else {}
    if choices:
        return Choice(name, group=group, choices=choices)
    placeholder = shown.placeholder or ("default" if default is None else f"default: {default!r}")
    if check is None or shown.listed:
        return Values(name, group=group, placeholder=placeholder)
    return Value(name, group=group, placeholder=placeholder, maximum=shown.maximum, percent=shown.percent,
                 mapping=shown.mapping)


def offered_choices(name: str, default: Any, check: Callable[[Any, str], Any], shown: Presentation) -> Dict[str, Any]:
    """A dropdown's ``{text: value}``, or {} for no dropdown: the choices of a ``choice(...)``
    check, else the presentation's candidates the check accepts. The default comes first:
    the control starts on it (``Choice.default_shown``)."""
    values = getattr(check, "choices", None)
    if values is None:
        values = [value for value in shown.candidates if accepts(check, value, name)]
    if not values:
        return {}
    choices = {shown.none_text if value is None else str(value): value for value in values}
    first = Choice(name, choices=choices).shown(default)  # raises if the default is not offered
    return {first: choices[first], **{text: value for text, value in choices.items() if text != first}}


def accepts(check: Callable[[Any, str], Any], value: Any, name: str) -> bool:
    try:
        check(value, name)
    except (TypeError, ValueError):
        return False
    return True


def parse_option_values(options: Sequence[Control], raw_values: Sequence[Any]) -> Dict[str, Any]:
    parsed = {}
    for option, raw in zip(options, raw_values):
        value = option.parse(raw)
        if value is not _OMITTED:
            parsed[option.name] = value
    return parsed

