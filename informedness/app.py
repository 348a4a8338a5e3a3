"""Hugging Face Space for the informedness metric."""

from pathlib import Path

from shared_space import build_app
from shared_space import card_examples

FOLDER = Path(__file__).parent

# The card's examples, plus the paper's binary case (J = 0.6, markedness 0.5556), string labels and a
# bootstrap confidence interval for three classes.
EXAMPLES = card_examples(FOLDER) + [
    ["[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1]", "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]", '{"return_markedness": true}'],
    ['["safe", "unsafe", "unsafe", "safe"]', '["safe", "unsafe", "safe", "safe"]', '{"return_markedness": true, "return_per_class": true}'],
    [
        "[0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 1, 1, 1, 1, 1, 2, 1, 2, 2, 2, 2]",
        "[0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]",
        '{"confidence_level": 0.95, "seed": 0}',
    ],
    # Two judges on one golden set: the paired difference, its interval and p-value.
    ["[1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1]", "[1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]",
     '{"baseline_predictions": [1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0], "confidence_level": 0.95}'],
    # A judge (TPR 8/10, FPR 2/20) flags 7 of 20 new items: the corrected prevalence of class 1 is (0.35 - 0.1) / 0.7.
    [
        "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]",
        "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]",
        '{"unlabeled_predictions": [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "confidence_level": 0.95, "seed": 0}',
    ],
]

# The plot panels its page draws (tests read them here too).
PLOTS = ("confusion", "informedness", "comparison", "prevalence")

app = build_app("informedness", FOLDER, EXAMPLES, plots=PLOTS)

if __name__ == "__main__":
    app.launch()
