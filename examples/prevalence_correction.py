"""Correct a judge-measured prevalence with the judge's golden-set rates (Rogan-Gladen), with an interval.

A judge with true positive rate TPR and false positive rate FPR measures a model's
violation prevalence p as p_measured = FPR + J p, with J = TPR - FPR = 2 BA - 1, so

    p = (p_measured - FPR) / J

The interval must carry both sources of error, the benchmark's (flagged of
benchmark_size) and the golden set's (TPR and FPR): ``corrected_prevalence`` takes the
percentile bootstrap of the three binomial counts. Its coverage is measured by
``studies/golden_set_coverage/study.py`` (section "Prevalence correction" of its results.md); the test suite
checks it on a small run. Copy the function as it is: it needs only NumPy.

    python examples/prevalence_correction.py     # the worked example of the balanced_accuracy card
"""

import numpy as np


def corrected_prevalence(flagged, benchmark_size, tp, positives, fp, negatives, confidence_level=0.95, n_resamples=10_000, seed=0):
    """A judge-measured prevalence corrected with the judge's golden-set rates, with a 95% interval.

    p = (p_measured - FPR) / (TPR - FPR), clipped to [0, 1]; the interval is the percentile
    bootstrap of the three binomial counts (benchmark flags, golden-set TP and FP).
    Works on scalars or on arrays of sets (studies/golden_set_coverage/study.py measures its coverage).
    Resamples where the judge looks no better than chance (TPR <= FPR) are left out.
    """
    rng = np.random.default_rng(seed)

    def correct(measured, tpr, fpr):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(tpr > fpr, np.clip((measured - fpr) / (tpr - fpr), 0.0, 1.0), np.nan)

    point = correct(flagged / benchmark_size, tp / positives, fp / negatives)
    shape = (n_resamples,) + np.shape(point)
    draws = correct(
        rng.binomial(benchmark_size, flagged / benchmark_size, shape) / benchmark_size,
        rng.binomial(positives, tp / positives, shape) / positives,
        rng.binomial(negatives, fp / negatives, shape) / negatives,
    )
    alpha = 1 - confidence_level
    low, high = np.nanquantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
    return point, low, high


def main():
    # Judge A of the balanced_accuracy card: 63 of 83 unsafe and 133 of 917 safe golden examples
    # flagged; on 2,000 responses of a model it flags 400.
    tp, positives, fp, negatives, flagged, benchmark_size = 63, 83, 133, 917, 400, 2000
    tpr, fpr = tp / positives, fp / negatives
    print(f"judge: TPR = {tpr:.3f}, FPR = {fpr:.3f}, J = {tpr - fpr:.3f}; measured prevalence {flagged / benchmark_size:.3f}")
    point, low, high = corrected_prevalence(flagged, benchmark_size, tp, positives, fp, negatives)
    print(f"corrected prevalence {float(point):.4f}, 95% interval [{float(low):.4f}, {float(high):.4f}]")


if __name__ == "__main__":
    main()
