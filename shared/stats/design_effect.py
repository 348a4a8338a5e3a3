"""The design effect: a value's cluster-robust variance over its independent one, from influences.

See ``counting/clusters.py`` for how clusters are counted, and its module doc for the formula.
"""

import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Dict, Optional

import numpy as np

from ..counting.clusters import CLUSTERS_NOT_COUNTED
from ..counting.clusters import LEADING_AXIS
from ..counting.labels import user_stacklevel
from .distributions import t_quantile

# Below this many clusters an interval is rough (its variance has few degrees of freedom): warned.
FEW_CLUSTERS = 10
SINGLE_CLUSTER = "single_cluster"


@dataclass
class DesignEffect:
    """A value's cluster design effect: ``factor`` divides the effective sizes of its interval
    (1.0 without clusters); ``num_clusters`` (None without clusters); ``reason``: why no
    interval can be had (NaN), else None; ``from_leading_axis``: the clusters were (some of) the
    leading elements of N-d inputs, not given."""

    factor: float = 1.0
    num_clusters: Optional[int] = None
    reason: Optional[str] = None
    measured: float = 1.0  # the variance ratio itself, before the conservative choices
    from_leading_axis: bool = False

    @classmethod
    def refused(cls, reason: str, num_clusters: Optional[int] = None) -> "DesignEffect":
        """No interval can be had, for ``reason`` (NaN factor and ratio)."""
        return cls(math.nan, num_clusters, reason, math.nan)

    def outputs(self, name: str) -> Dict[str, Any]:
        """What a result says of the clusters behind its interval ``name``: ``num_clusters`` and
        ``design_effect`` (the measured variance ratio), with ``clusters_from`` when they were the
        leading elements of N-d inputs; or the interval NaN with ``<name>_reason``."""
        if self.reason is not None:
            return {name: [math.nan, math.nan], f"{name}_reason": self.reason}
        if self.num_clusters is None:
            return {}
        return {"num_clusters": int(self.num_clusters), "design_effect": float(self.measured), **self.source()}

    def source(self) -> Dict[str, Any]:
        """``{"clusters_from": "leading_axis"}`` when the clusters were not given but taken from the
        inputs' leading axis (a list of per-batch arrays then clusters by batch), else {}."""
        return {"clusters_from": LEADING_AXIS} if self.from_leading_axis and self.num_clusters is not None else {}

    def scale(self, sizes: Any) -> Any:
        """Effective sizes as many independent samples as the clusters are worth."""
        return None if sizes is None else np.asarray(sizes, dtype=np.float64) / self.factor


NO_CLUSTERS = DesignEffect()


def design_effect(counts: Any, influence: Any, confidence_level: float, warn: bool = True) -> DesignEffect:
    """The design effect of a value of ``counts`` whose influence is ``influence`` (in the form that
    counts object takes: its ``cluster_sums``; a list for a value of several components, the largest of their
    effects, as corrected prevalences get; or a function giving it, called only with clusters); ``NO_CLUSTERS``
    without clusters (or components), refused with the clusters' reason when an interval cannot know them.

    Examples
    --------
    Two classes, four clusters of two items each, both items of a cluster alike: the
    variance is that of four samples, not eight.

    >>> from shared.counting.clusters import Clusters, row_cluster_sums
    >>> from shared.counting.counts import JointCounts
    >>> class Rows:
    ...     clusters = Clusters(JointCounts({"clusters": np.arange(4)}, np.full(4, 2)))
    ...     def cluster_sums(self, influence):
    ...         return row_cluster_sums(influence, self.clusters.rows)
    >>> round(design_effect(Rows(), np.array([0.5, -0.5, 0.5, -0.5]), 0.95, warn=False).measured, 6)  # 4 (2 x 0.5)^2 / (1 - 1/4) / (8 x 0.5^2)
    2.666667
    """
    clusters = counts.clusters
    if clusters.reason is not None:
        if warn and clusters.reason == CLUSTERS_NOT_COUNTED:
            warn_clusters_not_counted(confidence_level)
        return DesignEffect.refused(clusters.reason)
    if not clusters.counted:
        return NO_CLUSTERS
    # Computed only with clusters. Weights near float64's limits (a sum of 5e-324) overflow the influence
    # or its squares: the design effect is then taken as 1 (sums_effect), without a NumPy warning.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        influence = influence() if callable(influence) else influence
        found = [counts.cluster_sums(part) for part in (influence if isinstance(influence, list) else [influence])]
    if not found:
        return NO_CLUSTERS
    num_clusters = found[0].num_clusters
    if num_clusters < 2:
        return DesignEffect.refused(SINGLE_CLUSTER, num_clusters)
    if warn and num_clusters < FEW_CLUSTERS:
        warnings.warn(f"clusters: the interval rests on {num_clusters} clusters (fewer than {FEW_CLUSTERS}); its "
                      "variance has few degrees of freedom, so the interval is rough."
                      f"{PER_BATCH_ARRAYS if clusters.from_leading_axis else ''}", UserWarning, stacklevel=2)
    return max((sums_effect(sums, num_clusters, confidence_level, clusters.from_leading_axis) for sums in found), key=lambda effect: effect.factor)


def sums_effect(sums: Any, num_clusters: int, confidence_level: float, from_leading_axis: bool) -> DesignEffect:
    """The design effect of one influence's cluster sums: the variance ratio, at least 1 and
    widened from z to t on the degrees of freedom of the clustered variance (module doc)."""
    if sums.singletons:
        # No cluster holds two entries (every item its own cluster): the clustered variance is the
        # independent one, exactly, with nothing estimated and no t widening.
        clustered, degrees_of_freedom = sums.independent, math.inf
    elif sums.sums is None:
        # Only sum_g u_g^2 and sum_g u_g: the clusters taken as alike, G / (G - 1) and t on G - 1.
        centred = max(sums.squares - sums.total * sums.total / num_clusters, 0.0)  # sum_g (u_g - mean u)^2
        clustered, degrees_of_freedom = num_clusters / (num_clusters - 1) * centred, num_clusters - 1.0
    else:
        # Each cluster's share of the independent variance: its leverage h_g under working
        # independence (m_g / N for a mean). Bell & McCaffrey's bias correction divides its squared
        # sum by 1 - h_g (G / (G - 1) for clusters alike, the usual factor); a large cluster's sum
        # is pulled towards the estimate it dominates, which uncorrected makes the interval short.
        shares = sums.shares
        leverage = shares / shares.sum() if shares.sum() > 0 else np.full(num_clusters, 1.0 / num_clusters)
        clustered = float(np.sum(sums.sums**2 / np.maximum(1.0 - leverage, 0.05)))
        # Degrees of freedom: G - 1 for clusters alike; fewer when a few clusters carry most of the
        # variance (unequal sizes): the Kish effective number of clusters of those shares.
        degrees_of_freedom = max(1.0, min(float(num_clusters), float(1.0 / np.sum(leverage**2))) - 1.0)
    # Not finite only for weights near float64's limits (squares lost or overflowing): taken as 1.
    finite = math.isfinite(clustered) and math.isfinite(sums.independent)
    measured = clustered / sums.independent if finite and sums.independent > 0 else 1.0
    probability = 0.5 + confidence_level / 2.0
    widening = (t_quantile(probability, degrees_of_freedom) / NormalDist().inv_cdf(probability)) ** 2
    return DesignEffect(max(measured, 1.0) * widening, num_clusters, None, measured, from_leading_axis)


# What the few-clusters warning adds when the clusters are the leading elements of N-d inputs:
# few of them is what a list of per-batch arrays gives (each batch read as one cluster).
PER_BATCH_ARRAYS = (
    " The clusters are the leading axis of the N-d inputs (no clusters= given). If the inputs were a list of per-batch "
    "arrays (e.g. from Trainer with eval_do_concat_batches=False), it read as one array with a batch per row, so each "
    "batch became one cluster: join the batches with np.concatenate(..., axis=0), or pass clusters= naming the "
    "independent units."
)


def warn_clusters_not_counted(confidence_level: float) -> None:
    """The NaN interval of N-d batches added without their clusters, warned where it is refused
    (every module's intervals come through ``design_effect``), with the fix."""
    warnings.warn(
        f"clusters: the interval is NaN (reason {CLUSTERS_NOT_COUNTED!r}): add_batch counted N-d batches without their "
        "clusters (one per leading element), as evaluate.load had no confidence_level. Pass it to evaluate.load(..., "
        f"confidence_level={confidence_level!r}) so that batches count their clusters (or pass clusters= with each batch).",
        UserWarning, stacklevel=user_stacklevel())


def clustered_squares(joint: np.ndarray, joint_w2: Optional[np.ndarray], design_factor: float) -> Optional[np.ndarray]:
    """The squared-weight sums an interval sees when the samples are clustered: each cell's (the
    counts, unweighted) times the design factor, so each row's Kish size is what its clusters are
    worth; ``joint_w2`` itself for independent samples (factor 1)."""
    if design_factor == 1.0:
        return joint_w2
    return (joint if joint_w2 is None else joint_w2) * design_factor
