"""One entry point that meta-evaluates a list of metrics on a test collection.

:func:`meta_evaluate` scores the runs with cwla (or takes a cwla ``Evaluation``),
then, per metric, runs the paired randomised Tukey HSD over topics x runs
(discriminative power, ASL curves), compares the metrics' system rankings
(Kendall tau-b with confidence intervals) and measures split-half consistency
(Chen & Sakai 2023, Algorithm 1 and Table 3). Metrics are compared with one another
within test families (:mod:`discpower.metrics.families`; Chen & Sakai: one per browsing
model). Everything comes back as plain data in a :class:`MetaEvaluation` with
``to_frame``, ``to_latex`` and ``plot_*``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import pandas as pd

import cwla
from cwla import Evaluation
from cwla._shared import Displayed, Interval, NONE, Shown, count_text, legend, short_labels, tabular
from cwla._shared import scoped

from .._params import ALPHA, TRIALS, validated
from .._params import digits as digits_value
from .._plots import pyplot
from .._progress import reporter
from ..errors import DiscpowerError
from ..scoring import evaluation_of, parsed_metrics
from ..stats.matrix import score_array, score_matrix
from ..stats.memory import check_memory
from ..stats.power import asl_curves, discriminative_power, plot_asl_curves
from ..stats.rng import SEED, child_seeds
from ..stats.similarity import TIE_TOLERANCE, ranking_similarity
from ..stats.trials import counted_by
from ..stats.registry import check_reachable, check_test, label_of, run_test
from ..typing import Families, MetricsLike, Progress, QrelsLike, RunsLike, Seed
from .consistency import split_half, split_half_memory
from .families import family_power, family_tests, metric_families

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from cwla import Collection

__all__ = ["MetaEvaluation", "meta_evaluate", "meta_memory"]


@attrs.frozen(eq=False, repr=False)
class MetaEvaluation(Displayed):
    """Meta-evaluation of metrics on one collection (see :func:`meta_evaluate`).

    Attributes
    ----------
    evaluation : cwla.Evaluation
        The scores (metric x run x topic) the analysis used.
    tests : dict
        Metric label -> PairwiseTest (randomised Tukey HSD over topics x runs).
    similarity : RankingSimilarity
        Kendall tau-b between the metrics' system rankings, with CIs.
    consistency : SplitHalfConsistency or None
        Split-half consistency (None when ``n_splits=0``); its Tukey HSD runs over all the metrics.
    families : dict
        ``{family: (label, ...)}``: the test families (:func:`discpower.metrics.families.metric_families`);
        empty for a single metric (a family compares at least two).
    family_consistency : FamilyConsistency or None
        The split-half Tukey HSD within each family (Chen & Sakai's Table 3; None without splits).
    alpha : float
        Significance level of discriminative power and of the consistency comparison.
    seed : int
        Reproduces every resampling.
    """

    evaluation: Evaluation
    tests: dict
    similarity: object
    consistency: object
    alpha: float
    seed: int
    families: dict = attrs.field(factory=dict)
    family_consistency: object = None

    @property
    def labels(self) -> tuple:
        return self.evaluation.labels

    def _shown(self) -> Shown:
        """:meth:`to_frame`, one row per metric (its label abbreviated when long)."""
        shorts = short_labels(self.labels)
        frame = self.to_frame()
        table = frame.assign(metric=frame["metric"].map(dict(zip(self.labels, shorts)))).set_index("metric")
        n_m, n_r, n_t = self.evaluation.values.shape
        facts = [f"alpha={self.alpha:g}"]
        test = next(iter(self.tests.values()), None)
        if test is not None and test.n_resamples is not None:
            facts.append(f"B={test.n_resamples:,}")
        if self.consistency is not None:
            facts.append(count_text(self.consistency.n_splits, "split"))
        if self.families:
            facts.append(count_text(len(self.families), "family", "families"))
        return Shown("MetaEvaluation", f"{count_text(n_m, 'metric')} x {count_text(n_r, 'run')} x "
                     f"{count_text(n_t, 'topic')}", table.rename_axis(columns="statistic"), tuple(facts),
                     legend(self.labels, shorts))

    def discriminative_power(self, alpha: float | None = None) -> pd.DataFrame:
        """Per metric: discriminative power at ``alpha`` (default: the analysis' alpha) and Delta_alpha."""
        return discriminative_power(self.tests, self.alpha if alpha is None else alpha)

    def asl_curves(self) -> pd.DataFrame:
        """Long frame ``metric, rank, pvalue`` (Chen & Sakai's Figure 4 as data)."""
        return asl_curves(self.tests)

    def family_power(self, alpha: float | None = None) -> pd.DataFrame:
        """Discriminative power ranked within each family (``family, rank, metric, ...``)."""
        if not self.families:
            raise DiscpowerError("no test families: this meta-evaluation has one metric, and a family compares "
                                 "at least 2")
        return family_power(self.tests, self.families, self.alpha if alpha is None else alpha)

    def table3(self) -> pd.DataFrame:
        """Chen & Sakai's Table 3 as data: per family, its metrics by mean split-half tau and how many
        metrics of the family each significantly outperforms (``family_consistency.to_frame()``)."""
        if self.consistency is None:
            raise DiscpowerError("no split-half analysis was run (n_splits=0)")
        return self.family_consistency.to_frame()

    def to_frame(self) -> pd.DataFrame:
        """One row per metric: discriminative power, Delta_alpha, split-half mean tau and the
        number of metrics it significantly outperforms in consistency (``outperforms``: in one Tukey
        HSD over all the metrics); then its ``family``, its ranks within the family by discriminative
        power (``family_dp_rank``) and by mean tau (``family_tau_rank``), and the number of metrics
        of its family it significantly outperforms (``family_outperforms``, Chen & Sakai's Table 3)."""
        frame = self.discriminative_power().rename(columns={"discriminative_power": "dp"})
        frame = frame[["metric", "dp", "significant_pairs", "pairs", "delta"]]
        if self.consistency is not None:
            cons = self.consistency.to_frame()[["metric", "mean_tau", "outperforms"]]
            frame = frame.merge(cons, on="metric", how="left")
        if self.families:
            power = self.family_power()[["metric", "family", "rank"]].rename(columns={"rank": "family_dp_rank"})
            frame = frame.merge(power, on="metric", how="left")
            if self.family_consistency is not None:
                cons = self.table3()[["metric", "rank", "outperforms"]].rename(
                    columns={"rank": "family_tau_rank", "outperforms": "family_outperforms"})
                frame = frame.merge(cons, on="metric", how="left")
            for column in ("family_dp_rank", "family_tau_rank", "family_outperforms"):
                if column in frame:  # integers, with <NA> for a metric in no family
                    frame[column] = frame[column].astype("Int64")
        return frame

    def to_latex(self, digits: int = 3) -> str:
        """The summary table as LaTeX."""
        digits = digits_value(digits)
        return tabular(self.to_frame(), digits)

    def plot_asl(self, ax: Axes | None = None, *, ylim: tuple[float, float] | None = (0.0, 0.1),
                 legend: bool = True, title: str | None = None) -> Axes:
        """ASL curves, one per metric (Chen & Sakai's Figure 4; :func:`~discpower.plot_asl_curves`): the
        title names the test, B and alpha unless ``title`` is given; ``ylim=None`` shows [0, 1]."""
        pyplot("MetaEvaluation.plot_asl")
        return plot_asl_curves(self.tests, ax, alpha=self.alpha, ylim=ylim, legend=legend, title=title)

    def plot_similarity(self, ax: Axes | None = None, **kwargs: object) -> Axes:
        """Heatmap of Kendall tau-b between the metrics' rankings (Chen & Sakai's Figure 2)."""
        pyplot("MetaEvaluation.plot_similarity")
        return self.similarity.plot(ax=ax, **kwargs)


def meta_memory(n_metrics: int, n_trials: int, n_splits: int, split_trials: int) -> int:
    """Bytes :func:`meta_evaluate` allocates for its resampling: every metric's null distribution, kept in
    its test (8 bytes a trial), the sorted copy of one, and the split-half analysis with the Tukey HSD of
    each test family (at most one family per metric)."""
    families = 8 * n_metrics * split_trials if n_splits else 0
    return 8 * (n_metrics + 1) * n_trials + split_half_memory(n_metrics, n_splits, split_trials) + families


@scoped
@validated({"n_trials": TRIALS, "n_splits": (Interval("int", 0, 0, text="0 (no split-half analysis)"),
                                             Interval("int", 2, None, text="an integer >= 2")),
            "split_trials": (TRIALS, NONE), "alpha": ALPHA, "seed": SEED})
def meta_evaluate(qrels: QrelsLike | Collection | Evaluation, runs: RunsLike | None = None,
                  metrics: MetricsLike | None = None, *, n_trials: int = 2000, n_splits: int = 1000,
                  split_trials: int | None = None, alpha: float = 0.05, seed: Seed = 0, progress: Progress = None,
                  families: Families = None, test: str = "tukey", **options: object) -> MetaEvaluation:
    """Meta-evaluate metrics: discriminative power, ASL curves, ranking similarity, split-half consistency.

    Parameters
    ----------
    qrels : qrels (path, DataFrame, dict), cwla.Collection or cwla.Evaluation
        With an Evaluation, ``runs`` and ``metrics`` must be None and its scores are used.
    runs, metrics
        As for :func:`cwla.evaluate` (``runs`` may be a :class:`cwla.Evaluator`); ``options`` are
        those of :func:`cwla.evaluate` (gain, cutoff, depth, stop, normalize, judged_only, rel, max_docs,
        order, ties, workers, costs, expected, ...), checked before any file is read.
    n_trials : int
        B of the randomised Tukey HSD per metric (2000 as in Chen & Sakai; 10,000 or more for final figures).
    n_splits : int
        Split-half trials (0 skips the consistency analysis).
    split_trials : int, optional
        B of the Tukey HSD over the splits x metrics tau matrix (default: ``n_trials``).
    alpha : float
        Significance level.
    seed : int
        One seed for everything. Every metric's test uses the same relabellings (common random
        numbers, so differences between metrics are not resampling noise).
    progress : bool, None or callable
        None (default): progress bars on stderr when it is a terminal; True: always; False: none (nor
        for the reading and compiling it starts); a callable gets ``(done, total)`` (:mod:`cwla.progress`).
    families : None, "model", "all" or mapping {family: [label, ...]}
        The test families within which metrics are compared (ranks of discriminative power, the
        split-half Tukey HSD of :meth:`MetaEvaluation.table3`). None: one family per browsing model
        for Chen & Sakai's grid (labels ``Model_Aggregation``, as ``cwla.chen_sakai_grid`` gives),
        otherwise one family of all the metrics; with a single metric (and no splits), no families.
        See :func:`discpower.metrics.families.metric_families`.
    test : str
        The pairwise test of each metric's runs, by name (:mod:`discpower.stats.registry`; a test that
        is not family-wise with its correction, ``"t-test-holm"``). Default ``"tukey"``, the paired
        randomised Tukey HSD, the test of the papers this reproduces (Sakai 2006; Chen & Sakai 2023), so
        that discriminative power is comparable with their figures; ``"perm-max-t"`` is the family-wise
        test that holds alpha under the nulls built from real runs (``docs/calibration.md``). The
        split-half analysis keeps Chen & Sakai's Tukey HSD over the splits.

    Returns
    -------
    MetaEvaluation

    Examples
    --------
    >>> import cwla, discpower
    >>> qrels, runs = cwla.synthetic.collection(seed=1)        # 30 topics, 12 runs
    >>> me = discpower.meta_evaluate(qrels, runs, ["nDCG@10", "P@10", "RBP_ERG"], n_trials=200, n_splits=50,
    ...                              seed=1)
    >>> me.discriminative_power()[["metric", "significant_pairs", "pairs"]]
        metric  significant_pairs  pairs
    0  nDCG@10                 32     66
    1     P@10                 28     66
    2  RBP_ERG                 30     66
    >>> me.similarity.tau.shape, me.consistency.labels
    ((3, 3), ('nDCG@10', 'P@10', 'RBP_ERG'))
    """
    B = n_trials
    split_B = B if split_trials is None else split_trials
    if callable(test):
        raise DiscpowerError("meta_evaluate takes a test by name (discpower.stats.registry), e.g. test='tukey' or "
                             "test='perm-max-t'")
    test = check_test(test)
    tukey_seed, split_seed = child_seeds(seed, n=2)
    func = "meta_evaluate"
    if isinstance(qrels, Evaluation):
        n_metrics = len(qrels.labels) if metrics is None else len(evaluation_of(qrels, runs, metrics, options,
                                                                                  func).labels)
    elif isinstance(runs, cwla.Evaluator):
        n_metrics = len(runs.labels)
    elif metrics is None:
        raise DiscpowerError(f"{func}: no metrics given (e.g. cwla.chen_sakai_metrics())")
    else:
        metrics = parsed_metrics(metrics)  # parsed once: their number is known before any file is read
        n_metrics = len(metrics)
    if n_splits and n_metrics < 2:
        raise DiscpowerError("split-half consistency compares metrics: give at least 2 metrics, or no splits "
                             "(n_splits=0; on the command line --splits 0)")
    # the one memory check of the analysis, before any file is read
    check_memory(meta_memory(n_metrics, B, n_splits, split_B),
                 f"n_trials={B:,} for {n_metrics} metrics and n_splits={n_splits:,} (every metric's null "
                 f"distribution is kept)", "use fewer trials or splits, or fewer metrics at a time")
    ev = evaluation_of(qrels, runs, metrics, options, func)
    if families is None and len(ev.labels) == 1:
        families = {}  # a metric alone has nothing to be compared with
    else:
        families = metric_families(ev.labels, families, ev.metrics)
    if len(ev.runs) < 5:
        raise DiscpowerError(f"meta-evaluation needs at least 5 runs (ranking-correlation intervals need "
                             f"n > 4); got {len(ev.runs)}")
    check_reachable(test, len(ev.runs), B, alpha)
    total = len(ev.labels) * B
    tick = reporter(progress, total, label_of(test), unit="trials")
    tests = {}
    for k, label in enumerate(ev.labels):
        X, systems = score_matrix(ev.scores(label))  # runs x topics, labelled: read as topics x runs
        with counted_by(tick, k * B, (k + 1) * B, total):  # the trials move the line within each metric
            tests[label] = run_test(X, systems, test, B, tukey_seed, alpha=alpha)  # checks the sums it forms
        tick((k + 1) * B, total)
    similarity = ranking_similarity(ev)
    consistency = within = None
    if n_splits:
        V, labels, _ = score_array(ev, None, None, allow_2d=False, min_metrics=2, min_runs=3, min_topics=4)
        consistency = split_half(V, labels, n_splits, split_B, alpha, TIE_TOLERANCE, split_seed,
                                 reporter(progress, n_splits, "split-half consistency", unit="splits"))
        if families:
            within = family_tests(consistency, families, consistency.test.n_resamples, consistency.test.seed)
    return MetaEvaluation(evaluation=ev, tests=tests, similarity=similarity, consistency=consistency,
                          alpha=alpha, seed=seed, families=families, family_consistency=within)
