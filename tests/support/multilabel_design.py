"""The multilabel design effect written directly from its definition, for the tests.

Independent of the modules' code: per entry (sample i, label l) its influence on the
average, as a plain formula of the per-label rates; per cluster the weighted sum of its
entries' influences, in a loop over the clusters; the design effect is the ratio of the
cluster variance G / (G - 1) sum_g (u_g - mean u)^2 to the independent one
sum_{i,l} w_i^2 psi_il^2.
"""

import numpy as np


def _rate_coefficients(has_positive, has_negative, zero_division):
    """The weights of TPR and TNR in one label's balanced accuracy (skip: the defined one alone)."""
    if zero_division == "skip":
        both = has_positive and has_negative
        return (0.5 if both else 1.0) if has_positive else 0.0, (0.5 if both else 1.0) if has_negative else 0.0
    return 0.5 if has_positive else 0.0, 0.5 if has_negative else 0.0


def direct_design_effect(references, predictions, weights=None, clusters=None, average="macro", zero_division="skip",
                         class_mask=None, ignore_index=None):
    """``(measured design effect, number of clusters)``; predictions are 0/1 labels."""
    references, predictions = np.asarray(references), np.asarray(predictions)
    rows, num_labels = references.shape
    weights = np.ones(rows) if weights is None else np.asarray(weights, dtype=float)
    clusters_given = clusters
    clusters = np.arange(rows) if clusters is None else np.asarray(clusters)
    kept = np.ones(references.shape, bool) if ignore_index is None else references != ignore_index
    positive, negative = (references == 1) & kept, (references == 0) & kept
    correct = predictions == references
    selected = np.zeros(num_labels, bool)
    selected[list(range(num_labels)) if class_mask is None else list(class_mask)] = True

    def weighted_sum(mask):
        return (weights[:, None] * mask).sum(axis=0)

    positives, negatives = weighted_sum(positive), weighted_sum(negative)
    tp, tn = weighted_sum(positive & correct), weighted_sum(negative & correct)
    per_positive, per_negative = np.zeros(num_labels), np.zeros(num_labels)
    tpr, tnr = np.zeros(num_labels), np.zeros(num_labels)
    if average == "micro":
        pooled = [values[selected].sum() for values in (positives, negatives, tp, tn)]
        coefficient_tpr, coefficient_tnr = _rate_coefficients(pooled[0] > 0, pooled[1] > 0, zero_division)
        for label in np.flatnonzero(selected):
            if pooled[0] > 0:
                per_positive[label], tpr[label] = coefficient_tpr / pooled[0], pooled[2] / pooled[0]
            if pooled[1] > 0:
                per_negative[label], tnr[label] = coefficient_tnr / pooled[1], pooled[3] / pooled[1]
    else:
        used = selected & ((positives > 0) | (negatives > 0))
        share = used / used.sum() if average == "macro" else np.where(used, positives, 0.0) / np.where(used, positives, 0.0).sum()
        for label in range(num_labels):
            coefficient_tpr, coefficient_tnr = _rate_coefficients(positives[label] > 0, negatives[label] > 0, zero_division)
            if positives[label] > 0:
                per_positive[label], tpr[label] = share[label] * coefficient_tpr / positives[label], tp[label] / positives[label]
            if negatives[label] > 0:
                per_negative[label], tnr[label] = share[label] * coefficient_tnr / negatives[label], tn[label] / negatives[label]
    influence = np.where(positive, per_positive * (correct - tpr), 0.0) + np.where(negative, per_negative * (correct - tnr), 0.0)
    independent = float((weights[:, None] ** 2 * influence**2).sum())
    sums = []
    for cluster in np.unique(clusters):
        members = clusters == cluster
        if weights[members].sum() > 0 and kept[members].any():
            sums.append(float((weights[members, None] * influence[members]).sum()))
    sums = np.array(sums)
    count = len(sums)
    if num_labels == 1 and clusters_given is None:
        return 1.0, count  # each sample its own cluster holds one entry: the independent variance, nothing estimated
    clustered = count / (count - 1) * float(((sums - sums.mean()) ** 2).sum())
    return clustered / independent, count
