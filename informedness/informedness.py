"""Informedness: Youden's J and Powers' multi-class Bookmaker Informedness, with its dual, markedness."""

import datasets
import evaluate

from .shared_core import check_class_mask
from .shared_core import CLUSTERS_DOC
from .shared_core import check_flag
from .shared_core import check_judges_threshold
from .shared_core import check_ignore_index
from .shared_core import check_informedness_zero_division
from .shared_core import check_labels
from .shared_core import check_num_classes
from .shared_core import check_optional_n_resamples
from .shared_core import check_pos_label
from .shared_core import check_prevalence_method
from .shared_core import check_reference_model
from .shared_core import choice
from .shared_core import CI_METHODS
from .shared_core import MetricSpec
from .shared_core import INFORMEDNESS_AVERAGES
from .shared_core import interval_options
from .shared_core import JudgeMetric
from .shared_core import JUDGES_DOC
from .shared_core import JUDGES_OUTPUTS_DOC
from .shared_core import LOAD_TIME_DOC
from .shared_core import Option
from .shared_core import informedness_from_counts
from .shared_core import informedness_intervals
from .shared_core import informedness_influence
from .shared_core import informedness_paired_difference

_DESCRIPTION = """
Informedness is the probability that a prediction is informed about the true class, as
opposed to a guess. Per class c, one-vs-rest:

    J_c = TPR_c - FPR_c = TPR_c + TNR_c - 1           (informedness, Youden's J)
    MK_c = PPV_c + NPV_c - 1                          (markedness, its dual)

In a binary task J is Youden's J = TPR + TNR - 1 = 2 * BA - 1, the same for either class.
With prevalence pi_c (share of references that are c) and bias beta_c (share of
predictions that are c), the multi-class averages are:

    "bookmaker" (default): sum_c beta_c * J_c    (Powers' Bookmaker Informedness: the
                                                  prediction-weighted mean of J_c)
    "macro":               mean_c J_c
    "weighted":            sum_c pi_c * J_c

Guessing, from any prior, and always predicting one class score 0 whatever the class
balance; a perfect classifier scores 1; a model that is right with probability x and
otherwise guesses from the class prior scores x, for every averaging and any prevalence.
"""

_ZERO_DIVISION_DOC = """zero_division ("skip" or 0.0, defaults to "skip"): J_c is undefined
        for a class with no reference samples (no TPR) or whose references are all the
        samples (no TNR); MK_c likewise for predictions. "skip" leaves such a class out of
        the average and reports NaN for it in per-class outputs; 0.0 counts it as
        uninformed (J_c = 0, what a guess earns) and averages it like the others. 1.0, which
        balanced accuracy accepts, is refused here: it would reward predicting a class absent
        from the references (references [0, 0, 1, 1], predictions [0, 2, 1, 2]: 0.5 with
        "skip", 0.25 with 0.0, and it would be 0.75 with 1.0). Under "skip", a class with
        predictions but no references raises a UserWarning (balanced_accuracy's rule),
        which names a predicted label that is a reference class but for case, spaces, "-"
        or "_" ('Safe' for 'safe') as a probable typo."""

_KWARGS_DESCRIPTION = f"""
Args:
    predictions (array-like of any shape): predicted labels. Lists, NumPy arrays, torch
        tensors, pandas Series and pyarrow arrays are accepted; N-d inputs are flattened.
        Labels sharing no class with the references (another vocabulary: "C"/"I" for
        "correct"/"incorrect") are a ValueError, not a value of 0.
    references (array-like, same shape as predictions): true labels: integers or any
        hashable values such as strings.
    average (`"bookmaker"`, `"macro"` or `"weighted"`, defaults to `"bookmaker"`): how
        the per-class J_c are combined: weighted by the share of predictions of each
        class (bias), a plain mean, or weighted by the share of references (prevalence).
        All three are Youden's J in a binary task.
    labels (list, optional): the class values in the order used by per-class outputs
        and `class_mask`; any value outside it is an error.
    num_classes (int, optional): for integer labels 0..K-1; every label must lie in
        [0, K-1]. If omitted (and no `labels`), the classes are the distinct values seen
        in references and predictions, sorted (0/1 labels always give classes [0, 1]).
    ignore_index (optional): samples whose reference equals this value are dropped
        (e.g. -100 for padded tokens, 255 for void pixels). Without it, references
        holding -100 (or 255 in a uint8 array) are counted as a class, with a
        UserWarning that names `ignore_index`.
    class_mask (list of int, optional): combine only these class indices (positions in
        the class order). Their averaging weights (bias for "bookmaker", prevalence for
        "weighted") are renormalised to sum to 1 over the classes averaged, so the result
        stays a weighted mean of their J_c.
    sample_weight (array-like, optional): one non-negative finite weight per sample;
        counts become weighted sums.
    {_ZERO_DIVISION_DOC}
    return_per_class (bool, defaults to False): also return `per_class_informedness`,
        `support_per_class`, `predicted_per_class` and `classes`.
    return_markedness (bool, defaults to False): also return `markedness`, the mirror
        image of the chosen average: sum_c pi_c * MK_c for "bookmaker", mean_c MK_c for
        "macro", sum_c beta_c * MK_c for "weighted" (binary: PPV + NPV - 1).
    return_confusion_matrix (bool, defaults to False): also return `confusion_matrix` and
        `classes`.
    confusion_matrix (K x K array-like, instead of predictions and references): counts
        made elsewhere (rows = references, columns = predictions, in the order of
        `labels`, or classes 0..K-1, as scikit-learn's `confusion_matrix`); the result,
        interval included, is what the same samples give. Non-integer entries are
        weighted sums. `unlabeled_predictions` (and its baseline) may come with it.
    confidence_level (float in (0, 1), optional): e.g. 0.95 adds `informedness_ci`, a
        confidence interval for the informedness (none for markedness). Default None: no
        interval.
    ci_method ("score", "agresti_coull", "wilson", "bootstrap", "delta" or None): "score"
        (the default, None, for any number of classes): with two classes, informedness is
        Youden's J = TPR + TNR - 1 and "score" is balanced_accuracy's interval of
        (TPR + TNR) / 2 mapped to J; with more, J is linearised in each reference class's
        error rate (moving an item of class i from the diagonal to column j moves J by
        Psi_ij - Psi_ii, Psi below), each class's errors taken as one binomial, and that
        sum of rates gets the same score interval with its gamma bound near the ceiling
        (analytic, O(K^2)). It covered 0.943 or more in every cell of
        studies/multiclass_informedness (K = 3-5, n = 60-300, a class of 3-15 items,
        judges up to J = 0.98, bookmaker and macro), where the delta method and the
        bootstrap fell to 0.91-0.92 near the ceiling and the delta method to 0.76 with a
        class of 3 items under "macro". `groups` gives each group this same interval of
        its own items. "agresti_coull" and
        "wilson": an Agresti-Coull (or Wilson score) interval for TPR and for TNR,
        combined with MOVER. "delta": the delta-method (influence-function) interval
        J +- z sqrt(sum_ij n_ij Psi_ij^2), Psi_ij the derivative of the informedness (with
        its `average`, `class_mask` and `zero_division`) in the count of cell (i, j),
        analytic and O(K^2) (K = 150 in milliseconds); its variance is taken at the counts
        plus 0.5 pseudo-items per reference class, spread over the row, so a class with all
        items right still varies. "bootstrap" redraws each reference class's row of the
        confusion matrix as Multinomial(class size, row shares) - stratified and on
        counts, so its cost does not grow with the number of samples; a row with every
        item in one cell with 0.5 pseudo-items spread over it - and returns the
        percentile interval. With more than two classes "score", "delta" and "bootstrap"
        apply (J is then not a sum of independent rates; "agresti_coull" or "wilson" is a
        ValueError). With `sample_weight`, the delta method sums squared
        weights instead of counts and the other methods count each class as Kish's
        effective size (sum w)^2 / sum w^2 (an approximation for importance weights; not
        for frequency counts). It also chooses the interval of a Rogan-Gladen
        `corrected_prevalence`: "bootstrap" the smoothed bootstrap; anything else, for two
        classes, Lee et al.'s (2025) interval where the golden set pins J down (its smoothed
        J at least 6.5 of its standard errors from 0), the smoothed bootstrap where it does
        not (less than 4.5) and a blend of the two between (more classes: the bootstrap);
        and of `informedness_difference_ci`: "bootstrap" the
        paired bootstrap, anything else its default (two classes Newcombe's, more the delta
        method).
    n_resamples (int, optional): bootstrap resamples. Default None: 10,000, except for
        the bootstrap of a confusion matrix of more than 50 classes: 25,000,000 / K^2
        resamples, at least 1,000 (K = 150: 1,111; about 3 s), whose percentile endpoints
        carry a Monte-Carlo error of about 0.085 standard errors of the value (0.027 with
        10,000).
    seed (int, optional): seed of the bootstrap's random generator, for reproducible
        intervals.
    {CLUSTERS_DOC}
    {JUDGES_DOC}
    baseline_predictions (array-like, same shape as predictions, optional): a second
        system's predictions on the same samples (e.g. judge B beside judge A), to compare
        the two on one golden set. Every option applies to both systems alike (the classes,
        `average`, `ignore_index`, `class_mask`, `zero_division`, `sample_weight`). Pass it
        with every batch to `add_batch` or with none. The classes are `labels`,
        0..num_classes-1, or the values seen in references and either system's predictions
        (at most 128 classes).
    pos_label (optional): with two classes, the class whose prevalence
        `corrected_prevalence` is (and whose TPR and FPR `per_group` gives). Default: 1
        for the labels 0/1; with any other two labels (strings such as "pass"/"fail",
        or 0/1 given as `labels=[1, 0]`) those outputs need it, as scikit-learn's
        `pos_label` does: a ValueError names the classes. Informedness itself is the
        same for either class and needs none. Given, it makes the task binary (two
        classes, as in balanced_accuracy).
    unlabeled_predictions (array-like, optional): the judge's labels on data without
        references (any length, any shape, not aligned with `references`): adds
        `corrected_prevalence`, the class prevalence of that data corrected for the
        judge's errors on the golden set (`predictions` vs `references`). Binary: the
        prevalence of the positive class (`pos_label`; class 1 for 0/1 labels, which
        alone need no pos_label), named by `corrected_prevalence_class`; multi-class: a
        list per class. Its key assumption
        (`prevalence_method="rogan_gladen"`): the judge errs on the new data as on the
        golden set (the same rates per true class; the class mix may differ); check it
        with `groups`. A label outside the classes is a ValueError; labels equal to
        `ignore_index` are dropped; `sample_weight` weighs the golden set only. Like
        predictions, it may come with any `add_batch`, with or without a golden batch.
        Several models through one judge: a mapping from each model's name (a string) to
        the judge's labels on that model's outputs adds `model_prevalences` and
        `prevalence_differences` instead (below), the intervals simultaneous across the
        models and across the pairs; pass a mapping with every batch (a model may be missing
        from some). One model in the mapping gives today's numbers exactly.
    reference_model (str, optional): with `unlabeled_predictions` as a mapping, compare each
        other model with this one (model minus it) instead of every pair.
    prevalence_method ("rogan_gladen" or "ppi", defaults to "rogan_gladen"): the estimator
        of `corrected_prevalence`. "rogan_gladen": Rogan-Gladen (q - FPR) / J for two
        classes, adjusted classify and count for more (solve q = C^T p, C the
        row-normalised confusion matrix, projected onto the probability simplex); it
        assumes the judge's rates per true class transfer from the golden set to the new
        data, and allows the class mix to differ (prior shift). "ppi": prediction-powered
        inference (PPI++, Angelopoulos, Duchi & Zrnic 2023), the mean of the references
        over the golden set corrected by the judge's labels with a power-tuned weight (as
        ppi-python's ppi_mean_ci; one-vs-rest per class); it assumes the golden set is a
        random sample of the new data (then any judge is fine and the interval is much
        narrower), and is refused with a reason when the judge's labels show the two sets
        differ, and with a ValueError for `unlabeled_baseline_predictions`, a mapping of
        two or more models, or `sample_weight`.
    unlabeled_baseline_predictions (array-like, optional): a second evaluated model's
        judged labels (with `unlabeled_predictions`): adds `corrected_prevalence_difference`,
        the corrected prevalence of `unlabeled_predictions` minus this one's (binary:
        Delta q / J), and `baseline_corrected_prevalence` (with `_ci`, `_reason`,
        `_clipped`, `baseline_measured_prevalence`), its own, as one model's.
    groups (array-like, optional): one id (integer or string) per golden-set sample, e.g.
        the evaluated model that wrote each judged response: adds `per_group` (the judge's
        rates per group) and `group_heterogeneity_p_value`. Not with `sample_weight`. With
        two classes other than 0/1, the per-group TPR and FPR need `pos_label`.

Returns:
    informedness (float): in [-1, 1]; 0 for guessing. NaN with a `reason` when nothing
        can be averaged: "no_samples" (empty input: no samples, or only samples of
        weight 0; the same in all four modules), "empty_after_ignore_index",
        "fewer_than_two_reference_classes", "empty_class_mask_after_filtering",
        "averaged_classes_have_zero_weight".
    informedness_ci (list of two floats): with `confidence_level`, [low, high] inside
        [-1, 1]; [nan, nan] when the informedness is undefined. Also [nan, nan], with an
        `informedness_ci_reason`, when a numeric `zero_division` gives a value that has no
        sampling distribution ("fewer_than_two_reference_classes").
    num_clusters (int), design_effect (float): with `confidence_level` and clusters (given,
        or the leading axis of N-d inputs): how many clusters the interval rests on, and the
        measured ratio of its variance to that of independent samples (see `clusters`).
    clusters_from (str): "leading_axis" beside `num_clusters` when the clusters were not
        given but taken from the leading axis of N-d inputs (one cluster per leading
        element). A list of per-batch arrays (Trainer with eval_do_concat_batches=False)
        reads as one N-d array, so each batch becomes one cluster: join them with
        `np.concatenate(..., axis=0)`, or pass `clusters=`.
    informedness_difference_design_effect, corrected_prevalence_design_effect (float):
        with clusters, the design effect of the difference, and of the golden set's part of
        the corrected prevalence (each golden row then counts as its size over it; the
        judge's outputs on new data are taken as independent; with a baseline or several
        models, the largest over the models, whose corrections share the golden set).
        PPI++ takes golden items as independent: with clusters its interval is NaN
        ("ppi_needs_independent_golden_items").
    markedness (float): with `return_markedness`; NaN with a `markedness_reason`
        ("fewer_than_two_predicted_classes", ...) when undefined, e.g. for a constant predictor.
    per_class_informedness (list of float): J_c in class order (NaN where undefined,
        unless `zero_division` is a number).
    per_class_markedness (list of float): MK_c, with both `return_per_class` and
        `return_markedness`.
    support_per_class, predicted_per_class (list): reference and prediction counts per
        class (weighted sums when weighted).
    classes (list): the class values in class order.
    confusion_matrix (list of lists): with `return_confusion_matrix`, rows = references,
        columns = predictions, in `classes` order (weighted sums when weighted).
    With `baseline_predictions` (the outputs above are those of `predictions`):
    baseline_informedness (float): the informedness of `baseline_predictions` (with
        `baseline_informedness_reason` when undefined).
    informedness_difference (float): informedness - baseline_informedness.
    informedness_difference_ci (list of two floats): with `confidence_level`, an interval
        for the difference that uses the pairing. Two classes: J = 2 BA - 1 for every
        average, so twice Newcombe's (1998) method 10 interval for the difference of paired
        recalls as published (phi with its n/2 correction), combined by MOVER (Zou & Donner
        2008). More classes: the delta method (Wald) with the stratified multinomial
        covariance of the joint (reference, prediction, baseline) counts, taken with one
        pseudo-item of disagreement per class. ci_method="bootstrap": the percentile
        interval of a stratified bootstrap of those joint counts, smoothed alike.
    informedness_difference_p_value (float): two-sided p-value of "the two systems' labels
        are exchangeable on every item" (which implies equal informedness): the stratified
        McNemar score test on the linearised difference (two classes: exactly the balanced
        accuracy one, with its exact mid-p version when few items are discordant).
    baseline_confusion_matrix (list of lists): with `return_confusion_matrix`, that of
        `baseline_predictions`, in the same `classes` order.
    informedness_difference_reason (str): why the difference, interval or p-value is NaN
        (e.g. "fewer_than_two_reference_classes").
    corrected_prevalence (float, or list per class): with `unlabeled_predictions`; NaN with
        a `corrected_prevalence_reason` when it cannot be had. Rogan-Gladen, one rule for
        any number of classes: "informedness_too_small" when |J| (for K > 2 the smallest
        singular value of C^T on the sum-zero directions) is at most 0.05 (each point of
        error in q would grow at least 20-fold); a judge with J < 0 (or a class it gives
        less often when it is the truth) is corrected with a UserWarning that its labels
        look swapped. Also "class_without_golden_references", "no_unlabeled_predictions",
        "fewer_than_two_classes"; PPI: "golden_set_unlike_unlabeled_data" (the judge's
        labels differ between the golden set and the new data, chi-square p < 0.001),
        "too_few_golden_items".
    corrected_prevalence_clipped (bool): the estimate left [0, 1] (the simplex) and was
        projected onto it.
    corrected_prevalence_ci (list): with `confidence_level`, [low, high] (binary) or one per
        class. Rogan-Gladen with two classes: Lee et al.'s (2025) adjusted interval (their
        reference code's `confidence_interval`: pseudo-counts on the measured share and on
        both rates, a bias shift, a delta-method standard error over both samples) where
        the golden set pins J down (smoothed J at least 6.5 of its standard errors from 0),
        the bootstrap where it does not (less than 4.5: a weak judge with few golden
        positives, where Lee's interval falls short of the level), and between the two a
        blend of their ends, Lee's weight rising linearly from 0 at 4.5 to 1 at 6.5, so the
        interval moves continuously as golden items are added; `ci_method="bootstrap"` and
        more classes: a smoothed percentile bootstrap drawing each golden row's rates from
        Dirichlet(counts + 1) and the unlabeled shares likewise (`n_resamples`, `seed`);
        weighted golden rows count as their Kish effective sizes. PPI: PPI++'s normal
        interval. Within [0, 1]; where the estimate was clipped to 0 (or 1) the interval
        keeps the width the data leave, [0, x + sqrt(x^2 + d^2)] for an unclipped interval
        centred at x < 0 (Lee's middle, the bootstrap replicates' median) with upper
        half-width d, never [0, 0].
    corrected_prevalence_ci_method (str): with `confidence_level`, the interval given:
        "lee", "bootstrap", "lee_bootstrap" (the blend) or "ppi".
    corrected_prevalence_ci_reason (str): why the interval alone is NaN
        ("too_few_golden_items": Lee's pseudo-counts outweigh a class's golden items;
        "too_few_golden_items_for_ppi": PPI with fewer than 30 golden items of a class, or
        outside it, where its normal interval falls short of its level), or why it spans
        every value ([0, 1]; [-1, 1] for a difference): "judge_not_told_from_chance" (the
        golden set cannot tell the judge from a guesser: its bootstrap draws with |J| <= 0.05
        alone reach the interval's tails), else "interval_spans_all_values".
    corrected_prevalence_class: with two classes, the class whose prevalence is corrected
        (`pos_label`, or 1 for 0/1 labels).
    measured_prevalence (float, or list per class): the judge's raw shares q on the
        unlabeled data.
    corrected_prevalence_difference (float, or list per class), with its `_ci`, `_reason`
        and `_clipped`: with `unlabeled_baseline_predictions`, in [-1, 1]. Its interval is
        the smoothed bootstrap's, its replicates centred on the estimate.
    model_prevalences (list of dict): with `unlabeled_predictions` as a mapping, per model in
        the order given: `name`, `corrected_prevalence`, `corrected_prevalence_ci` (with
        `confidence_level`: all the models' intervals hold together with probability about
        `confidence_level`), `corrected_prevalence_clipped`, `measured_prevalence` and, when
        they apply, `corrected_prevalence_reason`, `corrected_prevalence_ci_reason`. Each
        interval is the one-model interval at Bonferroni's level 1 - (1 - confidence_level)
        / M for M models (`prevalence_marginal_level`), its bootstrap drawn jointly over the
        shared golden set and each model's labels.
    prevalence_differences (list of dict): per pair (every pair, the earlier model minus the
        later, or each model minus `reference_model`): `models`,
        `corrected_prevalence_difference` with its `_ci` (simultaneous across the pairs:
        Bonferroni's level, `prevalence_difference_marginal_level`), `_clipped` and
        `_reason`, and `p_value`:
        H0 equal prevalences, which under the correction's assumption means equal label
        shares, Pearson's chi-square test of the two models' label counts, adjusted by Holm
        over the pairs.
    prevalence_marginal_level, prevalence_difference_marginal_level (float): with a mapping
        and `confidence_level`, each family's per-interval level.
    per_group (dict): with `groups`, per group id (sorted): `support` (golden items per
        reference class), binary `tpr` and `fpr` of the positive class or multi-class
        `recall` per class, `informedness` (Youden's J; bookmaker for K > 2), and with
        `confidence_level` its `informedness_ci`.
    group_heterogeneity_p_value (float): H0 the judge errs alike (same confusion rows) on
        every group: Pearson's chi-square test of homogeneity summed over reference
        classes; NaN with a `group_heterogeneity_reason` when fewer than two groups have
        items of a class.

    {JUDGES_OUTPUTS_DOC.format(metric="informedness")}

{LOAD_TIME_DOC} `add_batch` keeps counts of distinct (reference, prediction) pairs, not the
samples, so streaming a dataset takes memory that does not grow with its size; pass
`sample_weight` to `add_batch` with its batch.

Examples:

    Binary: Youden's J (TPR 0.8, TNR 0.8) and markedness (PPV 2/3, NPV 8/9):

    >>> metric = evaluate.load("informedness")
    >>> metric.compute(references=[0] * 10 + [1] * 5, predictions=[0] * 8 + [1] * 2 + [0] + [1] * 4,
    ...                return_markedness=True)
    {{'informedness': 0.6, 'markedness': 0.5555555555555556}}

    Guessing earns accuracy but no informedness:

    >>> metric.compute(references=[0, 0, 1, 1], predictions=[0, 1, 0, 1])
    {{'informedness': 0.0}}
    >>> metric.compute(references=[0, 0, 0, 1], predictions=[0, 0, 0, 0])
    {{'informedness': 0.0}}

    Multi-class, the three averagings and per-class values:

    >>> references, predictions = [0, 0, 0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 2, 2, 2]
    >>> result = metric.compute(references=references, predictions=predictions, return_per_class=True)
    >>> round(result["informedness"], 4), [round(j, 4) for j in result["per_class_informedness"]]
    (0.6771, [0.75, 0.3333, 0.8333])
    >>> result["support_per_class"], result["predicted_per_class"]
    ([4, 2, 2], [3, 2, 3])
    >>> round(metric.compute(references=references, predictions=predictions, average="macro")["informedness"], 4)
    0.6389
    >>> round(metric.compute(references=references, predictions=predictions, average="weighted")["informedness"], 4)
    0.6667

    Only classes 1 and 2 (bias weights 2 and 3, renormalised):

    >>> round(metric.compute(references=references, predictions=predictions, class_mask=[1, 2])["informedness"], 4)
    0.6333

    String labels with sample weights:

    >>> result = metric.compute(references=["cat", "dog", "dog", "emu"], predictions=["cat", "dog", "emu", "emu"],
    ...                         sample_weight=[1, 1, 1, 2], average="macro", return_per_class=True)
    >>> round(result["informedness"], 4), [round(j, 4) for j in result["per_class_informedness"]], result["classes"]
    (0.7222, [1.0, 0.5, 0.6667], ['cat', 'dog', 'emu'])

    A 95% confidence interval on a judge's golden set of 50 unsafe (1) and 950 safe (0)
    examples, where the judge finds 40 of the unsafe ones and flags 50 safe ones
    (binary: the score interval of TPR + TNR, balanced_accuracy's):

    >>> references = [1] * 50 + [0] * 950
    >>> predictions = [1] * 40 + [0] * 10 + [0] * 900 + [1] * 50
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95)
    >>> round(result["informedness"], 4), [round(x, 4) for x in result["informedness_ci"]]
    (0.7474, [0.6148, 0.8474])

    Three classes: the score interval of J linearised in each class's error rate (the
    default), and the stratified bootstrap, reproducible with a seed:

    >>> references = [0] * 60 + [1] * 30 + [2] * 10
    >>> predictions = [0] * 50 + [1] * 6 + [2] * 4 + [0] * 4 + [1] * 24 + [2] * 2 + [0] + [1] * 2 + [2] * 7
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95)
    >>> round(result["informedness"], 4), [round(x, 4) for x in result["informedness_ci"]]
    (0.6913, [0.5404, 0.8101])
    >>> result = metric.compute(references=references, predictions=predictions, confidence_level=0.95,
    ...                         ci_method="bootstrap", seed=0)
    >>> [round(x, 2) for x in result["informedness_ci"]]
    [0.56, 0.82]

    Two judges on the golden set of 50 unsafe and 950 safe examples: judge A finds 40
    unsafe and flags 50 safe ones; judge B finds 30 unsafe (all found by A too) and flags
    20 safe ones (all flagged by A too). The difference is (40 - 30) / 50 - (930 - 900) / 950
    = 0.1684, with a paired interval and p-value:

    >>> references = [1] * 50 + [0] * 950
    >>> judge_a = [1] * 40 + [0] * 10 + [0] * 900 + [1] * 50
    >>> judge_b = [1] * 30 + [0] * 20 + [0] * 930 + [1] * 20
    >>> result = metric.compute(references=references, predictions=judge_a, baseline_predictions=judge_b,
    ...                         confidence_level=0.95)
    >>> round(result["baseline_informedness"], 4), round(result["informedness_difference"], 4)
    (0.5789, 0.1684)
    >>> [round(x, 4) for x in result["informedness_difference_ci"]], round(result["informedness_difference_p_value"], 4)
    ([0.0485, 0.2837], 0.0034)

    Three judges ranked on that golden set (a third, "rules", finds 20 unsafe and flags 10
    safe ones): the values are those of each judge alone; judge_b's p-value against the
    best is its paired p-value above (0.0034), adjusted for two comparisons (maxT: between
    it and Bonferroni's 2 x 0.0034); the intervals hold together at 95%:

    >>> judges = {{"judge_a": judge_a, "judge_b": judge_b, "rules": [1] * 20 + [0] * 30 + [0] * 940 + [1] * 10}}
    >>> result = metric.compute(references=references, judges=judges, confidence_level=0.95)
    >>> [(entry["name"], round(entry["informedness"], 4), entry["in_best_set"]) for entry in result["judge_ranking"]]
    [('judge_a', 0.7474, True), ('judge_b', 0.5789, False), ('rules', 0.3895, False)]
    >>> result["best_judges"], bool(0.0034 < result["judge_ranking"][1]["p_value"] < 2 * 0.0034)
    (['judge_a'], True)

    Corrected prevalence: on a golden set of 950 safe (0) and 50 unsafe (1) items the judge
    has TPR 40/50 = 0.8 and FPR 95/950 = 0.1 (J = 0.7); it flags 240 of 1,000 new responses,
    so the true share of unsafe ones is (0.24 - 0.1) / 0.7 = 0.2 (Lee et al.'s interval):

    >>> references = [0] * 950 + [1] * 50
    >>> predictions = [0] * 855 + [1] * 95 + [0] * 10 + [1] * 40
    >>> judged = [0] * 760 + [1] * 240
    >>> result = metric.compute(references=references, predictions=predictions, unlabeled_predictions=judged,
    ...                         confidence_level=0.95, seed=0)
    >>> round(result["corrected_prevalence"], 4), [round(x, 2) for x in result["corrected_prevalence_ci"]]
    (0.2, [0.15, 0.26])
    >>> result["measured_prevalence"], result["corrected_prevalence_clipped"], result["corrected_prevalence_class"]
    (0.24, False, 1)

    The judge flags 15% of new items, below its golden FPR (38 of 180 negatives; 13 of 20
    positives caught): the estimate clips at 0, and its interval keeps the width 200 golden
    items leave instead of claiming [0, 0]:

    >>> result = metric.compute(references=[0] * 180 + [1] * 20, predictions=[0] * 142 + [1] * 38 + [0] * 7 + [1] * 13,
    ...                         unlabeled_predictions=[0] * 1700 + [1] * 300, confidence_level=0.95, seed=0)
    >>> result["corrected_prevalence"], [round(x, 3) for x in result["corrected_prevalence_ci"]]
    (0.0, [0.0, 0.054])

    A judge no better than chance cannot correct anything:

    >>> metric.compute(references=[0, 0, 1, 1], predictions=[0, 1, 0, 1], unlabeled_predictions=[1, 0, 0])
    {{'informedness': 0.0, 'corrected_prevalence': nan, 'corrected_prevalence_reason': 'informedness_too_small', 'corrected_prevalence_clipped': False, 'measured_prevalence': 0.3333333333333333, 'corrected_prevalence_class': 1}}
"""

_CITATION = """
@article{youden1950index,
  title={Index for rating diagnostic tests},
  author={Youden, William J.},
  journal={Cancer},
  volume={3},
  number={1},
  pages={32--35},
  year={1950}
}
@inproceedings{powers2003bookmaker,
  title={Recall and Precision versus the Bookmaker},
  author={Powers, David M. W.},
  booktitle={Proceedings of the International Conference on Cognitive Science (ICSC-2003)},
  pages={529--534},
  year={2003}
}
@article{powers2011evaluation,
  title={Evaluation: From Precision, Recall and F-Measure to ROC, Informedness, Markedness and Correlation},
  author={Powers, David M. W.},
  journal={Journal of Machine Learning Technologies},
  volume={2},
  number={1},
  pages={37--63},
  year={2011}
}
@inproceedings{vickers2023informedness,
  title={We Need to Talk About Classification Evaluation Metrics in {NLP}},
  author={Vickers, Peter and Barrault, Lo{\\"i}c and Monti, Emilio and Aletras, Nikolaos},
  booktitle={Proceedings of the 13th International Joint Conference on Natural Language Processing and the 3rd Conference of the Asia-Pacific Chapter of the Association for Computational Linguistics (AACL-IJCNLP 2023)},
  publisher={Association for Computational Linguistics},
  year={2023},
  note={Also arXiv:2401.03831}
}
@article{agresti1998approximate,
  title={Approximate is better than "exact" for interval estimation of binomial proportions},
  author={Agresti, Alan and Coull, Brent A.},
  journal={The American Statistician},
  volume={52},
  number={2},
  pages={119--126},
  year={1998}
}
@article{zou2008construction,
  title={Construction of confidence limits about effect measures: a general approach},
  author={Zou, G. Y. and Donner, Allan},
  journal={Statistics in Medicine},
  volume={27},
  number={10},
  pages={1693--1702},
  year={2008}
}
@article{lee2025correctly,
  title={How to Correctly Report {LLM}-as-a-Judge Evaluations},
  author={Lee, Chungpa and Zeng, Thomas and Jeong, Jongwon and Sohn, Jy-yong and Lee, Kangwook},
  journal={arXiv preprint arXiv:2511.21140},
  year={2025}
}
@article{angelopoulos2023ppipp,
  title={{PPI++}: Efficient Prediction-Powered Inference},
  author={Angelopoulos, Anastasios N. and Duchi, John C. and Zrnic, Tijana},
  journal={arXiv preprint arXiv:2311.01453},
  year={2023}
}
"""


SPEC = MetricSpec("informedness", informedness_from_counts, informedness_influence, informedness_paired_difference,
                  own_only=("confidence_level", "return_per_class", "return_markedness", "return_confusion_matrix"),
                  intervals=informedness_intervals)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Informedness(JudgeMetric):
    """Informedness (Youden's J, Bookmaker Informedness) and markedness as an evaluate metric."""

    SPEC = SPEC

    OPTIONS = {
        "average": Option("bookmaker", choice(*INFORMEDNESS_AVERAGES)),
        "labels": Option(None, check_labels),
        "num_classes": Option(None, check_num_classes),
        "ignore_index": Option(None, check_ignore_index),
        "class_mask": Option(None, check_class_mask),
        "zero_division": Option("skip", check_informedness_zero_division),
        "return_per_class": Option(False, check_flag),
        "return_markedness": Option(False, check_flag),
        "return_confusion_matrix": Option(False, check_flag),
        "return_judge_p_values": Option(False, check_flag),
        "pos_label": Option(None, check_pos_label),
        "threshold": Option(None, check_judges_threshold),
        "prevalence_method": Option("rogan_gladen", check_prevalence_method),
        "reference_model": Option(None, check_reference_model),
        **interval_options(CI_METHODS),
        # None: 10,000, or fewer for the bootstrap of a large confusion matrix (auto_resamples).
        "n_resamples": Option(None, check_optional_n_resamples),
    }
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": datasets.Value("int64"), "references": datasets.Value("int64")}),
            reference_urls=[
                "https://en.wikipedia.org/wiki/Youden%27s_J_statistic",
                "https://arxiv.org/abs/2401.03831",
            ],
        )
