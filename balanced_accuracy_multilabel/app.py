"""Hugging Face Space for the balanced_accuracy_multilabel metric."""

from pathlib import Path

from shared_space import build_app
from shared_space import card_examples

FOLDER = Path(__file__).parent

# The card's examples, plus named labels, the weighted and micro averages and a confidence interval.
EXAMPLES = card_examples(FOLDER) + [
    ["[[1, 0, 0], [0, 1, 1]]", "[[1, 0, 1], [0, 1, 0]]", '{"return_per_label": true, "label_names": ["cat", "dog", "bird"]}'],
    ["[[1, 1], [1, 0], [1, 0], [0, 0]]", "[[1, 0], [1, 0], [1, 1], [0, 0]]", '{"average": "weighted", "return_per_label": true}'],
    ["[[1, 1], [1, 1], [1, 0]]", "[[1, -100], [0, 1], [1, 0]]", '{"ignore_index": -100, "average": "micro"}'],
    [
        "[[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 0], [0, 1], [0, 0], [1, 0], [0, 0]]",
        "[[1, 0], [1, 1], [1, 1], [0, 0], [0, 0], [0, 0], [0, 1], [0, 1], [1, 0], [0, 0]]",
        '{"confidence_level": 0.95}',
    ],
]

# The plot panels its page draws (tests read them here too).
PLOTS = ("per_label",)

app = build_app("balanced_accuracy_multilabel", FOLDER, EXAMPLES, plots=PLOTS)

if __name__ == "__main__":
    app.launch()
