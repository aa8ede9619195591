"""One entry point that meta-evaluates a list of metrics on a test collection.

:func:`meta_evaluate` scores the runs with cwla (or takes a cwla ``Evaluation``),
then, per metric, runs the paired randomised Tukey HSD over topics x runs
(discriminative power, ASL curves), compares the metrics' system rankings
(Kendall tau-b with confidence intervals) and measures split-half consistency
(Chen & Sakai 2023, Algorithm 1 and Table 3). Everything comes back as plain
data in a :class:`MetaEvaluation` with ``to_frame``, ``to_latex`` and ``plot_*``.
"""

from __future__ import annotations

import attrs
import numpy as np
import pandas as pd

from cwla._latex import tabular
from cwla.evaluation import Evaluation, evaluate

from ._progress import reporter
from ._validate import DiscpowerError, alpha_level, check_memory, null_trials, seed_value
from .consistency import split_half_consistency, split_half_memory
from .power import asl_curves, discriminative_power, plot_asl_curves
from .similarity import ranking_similarity
from .tukey import randomised_tukey_hsd

__all__ = ["MetaEvaluation", "meta_evaluate", "meta_memory"]


@attrs.frozen(eq=False)
class MetaEvaluation:
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
        Split-half consistency (None when ``n_splits=0``).
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

    @property
    def labels(self) -> tuple:
        return self.evaluation.labels

    def discriminative_power(self, alpha: float | None = None) -> pd.DataFrame:
        """Per metric: discriminative power at ``alpha`` (default: the analysis' alpha) and Delta_alpha."""
        return discriminative_power(self.tests, self.alpha if alpha is None else alpha)

    def asl_curves(self) -> pd.DataFrame:
        """Long frame ``metric, rank, pvalue`` (Chen & Sakai's Figure 4 as data)."""
        return asl_curves(self.tests)

    def to_frame(self) -> pd.DataFrame:
        """One row per metric: discriminative power, Delta_alpha, split-half mean tau and the
        number of metrics it significantly outperforms in consistency."""
        frame = self.discriminative_power().rename(columns={"discriminative_power": "dp"})
        frame = frame[["metric", "dp", "significant_pairs", "pairs", "delta"]]
        if self.consistency is not None:
            cons = self.consistency.to_frame()[["metric", "mean_tau", "outperforms"]]
            frame = frame.merge(cons, on="metric", how="left")
        return frame

    def to_latex(self, digits: int = 3) -> str:
        """The summary table as LaTeX."""
        return tabular(self.to_frame(), digits)

    def plot_asl(self, ax=None, *, ylim=(0.0, 0.1), legend: bool = True):
        """ASL curves, one per metric (Chen & Sakai's Figure 4); ``ylim=None`` shows [0, 1]."""
        return plot_asl_curves(self.tests, ax, alpha=self.alpha, ylim=ylim, legend=legend)

    def plot_similarity(self, ax=None, **kwargs):
        """Heatmap of Kendall tau-b between the metrics' rankings (Chen & Sakai's Figure 2)."""
        return self.similarity.plot(ax=ax, **kwargs)


def meta_memory(n_metrics: int, n_trials: int, n_splits: int, split_trials: int) -> int:
    """Bytes :func:`meta_evaluate` allocates for its resampling: every metric's null distribution, kept in
    its test (8 bytes a trial), the sorted copy of one, and the split-half analysis."""
    return 8 * (n_metrics + 1) * n_trials + split_half_memory(n_metrics, n_splits, split_trials)


def meta_evaluate(qrels, runs=None, metrics=None, *, n_trials: int = 2000, n_splits: int = 1000,
                  split_trials: int | None = None, alpha: float = 0.05, seed=0, progress=False,
                  **options) -> MetaEvaluation:
    """Meta-evaluate metrics: discriminative power, ASL curves, ranking similarity, split-half consistency.

    Parameters
    ----------
    qrels : qrels (path, DataFrame, dict), cwla.Collection or cwla.Evaluation
        With an Evaluation, ``runs`` and ``metrics`` must be None and its scores are used.
    runs, metrics
        As for :func:`cwla.evaluate`; ``options`` (gain, cutoff, depth, stop, normalize, order)
        go to it as well.
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
    progress : bool or callable
        True draws a progress bar on stderr; a callable gets ``(done, total)``.

    Returns
    -------
    MetaEvaluation
    """
    alpha = alpha_level(alpha)
    B = null_trials(n_trials)
    split_B = B if split_trials is None else null_trials(split_trials, "split_trials")
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 0 or n_splits == 1:
        raise DiscpowerError(f"The 'n_splits' parameter must be 0 (no split-half analysis) or an integer >= 2. "
                             f"Got {n_splits!r} instead.")
    seed = seed_value(seed)
    tukey_seed, split_seed = (int(s) for s in np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64))

    if isinstance(qrels, Evaluation):
        if runs is not None or metrics is not None or options:
            raise DiscpowerError("meta_evaluate: pass either an Evaluation or qrels, runs and metrics, not both")
        ev = qrels
    else:
        if metrics is None:
            raise DiscpowerError("meta_evaluate: no metrics given (e.g. cwla.chen_sakai_metrics())")
        ev = evaluate(qrels, runs, metrics, **options)
    if n_splits and len(ev.labels) < 2:
        raise DiscpowerError("split-half consistency compares metrics: give at least 2 metrics, or no splits "
                             "(n_splits=0; on the command line --splits 0)")
    if len(ev.runs) < 5:
        raise DiscpowerError(f"meta-evaluation needs at least 5 runs (ranking-correlation intervals need "
                             f"n > 4); got {len(ev.runs)}")

    check_memory(meta_memory(len(ev.labels), B, int(n_splits), split_B),
                 f"n_trials={B:,} for {len(ev.labels)} metrics and n_splits={int(n_splits):,} (every metric's "
                 f"null distribution is kept)", "use fewer trials or splits, or fewer metrics at a time")
    tick = reporter(progress, len(ev.labels), "Tukey HSD per metric")
    tests = {}
    for k, label in enumerate(ev.labels):
        tests[label] = randomised_tukey_hsd(ev.values[k].T, B, tukey_seed, systems=ev.runs)
        tick(k + 1, len(ev.labels))
    similarity = ranking_similarity(ev)
    consistency = None
    if n_splits:
        consistency = split_half_consistency(
            ev.values, ev.labels, n_splits=int(n_splits), seed=split_seed, n_trials=split_B, alpha=alpha,
            progress=reporter(progress, int(n_splits), "split-half consistency"),
        )
    return MetaEvaluation(evaluation=ev, tests=tests, similarity=similarity, consistency=consistency,
                          alpha=alpha, seed=seed)
