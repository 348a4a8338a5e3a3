"""The design effect: a value's cluster-robust variance over its independent one, from influences.

See ``counting/clusters.py`` for how clusters are counted, and its module doc for the formula.
"""

import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Dict, Optional

import numpy as np

from ..counting.counts import JointCounts
from .distributions import t_quantile

# Below this many clusters an interval is rough (its variance has few degrees of freedom): warned.
FEW_CLUSTERS = 10
SINGLE_CLUSTER = "single_cluster"


@dataclass
class DesignEffect:
    """A value's cluster design effect: ``factor`` divides the effective sizes of its interval
    (1.0 without clusters); ``num_clusters`` (None without clusters); ``reason``: why no
    interval can be had (NaN), else None."""

    factor: float = 1.0
    num_clusters: Optional[int] = None
    reason: Optional[str] = None
    measured: float = 1.0  # the variance ratio itself, before the conservative choices

    @classmethod
    def refused(cls, reason: str, num_clusters: Optional[int] = None) -> "DesignEffect":
        """No interval can be had, for ``reason`` (NaN factor and ratio)."""
        return cls(math.nan, num_clusters, reason, math.nan)

    def outputs(self, name: str) -> Dict[str, Any]:
        """What a result says of the clusters behind its interval ``name``: ``num_clusters`` and
        ``design_effect`` (the measured variance ratio), or the interval NaN with ``<name>_reason``."""
        if self.reason is not None:
            return {name: [math.nan, math.nan], f"{name}_reason": self.reason}
        if self.num_clusters is None:
            return {}
        return {"num_clusters": int(self.num_clusters), "design_effect": float(self.measured)}

    def scale(self, sizes: Any) -> Any:
        """Effective sizes as many independent samples as the clusters are worth."""
        return None if sizes is None else np.asarray(sizes, dtype=np.float64) / self.factor


NO_CLUSTERS = DesignEffect()


def design_effect(influence: np.ndarray, rows: JointCounts, cluster_index: np.ndarray, confidence_level: float,
                  warn: bool = True) -> DesignEffect:
    """The design effect of a value whose influence per sample is ``influence`` (one per row
    of ``rows``: the counted (cluster, ...) tuples), the clusters being ``cluster_index``
    (0..G-1 per row). See the module doc for the formula and the conservative choices.

    Examples
    --------
    Two classes, four clusters of two items each, both items of a cluster alike: the
    variance is that of four samples, not eight.

    >>> rows = JointCounts({"clusters": np.arange(4)}, np.full(4, 2))
    >>> effect = design_effect(np.array([0.5, -0.5, 0.5, -0.5]), rows, np.arange(4), 0.95, warn=False)
    >>> round(effect.measured, 6)  # 4 (2 x 0.5)^2 / (1 - 1/4) / (8 x 0.5^2)
    2.666667
    """
    num_clusters = int(cluster_index.max()) + 1 if cluster_index.size else 0
    if num_clusters < 2:
        return DesignEffect.refused(SINGLE_CLUSTER, num_clusters)
    if warn and num_clusters < FEW_CLUSTERS:
        _warn_few(num_clusters, 5)
    influence = np.asarray(influence, dtype=np.float64)
    weight = rows.weight.astype(np.float64)
    squared = rows.n.astype(np.float64) if rows.w is None else np.ldexp(rows.w2, 2 * rows.w2_exponent)
    independent = float(np.sum(squared * influence**2))
    per_cluster = np.bincount(cluster_index, weights=weight * influence, minlength=num_clusters)
    per_cluster -= per_cluster.mean()  # the sum is 0 for a ratio of counts; exact for any other value too
    # Each cluster's share of the independent variance: its leverage h_g under working
    # independence (m_g / N for a mean). Bell & McCaffrey's bias correction divides its squared
    # sum by 1 - h_g (G / (G - 1) for clusters alike, the usual factor); a large cluster's sum
    # is pulled towards the estimate it dominates, which uncorrected makes the interval short.
    shares = np.bincount(cluster_index, weights=squared * influence**2, minlength=num_clusters)
    leverage = shares / shares.sum() if shares.sum() > 0 else np.full(num_clusters, 1.0 / num_clusters)
    clustered = float(np.sum(per_cluster**2 / np.maximum(1.0 - leverage, 0.05)))
    # Degrees of freedom: G - 1 for clusters alike; fewer when a few clusters carry most of the
    # variance (unequal sizes): the Kish effective number of clusters of those shares.
    effective = float(1.0 / np.sum(leverage**2))
    return _design_effect(clustered, independent, num_clusters, max(1.0, min(float(num_clusters), effective) - 1.0),
                          confidence_level)


def design_effect_from_sums(squares: float, total: float, num_clusters: int, independent: float, confidence_level: float,
                            warn: bool = True, stacklevel: int = 4) -> DesignEffect:
    """The design effect from ``squares`` = sum_g u_g^2 and ``total`` = sum_g u_g of the
    clusters' summed influences u_g, their number, and the independent variance
    sum_i w_i^2 psi_i^2 (what ``design_effect`` computes from rows; a module with its own
    sufficient statistics, such as cross-sums over clusters, computes these sums from them).
    Without each cluster's share of the variance, the clusters are taken as alike: the
    usual G / (G - 1) and t on G - 1 degrees of freedom (no leverage correction).

    Examples
    --------
    >>> round(design_effect_from_sums(4.0, 0.0, 4, 2.0, 0.95, warn=False).measured, 6)  # 4 / 3 x 4 / 2
    2.666667
    """
    if num_clusters < 2:
        return DesignEffect.refused(SINGLE_CLUSTER, num_clusters)
    if warn and num_clusters < FEW_CLUSTERS:
        _warn_few(num_clusters, stacklevel + 1)
    centred = max(squares - total * total / num_clusters, 0.0)  # sum_g (u_g - mean u)^2
    return _design_effect(num_clusters / (num_clusters - 1) * centred, independent, num_clusters, num_clusters - 1.0,
                          confidence_level)


def _warn_few(num_clusters: int, stacklevel: int) -> None:
    warnings.warn(f"clusters: the interval rests on {num_clusters} clusters (fewer than {FEW_CLUSTERS}); its "
                  "variance has few degrees of freedom, so the interval is rough.", UserWarning, stacklevel=stacklevel)


def _design_effect(clustered: float, independent: float, num_clusters: int, degrees_of_freedom: float,
                   confidence_level: float) -> DesignEffect:
    """The variance ratio, at least 1 and widened from z to t on ``degrees_of_freedom`` (module doc)."""
    # Not finite only for weights near float64's limits (squares lost or overflowing): taken as 1.
    finite = math.isfinite(clustered) and math.isfinite(independent)
    measured = clustered / independent if finite and independent > 0 else 1.0
    probability = 0.5 + confidence_level / 2.0
    widening = (t_quantile(probability, degrees_of_freedom) / NormalDist().inv_cdf(probability)) ** 2
    return DesignEffect(max(measured, 1.0) * widening, num_clusters, None, measured)
