"""Hugging Face Space for the balanced_topk_accuracy metric."""

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
    Value("k", placeholder="1"),
    Values("k_list", placeholder="e.g. [1, 5]"),
    Values("labels", placeholder='names of the score columns, e.g. ["A", "B", "C", "D"]'),
    Value("ignore_index", placeholder="e.g. -100"),
    Values("class_mask", placeholder="e.g. [1, 2]"),
    Values("sample_weight", placeholder="one weight per sample"),
    Values("clusters", placeholder="one conversation (or image) id per sample: intervals then count clusters"),
    Choice("zero_division", choices={"skip": "skip", "0.0": 0.0, "1.0": 1.0}),
    Value("confidence_level", placeholder="e.g. 0.95 or 95%", percent=True),
    Choice("ci_method", choices={"default": None, "agresti_coull": "agresti_coull", "wilson": "wilson", "bootstrap": "bootstrap"}),
    Value("n_resamples", placeholder="10000", maximum=100_000),
    Value("seed", placeholder="e.g. 0"),
    Flag("return_per_class"),
]

# The card's examples, plus confidence intervals for two k.
EXAMPLES = card_examples(FOLDER) + [
    [
        "[[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.3, 0.6, 0.1], [0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.8, 0.1], "
        "[0.5, 0.4, 0.1], [0.1, 0.2, 0.7], [0.3, 0.2, 0.5], [0.6, 0.1, 0.3]]",
        "[0, 0, 0, 0, 1, 1, 1, 2, 2, 2]",
        '{"k_list": [1, 2], "confidence_level": 0.95}',
    ],
]

app = build_app("balanced_topk_accuracy", FOLDER, EXAMPLES, options=OPTIONS, plots=("topk",))

if __name__ == "__main__":
    app.launch()
