"""How stable is the ground truth's significance pattern? Topic and run resampling.

The comparison of candidate qrels with ground truth (:func:`compare_qrels`) rests
on one sample of topics and one set of runs.

* :func:`truth_stability` resamples the topics with replacement (Efron's bootstrap;
  the check reviewers asked of McKechnie et al. 2025) and redoes every comparison on
  each resample: how much each measure moves, whether the ranking of the candidate
  qrels by MCC holds.
* :func:`run_stability` resamples the runs. A multiple-comparison test decides every
  pair within one family: the randomised Tukey HSD compares each difference with the
  null range of *all* the systems' sums, so one outlying run widens that range and
  makes the other pairs harder to separate. Leave-one-run-out measures, for each run,
  how the decisions on the *other* pairs change when it leaves the family (its
  influence); a run bootstrap shows how S_gt and each candidate's measures move with
  the run set. On DL19 one run (UNH_exDL_bm25) decides whether the zero-shot LLM qrels
  separate the other runs at all: with it in the family they find 1 of the other 630 pairs
  significant, without it 127.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import numpy as np
import pandas as pd

from cwla._shared import Displayed, Shown, count_text
from cwla.errors import CwlaError
from cwla._shared import scoped

from .._params import ALPHA, TRIALS, count, validated
from .._progress import reporter
from ..errors import DiscpowerError
from ..stats.rng import SEED, child_seeds, stream
from ..stats.similarity import kendall_tau_b
from ..typing import MetricLike, Progress, QrelsLike, RunsLike, Seed
from .compare import QrelsComparer, compare_tests, significance_test
from ..stats.trials import counts_its_own

__all__ = ["Stability", "truth_stability", "RunStability", "run_stability"]




def scored_candidates(comparer: QrelsComparer, candidates) -> dict:
    """{name: (topics x runs scores under the candidate, the ground truth's row of each of its topics)}."""
    if not isinstance(candidates, Mapping) or not candidates:
        raise DiscpowerError("candidates must be a non-empty dict {name: qrels}")
    topic_row = {t: i for i, t in enumerate(comparer.truth_evaluation.topics)}
    out = {}
    for name, qrels in candidates.items():
        if qrels is None:
            raise DiscpowerError(f"candidate {name!r} is None; give qrels (a path, a DataFrame or a dict)")
        try:
            _, ev_c = comparer.score(qrels)
        except CwlaError as err:
            raise DiscpowerError(f"candidate {name!r}: {err}") from None
        out[str(name)] = (comparer.matrix(ev_c), np.array([topic_row[t] for t in ev_c.topics]))
    return out


@attrs.frozen(eq=False, repr=False)
class Stability(Displayed):
    """Result of :func:`truth_stability`.

    ``frame``: ``sample, candidate, measure, value`` (sample 0 is the original topic set,
    1..B the bootstrap resamples); ``ranking_measure`` is the measure the candidates are ranked by.
    """

    frame: pd.DataFrame
    candidates: tuple
    ranking_measure: str
    seed: int

    def _shown(self) -> Shown:
        """The repr's table: :meth:`summary`'s rows of the ranking measure, one per candidate."""
        rows = self.summary()
        table = rows[rows["measure"] == self.ranking_measure].drop(columns="measure").set_index("candidate")
        samples = int(self.frame["sample"].max()) if len(self.frame) else 0
        return Shown("Stability", f"{count_text(len(self.candidates), 'candidate')} x "
                     f"{count_text(self.frame['measure'].nunique(), 'measure')}, "
                     f"{count_text(samples, 'bootstrap sample')}", table.rename_axis(columns="statistic"),
                     (f"ranking by {self.ranking_measure}", f"seed={self.seed}"))

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


@scoped
@counts_its_own
@validated({"n_boot": TRIALS, "n_trials": TRIALS, "alpha": ALPHA, "seed": SEED})
def truth_stability(truth: QrelsLike, candidates: Mapping[str, QrelsLike], runs: RunsLike,
                    metric: MetricLike | None = None, *, n_boot: int = 200, test: str = "tukey", n_trials: int = 2000,
                    alpha: float = 0.05, seed: Seed = 0, ranking_measure: str = "MCC", topics: str = "common",
                    progress: Progress = None, **options: object) -> Stability:
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
    # the comparer scores the ground truth once and tests it lazily, once per set of topics
    comparer = QrelsComparer.build(truth, runs, metric, test=test, alpha=alpha, n_trials=n_trials, seed=seed,
                                   topics=topics, one_metric="truth_stability", **options)
    X_g, systems = comparer.truth_matrix, comparer.truth_evaluation.runs
    cands = scored_candidates(comparer, candidates)
    n = X_g.shape[0]
    resample_seed, *test_seeds = child_seeds(seed, n=n_boot + 2)
    rng = stream(resample_seed)
    samples = [np.arange(n)] + [rng.integers(0, n, size=n) for _ in range(n_boot)]
    tick = reporter(progress, len(samples), "topic bootstrap")
    rows, names = [], None
    for b, idx in enumerate(samples):
        test_seed = int(test_seeds[b])
        test_g = significance_test(X_g[idx], systems, test, n_trials=n_trials, seed=test_seed)
        for name, (X_c, rows_of) in cands.items():
            position = {r: k for k, r in enumerate(rows_of)}
            drawn = [r for r in idx if r in position]
            if len(drawn) < 2:  # too few of its topics drawn: the measures are undefined here
                rows += [{"sample": b, "candidate": name, "measure": k, "value": np.nan} for k in names or ()]
                continue
            test_c = significance_test(X_c[[position[r] for r in drawn]], systems, test, n_trials=n_trials,
                                       seed=test_seed)
            truth_b = test_g
            if topics == "common" and len(drawn) < len(idx):
                truth_b = significance_test(X_g[drawn], systems, test, n_trials=n_trials, seed=test_seed)
            result = compare_tests(truth_b, test_c, alpha=alpha, direction_aware=comparer.direction_aware)
            names = names or list(result.measures)
            rows += [{"sample": b, "candidate": name, "measure": k, "value": float(v)}
                     for k, v in result.measures.items()]
        tick(b + 1, len(samples))
    frame = pd.DataFrame(rows, columns=["sample", "candidate", "measure", "value"])
    if ranking_measure not in set(frame["measure"]):
        raise DiscpowerError(f"unknown ranking measure {ranking_measure!r}; accepted: {sorted(set(frame.measure))}")
    return Stability(frame=frame, candidates=tuple(cands), ranking_measure=ranking_measure, seed=seed)


# --------------------------------------------------------------------------- run-set stability

#: the measures :class:`RunStability` reports per left-out run (over the pairs not involving it)
INFLUENCE_MEASURES = ("significant_truth", "significant_candidate", "TP", "FN", "FP", "TN", "1R", "2P", "MCC", "BAC")


@attrs.frozen(eq=False, repr=False)
class RunStability(Displayed):
    """Result of :func:`run_stability`: how the comparison moves with the run set.

    Attributes
    ----------
    leave_one_out : DataFrame
        ``run, candidate, measure, with_run, without_run, change``: every measure of
        :data:`INFLUENCE_MEASURES` over the pairs *not* involving ``run``, tested with the run
        in the family (all runs) and without it (``change`` = without - with).
    influence : DataFrame
        One row per run, most influential first: ``rank, run, mean_truth`` (its mean score
        under the ground truth), ``truth_changes`` (other pairs whose significance under the
        ground truth changes when it leaves), ``candidate_changes`` and ``outcome_changes``
        (other pairs whose significance under a candidate, or whose TP/FN/FP/TN outcome,
        changes; summed over the candidates) and per candidate ``outcome_changes:<name>``.
        Ranked by ``outcome_changes``, then ``truth_changes``.
    bootstrap : Stability
        The run bootstrap (sample 0: all runs; then the distinct runs of m draws with replacement).
    runs : tuple
        The runs.
    seed : int
    """

    leave_one_out: pd.DataFrame
    influence: pd.DataFrame
    bootstrap: Stability
    runs: tuple
    seed: int

    def _shown(self) -> Shown:
        """:attr:`influence` by run, most influential first."""
        table = self.influence.set_index("run").rename_axis(columns="measure")
        samples = int(self.bootstrap.frame["sample"].max()) if len(self.bootstrap.frame) else 0
        facts = (f"most influential: {self.influence['run'].iloc[0]}",) if len(self.influence) else ()
        return Shown("RunStability", f"{count_text(len(self.runs), 'run')}, "
                     f"{count_text(len(self.bootstrap.candidates), 'candidate')}, "
                     f"{count_text(samples, 'bootstrap sample')}", table, facts + (f"seed={self.seed}",))

    def most_influential(self, k: int = 1) -> list:
        """The ``k`` most influential runs."""
        return self.influence["run"].head(count(k, "k")).tolist()

    def without(self, run: str) -> pd.DataFrame:
        """The measures without ``run`` beside those with it: ``candidate, measure, with_run, without_run, change``."""
        if run not in self.runs:
            raise DiscpowerError(f"unknown run {run!r}; the runs are {list(self.runs)[:5]} ...")
        frame = self.leave_one_out
        return frame[frame.run == run].drop(columns="run").reset_index(drop=True)


def _restrict(test, keep) -> object:
    """The test's result on the systems ``keep`` (indices, in order): its p-values as decided in its own family."""
    keep = np.asarray(keep)
    grid = np.ix_(keep, keep)
    return attrs.evolve(test, systems=tuple(test.systems[k] for k in keep), diff=test.diff[grid],
                        statistic=test.statistic[grid], pvalue=test.pvalue[grid],
                        means=None if test.means is None else np.asarray(test.means)[keep])


def _pair_measures(truth_test, cand_test, alpha, direction_aware) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """Measures of one comparison, with the per-pair significance under each and the outcomes."""
    result = compare_tests(truth_test, cand_test, alpha=alpha, direction_aware=direction_aware)
    m = result.measures
    values = {"significant_truth": m["TP"] + m["FN"], "significant_candidate": m["TP"] + m["FP"],
              **{k: m[k] for k in INFLUENCE_MEASURES[2:]}}
    pairs = result.pairs
    return (values, pairs["significant_truth"].to_numpy(), pairs["significant_candidate"].to_numpy(),
            pairs["outcome"].to_numpy())


@scoped
@counts_its_own
@validated({"n_boot": TRIALS, "n_trials": TRIALS, "alpha": ALPHA, "seed": SEED})
def run_stability(truth: QrelsLike, candidates: Mapping[str, QrelsLike], runs: RunsLike,
                  metric: MetricLike | None = None, *, n_boot: int = 200, test: str = "tukey", n_trials: int = 2000,
                  alpha: float = 0.05, seed: Seed = 0, topics: str = "common", progress: Progress = None,
                  **options: object) -> RunStability:
    """Run-set stability of the comparison of candidate qrels with the ground truth.

    The runs are scored once under every qrels; each run set then only selects columns.
    Every test uses the same seed (common random numbers), so a change comes from the run set.

    * **Leave one run out.** For each run r, the pairs not involving r are decided twice: in
      the family of all m runs, and in the family of the other m - 1. r's influence is the number
      of those pairs whose decision changes::

          truth_changes(r)     = #{pairs (i, j), i, j != r : sig_G(i, j | all) != sig_G(i, j | all - r)}
          candidate_changes(r) = sum over candidates of the same count under C
          outcome_changes(r)   = sum over candidates of #{(i, j) : outcome(i, j | all) != outcome(i, j | all - r)}

      with outcome in {TP, FN, FP, TN}; runs are ranked by outcome_changes, then truth_changes.
    * **Run bootstrap.** ``n_boot`` times, m runs are drawn with replacement and the family is the
      distinct runs drawn (on average 63% of them: a run compared with its own copy tells nothing);
      every measure of :func:`compare_qrels` on that family. Sample 0 is the full set. Counts are
      over fewer pairs than the full set's: compare rates (1R, 2P, MCC, sensitivity).

    Parameters
    ----------
    truth, candidates, runs, metric, options
        As for :func:`truth_stability` (``candidates``: ``{name: qrels}``).
    n_boot : int
        Run-bootstrap resamples.
    test, n_trials, alpha, seed, topics
        As for :func:`truth_stability`.

    Returns
    -------
    RunStability
    """
    # the comparer scores the ground truth once and tests it lazily, once per set of topics
    comparer = QrelsComparer.build(truth, runs, metric, test=test, alpha=alpha, n_trials=n_trials, seed=seed,
                                   topics=topics, one_metric="run_stability", **options)
    names = tuple(comparer.truth_evaluation.runs)
    m = len(names)
    if m < 4:
        raise DiscpowerError(f"run-set stability needs at least 4 runs (3 remain when one is left out); got {m}")
    X_g = comparer.truth_matrix
    cands = {}
    for name, (X_c, rows) in scored_candidates(comparer, candidates).items():
        cands[name] = (X_g if topics == "truth" or len(rows) == X_g.shape[0] else X_g[rows], X_c)
    direction_aware = comparer.direction_aware

    def tests(cols):
        """Truth and candidate tests on the distinct run columns ``cols`` (truth tests shared by topic set)."""
        systems = [names[c] for c in cols]
        cache, out = {}, {}
        for name, (X_t, X_c) in cands.items():
            if id(X_t) not in cache:
                cache[id(X_t)] = significance_test(X_t[:, cols], systems, test, n_trials=n_trials, seed=seed)
            out[name] = (cache[id(X_t)], significance_test(X_c[:, cols], systems, test, n_trials=n_trials, seed=seed))
        return out

    total = m + 1 + n_boot
    tick = reporter(progress, total, "run-set stability")
    full = tests(list(range(m)))
    tick(1, total)
    loo_rows, influence = [], []
    for r in range(m):
        others = [c for c in range(m) if c != r]
        without = tests(others)
        row = {"run": names[r], "mean_truth": float(X_g[:, r].mean()), "truth_changes": 0,
               "candidate_changes": 0, "outcome_changes": 0}
        for k, name in enumerate(cands):
            v_with, sg_w, sc_w, o_w = _pair_measures(*(_restrict(t, others) for t in full[name]), alpha,
                                                     direction_aware)
            v_wo, sg_o, sc_o, o_o = _pair_measures(*without[name], alpha, direction_aware)
            for measure in INFLUENCE_MEASURES:
                loo_rows.append({"run": names[r], "candidate": name, "measure": measure,
                                 "with_run": float(v_with[measure]), "without_run": float(v_wo[measure]),
                                 "change": float(v_wo[measure]) - float(v_with[measure])})
            if k == 0:
                row["truth_changes"] = int(np.sum(sg_w != sg_o))
            row["candidate_changes"] += int(np.sum(sc_w != sc_o))
            row[f"outcome_changes:{name}"] = int(np.sum(o_w != o_o))
            row["outcome_changes"] += row[f"outcome_changes:{name}"]
        influence.append(row)
        tick(r + 2, total)
    influence = pd.DataFrame(influence).sort_values(["outcome_changes", "truth_changes"], ascending=False,
                                                    kind="stable").reset_index(drop=True)
    influence.insert(0, "rank", np.arange(1, m + 1))

    rng = stream(seed, 0x52554E53)  # "RUNS": a stream of its own
    draws = [np.arange(m)] + [np.unique(rng.integers(0, m, size=m)) for _ in range(n_boot)]
    boot_rows = []
    for b, cols in enumerate(draws):
        if len(cols) >= 2:
            for name, (g, c) in tests(list(cols)).items():
                result = compare_tests(g, c, alpha=alpha, direction_aware=direction_aware)
                boot_rows += [{"sample": b, "candidate": name, "measure": k, "value": float(v)}
                              for k, v in result.measures.items()]
        if b:
            tick(m + 1 + b, total)
    boot = Stability(frame=pd.DataFrame(boot_rows, columns=["sample", "candidate", "measure", "value"]),
                     candidates=tuple(cands), ranking_measure="MCC", seed=seed)
    return RunStability(leave_one_out=pd.DataFrame(loo_rows), influence=influence, bootstrap=boot, runs=names,
                        seed=seed)
