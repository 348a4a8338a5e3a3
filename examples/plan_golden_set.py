"""How many labelled items does a judge's golden set need?

Four questions, answered by ``shared/planning.py``:

* ``width`` (``plan_golden_set``): positives and negatives needed for a target half-width
  of the interval the modules return (the score interval of the mean of rates by default,
  ``--ci-method agresti_coull`` or ``wilson`` for per-rate intervals combined by MOVER) on balanced accuracy or binary informedness J, given the judge's expected TPR
  and TNR and the share of positives in the golden set;
* ``compare`` (``plan_judge_comparison``): golden items (each labelled by both judges)
  needed to detect a difference ``--delta-j`` in J between two judges with the given power
  (two-sided z test);
* ``allocate`` (``allocate_golden_budget``): Lee et al.'s (2025) split of a labelling
  budget between golden negatives and positives for the corrected prevalence
  (Rogan-Gladen with Lee's interval), from the share the judge flags on the new data and
  pilot estimates of its TNR and TPR;
* ``ppi`` (``plan_ppi_golden_set``): the size of a random golden sample of the new data
  for a target half-width of the PPI++ prevalence interval (``prevalence_method="ppi"``).

    python examples/plan_golden_set.py width --half-width 0.03 --tpr 0.85 --tnr 0.9 --prevalence 0.2
    python examples/plan_golden_set.py width --half-width 0.05 --tpr 0.85 --tnr 0.9 --prevalence 0.2 --metric informedness
    python examples/plan_golden_set.py compare --delta-j 0.1 --tpr 0.8 --tnr 0.9 --prevalence 0.3 --agreement 0.9
    python examples/plan_golden_set.py allocate --budget 200 --measured 0.4 --tnr 0.7 --tpr 0.9 --pilot 10 --unlabeled 1000
    python examples/plan_golden_set.py ppi --half-width 0.02 --tpr 0.8 --tnr 0.9 --prevalence 0.2 --unlabeled 100000
"""

import argparse
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from shared.tooling import planning  # noqa: E402


def pair_or_float(text):
    """``0.8`` or ``0.8,0.85`` (judge A, judge B)."""
    parts = [float(part) for part in text.split(",")]
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return tuple(parts)
    raise argparse.ArgumentTypeError(f"expected a number or two numbers separated by a comma, found {text!r}")


def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    width = commands.add_parser("width", help="golden-set size for a target interval half-width")
    width.add_argument("--half-width", type=float, required=True, help="target half-width, e.g. 0.03")
    width.add_argument("--tpr", type=float, required=True, help="the judge's expected true positive rate")
    width.add_argument("--tnr", type=float, required=True, help="the judge's expected true negative rate")
    width.add_argument("--prevalence", type=float, required=True, help="share of positives in the golden set")
    width.add_argument("--confidence-level", type=float, default=0.95)
    width.add_argument("--metric", choices=("balanced_accuracy", "informedness"), default="balanced_accuracy")
    width.add_argument("--ci-method", choices=("score", "agresti_coull", "wilson"), default="score")
    compare = commands.add_parser("compare", help="golden items to detect a difference in J between two judges")
    compare.add_argument("--delta-j", type=float, required=True, help="difference in informedness to detect, e.g. 0.1")
    compare.add_argument("--tpr", type=pair_or_float, required=True, help="judge A's TPR, or 'A,B'")
    compare.add_argument("--tnr", type=pair_or_float, required=True, help="judge A's TNR, or 'A,B'")
    compare.add_argument("--prevalence", type=float, required=True, help="share of positives in the golden set")
    compare.add_argument("--agreement", type=pair_or_float, default=None,
                         help="share of items the judges label alike (within each class; or 'positives,negatives'); "
                              "omit for independent errors")
    compare.add_argument("--power", type=float, default=0.8)
    compare.add_argument("--alpha", type=float, default=0.05)
    allocate = commands.add_parser("allocate", help="Lee et al.'s split of a budget between golden negatives and positives")
    allocate.add_argument("--budget", type=int, required=True, help="golden items to label in all, e.g. 200")
    allocate.add_argument("--measured", type=float, required=True, help="share the judge flags on the new data")
    allocate.add_argument("--tnr", type=float, required=True, help="the judge's (pilot) true negative rate")
    allocate.add_argument("--tpr", type=float, required=True, help="the judge's (pilot) true positive rate")
    allocate.add_argument("--pilot", type=int, default=0, help="pilot items of each class the rates come from (0: given)")
    allocate.add_argument("--unlabeled", type=int, default=None, help="new items judged (adds the expected widths)")
    allocate.add_argument("--confidence-level", type=float, default=0.95)
    ppi = commands.add_parser("ppi", help="random golden sample for a target PPI++ interval half-width")
    ppi.add_argument("--half-width", type=float, required=True, help="target half-width, e.g. 0.02")
    ppi.add_argument("--tpr", type=float, required=True, help="the judge's expected true positive rate")
    ppi.add_argument("--tnr", type=float, required=True, help="the judge's expected true negative rate")
    ppi.add_argument("--prevalence", type=float, required=True, help="expected prevalence in the new data")
    ppi.add_argument("--unlabeled", type=int, required=True, help="new items the judge labels")
    ppi.add_argument("--confidence-level", type=float, default=0.95)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.command == "width":
        plan = planning.plan_golden_set(
            args.half_width, tpr=args.tpr, tnr=args.tnr, prevalence=args.prevalence,
            confidence_level=args.confidence_level, metric=args.metric, ci_method=args.ci_method,
        )
        print(f"{args.metric} within +-{args.half_width:g} ({args.confidence_level:.0%}, {plan['ci_method']} interval), "
              f"judge TPR {args.tpr:g}, TNR {args.tnr:g}, {args.prevalence:.0%} positives:")
        print(f"  positives  {plan['positives']:>9,}")
        print(f"  negatives  {plan['negatives']:>9,}")
        print(f"  total      {plan['total']:>9,}")
        print(f"  half-width at the expected counts: {plan['expected_half_width']:.4f} "
              f"(about half of real golden sets of this size come out wider)")
        print(f"  (the Wald formula would say {plan['wald_total']:,})")
    elif args.command == "allocate":
        plan = planning.allocate_golden_budget(
            args.budget, measured_prevalence=args.measured, tnr=args.tnr, tpr=args.tpr, pilot=args.pilot,
            unlabeled_size=args.unlabeled, confidence_level=args.confidence_level,
        )
        print(f"split {args.budget:,} golden items (Lee et al.), judge flags {args.measured:.0%} of the new data, "
              f"TNR {args.tnr:g}, TPR {args.tpr:g}" + (f" from a pilot of {args.pilot} per class:" if args.pilot else " (given):"))
        print(f"  negatives  {plan['negatives']:>9,}")
        print(f"  positives  {plan['positives']:>9,}")
        if "expected_half_width" in plan:
            print(f"  Lee interval half-width at the expected counts, {args.unlabeled:,} new items: "
                  f"{plan['expected_half_width']:.4f} (equal split: {plan['equal_split_half_width']:.4f})")
    elif args.command == "ppi":
        plan = planning.plan_ppi_golden_set(
            args.half_width, tpr=args.tpr, tnr=args.tnr, prevalence=args.prevalence, unlabeled_size=args.unlabeled,
            confidence_level=args.confidence_level,
        )
        print(f"PPI++ prevalence within +-{args.half_width:g} ({args.confidence_level:.0%}), judge TPR {args.tpr:g}, "
              f"TNR {args.tnr:g}, prevalence {args.prevalence:g}, {args.unlabeled:,} new items judged:")
        print(f"  golden items (a random sample of the new data)  {plan['golden']:>9,}")
        print(f"  the golden set alone would need                  {plan['classical_size']:>9,}")
        print(f"  (judge-truth correlation {plan['correlation']:.3f}; half-width at that size {plan['expected_half_width']:.4f})")
    else:
        plan = planning.plan_judge_comparison(
            args.delta_j, tpr=args.tpr, tnr=args.tnr, prevalence=args.prevalence, agreement=args.agreement,
            power=args.power, alpha=args.alpha,
        )
        a, b = plan["judge_a"], plan["judge_b"]
        errors = "independent errors" if args.agreement is None else f"agreement {args.agreement}"
        print(f"detect J {a['j']:g} vs {b['j']:g} (TPR {a['tpr']:g} / {b['tpr']:g}, TNR {a['tnr']:g} / {b['tnr']:g}), "
              f"{errors}, power {args.power:g} at alpha {args.alpha:g}, {args.prevalence:.0%} positives:")
        print(f"  positives  {plan['positives']:>9,}")
        print(f"  negatives  {plan['negatives']:>9,}")
        print(f"  total      {plan['total']:>9,}  (each labelled by both judges)")
    return plan


if __name__ == "__main__":
    main()
