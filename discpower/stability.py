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

from ._progress import reporter
from ._validate import DiscpowerError, alpha_level, seed_value
from ._validate import n_trials as _check_trials
from .qrels_compare import QrelsComparer, compare_tests, significance_test
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
    seed: int

    def summary(self, level: float = 0.95) -> pd.DataFrame:
        """Per candidate and measure: the original value, the bootstrap mean, standard deviation
        and percentile interval at ``level`` (undefined values, NaN, left out)."""
        if not 0.0 < level < 1.0:
            raise DiscpowerError(f"The 'level' parameter must be in the open interval (0, 1). Got {level!r} instead.")
        boot = self.frame[self.frame["sample"] > 0]
        orig = self.frame[self.frame["sample"] == 0].set_index(["candidate", "measure"])["value"]
        q = (1.0 - level) / 2.0
        agg = boot.groupby(["candidate", "measure"], sort=False)["value"].agg(
            mean="mean", std="std", low=lambda v: v.quantile(q), high=lambda v: v.quantile(1.0 - q))
        agg.insert(0, "original", orig.reindex(agg.index))
        return agg.reset_index()

    def ranking_stability(self) -> dict:
        """How often the bootstrap resamples keep the candidates' order by ``ranking_measure``.

        Over the resamples where the measure is defined for every candidate (``samples``): the
        share keeping every original strict order between two candidates (``same_order``; pairs
        tied in the original constrain nothing), the mean Kendall tau-b between the resampled and
        the original values, and per candidate the share keeping its original rank."""
        wide = self.frame[self.frame.measure == self.ranking_measure].pivot(
            index="sample", columns="candidate", values="value").reindex(columns=list(self.candidates))
        original = wide.loc[0].to_numpy() if 0 in wide.index else np.full(len(self.candidates), np.nan)
        boot = wide[wide.index > 0]
        # resamples where the measure is defined for every candidate (MCC is NaN without significant pairs)
        usable = boot[np.isfinite(boot.to_numpy()).all(axis=1)] if np.isfinite(original).all() else boot.iloc[:0]
        i, j = np.triu_indices(len(self.candidates), k=1)
        strict = original[i] != original[j]  # pairs tied in the original order constrain nothing
        values = usable.to_numpy()
        kept = (np.sign(values[:, i] - values[:, j]) == np.sign(original[i] - original[j]))[:, strict].all(axis=1)
        taus = [kendall_tau_b(original, row) for row in values] if len(self.candidates) > 1 and strict.any() else []
        orig_rank = pd.Series(original, index=self.candidates).rank(ascending=False, method="min")
        ranks = usable.rank(axis=1, ascending=False, method="min")
        return {
            "samples": len(usable),
            "same_order": float(kept.mean()) if len(usable) else np.nan,
            "mean_tau": float(np.mean(taus)) if len(taus) else np.nan,
            "keeps_rank": {c: float((ranks[c] == orig_rank[c]).mean()) if len(usable) else np.nan
                           for c in self.candidates},
        }


def truth_stability(truth, candidates, runs, metric="nDCG@10", *, n_boot: int = 200, test="tukey",
                    n_trials: int = 2000, alpha: float = 0.05, seed=0, ranking_measure: str = "MCC",
                    topics: str = "common", progress=False, **options) -> Stability:
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
    topics : {"common", "truth"}
        As for :func:`compare_qrels`: with "common" a candidate judging fewer topics is compared
        with the ground truth on the drawn topics it judges.

    Returns
    -------
    Stability
    """
    alpha = alpha_level(alpha)
    n_boot = _check_trials(n_boot, "n_boot")
    seed = seed_value(seed)
    if not isinstance(candidates, Mapping) or not candidates:
        raise DiscpowerError("candidates must be a non-empty dict {name: qrels}")
    # validates metric, test and topics, scores the truth once, and checks every candidate's topics
    comparer = QrelsComparer.build(truth, runs, metric, test=test, alpha=alpha, n_trials=n_trials, seed=seed,
                                   topics=topics, **options)
    ev_g = comparer.truth_evaluation
    X_g = ev_g.values[0].T
    topic_row = {t: i for i, t in enumerate(ev_g.topics)}
    cands = {}
    for name, qrels in candidates.items():
        _, ev_c = comparer.score(qrels)
        cands[str(name)] = (ev_c.values[0].T, np.array([topic_row[t] for t in ev_c.topics]))
    n = X_g.shape[0]
    resample_seed, *test_seeds = np.random.SeedSequence(seed).generate_state(n_boot + 2, dtype=np.uint64)
    rng = np.random.default_rng(int(resample_seed))
    samples = [np.arange(n)] + [rng.integers(0, n, size=n) for _ in range(n_boot)]
    tick = reporter(progress, len(samples), "topic bootstrap")
    rows, names = [], None
    for b, idx in enumerate(samples):
        test_seed = int(test_seeds[b])
        test_g = significance_test(X_g[idx], ev_g.runs, test, n_trials=n_trials, seed=test_seed)
        for name, (X_c, rows_of) in cands.items():
            position = {r: k for k, r in enumerate(rows_of)}
            drawn = [r for r in idx if r in position]
            if len(drawn) < 2:  # too few of its topics drawn: the measures are undefined here
                rows += [{"sample": b, "candidate": name, "measure": k, "value": np.nan} for k in names or ()]
                continue
            test_c = significance_test(X_c[[position[r] for r in drawn]], ev_g.runs, test, n_trials=n_trials,
                                       seed=test_seed)
            truth_b = test_g
            if topics == "common" and len(drawn) < len(idx):
                truth_b = significance_test(X_g[drawn], ev_g.runs, test, n_trials=n_trials, seed=test_seed)
            result = compare_tests(truth_b, test_c, alpha=alpha)
            names = names or list(result.measures)
            rows += [{"sample": b, "candidate": name, "measure": k, "value": float(v)}
                     for k, v in result.measures.items()]
        tick(b + 1, len(samples))
    frame = pd.DataFrame(rows, columns=["sample", "candidate", "measure", "value"])
    if ranking_measure not in set(frame["measure"]):
        raise DiscpowerError(f"unknown ranking measure {ranking_measure!r}; accepted: {sorted(set(frame.measure))}")
    return Stability(frame=frame, candidates=tuple(cands), ranking_measure=ranking_measure, seed=seed)
