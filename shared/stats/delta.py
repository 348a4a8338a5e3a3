"""The delta method for any smooth function of confusion counts: what a metric declared by its
value alone gets for its interval and its paired comparison (``glue/reduction.py``).

The counts of each reference class are taken as a multinomial sample of that class (its size
fixed, as a recall's is), so a value theta with gradient g (its derivative with respect to each
cell's count) has the linearised variance

    Var = sum_r [ sum_d W2_rd g_rd^2 - (sum_d W_rd g_rd)^2 * (sum_d W2_rd) / (sum_d W_rd)^2 ]

with W the weight sums and W2 the squared-weight sums (both the counts when unweighted): the
influence of each sample centred within its class. Clustered samples multiply it by the design
effect (``stats.design_effect``), which also widens z to Student's t on the clusters.
"""

from statistics import NormalDist
from typing import Any, Callable, Dict, Optional

import numpy as np

from .binomial import Interval
from .design_effect import clustered_squares
from .distributions import z_value


def numeric_gradient(value: Callable[[np.ndarray], float], matrix: np.ndarray) -> np.ndarray:
    """The derivative of ``value`` with respect to each cell of ``matrix`` (central differences,
    a step of 1e-6 of the total count): for a value declared without its own gradient.

    Examples
    --------
    >>> recall_of_class_1 = lambda m: m[1, 1] / m[1].sum()
    >>> np.round(numeric_gradient(recall_of_class_1, np.array([[5.0, 1.0], [2.0, 8.0]])), 6).tolist()  # (1 - 0.8) / 10, -0.8 / 10
    [[0.0, 0.0], [-0.08, 0.02]]
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    step = 1e-6 * max(float(matrix.sum()), 1.0)
    gradient = np.zeros(matrix.shape)
    for cell in np.ndindex(*matrix.shape):
        up, down = matrix.copy(), matrix.copy()
        up[cell] += step
        down[cell] = max(down[cell] - step, 0.0)
        gradient[cell] = (value(up) - value(down)) / (up[cell] - down[cell])
    return gradient


def stratified_variance(weights: np.ndarray, squared_weights: Optional[np.ndarray], influence: np.ndarray) -> float:
    """The variance above: the first axis is the reference class, every other axis a cell within it.

    Examples
    --------
    One class of 10 samples, 8 right: a recall's p (1 - p) / n.

    >>> gradient = np.array([[0.02, -0.08]])  # right: (1 - 0.8) / 10, wrong: -0.8 / 10
    >>> round(stratified_variance(np.array([[8.0, 2.0]]), None, gradient), 6)  # 0.8 x 0.2 / 10
    0.016
    """
    weights = np.asarray(weights, dtype=np.float64)
    squares = weights if squared_weights is None else np.asarray(squared_weights, dtype=np.float64)
    rows = weights.reshape(weights.shape[0], -1)
    square_rows = squares.reshape(rows.shape)
    psi = np.asarray(influence, dtype=np.float64).reshape(rows.shape)
    totals = rows.sum(axis=1)
    shares = np.divide(square_rows.sum(axis=1), totals**2, out=np.zeros(totals.size), where=totals > 0)
    return float(np.sum(square_rows * psi**2) - np.sum((rows * psi).sum(axis=1) ** 2 * shares))


def delta_interval(estimate: float, variance: float, confidence_level: float) -> Interval:
    """``estimate`` -/+ z sqrt(``variance``) (a clustered variance already holds its t widening)."""
    half = z_value(confidence_level) * float(np.sqrt(max(variance, 0.0)))
    return Interval(estimate - half, estimate + half)


def delta_difference(joint: np.ndarray, joint_w2: Optional[np.ndarray], value: Callable[[np.ndarray], float],
                     gradient: Callable[[np.ndarray], np.ndarray], confidence_level: float, design_factor: float = 1.0) -> Dict[str, Any]:
    """The paired difference value(system) - value(baseline) from joint counts ``joint[r, a, b]``
    (reference r, system a, baseline b): its delta-method interval and two-sided p-value (Wald).
    A sample in (r, a, b) moves the difference by g_system[r, a] - g_baseline[r, b]. On leading
    axes (several pairs stacked, as ``judges=`` ranks them), each problem alone, the outputs stacked
    (``difference_ci`` (..., 2), ``p_value`` (...)): ``value`` and ``gradient`` take one matrix."""
    joint = np.asarray(joint, dtype=np.float64)
    if joint.ndim > 3:
        found = [delta_difference(joint[index], None if joint_w2 is None else joint_w2[index], value, gradient, confidence_level,
                                  design_factor)
                 for index in np.ndindex(*joint.shape[:-3])]
        return {"difference_ci": np.array([one["difference_ci"] for one in found]).reshape(*joint.shape[:-3], 2),
                "p_value": np.array([one["p_value"] for one in found]).reshape(joint.shape[:-3])}
    system, baseline = joint.sum(axis=2), joint.sum(axis=1)
    difference = float(value(system) - value(baseline))
    influence = gradient(system)[:, :, None] - gradient(baseline)[:, None, :]
    variance = stratified_variance(joint, clustered_squares(joint, joint_w2, design_factor), influence)
    se = float(np.sqrt(max(variance, 0.0)))
    interval = delta_interval(difference, variance, confidence_level)
    p_value = float(2.0 * (1.0 - NormalDist().cdf(abs(difference) / se))) if se > 0 else (1.0 if difference == 0 else 0.0)
    return {"difference_ci": interval.as_list(), "p_value": p_value}
