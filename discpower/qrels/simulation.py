"""Known-truth simulation: how far are S_gt-based error rates from the true ones?

McKechnie et al. (2025) count a candidate qrels' Type I/II errors against S_gt, the
pairs the ground-truth qrels find significant on the experiment's topics. But S_gt is
itself a test result on a small topic sample: it misses true differences (its own Type
II errors) and can contain false ones. Here the truth is known by construction:

* :func:`known_truth_collection` builds a *population* of many topics. Its systems come
  in quality levels: system s ranks topic t's documents by ``q_level(s) * grade + noise``
  (noise standard normal, independent per system, topic and document), so systems of one
  level are exchangeable (every pair of them is truly equal) and a higher level ranks
  relevant documents higher in expectation (every pair across levels truly differs, the
  higher level better).
* :func:`known_truth_errors` plays many experiments: each draws ``sample_topics`` topics
  from the population, tests the runs under the ground truth and under the candidate
  qrels on those topics, and counts the candidate's errors twice -- against S_gt and
  against the truth:

  - ``type_II_sgt`` = FN / |S_gt| (significant under the ground truth, not under the
    candidate: McKechnie et al.'s Type II rate, 1 - 1R);
  - ``type_II_true`` = (truly different pairs the candidate does not find significant in
    the right direction) / #truly different pairs;
  - ``type_I_sgt`` = FP / #(pairs not in S_gt) and ``type_I_true`` = (truly equal pairs the
    candidate finds significant) / #truly equal pairs;
  - the ground truth's own rates against the truth (``type_II_truth``, ``type_I_truth``).

  ``summary()`` gives their means over the experiments and the differences S_gt-based
  minus true.

The runs are scored once on the whole population under each qrels; an experiment only
selects rows. Seeded: the same seed gives the same numbers whatever the thread count.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from cwla._shared import Displayed, Interval, Shown, check, count_text
from cwla._shared import scoped

from .._params import ALPHA, COUNT, TRIALS, validated
from .._progress import reporter
from ..errors import DiscpowerError
from ..stats.memory import check_memory
from ..stats.rng import SEED, stream
from ..typing import MetricLike, Progress, QrelsLike, Seed
from .compare import QrelsComparer, compare_tests, ratio, significance_test
from .stability import scored_candidates
from ..stats.trials import counts_its_own

__all__ = ["KnownTruthCollection", "KnownTruthErrors", "known_truth_collection", "known_truth_errors", "CELL_BYTES",
           "ROW_BYTES"]

#: bytes a population takes per topic and document, in the qrels and in each run: the frames' columns, the topic
#: and docno of every row as a Python string (measured peak, about 150 bytes a row of a frame)
CELL_BYTES = 150


@attrs.frozen(eq=False, repr=False)
class KnownTruthCollection(Displayed):
    """A population of topics whose system ordering is known (see :func:`known_truth_collection`).

    ``qrels``: every document of every topic judged (the ground truth); ``runs``: {name: frame};
    ``level``: {name: quality level index, 0 = worst}; ``quality``: the q of each level.
    """

    qrels: pd.DataFrame
    runs: dict
    level: dict
    quality: tuple
    seed: int

    def _shown(self) -> Shown:
        """Per system: its quality level and q."""
        levels = [self.level[r] for r in self.runs]
        table = pd.DataFrame({"level": np.asarray(levels, dtype=np.int64),
                              "quality": [self.quality[v] for v in levels]},
                             index=pd.Index(list(self.runs), name="system")).rename_axis(columns="field")
        topics = self.qrels["topic"].nunique()
        return Shown("KnownTruthCollection", f"{count_text(topics, 'topic')} x "
                     f"{count_text(len(self.qrels) // max(topics, 1), 'document')}, "
                     f"{count_text(len(self.runs), 'system')} at {count_text(len(self.quality), 'quality level')}",
                     table, (f"quality={self.quality}", f"seed={self.seed}"))

    def true_difference(self) -> np.ndarray:
        """(m, m) int: sign of the true difference of system i minus system j (0: truly equal), runs in
        ``runs`` order."""
        lv = np.array([self.level[r] for r in self.runs])
        return np.sign(lv[:, None] - lv[None, :])


@validated({"n_topics": Interval("int", 2, None),  # an experiment draws at least 2 topics
            "per_level": COUNT, "docs": COUNT, "max_grade": COUNT,
            "seed": SEED})
def known_truth_collection(n_topics: int = 1000, quality: Sequence[float] = (0.5, 1.0, 1.5), per_level: int = 3,
                           docs: int = 40, max_grade: int = 3, seed: Seed = 0) -> KnownTruthCollection:
    """A synthetic population of topics with systems of known quality levels.

    The population is kept in memory (about :data:`CELL_BYTES` bytes per topic and document in the qrels and in
    every run): one that would not fit is refused before it is drawn.

    Parameters
    ----------
    n_topics : int
        Topics of the population (>= 2; the experiments draw small samples from it).
    quality : sequence of float
        The q of each level, increasing (>= 0): system s ranks by ``q * grade + N(0, 1)``.
    per_level : int
        Systems per level (>= 1; with 2 or more, pairs within a level are truly equal).
    docs : int
        Documents per topic, all judged and all ranked by every system.
    max_grade : int
        Grades 0..max_grade; per topic the share of relevant documents is drawn from
        Beta(2, 5) and a relevant document's grade is uniform on 1..max_grade.
    seed : int

    Examples
    --------
    >>> pop = known_truth_collection(n_topics=20, quality=(0.5, 2.0), per_level=2, docs=10, seed=1)
    >>> sorted(pop.runs), pop.level["L1S1"]
    (['L0S0', 'L0S1', 'L1S0', 'L1S1'], 1)
    """
    try:
        if isinstance(quality, (str, bytes)) or any(isinstance(v, (bool, np.bool_)) for v in quality):
            raise TypeError
        q = [float(v) for v in quality]
    except (TypeError, ValueError):
        raise DiscpowerError(f"The 'quality' parameter must be a list of numbers. Got {quality!r} instead.") from None
    if len(q) < 2 or any(not math.isfinite(v) or v < 0 for v in q) or any(b <= a for a, b in zip(q, q[1:])):
        raise DiscpowerError(f"The 'quality' parameter must hold at least two finite, non-negative, strictly "
                             f"increasing levels. Got {quality!r} instead.")
    systems = len(q) * per_level
    check_memory(CELL_BYTES * n_topics * docs * (systems + 1),
                 f"n_topics={n_topics:,} x docs={docs:,} for {systems:,} systems (the qrels and every run, about "
                 f"{CELL_BYTES} bytes a document each)", "use fewer topics, documents or systems")
    rng = stream(seed, 0x4B4E4F57)  # "KNOW"
    share = rng.beta(2.0, 5.0, size=n_topics)
    relevant = rng.random((n_topics, docs)) < share[:, None]
    grades = np.where(relevant, rng.integers(1, max_grade + 1, size=(n_topics, docs)), 0)
    width = len(str(n_topics))
    topics = np.array([f"P{t:0{width}d}" for t in range(n_topics)])
    docnos = np.array([f"d{k:03d}" for k in range(docs)])
    qrels = pd.DataFrame({"topic": np.repeat(topics, docs), "docno": np.tile(docnos, n_topics),
                          "grade": grades.ravel().astype(np.int64)})
    runs, level = {}, {}
    for lv, qv in enumerate(q):
        for k in range(per_level):
            name = f"L{lv}S{k}"
            score = qv * grades + rng.standard_normal((n_topics, docs))
            order = np.argsort(-score, axis=1, kind="stable")
            rows = np.take_along_axis(score, order, axis=1)
            runs[name] = pd.DataFrame({"topic": np.repeat(topics, docs), "docno": docnos[order].ravel(),
                                       "score": rows.ravel(), "rank": np.tile(np.arange(1, docs + 1), n_topics)})
            level[name] = lv
    return KnownTruthCollection(qrels=qrels, runs=runs, level=level, quality=tuple(q), seed=seed)


#: the per-experiment measures of :class:`KnownTruthErrors`
MEASURES = ("S_gt", "true_differences", "type_II_sgt", "type_II_true", "type_I_sgt", "type_I_true",
            "type_II_truth", "type_I_truth")
#: the measures of :data:`MEASURES` that are counts of pairs (integers; the others are rates)
COUNT_MEASURES = ("S_gt", "true_differences")
#: bytes a row of :class:`KnownTruthErrors`' frame takes while it is made: its 8-byte columns (``experiment``,
#: ``candidate`` and the measures), filled in, then copied into the frame
ROW_BYTES = 2 * 8 * (2 + len(MEASURES))


@attrs.frozen(eq=False, repr=False)
class KnownTruthErrors(Displayed):
    """Result of :func:`known_truth_errors`: ``frame`` has one row per experiment and candidate,
    ``experiment, candidate`` and the :data:`MEASURES`."""

    frame: pd.DataFrame
    sample_topics: int
    alpha: float
    seed: int

    def _shown(self) -> Shown:
        """The repr's table: :meth:`summary`'s mean rates per candidate."""
        columns = ["experiments", "type_II_sgt", "type_II_true", "type_I_sgt", "type_I_true"]
        table = self.summary().set_index("candidate")[columns].rename_axis(columns="measure")
        experiments = self.frame["experiment"].nunique() if len(self.frame) else 0
        return Shown("KnownTruthErrors", f"{count_text(self.frame['candidate'].nunique(), 'candidate')} x "
                     f"{count_text(experiments, 'experiment')} of {count_text(self.sample_topics, 'topic')}", table,
                     (f"alpha={self.alpha:g}", f"seed={self.seed}"))

    def summary(self) -> pd.DataFrame:
        """Per candidate: the mean of every measure over the experiments where it is defined, and for the
        Type II (and Type I) rates the comparison of the two counts over the experiments where *both* are
        defined (``type_II_compared`` of them; S_gt or its complement can be empty)::

            type_II_difference    = mean(type_II_sgt - type_II_true)
            type_II_difference_se = sd(type_II_sgt - type_II_true, ddof=1) / sqrt(type_II_compared)

        so the difference is that of ``type_II_sgt_compared`` and ``type_II_true_compared``, the two
        means over the same experiments."""
        rows = []
        for name, block in self.frame.groupby("candidate", sort=False):
            row = {"candidate": name, "experiments": len(block)}
            row.update({k: float(block[k].mean()) for k in MEASURES})
            for kind in ("II", "I"):
                both = block[[f"type_{kind}_sgt", f"type_{kind}_true"]].dropna()
                d = both[f"type_{kind}_sgt"] - both[f"type_{kind}_true"]
                row[f"type_{kind}_compared"] = len(both)
                row[f"type_{kind}_sgt_compared"] = float(both[f"type_{kind}_sgt"].mean()) if len(both) else math.nan
                row[f"type_{kind}_true_compared"] = float(both[f"type_{kind}_true"].mean()) if len(both) else math.nan
                row[f"type_{kind}_difference"] = float(d.mean()) if len(d) else math.nan
                row[f"type_{kind}_difference_se"] = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 \
                    else math.nan
            rows.append(row)
        return pd.DataFrame(rows)


@scoped
@counts_its_own
@validated({"sample_topics": Interval("int", 2, None), "experiments": COUNT,
            "n_trials": TRIALS, "alpha": ALPHA, "seed": SEED})
def known_truth_errors(population: KnownTruthCollection, candidates: Mapping[str, QrelsLike | Callable],
                       metric: MetricLike | None = None, *, sample_topics: int = 50, experiments: int = 100,
                       test: str = "tukey", n_trials: int = 1000, alpha: float = 0.05, seed: Seed = 0,
                       progress: Progress = None, **options: object) -> KnownTruthErrors:
    """Type I/II error rates of candidate qrels against S_gt and against the known truth.

    Parameters
    ----------
    population : KnownTruthCollection
    candidates : dict {name: qrels or callable(truth qrels) -> qrels}
        Candidate qrels over the population's topics (e.g. ``lambda q: sample_relevant(q, 0.3)``);
        the ground truth itself is a valid candidate (its true rates are the ground truth's own).
    metric, options
        One metric (text or cwla Metric; default nDCG@10), scored by the seam's evaluator.
    sample_topics : int
        Topics per experiment (drawn without replacement from the population).
    experiments : int
        Experiments (topic samples). The result keeps a row per experiment and candidate (about
        :data:`ROW_BYTES` bytes each): more than fit in memory are refused before anything is scored.
    test, n_trials, alpha
        The pairwise test run under each qrels per experiment (1 + one per candidate).
    seed : int
    progress : bool, None or callable
        None (default): a progress bar over the experiments on stderr when it is a terminal; True: always;
        False: none; a callable gets ``(done, total)`` (:mod:`cwla.progress`).

    Returns
    -------
    KnownTruthErrors
    """
    if not isinstance(population, KnownTruthCollection):
        raise DiscpowerError(f"population must be a KnownTruthCollection (discpower.known_truth_collection); "
                             f"got {type(population).__name__}")
    if not isinstance(candidates, dict) or not candidates:
        raise DiscpowerError("candidates must be a non-empty dict {name: qrels or callable(truth) -> qrels}")
    n_pop = population.qrels["topic"].nunique()
    sample_topics = check(sample_topics, "sample_topics", Interval("int", 2, n_pop), error=DiscpowerError,
                          rule=f"an integer in [2, {n_pop}] (the population's topics)")
    tick = reporter(progress, experiments, "known-truth experiments")
    # the result's rows, before anything is scored (the tests' null distributions: QrelsComparer.build)
    check_memory(ROW_BYTES * experiments * len(candidates),
                 f"experiments={experiments:,} for {len(candidates)} candidate(s) (a row of the result per experiment "
                 f"and candidate, {ROW_BYTES} bytes each)", "use fewer candidates at a time, or fewer experiments",
                 per_unit=ROW_BYTES * len(candidates))
    # validates metric, test and alpha, and scores the runs on the whole population once
    comparer = QrelsComparer.build(population.qrels, population.runs, metric, test=test, alpha=alpha,
                                   n_trials=n_trials, seed=seed, one_metric="known_truth_errors", **options)
    alpha = comparer.alpha
    names = tuple(comparer.truth_evaluation.runs)
    order = [list(population.runs).index(r) for r in names]
    true = population.true_difference()[np.ix_(order, order)]
    X_g = comparer.truth_matrix
    resolved = {name: (q(population.qrels.copy()) if callable(q) else q) for name, q in candidates.items()}
    cands = {}
    for name, (X_c, rows) in scored_candidates(comparer, resolved).items():
        if len(rows) != X_g.shape[0]:
            raise DiscpowerError(f"candidate {name!r} must judge every topic of the population (it judges "
                                 f"{len(rows)} of {X_g.shape[0]})")
        cands[name] = X_c
    i, j = np.triu_indices(len(names), k=1)
    true_sign = true[i, j]
    differ = true_sign != 0
    n_rows = experiments * len(cands)  # experiment after experiment, the candidates in order within each
    columns = {"experiment": np.repeat(np.arange(experiments, dtype=np.int64), len(cands)),
               "candidate": np.tile(np.array(list(cands), dtype=object), experiments),
               **{k: np.empty(n_rows, dtype=np.int64 if k in COUNT_MEASURES else np.float64) for k in MEASURES}}
    row = 0
    for e in range(experiments):
        rng = stream(seed, e)
        idx = np.sort(rng.choice(X_g.shape[0], size=sample_topics, replace=False))
        test_seed = int(rng.integers(0, 2**63))
        g = significance_test(X_g[idx], names, test, n_trials=n_trials, seed=test_seed)
        sig_g = g.pvalue[i, j] < alpha
        right_g = sig_g & (np.sign(g.diff[i, j]) == true_sign)
        for name, X_c in cands.items():
            c = significance_test(X_c[idx], names, test, n_trials=n_trials, seed=test_seed)
            m = compare_tests(g, c, alpha=alpha).measures
            sig_c = c.pvalue[i, j] < alpha
            right_c = sig_c & (np.sign(c.diff[i, j]) == true_sign)
            values = {
                "S_gt": int(sig_g.sum()), "true_differences": int(differ.sum()),
                "type_II_sgt": ratio(m["FN"], m["TP"] + m["FN"]),
                "type_II_true": ratio(int((differ & ~right_c).sum()), int(differ.sum())),
                "type_I_sgt": ratio(m["FP"], m["FP"] + m["TN"]),
                "type_I_true": ratio(int((~differ & sig_c).sum()), int((~differ).sum())),
                "type_II_truth": ratio(int((differ & ~right_g).sum()), int(differ.sum())),
                "type_I_truth": ratio(int((~differ & sig_g).sum()), int((~differ).sum())),
            }
            for measure, value in values.items():
                columns[measure][row] = value
            row += 1
        tick(e + 1, experiments)
    return KnownTruthErrors(frame=pd.DataFrame(columns), sample_topics=int(sample_topics), alpha=alpha, seed=seed)
