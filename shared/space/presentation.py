"""How a Space shows each option of a module: its place, placeholder, limit, dropdown texts.

The module says which controls there are (``OPTIONS`` and ``INPUTS``) and of what kind (a
flag is a checkbox, a ``choice(...)`` check a dropdown); ``controls.default_options``
builds them. What a module cannot say is here, once for every Space: the order of the
controls (also the order of the API's parameters), the hint in an empty box, the cap the
page puts on a costly number, that ``95%`` means 0.95, and the text shown for None in a
dropdown. Where an option means something else in one module (the multilabel module's
rows, the top-k module's score columns, the class informedness corrects the prevalence
of), an entry for that module stands beside the general one, at that module's place.
Part of the Space app (``space_app.py``).
"""

from dataclasses import dataclass
from typing import Any, Optional, Tuple

from ..glue.options import PREVALENCE_METHODS

# The page's caps: numbers a module accepts but a shared Space should not spend a request on.
MAX_PAGE_CLASSES = 100_000
MAX_PAGE_RESAMPLES = 100_000

# The tabs of the (collapsed) Options panel, in page order, with their titles; a page shows
# only the groups its module has controls in.
GROUPS = {"basic": "Basic", "intervals": "Intervals", "judges": "Judges", "prevalence": "Prevalence"}


@dataclass(frozen=True)
class Presentation:
    """How one option (or input) is shown.

    ``listed``: a list of values, parsed like predictions (inputs always are).
    ``candidates``: a dropdown's values for a check that is not a ``choice(...)``; those
    the module's own check accepts are offered. ``mapping``: a JSON object typed in the box
    goes to the module (one value per judge), which accepts or refuses it. ``modules``: the modules this entry is
    for; an entry without them serves every module that has no entry of its own.
    """

    name: str
    placeholder: str = ""
    maximum: Optional[float] = None
    percent: bool = False
    listed: bool = False
    none_text: str = "default"
    candidates: Tuple[Any, ...] = ()
    modules: Tuple[str, ...] = ()
    group: str = "basic"
    mapping: bool = False


# In page order: the data, what is counted, per-sample inputs, the interval, a judge's uses, flags.
PRESENTATIONS = (
    Presentation("baseline_predictions", placeholder="a second judge's labels, same format; empty: one judge"),
    Presentation("judges", placeholder='several judges to rank: {"gpt": [0, 1, 1], "llama": [0, 0, 1]} (predictions may stay empty)',
                 group="judges"),
    Presentation("from_probas"),
    Presentation("task", none_text="infer"),
    Presentation("k", placeholder="1"),
    Presentation("k_list", placeholder="e.g. [1, 5]", listed=True),
    Presentation("threshold", placeholder="0.5, or auto (with from_probas)", modules=("balanced_accuracy_multilabel",)),
    Presentation("threshold", placeholder="none: predictions are labels; or 0.5, or auto", mapping=True),
    Presentation("average"),
    Presentation("num_classes", placeholder="inferred", maximum=MAX_PAGE_CLASSES),
    Presentation("labels", placeholder='names of the score columns, e.g. ["A", "B", "C", "D"]', listed=True,
                 modules=("balanced_topk_accuracy",)),
    Presentation("labels", placeholder='e.g. ["safe", "unsafe"]', listed=True),
    Presentation("label_names", placeholder='e.g. ["cat", "dog", "bird"]', listed=True),
    Presentation("pos_label", placeholder="1, or the second of two labels"),
    Presentation("ignore_index", placeholder="e.g. -100"),
    Presentation("class_mask", placeholder="label indices, e.g. [0, 2]", listed=True,
                 modules=("balanced_accuracy_multilabel",)),
    Presentation("class_mask", placeholder="e.g. [1, 2]", listed=True),
    Presentation("sample_weight", placeholder="one weight per row", modules=("balanced_accuracy_multilabel",)),
    Presentation("sample_weight", placeholder="one weight per sample"),
    Presentation("clusters", placeholder="one conversation (or image) id per sample: intervals then count clusters",
                 group="intervals"),
    # The values ZERO_DIVISION_DOC names; a module whose check refuses one (informedness: 1.0) does not offer it.
    Presentation("zero_division", candidates=("skip", 0.0, 1.0)),
    Presentation("confidence_level", placeholder="e.g. 0.95 or 95%", percent=True, group="intervals"),
    Presentation("ci_method", group="intervals"),
    Presentation("n_resamples", placeholder="10000", maximum=MAX_PAGE_RESAMPLES, group="intervals"),
    Presentation("seed", placeholder="e.g. 0", group="intervals"),
    # A judge's labels on unlabeled data and its golden set's groups (corrected prevalence, per-group diagnostics).
    Presentation("unlabeled_predictions", placeholder='the judge\'s labels on new data, e.g. [0, 1, 0, 0]; several models: {"a": [0, 1], "b": [1, 1]}',
                 group="prevalence"),
    Presentation("unlabeled_baseline_predictions", placeholder="a second model's judged labels", group="prevalence"),
    Presentation("prevalence_method", candidates=PREVALENCE_METHODS, group="prevalence"),
    Presentation("reference_model", placeholder="with several models in unlabeled_predictions: the one the others are compared with",
                 group="prevalence"),
    # Informedness is the same for either class: there pos_label only names the corrected class.
    Presentation("pos_label", placeholder="the class whose prevalence is corrected (two classes)",
                 modules=("informedness",), group="prevalence"),
    Presentation("groups", placeholder="one group id per golden sample", group="prevalence"),
    Presentation("adjusted"),
    Presentation("return_markedness"),
    Presentation("return_per_class"),
    Presentation("return_per_label"),
    Presentation("return_confusion_matrix"),
    # Last, where it stood before it had an entry: the API's parameters keep their order.
    Presentation("return_judge_p_values", group="judges"),
)


def find_presentation(name: str, module: str) -> Tuple[Optional[int], Presentation]:
    """``(place, entry)`` of argument ``name`` in ``module``: its own entry, else the general
    one; an argument with neither is shown plainly, after the others (place None)."""
    own = [(place, entry) for place, entry in enumerate(PRESENTATIONS) if entry.name == name and module in entry.modules]
    general = [(place, entry) for place, entry in enumerate(PRESENTATIONS) if entry.name == name and not entry.modules]
    return (own or general or [(None, Presentation(name))])[0]
