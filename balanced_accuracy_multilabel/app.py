"""Hugging Face Space for the balanced_accuracy_multilabel metric."""

from pathlib import Path

from shared_space import Choice
from shared_space import Flag
from shared_space import Value
from shared_space import Values
from shared_space import build_app
from shared_space import card_examples

FOLDER = Path(__file__).parent

# One control per argument of compute(); the help text under each comes from the module's docs.
OPTIONS = [
    Flag("from_probas"),
    Value("threshold", placeholder="0.5, or auto (with from_probas)"),
    Choice("average", choices={"macro": "macro", "weighted": "weighted", "micro": "micro"}),
    Values("label_names", placeholder='e.g. ["cat", "dog", "bird"]'),
    Value("ignore_index", placeholder="e.g. -100"),
    Values("class_mask", placeholder="label indices, e.g. [0, 2]"),
    Values("sample_weight", placeholder="one weight per row"),
    Values("clusters", placeholder="one conversation (or image) id per sample: intervals then count clusters"),
    Choice("zero_division", choices={"skip": "skip", "0.0": 0.0, "1.0": 1.0}),
    Value("confidence_level", placeholder="e.g. 0.95 or 95%", percent=True),
    Choice("ci_method", choices={"default": None, "agresti_coull": "agresti_coull", "wilson": "wilson", "bootstrap": "bootstrap"}),
    Value("n_resamples", placeholder="10000", maximum=100_000),
    Value("seed", placeholder="e.g. 0"),
    Flag("return_per_label"),
    Flag("return_confusion_matrix"),
]

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

app = build_app("balanced_accuracy_multilabel", FOLDER, EXAMPLES, options=OPTIONS, plots=("per_label",))

if __name__ == "__main__":
    app.launch()
