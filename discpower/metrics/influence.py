"""A metric's influence on its test family: leave-one-metric-out on the split-half Tukey HSD within families.

Chen & Sakai (2023) compare the metrics of one browsing model with a randomised Tukey HSD over the split-half tau
matrix (:func:`~discpower.metrics.families.family_consistency`). That test decides every pair of a family against
the null range of the *whole* family, so one metric whose taus differ from the others' widens the range: the
smallest significant difference in mean tau (Delta_alpha, the (1 - alpha) quantile of the null ranges r_b) grows,
and pairs of the other metrics stop being significant. For each family of three metrics or more and each metric
m of it, :func:`metric_influence` runs the family's test again without m (the same B and seed: common random
numbers) and compares the two on the pairs that do not involve m::

    delta_with, delta_without   Delta_alpha of the family with m and without it
    delta_change                delta_without - delta_with (negative: m widened the family's null range)
    gained                      pairs significant without m and not with it (p < alpha)
    lost                        pairs significant with m and not without it
    pairs                       the pairs not involving m

:func:`discpower.run_stability` asks the same question of the runs of a significance test.

References
----------
N. Chen and T. Sakai. A meta-evaluation of C/W/L/A metrics. arXiv:2307.02936, 2023 (their Table 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
import numpy as np
import pandas as pd

from cwla._shared import Displayed, NONE, Shown, count_text, legend, short_labels

from .._params import ALPHA, TRIALS, validated
from ..errors import DiscpowerError
from ..stats.rng import SEED_OR_INHERITED
from ..stats.memory import null_memory
from ..typing import Families, Seed
from .consistency import SplitHalfConsistency
from .families import metric_families

if TYPE_CHECKING:
    from .meta import MetaEvaluation

__all__ = ["metric_influence", "MetricInfluence", "COLUMNS"]

#: the columns of :attr:`MetricInfluence.frame`
COLUMNS = ("family", "metric", "delta_with", "delta_without", "delta_change", "gained", "lost", "pairs")


@attrs.frozen(eq=False, repr=False)
class MetricInfluence(Displayed):
    """Result of :func:`metric_influence`.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per metric of every family of three metrics or more, families in order, metrics in family order:
        :data:`COLUMNS`.
    families : dict
        ``{family: (label, ...)}``, every family (those of fewer than three metrics have no rows).
    alpha : float
    n_trials, seed : int
        B and the seed of every test (the same for all: common random numbers).
    n_splits : int
        The split-half analysis the taus come from.
    """

    frame: pd.DataFrame
    families: dict
    alpha: float
    n_trials: int
    seed: int
    n_splits: int

    def _shown(self) -> Shown:
        """Per family and metric: Delta with and without it, and the decisions that change."""
        labels = self.frame["metric"].tolist()
        shorts = short_labels(labels) if labels else []
        table = self.frame.assign(metric=shorts).set_index(["family", "metric"])[
            ["delta_with", "delta_without", "delta_change", "gained", "lost"]].rename_axis(columns="statistic")
        return Shown("MetricInfluence", f"{count_text(len(self.frame), 'metric')} left out of "
                     f"{count_text(self.frame['family'].nunique(), 'family', 'families')}, "
                     f"{count_text(self.n_splits, 'split')}", table,
                     (f"alpha={self.alpha:g}", f"B={self.n_trials:,}", f"seed={self.seed}"), legend(labels, shorts))

    def most_influential(self) -> pd.DataFrame:
        """Per family, the metric whose leaving changes Delta_alpha the most (the largest ``|delta_change|``;
        on a tie the first in family order): its row of :attr:`frame`."""
        if not len(self.frame):
            return self.frame.copy()
        size = self.frame["delta_change"].abs()
        rows = size.groupby(self.frame["family"], sort=False).idxmax()
        return self.frame.loc[rows.to_numpy()].reset_index(drop=True)


def _source(source: object, families: Families, metrics: Sequence[object] | None) -> tuple:
    """(SplitHalfConsistency, families) of a MetaEvaluation or a SplitHalfConsistency."""
    from .meta import MetaEvaluation

    if isinstance(source, MetaEvaluation):
        if source.consistency is None:
            raise DiscpowerError("metric_influence needs split-half consistency: this MetaEvaluation was made with "
                                 "n_splits=0; run meta_evaluate with n_splits >= 1")
        consistency = source.consistency
        if families is None and metrics is None:
            return consistency, dict(source.families)
    elif isinstance(source, SplitHalfConsistency):
        consistency = source
    else:
        raise DiscpowerError(f"metric_influence needs a MetaEvaluation (discpower.meta_evaluate) or a "
                             f"SplitHalfConsistency (discpower.split_half_consistency); got {type(source).__name__}")
    return consistency, metric_families(consistency.labels, families, metrics)


@validated({"alpha": (ALPHA, NONE), "n_trials": (TRIALS, NONE), "seed": SEED_OR_INHERITED})
def metric_influence(source: MetaEvaluation | SplitHalfConsistency, families: Families = None, *,
                     metrics: Sequence[object] | None = None,
                     alpha: float | None = None, n_trials: int | None = None,
                     seed: Seed = None) -> MetricInfluence:
    """Leave each metric out of its family's split-half Tukey HSD: which metric decides its family?

    Parameters
    ----------
    source : MetaEvaluation or SplitHalfConsistency
        The split-half taus (a MetaEvaluation's ``consistency``; its families unless ``families`` is given).
    families, metrics
        As for :func:`~discpower.metrics.families.metric_families` over the labels (default: the
        MetaEvaluation's families; for a SplitHalfConsistency, one family of every metric, or with ``metrics``
        one per browsing model for Chen & Sakai's names).
    alpha : float, optional
        Significance level of the decisions and of Delta_alpha (default: the analysis' alpha).
    n_trials, seed : optional
        B and the seed of every test (default: those of the analysis' Tukey HSD, so a family's test with every
        metric is the one :func:`~discpower.metrics.families.family_consistency` runs).

    Returns
    -------
    MetricInfluence
        ``frame`` (:data:`COLUMNS`), ``most_influential()``.

    Examples
    --------
    >>> import numpy as np
    >>> from discpower.metrics.consistency import split_half_consistency
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(8)
    >>> V = np.stack([truth[:, None] + rng.normal(0, s, (8, 20)) for s in (0.1, 0.1, 0.12, 2.0)])
    >>> cons = split_half_consistency(V, ["a", "b", "c", "noise"], n_splits=60, n_trials=500, seed=1)
    >>> metric_influence(cons).most_influential()["metric"].tolist()
    ['noise']
    """
    consistency, families = _source(source, families, metrics)
    alpha = consistency.alpha if alpha is None else alpha
    trials = consistency.test.n_resamples if n_trials is None else n_trials
    seed = consistency.test.seed if seed is None else seed
    if (trials + 1) * alpha <= 1:
        raise DiscpowerError(f"metric_influence: with n_trials={trials:,} no p-value can fall below alpha={alpha:g} "
                             f"(the smallest is 1 / (B + 1)), so Delta_alpha is undefined; use n_trials >= "
                             f"{int(np.ceil(1 / alpha))}")
    if not any(len(members) >= 3 for members in families.values()):
        raise DiscpowerError(f"metric_influence: no family has three metrics or more (families: "
                             f"{ {k: len(v) for k, v in families.items()} }); leaving one of two out leaves no pair "
                             f"to test")
    null_memory(trials, tests=2)
    rows = []
    for family, members in families.items():
        if len(members) < 3:
            continue
        whole = consistency.test_of(members, trials, seed)
        significant = whole.significant(alpha)
        delta = whole.delta(alpha)
        for k, metric in enumerate(members):
            keep = [i for i in range(len(members)) if i != k]
            without = consistency.test_of([members[i] for i in keep], trials, seed)
            upper = np.triu_indices(len(keep), 1)
            before = significant[np.ix_(keep, keep)][upper]
            after = without.significant(alpha)[upper]
            delta_without = without.delta(alpha)
            rows.append({"family": family, "metric": metric, "delta_with": delta,
                         "delta_without": delta_without, "delta_change": delta_without - delta,
                         "gained": int((after & ~before).sum()), "lost": int((before & ~after).sum()),
                         "pairs": len(before)})
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return MetricInfluence(frame=frame, families=dict(families), alpha=alpha, n_trials=trials, seed=seed,
                           n_splits=consistency.n_splits)
