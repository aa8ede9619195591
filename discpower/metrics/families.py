"""Test families: comparisons between metrics run within groups of metrics (Chen & Sakai 2023, Table 3).

Chen & Sakai compare the aggregations of one browsing model with one another: the
randomised Tukey HSD over the split-half tau matrix is run once per browsing model,
on that model's columns only, and a metric's count is the number of metrics *of its
own model* it significantly outperforms. A Tukey HSD over all 39 metrics at once
is a different, larger family (its range statistic grows with the family), so its
counts cannot be set beside theirs.

* :func:`metric_families` -- the families as ``{family: (label, ...)}``, from a mapping,
  ``"model"`` (one family per browsing model), ``"all"`` (one family) or None (one per
  model when the labels are Chen & Sakai's ``Model_Aggregation`` names, else one family).
* :func:`family_consistency` -- the per-family Tukey HSD on a split-half tau matrix:
  :class:`FamilyConsistency`, the paper's Table 3 as data (``to_frame``, ``to_latex``).
* :func:`family_power` -- discriminative power ranked within each family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from cwla._shared import Displayed, NONE, Shown, count_text, grid, legend, short_labels
from cwla._shared import escape as _tex
from cwla.metrics.aggregations import AGGREGATIONS
from cwla.metrics.browsing import BROWSING_MODELS

from .._params import ALPHA, TRIALS, validated
from .._params import digits as digits_value
from ..errors import DiscpowerError
from ..stats.rng import SEED_OR_INHERITED
from ..stats.memory import null_memory
from ..stats.power import discriminative_power
from ..stats.result import PairwiseTest
from ..stats.tukey import column_sums
from ..typing import Families, Seed
from .consistency import SplitHalfConsistency, beats, compact_ranks

__all__ = ["metric_families", "family_consistency", "family_tests", "family_power", "outperforms_by_splits",
           "FamilyConsistency", "FAMILY_CHOICES"]

#: the names :func:`metric_families` accepts besides a mapping
FAMILY_CHOICES = ("model", "all")


def _model_of(label: str, metric) -> str:
    """The browsing model's name of a metric (its class name), or the label of a metric without one."""
    browsing = getattr(metric, "browsing", None)
    return type(browsing).__name__ if browsing is not None else label


def _paper_names(labels, metrics) -> bool:
    """Every label is Chen & Sakai's ``Model_Aggregation`` name of its metric (as cwla.chen_sakai_grid gives)."""
    if metrics is None or len(metrics) != len(labels):
        return False
    for label, metric in zip(labels, metrics):
        model, _, agg = label.partition("_")
        if model not in BROWSING_MODELS or _model_of(label, metric) != model \
                or agg not in AGGREGATIONS or type(getattr(metric, "aggregation", None)) is not AGGREGATIONS[agg]:
            return False
    return True


def metric_families(labels: Sequence[str], families: Families = None,
                    metrics: Sequence[object] | None = None) -> dict[str, list[str]]:
    """The test families over ``labels`` as ``{family: (label, ...)}`` (families and members in input order).

    Parameters
    ----------
    labels : sequence of str
        The metrics' labels.
    families : None, "model", "all" or mapping {family: [label, ...]}
        ``"model"``: one family per browsing model (needs ``metrics``; a model with one metric forms no
        family); ``"all"``: one family of
        every metric; None: ``"model"`` when every label is Chen & Sakai's ``Model_Aggregation``
        name of its metric (``cwla.chen_sakai_grid``), else ``"all"``. A mapping must name known
        labels, each in at most one family; metrics left out of every family are left out of
        the family comparisons. A family compares at least 2 metrics: one of fewer is refused (so
        is ``"all"`` over a single label).
    metrics : sequence of Metric, optional
        The metrics, for ``"model"`` (labels of metrics without a browsing model, such as
        trec_eval's counting measures, form families of their own).

    Examples
    --------
    >>> metric_families(["a", "b", "c"], {"x": ["a", "c"]})
    {'x': ('a', 'c')}
    """
    if isinstance(labels, str) or not isinstance(labels, Sequence) or not labels:
        raise DiscpowerError(f"labels must be a non-empty sequence of metric labels. Got {labels!r} instead.")
    labels = tuple(str(lab) for lab in labels)
    if metrics is not None and (isinstance(metrics, str) or not isinstance(metrics, Sequence)):
        raise DiscpowerError(f"metrics must be a sequence of metrics, one per label. Got {metrics!r} instead.")
    if families is None:
        families = "model" if _paper_names(labels, metrics) else "all"
    if isinstance(families, str) and families == "all":
        families = {"all": labels}  # checked below as any mapping: a family of one metric is refused
    if isinstance(families, str):
        if families != "model":
            raise DiscpowerError(f"The 'families' parameter must be a mapping {{family: [metric, ...]}}, "
                                 f"'model' or 'all'. Got {families!r} instead.")
        if metrics is None or len(metrics) != len(labels):
            raise DiscpowerError("families='model' needs the metrics themselves (one per label) to know their "
                                 "browsing models")
        out: dict = {}
        for label, metric in zip(labels, metrics):
            out.setdefault(_model_of(label, metric), []).append(label)
        out = {k: tuple(v) for k, v in out.items() if len(v) > 1}  # a metric alone has nothing to compare with
        if not out:
            raise DiscpowerError("families='model': no browsing model has two of these metrics, so there is "
                                 "nothing to compare within a model; use families='all' or a mapping")
        return out
    if not isinstance(families, Mapping) or not families:
        raise DiscpowerError(f"The 'families' parameter must be a non-empty mapping {{family: [metric, ...]}}, "
                             f"'model' or 'all'. Got {type(families).__name__} instead.")
    known, seen, out = set(labels), {}, {}
    for name, members in families.items():
        if isinstance(members, str) or not isinstance(members, Sequence):
            raise DiscpowerError(f"family {name!r}: give a list of metric labels, not {members!r}")
        members = tuple(str(m) for m in members)
        unknown = [m for m in members if m not in known]
        if unknown:
            raise DiscpowerError(f"family {name!r} names unknown metric(s) {unknown[:5]}; the metrics are "
                                 f"{list(labels)[:8]}{' ...' if len(labels) > 8 else ''}")
        for m in members:
            if m in seen:
                raise DiscpowerError(f"metric {m!r} is in two families ({seen[m]!r} and {name!r}); a metric "
                                     f"belongs to at most one")
            seen[m] = name
        if len(members) < 2:
            raise DiscpowerError(f"family {name!r} has {len(members)} metric(s); a family compares at least 2")
        out[str(name)] = members
    return out


def _competition_ranks(values) -> np.ndarray:
    """1-based ranks by value, descending; equal values share the better rank ("1, 1, 3")."""
    return pd.Series(values).rank(ascending=False, method="min").astype(np.int64).to_numpy()


@attrs.frozen(eq=False, repr=False)
class FamilyConsistency(Displayed):
    """Split-half consistency compared within families (Chen & Sakai's Table 3 as data).

    Attributes
    ----------
    families : dict
        ``{family: (label, ...)}``.
    tests : dict
        Family -> PairwiseTest: the randomised Tukey HSD over that family's columns of the
        splits x metrics tau matrix (splits as topics, the family's metrics as systems).
    mean_tau : dict
        Label -> mean tau over the splits.
    alpha : float
        Significance level of ``outperforms``.
    n_splits, n_runs, n_topics : int
        The split-half analysis the taus come from.
    """

    families: dict
    tests: dict
    mean_tau: dict
    alpha: float
    n_splits: int
    n_runs: int
    n_topics: int

    def _shown(self) -> Shown:
        """Per family and metric (by mean tau within the family): rank, mean tau, metrics outperformed."""
        labels = list(dict.fromkeys(label for members in self.families.values() for label in members))
        shorts = short_labels(labels)
        frame = self.to_frame()
        table = frame.assign(metric=frame["metric"].map(dict(zip(labels, shorts)))).set_index(["family", "metric"])[
            ["rank", "mean_tau", "outperforms"]].rename_axis(columns="statistic")
        return Shown("FamilyConsistency", f"{count_text(len(self.families), 'family', 'families')}, "
                     f"{count_text(len(labels), 'metric')}, {count_text(self.n_splits, 'split')} of "
                     f"{count_text(self.n_topics, 'topic')}", table,
                     (f"alpha={self.alpha:g}", "outperforms grows with the splits: discpower.outperforms_by_splits"),
                     legend(labels, shorts))

    def to_frame(self) -> pd.DataFrame:
        """One row per metric, families in order, metrics by mean tau descending within their family:
        ``family, rank`` (within the family, 1 = most consistent; equal mean taus share the better rank,
        and are listed in the order of the labels), ``metric, mean_tau, outperforms``
        (how many metrics of its family it significantly beats: higher mean tau, p < alpha) and
        ``beaten_ranks`` (their ranks within the family, compacted as "2-4, 6")."""
        rows = []
        for family, members in self.families.items():
            test = self.tests[family]
            tau = np.array([self.mean_tau[m] for m in members])
            order = np.lexsort((np.arange(len(members)), -tau))
            rank_of = _competition_ranks(tau)
            wins = beats(test, self.alpha)
            for i in order:
                rows.append({"family": family, "rank": int(rank_of[i]), "metric": members[i], "mean_tau": tau[i],
                             "outperforms": int(wins[i].sum()),
                             "beaten_ranks": compact_ranks(rank_of[np.flatnonzero(wins[i])])})
        return pd.DataFrame(rows, columns=["family", "rank", "metric", "mean_tau", "outperforms", "beaten_ranks"])

    def to_latex(self, digits: int = 3) -> str:
        """Table 3 in Chen & Sakai's layout: one block per family (browsing model), its metrics ranked by
        mean split-half tau, each with the number of same-family metrics it significantly outperforms."""
        digits = digits_value(digits)
        frame = self.to_frame()
        a = f"{self.alpha:g}"
        rows, rules = [], []
        for family, block in frame.groupby("family", sort=False):
            for k, r in enumerate(block.itertuples(index=False)):
                rows.append([_tex(family) if k == 0 else "", _tex(r.metric), f"{r.mean_tau:.{digits}f}",
                             str(r.outperforms)])
            rules.append(len(rows) - 1)  # a rule after each family
        test = next(iter(self.tests.values()))
        return grid("llrr", ["Family", "Metric", "Mean $\\tau$", f"Outperforms ($\\alpha = {a}$)"], rows,
                    rules=rules, after=[f"% {self.n_splits} splits of {self.n_topics} topics; {self.n_runs} runs; "
                                        f"randomised Tukey HSD within each family, B = {test.n_resamples}"])


@validated({"n_trials": (TRIALS, NONE), "seed": SEED_OR_INHERITED})
def family_consistency(consistency: SplitHalfConsistency, families: Families, *,
                       metrics: Sequence[object] | None = None, n_trials: int | None = None,
                       seed: Seed = None) -> FamilyConsistency:
    """Run the split-half Tukey HSD within each family (on the same tau matrix).

    ``families`` and ``metrics``: as for :func:`metric_families` over ``consistency.labels``
    (``metrics``, one per label, lets ``"model"`` and None find the browsing models).
    ``n_trials`` and ``seed`` default to those of ``consistency.test``; every family uses the same
    seed (common random numbers across families), so a family of all the metrics is that test.
    """
    if not isinstance(consistency, SplitHalfConsistency):
        raise DiscpowerError(f"family_consistency needs a SplitHalfConsistency, got {type(consistency).__name__}")
    families = metric_families(consistency.labels, families, metrics)
    trials = consistency.test.n_resamples if n_trials is None else n_trials
    seed = consistency.test.seed if seed is None else seed
    null_memory(trials, tests=len(families))
    return family_tests(consistency, families, trials, seed)


def family_tests(consistency: SplitHalfConsistency, families: dict, trials: int, seed: int) -> FamilyConsistency:
    """:func:`family_consistency` with checked families, trials and seed (the memory planned by the caller)."""
    tests = {}
    for family, members in families.items():
        if members == consistency.labels and trials == consistency.test.n_resamples and seed == consistency.test.seed:
            tests[family] = consistency.test  # the family of every metric: the test already run
            continue
        tests[family] = consistency.test_of(members, trials, seed)
    mean_tau = dict(zip(consistency.labels, (column_sums(consistency.taus) / consistency.n_splits).tolist()))
    return FamilyConsistency(families=families, tests=tests, mean_tau=mean_tau, alpha=consistency.alpha,
                             n_splits=consistency.n_splits, n_runs=consistency.n_runs,
                             n_topics=consistency.n_topics)


def outperforms_by_splits(consistency: SplitHalfConsistency, splits: Sequence[int], families: Families = None, *,
                          metrics: Sequence[object] | None = None) -> pd.DataFrame:
    """How the ``outperforms`` counts grow with the number of splits: the analysis again on the first k splits
    for each k in ``splits`` (2 <= k <= ``consistency.n_splits``; a list or a 1-d integer array), within each
    family (default: one family of every metric, so k = ``n_splits`` gives ``consistency.outperforms``). Split b
    is drawn from its own stream and the Tukey test's seed and trials are the analysis', so each k is exactly
    :func:`~discpower.metrics.consistency.split_half_consistency` with ``n_splits=k`` and the same seed.

    The counts are not inference about topics. The splits are halves of *one* topic set, overlapping from split
    to split, yet the Tukey HSD over the tau matrix treats them as independent samples: its p-values shrink as
    splits are added and the counts grow with k, towards the number of metrics with a lower mean tau. They
    describe these topics at this number of splits, as Chen & Sakai's Table 3 does.

    ``families`` and ``metrics``: as for :func:`metric_families`. Returns one row per k, family and metric
    (families in order, metrics in family order): ``n_splits, family, metric, mean_tau, outperforms`` (the
    metrics of its family it beats on the first k splits: higher mean tau, p < alpha).
    """
    if not isinstance(consistency, SplitHalfConsistency):
        raise DiscpowerError(f"outperforms_by_splits needs a SplitHalfConsistency, got {type(consistency).__name__}")
    n = consistency.n_splits
    if isinstance(splits, np.ndarray) and splits.ndim == 1:
        splits = splits.tolist()
    if isinstance(splits, (str, bytes)) or not isinstance(splits, Sequence) or not splits or any(
            isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or not 2 <= k <= n
            for k in splits):
        raise DiscpowerError(f"splits must be a non-empty list of integers in [2, {n}] (the analysis' splits; run "
                             f"split_half_consistency with more to see more). Got {splits!r} instead.")
    groups = {"all": consistency.labels} if families is None and metrics is None else \
        metric_families(consistency.labels, families, metrics)
    trials, seed = consistency.test.n_resamples, consistency.test.seed
    rows = []
    for k in map(int, splits):
        mean_tau = dict(zip(consistency.labels, (column_sums(consistency.taus[:k]) / k).tolist()))
        for family, members in groups.items():
            wins = beats(consistency.test_of(members, trials, seed, splits=k), consistency.alpha)
            rows += [{"n_splits": k, "family": family, "metric": m, "mean_tau": mean_tau[m],
                      "outperforms": int(wins[i].sum())} for i, m in enumerate(members)]
    return pd.DataFrame(rows, columns=["n_splits", "family", "metric", "mean_tau", "outperforms"])


@validated({"alpha": ALPHA})
def family_power(tests: Mapping[str, PairwiseTest], families: Families, alpha: float = 0.05, *,
                 metrics: Sequence[object] | None = None) -> pd.DataFrame:
    """Discriminative power ranked within each family: ``family, rank, metric, discriminative_power,
    significant_pairs, pairs, delta`` (rank 1 = most discriminative; ties share the better rank).

    ``tests``: {label: PairwiseTest}; ``families`` and ``metrics``: as for :func:`metric_families`
    over its labels.
    """
    power = discriminative_power(tests, alpha).set_index("metric")
    families = metric_families(list(power.index), families, metrics)
    parts = []
    for family, members in families.items():
        block = power.loc[list(members)].reset_index()
        block.insert(0, "family", family)
        block.insert(1, "rank", _competition_ranks(block["discriminative_power"].to_numpy()))
        parts.append(block.sort_values(["rank"], kind="stable"))
    return pd.concat(parts, ignore_index=True)
