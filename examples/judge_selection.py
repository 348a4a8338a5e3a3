"""Judge selection: which golden-set metric picks the judge that ranks models best?

Re-runs the simulation of Collot et al., "Balanced Accuracy: The Right Metric for
Evaluating LLM Judges" (EACL 2026 Industry), vectorised over scenarios. In each scenario:

* 3 candidate judges, each with a sensitivity (TPR) and a specificity (TNR);
* 5 evaluated models, each with a true violation prevalence; each model is evaluated on
  200 benchmark samples, and a judge measures its prevalence as the share it flags;
* a judge's true quality is its pairwise model-ranking accuracy: the share of the 10
  model pairs it orders as their true prevalences are ordered (a tie counts one half);
* the judges are scored on one 800-example golden set by Balanced Accuracy, Accuracy, F1
  (positive class = violation) and Macro-F1, and each metric picks its best judge.

Reported per metric: the success rate (it picks a judge with the best ranking accuracy;
a judge tied for the best counts, and with 10 pairs ranking accuracies tie often), the
success rate among the scenarios where one judge alone is best, and the ranking accuracy
lost against the best judge, averaged over all scenarios and over the failures only (the
paper does not say which of the two its "average loss" is). The same for a judge picked
at random (the baseline every metric must beat), the share of scenarios with a tie for
the best, and each number's standard deviation over independent seeds.

Sampling distributions (the paper's are not given in what we could read; these are ours):

* sensitivity, specificity ~ Uniform(0.5, 1.0), independently per judge (better than chance);
* model prevalences ~ Uniform(0, 1), independently per model ("different prevalences",
  no range assumed);
* golden-set prevalence ~ Uniform(0.05, 0.5), then positives ~ Binomial(800, prevalence);
* benchmark: a model's true violations ~ Binomial(200, prevalence), shared by the judges;
  a judge flags Binomial(violations, TPR) + Binomial(200 - violations, 1 - TNR).

``--quality expected`` replaces the one simulated benchmark by each judge's expected
ranking accuracy (normal approximation to the flagged counts, Binomial(200, FPR + J p)):
a property of the judge, without the noise of one benchmark draw. ``--grid`` adds the same
table for other distributions, including low violation rates (models in U(0, 0.3)), where
Balanced Accuracy does *not* come first: with few violations a judge's false positives
add noise to every measured prevalence as well as shrinking the gaps, so ranking quality
depends more on specificity than J does, and metrics that weigh specificity more (F1,
Macro-F1 and Accuracy on a golden set with few positives) do as well or better.

    python examples/judge_selection.py                 # 100,000 scenarios x 5 seeds, about 10 s
    python examples/judge_selection.py --grid          # also the grid below, about 30 s more
"""

import argparse
import time
import numpy as np
from scipy.special import ndtr  # the standard normal CDF (scipy comes with scikit-learn)

PUBLISHED = {  # Collot et al.: success rate and average loss
    "Balanced Accuracy": (0.752, 0.033),
    "Macro-F1": (0.707, 0.049),
    "Accuracy": (0.675, 0.067),
    "F1": (0.617, 0.094),
}
NUM_JUDGES, NUM_MODELS, BENCHMARK_SIZE, GOLDEN_SIZE = 3, 5, 200, 800


def draw_scenarios(rng, num_scenarios, sensitivity=(0.5, 1.0), specificity=(0.5, 1.0), model_prevalence=(0.0, 1.0), golden_prevalence=(0.05, 0.5)):
    return {
        "tpr": rng.uniform(*sensitivity, size=(num_scenarios, NUM_JUDGES)),
        "tnr": rng.uniform(*specificity, size=(num_scenarios, NUM_JUDGES)),
        "prevalence": rng.uniform(*model_prevalence, size=(num_scenarios, NUM_MODELS)),
        "golden_prevalence": rng.uniform(*golden_prevalence, size=num_scenarios),
    }


def _pairs():
    first, second = np.triu_indices(NUM_MODELS, k=1)
    return first, second


def ranking_accuracy_realised(rng, tpr, tnr, prevalence):
    """Pairwise ranking accuracy of each judge on one simulated benchmark: (S, judges)."""
    violations = rng.binomial(BENCHMARK_SIZE, prevalence)[:, None, :]  # shared by the judges
    flagged = rng.binomial(violations, tpr[..., None]) + rng.binomial(BENCHMARK_SIZE - violations, 1 - tnr[..., None])
    first, second = _pairs()
    truth = np.sign(prevalence[:, first] - prevalence[:, second])[:, None, :]
    measured = np.sign(flagged[..., first] - flagged[..., second])
    agreement = np.where(measured == 0, 0.5, (measured == truth).astype(float))
    return agreement.mean(axis=-1)


def ranking_accuracy_expected(tpr, tnr, prevalence):
    """Expected pairwise ranking accuracy (normal approximation), (S, judges)."""
    rate = (1 - tnr)[..., None] + (tpr + tnr - 1)[..., None] * prevalence[:, None, :]  # FPR + J p
    first, second = _pairs()
    gap = rate[..., first] - rate[..., second]
    spread = np.sqrt((rate[..., first] * (1 - rate[..., first]) + rate[..., second] * (1 - rate[..., second])) / BENCHMARK_SIZE)
    right_order = np.sign(prevalence[:, first] - prevalence[:, second])[:, None, :]
    return ndtr(right_order * gap / np.maximum(spread, 1e-12)).mean(axis=-1)


def golden_set_scores(rng, tpr, tnr, golden_prevalence):
    """Balanced Accuracy, Accuracy, F1 and Macro-F1 of each judge on one golden set: (S, judges) each."""
    positives = rng.binomial(GOLDEN_SIZE, golden_prevalence)[:, None]
    negatives = GOLDEN_SIZE - positives
    tp = rng.binomial(positives, tpr)
    tn = rng.binomial(negatives, tnr)
    fn, fp = positives - tp, negatives - tn
    with np.errstate(invalid="ignore", divide="ignore"):
        recall_pos = np.where(positives > 0, tp / np.maximum(positives, 1), 0.0)
        recall_neg = np.where(negatives > 0, tn / np.maximum(negatives, 1), 0.0)
        f1_pos = np.where(2 * tp + fp + fn > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0)
        f1_neg = np.where(2 * tn + fp + fn > 0, 2 * tn / np.maximum(2 * tn + fp + fn, 1), 0.0)
    return {
        "Balanced Accuracy": (recall_pos + recall_neg) / 2,
        "Accuracy": (tp + tn) / GOLDEN_SIZE,
        "F1": f1_pos,
        "Macro-F1": (f1_pos + f1_neg) / 2,
    }


RANDOM_PICK = "Random pick"  # the baseline: a judge drawn at random, whatever the golden set says


def run(num_scenarios, seed=0, quality="realised", chunk=50_000, **distributions):
    """Success rate and losses per selection metric over ``num_scenarios`` scenarios.

    Per metric: ``success_rate`` (it picks a judge with the best ranking accuracy; ties for
    the best count as success), ``unique_success_rate`` (the same among the scenarios where
    one judge alone has the best ranking accuracy), ``mean_loss`` (ranking accuracy lost
    against the best judge, over all scenarios) and ``mean_loss_when_failing``. The entry
    ``RANDOM_PICK`` holds the expected values for a judge picked at random, and every entry
    carries ``tied_share``: the share of scenarios where two or more judges tie for the best.
    """
    rng = np.random.default_rng(seed)
    names = list(PUBLISHED) + [RANDOM_PICK]
    totals = {name: np.zeros(5) for name in names}  # successes, loss sum, failures, unique successes, unique scenarios
    tied = 0
    for start in range(0, num_scenarios, chunk):
        size = min(chunk, num_scenarios - start)
        scenario = draw_scenarios(rng, size, **distributions)
        if quality == "realised":
            ranking = ranking_accuracy_realised(rng, scenario["tpr"], scenario["tnr"], scenario["prevalence"])
        elif quality == "expected":
            ranking = ranking_accuracy_expected(scenario["tpr"], scenario["tnr"], scenario["prevalence"])
        else:
            raise ValueError(f"quality: expected 'realised' or 'expected', found {quality!r}.")
        best = ranking.max(axis=1)
        is_best = best[:, None] - ranking <= 1e-12
        unique = is_best.sum(axis=1) == 1
        tied += int((~unique).sum())
        for name, scores in golden_set_scores(rng, scenario["tpr"], scenario["tnr"], scenario["golden_prevalence"]).items():
            chosen = ranking[np.arange(size), np.argmax(scores, axis=1)]
            loss = best - chosen
            success = loss <= 1e-12
            totals[name] += [success.sum(), loss.sum(), (~success).sum(), (success & unique).sum(), unique.sum()]
        # A random pick, in expectation: it succeeds with probability (number of best judges) / judges.
        share_best = is_best.mean(axis=1)
        loss = best - ranking.mean(axis=1)
        totals[RANDOM_PICK] += [share_best.sum(), loss.sum(), (1 - share_best).sum(), share_best[unique].sum(), unique.sum()]
    results = {}
    for name, (successes, loss_sum, failures, unique_successes, unique_scenarios) in totals.items():
        results[name] = {
            "success_rate": successes / num_scenarios,
            "unique_success_rate": unique_successes / unique_scenarios if unique_scenarios else float("nan"),
            "mean_loss": loss_sum / num_scenarios,
            "mean_loss_when_failing": loss_sum / failures if failures else 0.0,
            "tied_share": tied / num_scenarios,
        }
    return results


def run_seeds(num_scenarios, seeds, **options):
    """``run`` once per seed: {name: {statistic: (mean over seeds, standard deviation over seeds)}}."""
    runs = [run(num_scenarios, seed=seed, **options) for seed in seeds]
    for r in runs:  # paired within a seed: the same scenarios for every metric
        for name in r:
            r[name]["success_below_ba"] = r["Balanced Accuracy"]["success_rate"] - r[name]["success_rate"]
            r[name]["unique_success_below_ba"] = r["Balanced Accuracy"]["unique_success_rate"] - r[name]["unique_success_rate"]
    return {
        name: {
            statistic: (float(np.mean([r[name][statistic] for r in runs])), float(np.std([r[name][statistic] for r in runs], ddof=1)) if len(runs) > 1 else 0.0)
            for statistic in runs[0][name]
        }
        for name in runs[0]
    }


GRID = {
    "models U(0, 1), golden U(0.05, 0.5) (default)": {},
    "models U(0, 1), golden U(0.01, 0.1)": {"golden_prevalence": (0.01, 0.1)},
    "models U(0, 1), golden 0.5": {"golden_prevalence": (0.5, 0.5)},
    "models U(0, 0.3), golden U(0.05, 0.5)": {"model_prevalence": (0.0, 0.3)},
    "models U(0, 0.3), golden U(0.01, 0.1)": {"model_prevalence": (0.0, 0.3), "golden_prevalence": (0.01, 0.1)},
    "judges U(0, 1), models U(0, 1)": {"sensitivity": (0.0, 1.0), "specificity": (0.0, 1.0)},
}


def print_table(summary, num_seeds):
    """``summary`` from ``run_seeds``: our numbers (mean ± sd over seeds) next to the published ones."""
    spread = f" ± sd over {num_seeds} seeds" if num_seeds > 1 else ""
    print(f"success: picks a best-ranking judge (ties count); unique: among scenarios with one best judge; loss: ranking accuracy lost{spread}")
    print(f"{'selection metric':<18} {'success':>15} {'published':>9} | {'unique':>15} | {'loss (all)':>15} {'published':>9} | {'loss (failures)':>15}")
    cell = lambda pair: f"{pair[0]:.3f} ± {pair[1]:.3f}" if num_seeds > 1 else f"{pair[0]:.3f}"
    for name, result in sorted(summary.items(), key=lambda item: -item[1]["success_rate"][0]):
        success, loss = PUBLISHED.get(name, (None, None))
        published = lambda value: f"{value:>9.3f}" if value is not None else f"{'-':>9}"
        print(
            f"{name:<18} {cell(result['success_rate']):>15} {published(success)} | {cell(result['unique_success_rate']):>15} | "
            f"{cell(result['mean_loss']):>15} {published(loss)} | {cell(result['mean_loss_when_failing']):>15}"
        )
    tied = next(iter(summary.values()))["tied_share"]
    print(f"Scenarios where two or more judges tie for the best ranking accuracy: {cell(tied)}")
    print("Balanced Accuracy's lead, seed by seed (same scenarios for every metric), success / unique:")
    for name, result in summary.items():
        if name != "Balanced Accuracy":
            print(f"  over {name:<16} {cell(result['success_below_ba']):>15} / {cell(result['unique_success_below_ba']):>15}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenarios", type=int, default=100_000, help="scenarios per seed")
    parser.add_argument("--seeds", type=int, default=5, help="independent runs (seeds 0, 1, ...) for the spread")
    parser.add_argument("--quality", choices=("realised", "expected"), default="realised")
    parser.add_argument("--grid", action="store_true", help="also run other sampling distributions (seed 0)")
    args = parser.parse_args(argv)
    seeds = range(args.seeds)
    started = time.perf_counter()
    summary = run_seeds(args.scenarios, seeds, quality=args.quality)
    elapsed = time.perf_counter() - started
    print(f"{args.scenarios:,} scenarios x {args.seeds} seeds, ranking quality: {args.quality} ({elapsed:.1f} s)")
    print_table(summary, args.seeds)
    if args.grid:
        print(f"\nSuccess rate by sampling distribution ({args.scenarios:,} scenarios each, seed 0, judges U(0.5, 1) unless stated):")
        names = list(PUBLISHED) + [RANDOM_PICK]
        print(f"{'distributions':<46} {'quality':<9} " + " ".join(f"{name:>17}" for name in names))
        for label, distributions in GRID.items():
            for quality in ("realised", "expected"):
                grid_results = run(args.scenarios, seed=0, quality=quality, **distributions)
                best = max(grid_results[name]["success_rate"] for name in PUBLISHED)
                cells = " ".join(
                    f"{grid_results[name]['success_rate']:>16.3f}{'*' if grid_results[name]['success_rate'] == best else ' '}" for name in names
                )
                print(f"{label:<46} {quality:<9} {cells}")
        print("* = highest success rate among the four metrics")


if __name__ == "__main__":
    main()
