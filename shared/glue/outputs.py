"""The optional parts of a label module's result, assembled from its ``ConfusionCounts``.

A module's ``<metric>_from_counts`` computes its value and then adds what was asked for: its
interval (in its ``metrics/`` file), per-class lists, the confusion matrix. The last two are built
here, returning the keys they add (in the order the result shows them), so the
reductions stay short and the modules spell the same keys the same way.

Example: the per-class lists and the confusion matrix of a two-class problem.

>>> from types import SimpleNamespace
>>> encoded = SimpleNamespace(classes=["no", "yes"])
>>> counts = SimpleNamespace(encoded=encoded, matrix=lambda: np.array([[3, 1], [0, 2]]))
>>> class_counts = SimpleNamespace(support=np.array([4, 2]), predicted=np.array([3, 3]))
>>> outputs = class_outputs(counts, class_counts, {"per_class_recall": [0.75, 1.0]},
...                         return_per_class=True, return_confusion_matrix=True)
>>> list(outputs)
['per_class_recall', 'support_per_class', 'classes', 'confusion_matrix']
"""

from typing import Any, Dict


def class_outputs(counts, class_counts, per_class: Dict[str, Any], *, return_per_class: bool,
                  return_confusion_matrix: bool, predicted_per_class: bool = False) -> Dict[str, Any]:
    """Per-class lists (``per_class``, then the support, the predicted counts if asked, the
    classes) and the confusion matrix, as far as they were asked for."""
    outputs: Dict[str, Any] = {}
    if return_per_class:
        outputs.update(per_class)
        outputs["support_per_class"] = class_counts.support
        if predicted_per_class:
            outputs["predicted_per_class"] = class_counts.predicted
        outputs["classes"] = counts.encoded.classes
    if return_confusion_matrix:
        outputs["confusion_matrix"] = counts.matrix()
        outputs["classes"] = counts.encoded.classes
    return outputs
