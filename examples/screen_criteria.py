"""Screening generated criteria on a small golden set, as an AutoMetrics-style pipeline does.

An LLM proposes 30 evaluation criteria for a task; each is run as a judge on the same 80
items that people labelled (1: the output is acceptable). Twenty criteria give Likert 1-5
grades, ten answer yes/no. Which criteria agree with the people, and which cannot be told
from the best? One call ranks them all: the yes/no criteria are labels, the Likert ones are
cut at their Youden-optimal grade (``threshold="auto"``), cross-fitted so that a criterion
with many distinct grades gains nothing from its cut being tuned on these same 80 items.

The criteria here are simulated (a latent quality per criterion, some of them pure noise),
so the script runs offline and its numbers are exact; swap in your own columns.

    .venv/bin/python examples/screen_criteria.py
"""

import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def criteria(seed: int = 0, items: int = 80):
    """The people's labels and 30 criteria: Likert 1-5 grades (``likert_*``) and yes/no answers (``yes_no_*``)."""
    rng = np.random.default_rng(seed)
    human = (rng.random(items) < 0.35).astype(np.int64)
    shared = rng.standard_normal(items)  # items every criterion finds hard or easy
    judges = {}
    for index, signal in enumerate(np.linspace(0.0, 2.0, 20)):
        latent = signal * human + 0.5 * shared + rng.standard_normal(items)
        judges[f"likert_{index:02d}"] = 1 + np.searchsorted([-0.3, 0.4, 1.1, 1.8], latent)
    for index, signal in enumerate(np.linspace(0.0, 2.2, 10)):
        latent = signal * human + 0.5 * shared + rng.standard_normal(items)
        judges[f"yes_no_{index:02d}"] = (latent >= signal / 2).astype(np.int64)
    return human, judges


def main() -> dict:
    sys.path.insert(0, str(ROOT))
    import evaluate

    metric = evaluate.load(str(ROOT / "balanced_accuracy"))
    human, judges = criteria()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = metric.compute(references=human, judges=judges, threshold="auto", confidence_level=0.95)
    print(f"{len(judges)} criteria on {human.size} human labels ({int(human.sum())} positive)")
    for entry in result["judge_ranking"][:6]:
        low, high = entry["balanced_accuracy_ci"]
        cut = f"score >= {entry['optimal_threshold']:.1f}" if "optimal_threshold" in entry else "labels"
        print(f"{entry['name']:<10} {entry['balanced_accuracy']:.3f} [{low:.3f}, {high:.3f}] {cut:<12} in best set: {entry['in_best_set']}")
    print(f"best set ({len(result['best_judges'])} of {len(judges)}):", result["best_judges"])
    # A criterion with no signal: cross-fitted it stays near chance; its cut tuned in-sample flatters it.
    noise = next(entry for entry in result["judge_ranking"] if entry["name"] == "likert_00")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        in_sample = metric.compute(references=human, predictions=judges["likert_00"].astype(float), threshold="auto")
    print(f"likert_00 (no signal): {noise['balanced_accuracy']:.3f} cross-fitted, {in_sample['balanced_accuracy']:.3f} "
          "with its cut tuned in-sample")
    return result


if __name__ == "__main__":
    main()
