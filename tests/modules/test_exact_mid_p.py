"""The exact stratified mid-p of a paired comparison against an independent enumeration.

The reference here never looks at the code under test: it lists the golden set's
discordant items one by one (where exactly one of the two systems is right), and
enumerates all 2^M ways of giving each of them to A or to B (under H0 both are equally
likely, independently), computing the statistic ``sum_r (b_r - d_r) / n_r`` in exact
fractions. The two-sided mid-p is ``min(1, 2 P(T > |t|) + P(T = |t|))``.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from conftest import load_module
from shared.tooling.modules import LABEL_MODULES
from shared.tooling.modules import module as registry_entry


def value_key(name):
    """The result key of the module's value (the registry's ``value_key``; a module's name need not be it)."""
    return registry_entry(name).value_key


# At most this many discordant items: 2^12 assignments, and every golden set stays on the
# module's exact path (at most 5,000 outcomes of the discordant counts).
MAX_DISCORDANT = 12


def enumerated_mid_p(references, a, b):
    references, a, b = (np.asarray(x) for x in (references, a, b))
    sizes = {c: int((references == c).sum()) for c in np.unique(references)}
    # One entry per discordant item: +1/n_r when A is the one right, -1/n_r when B is.
    items = [Fraction(1 if a[i] == references[i] else -1, sizes[references[i]])
             for i in range(len(references)) if (a[i] == references[i]) != (b[i] == references[i])]
    observed = abs(sum(items, Fraction(0)))
    magnitudes = [abs(item) for item in items]
    above = at = 0
    for signs in itertools.product((1, -1), repeat=len(items)):
        statistic = sum((sign * magnitude for sign, magnitude in zip(signs, magnitudes)), Fraction(0))
        above += statistic > observed
        at += statistic == observed
    return min(1.0, float(Fraction(2 * above + at, 2 ** len(items))))


def random_golden_set(rng, num_classes):
    """A small golden set (some classes of 1-12 items), two judges, few discordant items."""
    while True:
        sizes = rng.integers(1, 13, size=num_classes)
        references = np.repeat(np.arange(num_classes), sizes)
        a = np.where(rng.random(references.size) < 0.75, references, rng.integers(0, num_classes, references.size))
        b = np.where(rng.random(references.size) < 0.6, a, np.where(rng.random(references.size) < 0.7, references, rng.integers(0, num_classes, references.size)))
        discordant = int(((a == references) != (b == references)).sum())
        if 1 <= discordant <= MAX_DISCORDANT:
            return references, a, b


def test_the_issue_reproducer_gives_three_quarters():
    """Two classes of 4 and 3: T = +-1/8 +- 1/6 with probability 1/4 each; t = 1/8 - 1/6."""
    references, a, b = [0, 0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 0, 1, 0, 0]
    assert enumerated_mid_p(references, a, b) == 0.75
    for name in LABEL_MODULES:
        result = load_module(name).compute(references=references, predictions=a, baseline_predictions=b)
        assert result[f"{value_key(name)}_difference_p_value"] == 0.75


@pytest.mark.parametrize("name, class_counts", [("balanced_accuracy", (2, 3, 4)), ("informedness", (2,))])
def test_hundreds_of_small_golden_sets_match_the_enumeration(name, class_counts):
    module = load_module(name)
    rng = np.random.default_rng(22)
    checked = 0
    for num_classes in class_counts:
        for _ in range(300 // len(class_counts)):
            references, a, b = random_golden_set(rng, num_classes)
            result = module.compute(references=references, predictions=a, baseline_predictions=b)
            expected = enumerated_mid_p(references, a, b)
            assert abs(result[f"{value_key(name)}_difference_p_value"] - expected) <= 1e-9, (references.tolist(), a.tolist(), b.tolist())
            checked += 1
    assert checked >= 300


@pytest.mark.parametrize("name", LABEL_MODULES)
@pytest.mark.parametrize("weight", [1.0, 3, 0.37, 1e6])
def test_equal_weights_give_exactly_the_unweighted_results(name, weight):
    """Weights that are all the same (ones, an integer, any constant) change nothing: the same
    p-value bit for bit, on the exact path as on the normal one, and the same interval."""
    module = load_module(name)
    rng = np.random.default_rng(5)
    for size, num_classes in ((7, 2), (30, 2), (100, 2), (400, 2), (60, 3)):
        references = rng.integers(0, num_classes, size)
        a = np.where(rng.random(size) < 0.85, references, rng.integers(0, num_classes, size))
        b = np.where(rng.random(size) < 0.7, references, rng.integers(0, num_classes, size))
        options = dict(references=references, predictions=a, baseline_predictions=b, confidence_level=0.9)
        unweighted = module.compute(**options)
        weighted = module.compute(**options, sample_weight=[weight] * size)
        for key in (f"{value_key(name)}_difference_p_value", f"{value_key(name)}_difference_ci"):
            assert weighted[key] == unweighted[key], (key, size, num_classes)
        # Whole-number weights sum exactly, so the rates are the same bits; 0.37 * n rounds.
        key = f"{value_key(name)}_difference"
        if float(weight).is_integer():
            assert weighted[key] == unweighted[key], (key, size, num_classes)
        else:
            assert abs(weighted[key] - unweighted[key]) <= 1e-14, (key, size, num_classes)


@pytest.mark.parametrize("name", LABEL_MODULES)
def test_zero_weights_then_equal_weights_are_the_unweighted_results_of_the_rest(name):
    module = load_module(name)
    references, a, b = [0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0, 1, 1, 1, 0, 1], [0, 0, 0, 0, 1, 0, 0, 0]
    weighted = module.compute(references=references, predictions=a, baseline_predictions=b,
                              sample_weight=[2, 2, 2, 2, 2, 2, 2, 0])
    kept = module.compute(references=references[:-1], predictions=a[:-1], baseline_predictions=b[:-1])
    assert weighted[f"{value_key(name)}_difference_p_value"] == kept[f"{value_key(name)}_difference_p_value"] == 0.75
