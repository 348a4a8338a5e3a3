"""examples/judge_selection.py: its golden-set metrics, its ranking quality, and a small run of the study."""

import sys

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "examples"))
import judge_selection  # noqa: E402


def test_golden_set_scores_match_scikit_learn():
    """The vectorised metrics equal scikit-learn's on the label vectors they summarise."""

    class Recorder:  # replays the draws so the counts can be rebuilt as label vectors
        def __init__(self, seed):
            self.rng, self.draws = np.random.default_rng(seed), []

        def binomial(self, n, p):
            value = self.rng.binomial(n, p)
            self.draws.append(value)
            return value

    tpr, tnr = np.array([[0.9, 0.6, 0.75]]), np.array([[0.7, 0.95, 0.8]])
    recorder = Recorder(0)
    scores = judge_selection.golden_set_scores(recorder, tpr, tnr, np.array([0.15]))
    positives = int(recorder.draws[0][0])
    for judge in range(3):
        tp, tn = int(recorder.draws[1][0, judge]), int(recorder.draws[2][0, judge])
        negatives = judge_selection.GOLDEN_SIZE - positives
        references = [1] * positives + [0] * negatives
        predictions = [1] * tp + [0] * (positives - tp) + [0] * tn + [1] * (negatives - tn)
        assert scores["Balanced Accuracy"][0, judge] == pytest.approx(balanced_accuracy_score(references, predictions))
        assert scores["Accuracy"][0, judge] == pytest.approx(accuracy_score(references, predictions))
        assert scores["F1"][0, judge] == pytest.approx(f1_score(references, predictions))
        assert scores["Macro-F1"][0, judge] == pytest.approx(f1_score(references, predictions, average="macro"))


def test_ranking_accuracy_of_chance_and_of_perfect_judges():
    prevalence = np.array([[0.05, 0.25, 0.45, 0.65, 0.85]])
    chance = judge_selection.ranking_accuracy_expected(np.array([[0.7]]), np.array([[0.3]]), prevalence)
    assert chance.tolist() == [[0.5]]  # J = 0: every measured prevalence is the FPR
    perfect = judge_selection.ranking_accuracy_realised(np.random.default_rng(0), np.array([[1.0]]), np.array([[1.0]]), prevalence)
    assert perfect.tolist() == [[1.0]]  # gaps of 0.2 x 200 samples: the counts keep the order here
    inverted = judge_selection.ranking_accuracy_expected(np.array([[0.0]]), np.array([[0.0]]), prevalence)
    assert inverted[0, 0] < 0.01  # J = -1 reverses every pair


def test_balanced_accuracy_comes_first_in_a_small_run():
    results = judge_selection.run(20_000, seed=0)
    success = {name: result["success_rate"] for name, result in results.items()}
    loss = {name: result["mean_loss"] for name, result in results.items()}
    assert max(success, key=success.get) == "Balanced Accuracy", success
    assert min(loss, key=loss.get) == "Balanced Accuracy", loss


def test_balanced_accuracy_comes_first_by_expected_ranking_quality():
    results = judge_selection.run(20_000, seed=1, quality="expected")
    ranked = sorted(results, key=lambda name: -results[name]["success_rate"])
    assert ranked[0] == "Balanced Accuracy"
    assert results["Balanced Accuracy"]["success_rate"] - results[ranked[1]]["success_rate"] > 0.02


def test_documented_exception_when_every_model_has_few_violations():
    """The script's docstring and the card say BA does not come first when prevalences are all low."""
    results = judge_selection.run(20_000, seed=2, quality="expected", model_prevalence=(0.0, 0.3))
    assert results["Macro-F1"]["success_rate"] > results["Balanced Accuracy"]["success_rate"] + 0.02


def test_ties_unique_best_and_random_pick_baseline():
    """The card's tie share, success among unique-best scenarios and random-pick baseline."""
    results = judge_selection.run(20_000, seed=3)
    random_pick = results[judge_selection.RANDOM_PICK]
    tied = random_pick["tied_share"]
    assert 0.5 < tied < 0.6  # ranking accuracy moves in steps of 1/20 over 10 pairs: ties are common
    # A random pick succeeds with probability (best judges) / 3: 1/3 alone, 2/3 or 1 with ties.
    assert 1 / 3 + tied / 3 - 0.01 < random_pick["success_rate"] < 1 / 3 + 2 * tied / 3
    assert random_pick["unique_success_rate"] == pytest.approx(1 / 3)
    for name in judge_selection.PUBLISHED:
        assert results[name]["unique_success_rate"] < results[name]["success_rate"]
        assert results[name]["unique_success_rate"] > random_pick["unique_success_rate"] + 0.1
    expected = judge_selection.run(5_000, seed=3, quality="expected")
    assert expected[judge_selection.RANDOM_PICK]["tied_share"] == 0.0  # continuous: no ties
    assert expected[judge_selection.RANDOM_PICK]["success_rate"] == pytest.approx(1 / 3)


def test_seed_spread_is_reported_per_statistic():
    summary = judge_selection.run_seeds(5_000, range(3))
    mean, spread = summary["Balanced Accuracy"]["success_rate"]
    assert 0.6 < mean < 0.85 and 0 < spread < 0.03
    assert summary["Balanced Accuracy"]["success_below_ba"] == (0.0, 0.0)
