"""The vocabulary of intervals every layer checks its arguments with: the ``ci_method`` names and
the checks of ``confidence_level``, ``n_resamples`` and ``seed``.

It sits in ``stats/``, the lowest layer that uses it (``binomial.py``; above it ``judges/`` and
``metrics/``), so that no import runs up the layers; ``glue/options.py`` builds the
modules' options from it (``interval_options``), so a value is refused with the same message
wherever it is given. Every check raises ``TypeError`` (wrong type) or ``ValueError`` (wrong
value) whose message starts with the argument's name.
"""

import numbers
from typing import Any, Optional

import numpy as np


def check_confidence_level(value: Any, name: str = "confidence_level") -> Optional[float]:
    """None, or a number strictly between 0 and 1."""
    if value is None:
        return None
    if isinstance(value, str):  # e.g. "95%" or "0.95" typed as text
        raise TypeError(f"{name}: expected a number in (0, 1) such as 0.95, found the string {value!r}.")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name}: expected a number in (0, 1) such as 0.95, found {type(value).__name__}.")
    if not 0.0 < float(value) < 1.0:
        raise ValueError(f"{name}: expected a number in (0, 1) such as 0.95, found {value!r}.")
    return float(value)


CI_METHODS = ("score", "agresti_coull", "wilson", "bootstrap", "delta")
# A mean of independent rates (balanced accuracy, top-k, multilabel) has no "delta": its delta
# method is the Wald interval, which collapses to a point for a class with all or none correct.
RATE_CI_METHODS = ("score", "agresti_coull", "wilson", "bootstrap")


# More resamples than this change no percentile visibly and only cost memory and time.
MAX_RESAMPLES = 1_000_000


def check_n_resamples(value: Any, name: str = "n_resamples") -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name}: expected a positive integer, found {type(value).__name__}.")
    if not 1 <= value <= MAX_RESAMPLES:
        raise ValueError(f"{name}: expected an integer in [1, {MAX_RESAMPLES:,}], found {value!r}.")
    return int(value)


def check_seed(value: Any, name: str = "seed") -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)) or value < 0:
        raise TypeError(f"{name}: expected a non-negative integer or None, found {value!r}.")
    return int(value)
