"""Options: every keyword a module takes, checked before any data is touched.

A module declares its options once, as ``{name: Option(default, check)}``. ``resolve``
merges the defaults, the values given to ``evaluate.load`` (load-time defaults) and those
given to ``compute`` (which win), rejects unknown names, and runs every check. A check
looks at the option alone (its type and form); what depends on the data (a class index
inside the number of classes, a ``k`` at most the number of score columns) is checked
where the data is known, with the same kind of message.

Every check raises ``TypeError`` (wrong type) or ``ValueError`` (wrong value) whose
message starts with the option's name and says what was expected and what was found.
"""

import difflib
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Sequence

import numpy as np

from ..stats.vocabulary import CI_METHODS
from ..stats.vocabulary import RATE_CI_METHODS
from ..stats.vocabulary import check_confidence_level
from ..stats.vocabulary import check_n_resamples
from ..stats.vocabulary import check_seed

@dataclass(frozen=True)
class Option:
    """One keyword option: its default and ``check(value, name) -> checked value``."""

    default: Any
    check: Callable[[Any, str], Any]


class ResolvedOptions(Mapping):
    """Every option of a module, resolved once and checked: a frozen mapping (``options["seed"]``).

    Built by ``resolve`` from the module's ``OPTIONS``, so each default lives in one place; a
    reduction reads it and neither re-checks an option nor falls back to a literal.
    ``replace(name=value)`` gives a changed copy (the baseline's own-only options, say).
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]):
        object.__setattr__(self, "_values", dict(values))

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{name}: resolved options are frozen; use replace({name}=...) for a changed copy.")

    def __reduce__(self):
        return ResolvedOptions, (self._values,)

    def replace(self, **changes: Any) -> "ResolvedOptions":
        return ResolvedOptions({**self._values, **changes})

    def __repr__(self) -> str:
        return f"ResolvedOptions({self._values!r})"


def resolve(specs: Mapping[str, Option], given: Mapping[str, Any], defaults: Mapping[str, Any], owner: str,
            data: Sequence[str] = ()) -> ResolvedOptions:
    """Every option of ``specs``, checked, frozen: ``given`` wins over ``defaults``, which win over the declared default.

    ``data``: the owner's data arguments (predictions, references, ...), listed with the
    options when a name is unknown.

    Examples
    --------
    >>> specs = {"adjusted": Option(False, check_flag), "zero_division": Option("skip", check_zero_division)}
    >>> resolve(specs, {"zero_division": 0}, {"adjusted": True}, "balanced_accuracy")
    ResolvedOptions({'adjusted': True, 'zero_division': 0.0})
    >>> resolve(specs, {"ajusted": True}, {}, "balanced_accuracy", data=("predictions", "references"))
    Traceback (most recent call last):
    ...
    TypeError: ajusted: expected an argument of balanced_accuracy (data: predictions, references; options: adjusted, zero_division), found an unknown argument. Did you mean `adjusted`?
    """
    check_names(specs, given, owner, data)
    return ResolvedOptions({name: spec.check(given.get(name, defaults.get(name, spec.default)), name) for name, spec in specs.items()})


# Arguments that only one module takes: another module's unknown-argument error names it
# (the corrected prevalence of a judge's labels lives in informedness, not balanced_accuracy).
ARGUMENTS_ELSEWHERE = {
    **{name: ("informedness", "the corrected prevalence of a judge's labels on unlabeled data") for name in (
        "unlabeled_predictions", "unlabeled_baseline_predictions", "prevalence_method", "reference_model")},
    "groups": ("informedness", "the judge's rates per group of golden items"),
}


def did_you_mean(name: str, candidates: Sequence[str]) -> str:
    """`` Did you mean `x`?`` for the candidate closest to ``name`` (a typo, ``reference`` for
    ``references``), or ""; for an argument that only another module takes, that module's name instead.

    >>> print(did_you_mean("unlabeled_predictions", ["predictions", "baseline_predictions"]).strip())
    `unlabeled_predictions` is an argument of the informedness module (evaluate.load("informedness")), which gives the corrected prevalence of a judge's labels on unlabeled data.
    >>> did_you_mean("unlabelled_predictions", ["predictions", "unlabeled_predictions"]), did_you_mean("xyz", ["seed"])
    (' Did you mean `unlabeled_predictions`?', '')
    """
    if name in ARGUMENTS_ELSEWHERE and name not in candidates:
        module, what = ARGUMENTS_ELSEWHERE[name]
        return f" `{name}` is an argument of the {module} module (evaluate.load(\"{module}\")), which gives {what}."
    closest = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" Did you mean `{closest[0]}`?" if closest else ""


def check_names(specs: Mapping[str, Option], given: Mapping[str, Any], owner: str, data: Sequence[str] = ()) -> None:
    """Raise ``TypeError`` naming the first argument that is not an option of ``owner`` (e.g. a typo):
    the message lists every argument (``data`` ones first) and suggests the closest."""
    unknown = [name for name in given if name not in specs]
    if unknown:
        listed = (f"data: {', '.join(data)}; options: " if data else "") + ", ".join(specs)
        raise TypeError(f"{unknown[0]}: expected an argument of {owner} ({listed}), found an unknown argument."
                        + did_you_mean(unknown[0], [*data, *specs]))


# ----------------------------------------------------------------------------------------
# Checks of one option
# ----------------------------------------------------------------------------------------


def check_flag(value: Any, name: str) -> bool:
    """A yes/no option: ``True``/``False`` (NumPy booleans and the integers 0 and 1 too)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{name}: expected True or False, found {value!r}.")


def choice(*choices: Any) -> Callable[[Any, str], Any]:
    """A check accepting exactly one of ``choices`` (None among them if it is allowed)."""

    def check(value: Any, name: str) -> Any:
        if value is None and None in choices:
            return None
        if not isinstance(value, str) or value not in choices:
            shown = tuple(c for c in choices if c is not None)
            suffix = " or None" if None in choices else ""
            raise ValueError(f"{name}: expected one of {shown}{suffix}, found {value!r}.")
        return value

    check.choices = choices  # what a Space offers in the option's dropdown
    return check


def check_label_value(value: Any, name: str, example: str = "such as 1", allow_bool: bool = False) -> Any:
    """One class label: an integer or a string. Integral floats (-100.0) become integers;
    ``allow_bool`` lets True/False stand for 1/0."""
    expected = f"{name}: expected one label value (an integer {example}, or a string)"
    if isinstance(value, (str, np.str_)):
        return str(value)
    is_bool = isinstance(value, (bool, np.bool_))
    if (is_bool and not allow_bool) or not (is_bool or isinstance(value, (numbers.Real, np.floating))):
        raise TypeError(f"{expected}, found {value!r}.")
    if is_bool or isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if not (math.isfinite(value) and float(value).is_integer()):
        # Labels are integers or strings: such a value could match no label.
        raise ValueError(f"{expected}, found {value!r}.")
    return int(value)


def check_ignore_index(value: Any, name: str) -> Any:
    """``None``, or the one label value (an integer or a string) whose samples are dropped.

    Examples
    --------
    >>> check_ignore_index(-100.0, "ignore_index"), check_ignore_index("pad", "ignore_index")
    (-100, 'pad')
    >>> check_ignore_index([-100], "ignore_index")
    Traceback (most recent call last):
    ...
    TypeError: ignore_index: expected one label value (an integer such as -100, or a string), found [-100].
    """
    return None if value is None else check_label_value(value, name, "such as -100")


def check_pos_label(value: Any, name: str) -> Any:
    return None if value is None else check_label_value(value, name, "such as 1", allow_bool=True)


def check_num_classes(value: Any, name: str) -> Optional[int]:
    """None or a positive integer."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name}: expected a positive integer, found {value!r}.")
    if value < 1:
        raise ValueError(f"{name}: expected a positive integer, found {value!r}.")
    return int(value)


def _as_list(value: Any, name: str, what: str) -> list:
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise TypeError(f"{name}: expected a list of {what}, found {type(value).__name__}.")
    return np.asarray(value).tolist() if isinstance(value, np.ndarray) else list(value)


def check_labels(value: Any, name: str) -> Optional[list]:
    """None or a non-empty list of distinct class values, all integers or all strings."""
    if value is None:
        return None
    values = [check_label_value(item, name, "such as 0") for item in _as_list(value, name, "class values")]
    if not values:
        raise ValueError(f"{name}: expected a non-empty list of class values, found an empty list.")
    if len({type(item) for item in values}) > 1:
        raise TypeError(f"{name}: expected class values of one type, found a mix of strings and integers {values[:5]}.")
    out_of_range = [item for item in values if isinstance(item, int) and not -(2**63) <= item < 2**63]
    if out_of_range:  # integer labels are int64: no label can equal such a value
        raise ValueError(f"{name}: expected integer class values within int64 (-2**63 to 2**63 - 1), found {out_of_range[0]!r}.")
    if len(set(values)) != len(values):
        duplicates = sorted({item for item in values if values.count(item) > 1}, key=str)
        raise ValueError(f"{name}: expected distinct values, found duplicates {duplicates[:5]}.")
    return values


def check_class_mask(value: Any, name: str) -> Optional[np.ndarray]:
    """None or class indices (integers); their range is checked once the classes are known."""
    if value is None:
        return None
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = [value]
    items = _as_list(value, name, "class indices (integers)")
    integer = (numbers.Integral, np.integer)
    bad = [item for item in items if isinstance(item, (bool, np.bool_)) or not isinstance(item, integer)]
    if bad:
        raise TypeError(f"{name}: expected class indices (integers), found {bad[0]!r}.")
    out_of_range = [item for item in items if not -(2**63) <= int(item) < 2**63]
    if out_of_range:  # no class index can be that large (or small)
        raise ValueError(f"{name}: expected class indices (non-negative integers below 2**63), found {out_of_range[0]!r}.")
    return np.unique(np.asarray(items, dtype=np.int64))


def check_zero_division(value: Any, name: str) -> Any:
    if isinstance(value, str) and value == "skip":
        return value
    if isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_)) and value in (0, 1):
        return float(value)
    raise ValueError(f"{name}: expected 'skip', 0.0 or 1.0, found {value!r}.")


def check_informedness_zero_division(value: Any, name: str) -> Any:
    """``"skip"`` or 0.0: informedness takes no other value for an undefined class.

    A class's J is undefined when the class is absent from the references (no TPR) or is
    all of them (no FPR). Predicting an absent class is a guess, and J = 0 is what a guess
    earns; any other fixed value would reward it (with 1.0, a class only ever predicted
    would count as perfectly informed, weighted by how often it is predicted).
    """
    if isinstance(value, str) and value == "skip":
        return value
    if isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_)) and value == 0:
        return 0.0
    hint = " (1.0 would reward predicting a class absent from the references)" if (
        isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_)) and value == 1) else ""
    raise ValueError(f"{name}: expected 'skip' or 0.0 for informedness{hint}, found {value!r}.")


def check_threshold(value: Any, name: str) -> Any:
    """``None``, ``"auto"`` or a number: any finite score, or +inf (nothing positive, as ``"auto"`` may return).

    A sample is positive iff its score >= the threshold, the rule ``"auto"`` tunes with, so
    a threshold tuned on one split's logits or judge scores applies as it is to another
    split's. Whether the number fits the scores (a threshold above 1 for probabilities
    is surely a mistake) is checked where the scores are read (``thresholds.check_threshold_scale``).

    Examples
    --------
    >>> check_threshold(0.5, "threshold"), check_threshold(6.5, "threshold"), check_threshold(-1.41, "threshold")
    (0.5, 6.5, -1.41)
    >>> check_threshold(float("nan"), "threshold")
    Traceback (most recent call last):
    ...
    ValueError: threshold: expected a number (a finite score, or inf for nothing positive) or 'auto', found nan.
    """
    expected = "a number (a finite score, or inf for nothing positive) or 'auto'"
    if value is None or (isinstance(value, str) and value == "auto"):
        return value
    if isinstance(value, str):
        raise ValueError(f"{name}: expected {expected}, found {value!r}.")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name}: expected {expected}, found {type(value).__name__}.")
    if math.isnan(value) or value == -math.inf:
        raise ValueError(f"{name}: expected {expected}, found {float(value)!r}.")
    return float(value)


_ci_method_choice = choice(None, *CI_METHODS)
_rate_ci_method_choice = choice(None, *RATE_CI_METHODS)


def check_ci_method(value: Any, name: str = "ci_method") -> Optional[str]:
    """None (the module's default method), or one of ``CI_METHODS``."""
    return _ci_method_choice(value, name)


def check_rate_ci_method(value: Any, name: str = "ci_method") -> Optional[str]:
    """None, or one of ``RATE_CI_METHODS`` (the methods of a mean of independent rates).

    Examples
    --------
    >>> check_rate_ci_method("delta")
    Traceback (most recent call last):
    ...
    ValueError: ci_method: expected one of ('score', 'agresti_coull', 'wilson', 'bootstrap') or None, found 'delta'.
    """
    return _rate_ci_method_choice(value, name)


# The estimators of a prevalence corrected for a judge's errors (informedness's
# unlabeled_predictions): Rogan-Gladen / adjusted classify and count (the judge's rates
# transfer from the golden set; prior shift allowed), or PPI++ (the golden set is a random
# sample of the new data).
PREVALENCE_METHODS = ("rogan_gladen", "ppi")
_prevalence_method_choice = choice(*PREVALENCE_METHODS)


def check_prevalence_method(value: Any, name: str = "prevalence_method") -> str:
    """One of ``PREVALENCE_METHODS`` (``"rogan_gladen"`` is the module's default).

    Examples
    --------
    >>> check_prevalence_method("ppi")
    'ppi'
    >>> check_prevalence_method("bayes")
    Traceback (most recent call last):
    ...
    ValueError: prevalence_method: expected one of ('rogan_gladen', 'ppi'), found 'bayes'.
    """
    return _prevalence_method_choice(value, name)


def check_optional_n_resamples(value: Any, name: str = "n_resamples") -> Optional[int]:
    """None (the module chooses: see ``binomial.auto_resamples``), or ``check_n_resamples``."""
    return None if value is None else check_n_resamples(value, name)


def interval_options(ci_methods: tuple = RATE_CI_METHODS) -> Dict[str, Option]:
    """The options every module's confidence interval takes; ``ci_method`` one of ``ci_methods`` (or None)."""
    return {
        "confidence_level": Option(None, check_confidence_level),
        "ci_method": Option(None, choice(None, *ci_methods)),
        "n_resamples": Option(10_000, check_n_resamples),
        "seed": Option(None, check_seed),
    }


ZERO_DIVISION_DOC = """zero_division ("skip", 0.0 or 1.0, defaults to "skip"): a class with no
        reference samples has no recall. "skip" leaves it out of the average (as
        scikit-learn does) and reports NaN for it in per-class outputs; a number is used as
        its value and it is averaged like the others."""

LOAD_TIME_DOC = """Every option may also be given to `evaluate.load(...)`, where it sets the default for
`compute` (a value given to `compute` wins); an unknown option is an error there too."""
