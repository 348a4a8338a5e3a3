"""Hugging Face Space for the balanced_accuracy metric."""

from pathlib import Path

from shared_space import Choice
from shared_space import Flag
from shared_space import SecondPredictions
from shared_space import Value
from shared_space import Values
from shared_space import build_app
from shared_space import card_examples

FOLDER = Path(__file__).parent

# One control per argument of compute(); the help text under each comes from the module's docs.
OPTIONS = [
    SecondPredictions("baseline_predictions", placeholder="a second judge's labels, same format; empty: one judge"),
    Choice("task", choices={"infer": None, "binary": "binary", "multiclass": "multiclass"}),
    Value("threshold", placeholder="none: predictions are labels; or 0.5, or auto"),
    Value("num_classes", placeholder="inferred", maximum=100_000),
    Values("labels", placeholder='e.g. ["safe", "unsafe"]'),
    Value("pos_label", placeholder="1, or the second of two labels"),
    Value("ignore_index", placeholder="e.g. -100"),
    Values("class_mask", placeholder="e.g. [1, 2]"),
    Values("sample_weight", placeholder="one weight per sample"),
    Values("clusters", placeholder="one conversation (or image) id per sample: intervals then count clusters"),
    Choice("zero_division", choices={"skip": "skip", "0.0": 0.0, "1.0": 1.0}),
    Value("confidence_level", placeholder="e.g. 0.95 or 95%", percent=True),
    Choice("ci_method", choices={"default": None, "agresti_coull": "agresti_coull", "wilson": "wilson", "bootstrap": "bootstrap"}),
    Value("n_resamples", placeholder="10000", maximum=100_000),
    Value("seed", placeholder="e.g. 0"),
    Flag("adjusted"),
    Flag("return_per_class"),
    Flag("return_confusion_matrix"),
]

# The card's examples, plus string labels from an LLM judge and a confidence interval.
EXAMPLES = card_examples(FOLDER) + [
    ['["safe", "unsafe", "unsafe", "safe"]', '["safe", "unsafe", "safe", "safe"]', '{"return_per_class": true}'],
    ["[0, 1, 0, 0, 1, 1, 0, 0, 1, 0]", "[0, 1, 1, 0, 1, 1, 0, 0, 0, 0]", '{"confidence_level": 0.95}'],
    # Two judges on one golden set: the paired difference, its interval and p-value.
    ["[1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1]", "[1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]",
     '{"baseline_predictions": [1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 0], "confidence_level": 0.95}'],
]

app = build_app("balanced_accuracy", FOLDER, EXAMPLES, options=OPTIONS, plots=("confusion", "recall", "roc", "comparison"))

if __name__ == "__main__":
    app.launch()
