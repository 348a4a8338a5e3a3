"""Hugging Face Space for the balanced_accuracy metric."""

from pathlib import Path

from shared_space import build_app
from shared_space import card_examples

FOLDER = Path(__file__).parent

# The card's examples, plus string labels from an LLM judge and a confidence interval.
EXAMPLES = card_examples(FOLDER) + [
    ['["safe", "unsafe", "unsafe", "safe"]', '["safe", "unsafe", "safe", "safe"]', '{"return_per_class": true}'],
    ["[0, 1, 0, 0, 1, 1, 0, 0, 1, 0]", "[0, 1, 1, 0, 1, 1, 0, 0, 0, 0]", '{"confidence_level": 0.95}'],
    # Two judges on one golden set: the paired difference, its interval and p-value.
    ["[1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1]", "[1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]",
     '{"baseline_predictions": [1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0], "confidence_level": 0.95}'],
]

# The plot panels its page draws (tests read them here too).
PLOTS = ("confusion", "recall", "roc", "comparison")

app = build_app("balanced_accuracy", FOLDER, EXAMPLES, plots=PLOTS)

if __name__ == "__main__":
    app.launch()
