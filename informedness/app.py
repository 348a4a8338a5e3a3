"""Hugging Face Space for the informedness metric."""

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
    Choice("average", choices={"bookmaker": "bookmaker", "macro": "macro", "weighted": "weighted"}),
    Value("num_classes", placeholder="inferred", maximum=100_000),
    Values("labels", placeholder='e.g. ["safe", "unsafe"]'),
    Value("ignore_index", placeholder="e.g. -100"),
    Values("class_mask", placeholder="e.g. [1, 2]"),
    Values("sample_weight", placeholder="one weight per sample"),
    Values("clusters", placeholder="one conversation (or image) id per sample: intervals then count clusters"),
    Choice("zero_division", choices={"skip": "skip", "0.0": 0.0}),
    Value("confidence_level", placeholder="e.g. 0.95 or 95%", percent=True),
    Choice("ci_method", choices={"default": None, "agresti_coull": "agresti_coull", "wilson": "wilson", "bootstrap": "bootstrap", "delta": "delta"}),
    Value("n_resamples", placeholder="10000", maximum=100_000),
    Value("seed", placeholder="e.g. 0"),
    # A judge's labels on unlabeled data and its golden set's groups (corrected prevalence, per-group diagnostics).
    Values("unlabeled_predictions", placeholder="the judge's labels on new data, e.g. [0, 1, 0, 0]"),
    Values("unlabeled_baseline_predictions", placeholder="a second model's judged labels"),
    Choice("prevalence_method", choices={"rogan_gladen": "rogan_gladen", "ppi": "ppi"}),
    Value("pos_label", placeholder="the class whose prevalence is corrected (two classes)"),
    Values("groups", placeholder="one group id per golden sample"),
    Flag("return_markedness"),
    Flag("return_per_class"),
    Flag("return_confusion_matrix"),
]

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

app = build_app("informedness", FOLDER, EXAMPLES, options=OPTIONS, plots=("confusion", "informedness", "comparison", "prevalence"))

if __name__ == "__main__":
    app.launch()
