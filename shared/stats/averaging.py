"""Averaging: which classes a metric averages, and how undefined ones count.

Every metric here ends in an average of per-class (or per-label) values. ``Averaging``
defines it once - the classes of ``class_mask``, what ``zero_division`` does with a class
whose value is undefined, the classes of a huge ``num_classes`` that are not materialised,
the chance correction of ``adjusted`` - and expresses it as a linear form

    value = sum_c coefficient_c * x_c + offset

so that the point value, the analytic interval (a MOVER interval of that same linear form
of independent rates) and the bootstrap (the same form applied to every resample, over any
leading axes) cannot disagree about which classes count, with what weight, or why a value
is undefined (``reason``).
"""

import math
import warnings
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from ..counting.inputs import describe_values
from ..counting.labels import typo_note
from ..counting.labels import user_stacklevel


@dataclass(frozen=True)
class Averaging:
    """How per-class values become one value (see the module doc).

    ``num_classes``: the materialised classes (the last axis of per-class arrays);
    ``selected``: the positions averaged (None: all); ``unobserved``: selected classes
    beyond the materialised ones (a ``num_classes`` too large to materialise), which have
    no samples; ``zero_division``: "skip" leaves an undefined class out, a number is its
    value; ``adjusted``: the chance-corrected ``(mean - 1/K) / (1 - 1/K)`` of balanced
    accuracy, K the number of classes averaged.
    """

    num_classes: int
    selected: Optional[np.ndarray] = None
    unobserved: int = 0
    zero_division: Any = "skip"
    adjusted: bool = False

    @classmethod
    def over(cls, num_classes: int, class_mask: Optional[np.ndarray] = None, zero_division: Any = "skip",
             adjusted: bool = False, observed: Optional[np.ndarray] = None, unobserved: int = 0) -> "Averaging":
        """The averaging of ``class_mask`` (class indices, checked here against the classes).

        ``observed``/``unobserved``: when only the observed classes of a huge
        ``num_classes`` are materialised, ``observed`` holds their class indices (sorted)
        and ``unobserved`` how many more classes there are.

        Examples
        --------
        >>> averaging = Averaging.over(10**9, np.array([0, 7]), observed=np.array([3, 7]), unobserved=10**9 - 2)
        >>> averaging.selected.tolist(), averaging.unobserved, averaging.num_classes
        ([1], 1, 2)
        """
        total = num_classes if observed is None else len(observed) + unobserved
        if class_mask is not None and class_mask.size and (class_mask.min() < 0 or class_mask.max() >= total):
            bad = class_mask[(class_mask < 0) | (class_mask >= total)]
            raise ValueError(f"class_mask: expected indices in [0, {total - 1}], found {describe_values(bad)}.")
        if observed is None:
            return cls(num_classes, class_mask, 0, zero_division, adjusted)
        if class_mask is None:
            return cls(len(observed), None, unobserved, zero_division, adjusted)
        position = np.searchsorted(observed, class_mask)
        found = position < len(observed)
        found[found] = observed[position[found]] == class_mask[found]
        return cls(len(observed), position[found], int(class_mask.size - found.sum()), zero_division, adjusted)

    def _selected_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_classes, dtype=bool)
        mask[slice(None) if self.selected is None else self.selected] = True
        return mask

    def coefficients(self, defined: Any, class_weights: Any = None) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(coefficients, offset, count, weight_total)`` of the linear form, over any leading axes.

        ``defined`` (..., K): where the per-class value exists. ``class_weights`` (..., K):
        a weighted mean over the averaged classes, renormalised over them (None: a plain
        mean). ``count``: how many classes are averaged; where it is 0 (or the weights sum
        to 0) the value is undefined.
        """
        defined = np.asarray(defined, dtype=bool)
        selected = self._selected_mask()
        used = selected & defined
        fixed = np.zeros_like(used) if self.zero_division == "skip" else selected & ~defined
        extra = 0 if self.zero_division == "skip" else self.unobserved
        fixed_value = 0.0 if self.zero_division == "skip" else float(self.zero_division)
        count = used.sum(axis=-1) + fixed.sum(axis=-1) + extra
        if class_weights is None:
            share = 1.0 / np.maximum(count, 1)
            coefficients = np.where(used, share[..., None], 0.0)
            offset = (fixed.sum(axis=-1) + extra) * fixed_value * share
            weight_total = count.astype(np.float64)
        else:
            weights = np.broadcast_to(np.asarray(class_weights, dtype=np.float64), used.shape)
            averaged = used | fixed
            largest = np.where(averaged, weights, 0.0).max(axis=-1, initial=0.0)
            # Shares of the largest: weighted sums near float64's limit would overflow their total.
            weights = weights / np.where(largest > 0, largest, 1.0)[..., None]
            weight_total = np.where(averaged, weights, 0.0).sum(axis=-1)
            safe_total = np.where(weight_total > 0, weight_total, 1.0)
            coefficients = np.where(used, weights / safe_total[..., None], 0.0)
            offset = fixed_value * np.where(fixed, weights, 0.0).sum(axis=-1) / safe_total
        if self.adjusted:
            chance = 1.0 / np.maximum(count, 2)
            coefficients = coefficients / (1.0 - chance)[..., None]
            offset = (offset - chance) / (1.0 - chance)
        return coefficients, offset, count, weight_total

    def combine(self, values: Any, class_weights: Any = None) -> Tuple[np.ndarray, np.ndarray]:
        """The average of per-class ``values`` (..., K; NaN = undefined) and how many classes it averaged.

        Computed as a mean (or weighted mean) of the averaged values, with NumPy's own
        summation, as scikit-learn computes it: the same value to the last digit.

        Examples
        --------
        >>> value, count = Averaging(3).combine(np.array([0.5, np.nan, 1.0]))
        >>> float(value), int(count)
        (0.75, 2)
        >>> float(Averaging(3).combine(np.array([0.5, np.nan, 1.0]), class_weights=np.array([1.0, 5.0, 3.0]))[0])
        0.875
        >>> float(Averaging(3, zero_division=0.0).combine(np.array([0.5, np.nan, 1.0]))[0])
        0.5
        """
        values = np.asarray(values, dtype=np.float64)
        defined = ~np.isnan(values)
        selected = self._selected_mask()
        skip = self.zero_division == "skip"
        if not skip:  # an undefined class takes the value zero_division
            values, defined = np.where(defined, values, float(self.zero_division)), np.ones_like(defined)
        used = selected & defined
        extra = 0 if skip else self.unobserved
        if extra > np.iinfo(np.int64).max:  # num_classes may be any size (10**30): such a count is a float
            extra = float(extra)
        count = used.sum(axis=-1) + extra
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            if class_weights is None:  # 1-d: the values themselves, as np.mean sums them
                total = values[used].sum() if values.ndim == 1 else np.where(used, values, 0.0).sum(axis=-1)
                value = (total + extra * (0.0 if skip else float(self.zero_division))) / np.maximum(count, 1)
                weight_total = count
            else:
                weights = np.where(used, np.broadcast_to(np.asarray(class_weights, dtype=np.float64), used.shape), 0.0)
                weight_total = weights.sum(axis=-1)
                if np.isinf(weight_total).any():
                    # Weighted sums near float64's limit: their shares of the largest stay finite.
                    weights = weights / weights.max(axis=-1, keepdims=True)
                    weight_total = weights.sum(axis=-1)
                if values.ndim == 1:  # a dot product of the averaged classes, as NumPy's weighted mean
                    value = np.dot(weights[used], values[used]) / (weight_total if weight_total > 0 else 1.0)
                else:
                    value = (weights * np.where(used, values, 0.0)).sum(axis=-1) / np.where(weight_total > 0, weight_total, 1.0)
            if self.adjusted:
                chance = 1.0 / np.maximum(count, 2)
                value = (value - chance) / (1.0 - chance)
        undefined = (count == 0) | (np.asarray(weight_total) <= 0) | ((count == 1) & self.adjusted)
        return np.where(undefined, np.nan, value), count

    def reason(self, count: int, no_class_reason: str, value: float = 0.0) -> Optional[str]:
        """Why the average is NaN (None if it is not)."""
        if count == 0:
            return "empty_class_mask_after_filtering" if self.selected is not None else no_class_reason
        if count == 1 and self.adjusted:
            return "adjusted_needs_two_classes"
        if math.isnan(value):
            return "averaged_classes_have_zero_weight"
        return None


def class_indices(class_mask: Any) -> Optional[np.ndarray]:
    """``class_mask`` as an array of class indices (None: every class), unchecked: for functions of
    counts called directly, whose ``Averaging`` is built from it (``Averaging.over`` checks a module's)."""
    return None if class_mask is None else np.asarray(class_mask, dtype=np.intp)


def apply_zero_division(per_class: np.ndarray, zero_division: Any) -> np.ndarray:
    """Per-class values as reported: NaN (undefined) replaced by ``zero_division`` unless it is "skip"."""
    return per_class if zero_division == "skip" else np.where(np.isnan(per_class), zero_division, per_class)


def warn_classes_without_references(quantity: str, support: np.ndarray, predicted: np.ndarray, classes: np.ndarray,
                                    averaging: Averaging, binary: bool, rest: str) -> None:
    """Warn, as scikit-learn does, when an averaged class has predictions (or is a binary task's
    class) but no references: its per-class ``quantity`` ("Recall", "Informedness") is undefined
    and left out under zero_division="skip", so the value is that of the other classes (``rest``
    says what it then is). A predicted label that differs from a reference class only in case,
    spaces or separators is named as a probable typo. Under a numeric zero_division (the user's
    explicit choice) the caller does not call this."""
    absent = (support == 0) & ((predicted > 0) | binary) & averaging._selected_mask()
    if not absent.any():
        return
    names = classes[absent].tolist()
    shown = ", ".join(map(repr, names[:5])) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    warnings.warn(f"{quantity} is undefined for class {shown}: no reference samples. It is left out of the average "
                  f"(zero_division='skip'), {rest}; pass zero_division=0.0 to count it as 0.{typo_note(names, classes[support > 0])}",
                  UserWarning, stacklevel=user_stacklevel())
