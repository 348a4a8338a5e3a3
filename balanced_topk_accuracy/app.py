"""Hugging Face Space for the balanced_topk_accuracy metric."""

from pathlib import Path

from shared_space import build_app
from shared_space import card_examples

FOLDER = Path(__file__).parent

# The card's examples, plus confidence intervals for two k.
EXAMPLES = card_examples(FOLDER) + [
    [
        "[[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.3, 0.6, 0.1], [0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.8, 0.1], "
        "[0.5, 0.4, 0.1], [0.1, 0.2, 0.7], [0.3, 0.2, 0.5], [0.6, 0.1, 0.3]]",
        "[0, 0, 0, 0, 1, 1, 1, 2, 2, 2]",
        '{"k_list": [1, 2], "confidence_level": 0.95}',
    ],
]

# The plot panels its page draws (tests read them here too).
PLOTS = ("topk",)

app = build_app("balanced_topk_accuracy", FOLDER, EXAMPLES, plots=PLOTS)

if __name__ == "__main__":
    app.launch()
