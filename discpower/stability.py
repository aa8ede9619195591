"""How stable is the ground truth's significance pattern? A topic bootstrap.

The comparison of candidate qrels with ground truth (:func:`compare_qrels`) rests
on one sample of topics. Resampling the topics with replacement (Efron's
bootstrap; the check reviewers asked of McKechnie et al. 2025) and redoing every
comparison on each resample shows how much each measure moves and whether the
ranking of the candidate qrels by MCC holds.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import numpy as np
import pandas as pd

from cwla.collection import read_runs
from cwla.evaluation import as_metrics, evaluate
from cwla.readers import read_qrels

from ._progress import reporter
from ._validate import DiscpowerError, alpha_level, seed_value
from ._validate import n_trials as _check_trials
from .qrels_compare import compare_tests, significance_test
from .similarity import kendall_tau_b

__all__ = ["Stability", "truth_stability"]


@attrs.frozen(eq=False)
class Stability:
    """Result of :func:`truth_stability`.

    ``frame``: ``sample, candidate, measure, value`` (sample 0 is the original topic set,
    1..B the bootstrap resamples); ``ranking_measure`` is the measure the candidates are ranked by.
    """

    frame: pd.DataFrame
    candidates: tuple
    ranking_measure: str

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Per candidate and measure: the original value, the bootstrap mean, standard deviation
        and percentile interval at ``level``."""
        alpha_level(1.0 - level, "level")
        boot = self.frame[self.frame["sample"] > 0]
        orig = self.frame[self.frame["sample"] == 0].set_index(["candidate", "measure"])["value"]
        q = (1.0 - level) / 2.0
        agg = boot.groupby(["candidate", "measure"], sort=False)["value"].agg(
            mean="mean", std="std", low=lambda v: v.quantile(q), high=lambda v: v.quantile(1.0 - q))
        agg.insert(0, "original", orig.reindex(agg.index))
        return agg.reset_index()

    def ranking_stability(self) -> dict:
        """How often the bootstrap resamples keep the candidates' order by ``ranking_measure``:
        the share of resamples with exactly the original order, the mean Kendall tau-b between the
        resampled and the original ranking, and per candidate the share keeping its original rank."""
        wide = self.frame[self.frame.measure == self.ranking_measure].pivot(
            index="sample", columns="candidate", values="value")[list(self.candidates)]
        original = wide.loc[0].to_numpy()
        ranks = wide.rank(axis=1, ascending=False, method="min")
        boot = wide.index > 0
        same_order = (ranks[boot] == ranks.loc[0]).all(axis=1)
        taus = [kendall_tau_b(original, row) for row in wide[boot].to_numpy()] if len(self.candidates) > 1 else []
        return {
            "same_order": float(same_order.mean()) if boot.any() else np.nan,
            "mean_tau": float(np.nanmean(taus)) if len(taus) else np.nan,
            "keeps_rank": {c: float((ranks.loc[boot, c] == ranks.loc[0, c]).mean()) for c in self.candidates},
        }


def truth_stability(truth, candidates, runs, metric="nDCG@10", *, n_boot: int = 200, test="tukey",
                    n_trials: int = 2000, alpha: float = 0.05, seed=0, ranking_measure: str = "MCC",
                    progress=False, **options) -> Stability:
    """Topic bootstrap of the comparison of candidate qrels with the ground truth.

    Each resample draws n topics with replacement from the ground truth's n topics (the
    same resample for every candidate; a candidate judging fewer topics keeps the drawn
    topics it has), reruns the significance test under the truth and every candidate and
    recomputes every measure of :func:`compare_qrels`.

    Parameters
    ----------
    truth : qrels
    candidates : dict
        ``{name: qrels}``.
    runs, metric, options
        As for :func:`compare_qrels`.
    n_boot : int
        Bootstrap resamples (the original topic set is sample 0).
    test, n_trials, alpha
        The pairwise test per resample (a smaller B than for the main analysis keeps this fast).
    seed : int
        Seeds the resamples and the tests.

    Returns
    -------
    Stability
    """
    alpha = alpha_level(alpha)
    n_boot = _check_trials(n_boot, "n_boot")
    seed = seed_value(seed)
    if not isinstance(candidates, Mapping) or not candidates:
        raise DiscpowerError("candidates must be a non-empty dict {name: qrels}")
    metrics, labels = as_metrics(metric)
    if len(metrics) != 1:
        raise DiscpowerError(f"compare one metric at a time; got {len(metrics)}: {labels}")
    g = read_qrels(truth)
    run_set = read_runs(runs)
    named = {labels[0]: metrics[0]}
    ev_g = evaluate(g, run_set, named, **options)
    X_g = ev_g.values[0].T
    topic_row = {t: i for i, t in enumerate(ev_g.topics)}
    cands = {}
    for name, qrels in candidates.items():
        c = read_qrels(qrels)
        unknown = sorted(set(c["topic"]) - set(topic_row))
        if unknown:
            raise DiscpowerError(f"candidate {name!r} judges topics the ground truth does not: {unknown[:5]}")
        ev_c = evaluate(c, run_set, named, **options)
        cands[str(name)] = (ev_c.values[0].T, np.array([topic_row[t] for t in ev_c.topics]))
    n = X_g.shape[0]
    rng = np.random.default_rng(seed)
    samples = [np.arange(n)] + [rng.integers(0, n, size=n) for _ in range(n_boot)]
    tick = reporter(progress, len(samples), "topic bootstrap")
    rows = []
    for b, idx in enumerate(samples):
        test_g = significance_test(X_g[idx], ev_g.runs, test, n_trials=n_trials, seed=seed + b)
        for name, (X_c, rows_of) in cands.items():
            position = {r: k for k, r in enumerate(rows_of)}
            keep = np.array([position[r] for r in idx if r in position], dtype=np.int64)
            if len(keep) < 2:
                continue
            test_c = significance_test(X_c[keep], ev_g.runs, test, n_trials=n_trials, seed=seed + b)
            result = compare_tests(test_g, test_c, alpha=alpha)
            rows += [{"sample": b, "candidate": name, "measure": k, "value": float(v)}
                     for k, v in result.measures.items()]
        tick(b + 1, len(samples))
    frame = pd.DataFrame(rows)
    if ranking_measure not in set(frame["measure"]):
        raise DiscpowerError(f"unknown ranking measure {ranking_measure!r}; accepted: {sorted(set(frame.measure))}")
    return Stability(frame=frame, candidates=tuple(cands), ranking_measure=ranking_measure)
