"""Shared by the robustness tests (issue 9): hypothesis profiles and the outcome contract.

Profiles (``HYPOTHESIS_PROFILE`` selects one; the default is "ci", also under CI=true):

* ``ci``: 2,000 examples per fuzzed module, no deadline (a loaded 2-core runner must not
  turn a slow example into a failure; hangs are caught by ``no_hang`` instead), no example
  database (nothing written into the checkout);
* ``thorough``: 20,000 examples per module, the example database under ``.hypothesis/``
  (git-ignored) so failures found locally are replayed first.

The contract every call of a metric must keep (``check_call``): it returns plain-Python,
JSON-serialisable values inside the metric's range (NaN only with a ``reason``), or raises
``ValueError``/``TypeError`` naming the argument and saying what was expected or found.
Nothing else: no other exception, no warning but the documented ones
(``DOCUMENTED_WARNINGS``), no hang.
"""

import contextlib
import json
import math
import os
import re
import signal
import warnings
from typing import Any, Callable, Dict, Iterable, Optional, Tuple

from hypothesis import HealthCheck, Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from shared.tooling.modules import MODULES

FUZZ_EXAMPLES = {"ci": 2_000, "thorough": 20_000}

_COMMON = dict(
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile("ci", max_examples=FUZZ_EXAMPLES["ci"], database=None, **_COMMON)
settings.register_profile(
    "thorough",
    max_examples=FUZZ_EXAMPLES["thorough"],
    database=DirectoryBasedExampleDatabase(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".hypothesis")),
    **_COMMON,
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE not in FUZZ_EXAMPLES:
    raise RuntimeError(f"HYPOTHESIS_PROFILE: expected one of {sorted(FUZZ_EXAMPLES)}, found {PROFILE!r}.")
settings.load_profile(PROFILE)


def scaled(examples: int) -> int:
    """``examples`` under "ci", ten times as many under "thorough"."""
    return examples * (FUZZ_EXAMPLES[PROFILE] // FUZZ_EXAMPLES["ci"])


# ----------------------------------------------------------------------------------------
# No hang, no warning
# ----------------------------------------------------------------------------------------


class Hang(Exception):
    """A call took longer than any input of the fuzzed sizes can justify."""


@contextlib.contextmanager
def no_hang(seconds: float = 30.0):
    """Raise ``Hang`` if the block runs longer than ``seconds`` (main thread, POSIX)."""

    def _alarm(signum, frame):
        raise Hang(f"call still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# The warnings the contract allows, both documented UserWarnings (the message starts with
# these words): balanced accuracy's report of a class without references that it leaves
# out of the average (scikit-learn warns likewise), and the note that a reference value
# that looks like padding (-100, or 255 in uint8 references) is counted as a class
# without ignore_index (issue 26; balanced_accuracy and informedness, once per compute), and
# an interval resting on fewer than 10 clusters (issue 25: each multilabel sample is one);
# issue 33: informedness's report of a class without references (balanced accuracy's rule),
# and an interval NaN because add_batch did not count the clusters of N-d batches; and a
# value computed on a single sample (a per-document call, see docs/harnesses.md).
DOCUMENTED_WARNINGS = (
    "Recall is undefined for class",
    "Informedness is undefined for class",
    r"references: (-100|255) looks like padding \(.*\): pass ignore_index=(-100|255) to drop those samples\.",
    r"clusters: the interval rests on \d+ clusters \(fewer than 10\)",
    r"clusters: the interval is NaN \(reason 'clusters_not_counted'\)",
    r"\w+: computed on a single item",
)


@contextlib.contextmanager
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in DOCUMENTED_WARNINGS:
            warnings.filterwarnings("ignore", message=message, category=UserWarning)
        yield


# ----------------------------------------------------------------------------------------
# The contract
# ----------------------------------------------------------------------------------------

# The range of each module's values, and the result keys that hold them (values, their
# intervals, per-class lists; with k_list also dicts {k: value}). Other keys (supports,
# classes, thresholds, names) are only checked to be plain Python.
RANGES: Dict[str, Tuple[float, float]] = {entry.name: entry.value_range for entry in MODULES}
# The keys that hold them: the registry's ``ranged_keys`` (none given: its value and its interval).
RANGED_KEYS = {entry.name: re.compile(entry.ranged_keys or rf"^{re.escape(entry.value_key)}(_ci)?$") for entry in MODULES}
# With adjusted=True balanced accuracy is (BA - 1/K) / (1 - 1/K), in [-1/(K-1), 1].
ADJUSTED_RANGE = (-1.0, 1.0)
# A NaN value must come with one of these keys saying why: "reason" for a module's value (keyed
# by its value key), "markedness_reason" for informedness's markedness.
REASON_KEYS = {**{entry.value_key: "reason" for entry in MODULES}, "markedness": "markedness_reason"}
_PLAIN = (bool, int, float, str)


def assert_plain(value: Any, where: str = "result", keys: tuple = (str, int), values: tuple = _PLAIN) -> None:
    """Plain Python all the way down: dict/list/str/int/float/bool (no NumPy, no tuples).

    ``keys`` and ``values`` narrow the types allowed for dict keys and for the leaves (e.g.
    ``keys=(str,)`` for a result whose keys are all names).
    """
    if isinstance(value, dict):
        for key, item in value.items():
            assert type(key) in keys, f"{where}: key {key!r} of type {type(key).__name__}"
            assert_plain(item, f"{where}[{key!r}]", keys, values)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            assert_plain(item, f"{where}[{index}]", keys, values)
    else:
        assert type(value) in values, f"{where}: {value!r} is a {type(value).__module__}.{type(value).__name__}"


def _floats(value: Any) -> Iterable[float]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _floats(item)
    elif isinstance(value, list):
        for item in value:
            yield from _floats(item)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield float(value)


def _intervals(value: Any) -> Iterable[list]:
    """[low, high] pairs of an interval key (a pair, or a dict {k: pair})."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _intervals(item)
    else:
        yield value


def check_result(name: str, result: Any, adjusted: bool = False) -> None:
    """A returned result keeps the contract (plain, JSON-serialisable, in range, NaN explained)."""
    assert isinstance(result, dict), f"expected a dict, found {type(result).__name__}"
    assert_plain(result)
    json.loads(json.dumps(result))  # JSON round trip (NaN/inf are written as in Python's json)
    for key, value in result.items():
        if not RANGED_KEYS[name].match(str(key)):
            continue
        low, high = ADJUSTED_RANGE if adjusted and key.startswith("balanced_accuracy") else RANGES[name]
        for number in _floats(value):
            assert math.isnan(number) or low <= number <= high, f"{key} = {number!r} outside [{low}, {high}]"
        if key.endswith("_ci"):
            for pair in _intervals(value):
                assert isinstance(pair, list) and len(pair) == 2, f"{key} = {pair!r}"
                assert (math.isnan(pair[0]) and math.isnan(pair[1])) or pair[0] <= pair[1], f"{key} = {pair!r}"
    for key, reason_key in REASON_KEYS.items():
        if key in result and any(math.isnan(number) for number in _floats(result[key])):
            assert isinstance(result.get(reason_key), str) and result[reason_key], f"{key} is NaN without a {reason_key!r}"


# Messages that name no argument but are still a clear answer to a call.
_NAMED = re.compile(r"^(?P<names>[A-Za-z_`]+(?: and [A-Za-z_`]+)?)(?: \(.*?\))?: ")


def check_error(error: BaseException, argument_names: Iterable[str]) -> None:
    """A ValueError/TypeError whose message names an argument and says what was expected/found."""
    message = str(error)
    assert isinstance(error, (ValueError, TypeError)), f"{type(error).__name__}: {message}"
    match = _NAMED.match(message)
    assert match, f"the message names no argument: {message!r}"
    known = set(argument_names) | {"predictions", "references"}
    named = {name.strip("`") for name in match.group("names").split(" and ")}
    assert named <= known, f"the message names {sorted(named)}, not an argument of the call ({sorted(known)}): {message!r}"
    lowered = message.lower()
    assert "expected" in lowered or "found" in lowered, f"the message says neither what was expected nor found: {message!r}"


def argument_names(metric) -> set:
    """The keyword arguments ``compute`` of a loaded module takes: its declared options and
    per-sample inputs (modules on the counts core), or its ``_reduce`` parameters."""
    if getattr(metric, "OPTIONS", None):
        return set(metric.OPTIONS) | set(metric.INPUTS) | {"predictions", "references", "confusion_matrix"}
    import inspect

    return set(inspect.signature(metric._reduce).parameters) - {"self"}


def adjusted_flag(call_kwargs: Dict[str, Any]) -> bool:
    """Whether a call asks for adjusted balanced accuracy (what ``check_flag`` takes for True)."""
    flag = call_kwargs.get("adjusted")
    return not isinstance(flag, float) and type(flag).__name__ != "float64" and flag in (True, 1)


def check_call(name: str, call: Callable[[], Any], argument_names: Iterable[str], adjusted: bool = False,
               seconds: float = 30.0) -> Tuple[str, Optional[BaseException]]:
    """Run ``call`` under the contract; returns ("ok", None) or ("error", the error)."""
    try:
        with no_hang(seconds), warnings_are_errors():
            result = call()
    except (ValueError, TypeError) as error:
        check_error(error, argument_names)
        return "error", error
    check_result(name, result, adjusted=adjusted)
    return "ok", None
