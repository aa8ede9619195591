"""Split-half consistency of system rankings (Sakai 2021, ECIR; Chen & Sakai 2023, Algorithm 1).

For b = 1..B: split the n topics at random into halves of floor(n/2) and n - floor(n/2)
topics -- the same split for every metric -- and record, for every metric, Kendall's
tau-b between the run rankings by mean score on each half. Then run the paired
randomised Tukey HSD over the B x M tau matrix (splits as topics, metrics as systems):
a metric whose rankings agree better across disjoint topic sets is more consistent, and
the test says which differences between metrics are significant.

Implementation
--------------
One numba kernel computes the B x M tau matrix: a prange over fixed-size chunks of
splits; split b is a Fisher-Yates shuffle of the topic indices 0..n-1 drawn from its own
counter-based stream ``trial_state(seed, b)`` (:mod:`discpower.stats.rng`); its first
floor(n/2) positions form the first half. A half's mean is summed in ascending topic
order, and two means within ``tie_tolerance`` (1e-10) count as tied in tau-b (see
:mod:`discpower.stats.similarity`). So the taus are bit-identical for a seed whatever the
number of threads, and :func:`topic_split` returns any split for checking.
"""

from __future__ import annotations


import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
import numpy as np
from numba import prange

from cwla._shared import Displayed, Interval, Shown, count_text, grid, jit, legend, short_labels
from cwla._shared import escape as _tex

from .._params import ALPHA, TRIALS, validated
from .._params import digits as digits_value
from .._plots import PALETTE, describe_test, pyplot
from ..errors import DiscpowerError
from ..stats.matrix import score_array
from ..stats.memory import NULL_BYTES, check_memory
from ..stats.result import PairwiseTest
from ..stats.rng import SEED, mix, n_tasks, shuffle, task_span, trial_state
from ..stats.similarity import A_TIE_TOLERANCE, TIE_TOLERANCE, tau_b
from ..stats.trials import counted_by, in_slices
from ..stats.tukey import column_sums, tukey_test
from ..typing import ArrayLike, Progress, Seed

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from cwla import Evaluation

__all__ = ["split_half_consistency", "split_half", "SplitHalfConsistency", "topic_split", "split_half_memory",
           "compact_ranks", "beats"]

_SPLITS_PER_TASK = 16  # splits per parallel task (their own, smaller than TRIALS_PER_TASK: a split costs more)
#: XORed into the split seed to derive the seed of the Tukey HSD (an independent stream family)
_TUKEY_SALT = np.uint64(0x7F4A7C159E3779B9)


# --------------------------------------------------------------------------- kernels

@jit()
def _split_perm_into(perm, seed, b):
    """``perm`` := the shuffled topic indices of split b (its first floor(n/2) entries are the first half)."""
    for t in range(perm.shape[0]):
        perm[t] = t
    shuffle(perm, trial_state(seed, b))


@jit()
def _draw_split(seed, b, h, perm, first):
    """Split b: ``first[t]`` = True for the floor(n/2) topics of the first half."""
    _split_perm_into(perm, seed, b)
    for k in range(perm.shape[0]):
        first[perm[k]] = k < h


@jit()
def _split_perm(n, seed, b):
    """The shuffled topic indices of split b."""
    perm = np.empty(n, dtype=np.int64)
    _split_perm_into(perm, seed, b)
    return perm


@jit(parallel=True)
def _split_half_taus_into(V, tol, seed, b0, out):
    """out[k, m] = tau-b between the halves' run rankings of metric m under split b0 + k."""
    n_metrics, n_runs, n = V.shape
    h = n // 2
    for c in prange(n_tasks(out.shape[0], _SPLITS_PER_TASK)):
        perm = np.empty(n, dtype=np.int64)
        first = np.empty(n, dtype=np.bool_)
        mean1 = np.empty(n_runs)
        mean2 = np.empty(n_runs)
        start, end = task_span(c, out.shape[0], _SPLITS_PER_TASK)
        for k in range(start, end):
            _draw_split(seed, b0 + k, h, perm, first)
            for m in range(n_metrics):
                for r in range(n_runs):
                    s1 = 0.0
                    s2 = 0.0
                    for t in range(n):
                        if first[t]:
                            s1 += V[m, r, t]
                        else:
                            s2 += V[m, r, t]
                    mean1[r] = s1 / h
                    mean2[r] = s2 / (n - h)
                out[k, m] = tau_b(mean1, mean2, tol)


# --------------------------------------------------------------------------- helpers

def split_half_memory(n_metrics: int, n_splits: int, n_trials: int) -> int:
    """Bytes :func:`split_half_consistency` allocates: the splits x metrics tau matrix (float64) with its
    NaN mask, and the null distribution of its Tukey HSD."""
    return 9 * n_splits * n_metrics + NULL_BYTES * n_trials if n_splits else 0


@validated({"n_topics": Interval("int", 2, None), "seed": SEED, "b": Interval("int", 0, None)})
def topic_split(n_topics: int, seed: Seed, b: int) -> tuple[np.ndarray, np.ndarray]:
    """The topics of split ``b`` of :func:`split_half_consistency` with ``seed``.

    Returns (first half, second half) as sorted topic indices, of sizes floor(n/2) and
    n - floor(n/2): the halves whose means the kernel ranks (it sums them in this order).
    ``seed`` is the integer seed (``SplitHalfConsistency.seed``); b counts from 0.

    Examples
    --------
    >>> first, second = topic_split(7, seed=1, b=0)
    >>> len(first), len(second), sorted(np.r_[first, second].tolist()) == list(range(7))
    (3, 4, True)
    """
    n = n_topics
    perm = _split_perm(n, np.uint64(seed), b)
    h = n // 2
    return np.sort(perm[:h]), np.sort(perm[h:])


def compact_ranks(ranks) -> str:
    """1-based ranks as runs of ranges: [3, 5, 6, 7, 9] -> "3, 5-7, 9"."""
    ranks = sorted(int(r) for r in ranks)
    parts = []
    k = 0
    while k < len(ranks):
        j = k
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        parts.append(str(ranks[k]) if j == k else f"{ranks[k]}-{ranks[j]}")
        k = j + 1
    return ", ".join(parts)


# --------------------------------------------------------------------------- result

def beats(test: PairwiseTest, alpha: float) -> np.ndarray:
    """(M, M) bool: ``beats[i, j]`` = metric i has the higher mean tau and p_ij < alpha."""
    return (test.diff > 0.0) & test.significant(alpha)


@attrs.frozen(eq=False, repr=False)
class SplitHalfConsistency(Displayed):
    """Split-half consistency of every metric's system ranking (plain data, pure methods).

    Attributes
    ----------
    labels : tuple of str
        The metrics.
    taus : ndarray of shape (B, M)
        ``taus[b, i]`` = Kendall tau-b between the run rankings of metric i on the two
        halves of split b.
    mean_tau : ndarray of shape (M,)
        Mean over the splits.
    test : PairwiseTest
        Randomised Tukey HSD over ``taus`` (splits as topics, metrics as systems).
    alpha : float
        Significance level.
    outperforms : ndarray of shape (M,), int
        How many other metrics each one beats: higher mean tau with p < alpha. It grows with the number of
        splits and is not inference about topics
        (:func:`~discpower.metrics.families.outperforms_by_splits`).
    beaten : tuple of tuples of str
        Per metric, the metrics it beats (in descending mean-tau order).
    n_runs, n_topics : int
        Runs ranked; topics split into halves of floor(n/2) and n - floor(n/2).
    seed : int
        The seed of the splits (:func:`topic_split` reproduces any of them); the Tukey
        test's own seed is ``test.seed``.
    tie_tolerance : float
        Half means within this count as tied.
    """

    labels: tuple
    taus: np.ndarray
    mean_tau: np.ndarray
    test: PairwiseTest
    alpha: float
    outperforms: np.ndarray
    beaten: tuple
    n_runs: int
    n_topics: int
    seed: int
    tie_tolerance: float = TIE_TOLERANCE

    @property
    def n_splits(self) -> int:
        return int(self.taus.shape[0])

    def _shown(self) -> Shown:
        """Per metric, by mean tau descending: its rank, mean and standard deviation of tau, and how many
        metrics it significantly outperforms."""
        shorts = short_labels(self.labels)
        short = dict(zip(self.labels, shorts))
        frame = self.to_frame()
        table = frame.assign(metric=frame["metric"].map(short)).set_index("metric")[
            ["rank", "mean_tau", "std_tau", "outperforms"]].rename_axis(columns="statistic")
        return Shown("SplitHalfConsistency", f"{count_text(len(self.labels), 'metric')}, "
                     f"{count_text(self.n_splits, 'split')} of {count_text(self.n_topics, 'topic')}, "
                     f"{count_text(self.n_runs, 'run')}", table,
                     (f"alpha={self.alpha:g}", f"B={self.test.n_resamples:,}",
                      "outperforms grows with the splits: discpower.outperforms_by_splits"),
                     legend(self.labels, shorts))

    @property
    def half_sizes(self) -> tuple[int, int]:
        return self.n_topics // 2, self.n_topics - self.n_topics // 2

    @property
    def std_tau(self) -> np.ndarray:
        """Standard deviation of each metric's tau over the splits (ddof=1; 0 with one split)."""
        if self.n_splits < 2:
            return np.zeros(len(self.labels))
        return self.taus.std(axis=0, ddof=1)

    def wins(self) -> np.ndarray:
        """(M, M) bool: ``wins[i, j]`` = metric i has the higher mean tau and p_ij < alpha."""
        return beats(self.test, self.alpha)

    def test_of(self, members: Sequence[str], trials: int, seed: int, splits: int | None = None) -> PairwiseTest:
        """The randomised Tukey HSD over the columns of ``members`` (labels) of the tau matrix, on its first
        ``splits`` splits (default: all), with ``trials`` and ``seed`` (checked by the caller)."""
        column = {label: i for i, label in enumerate(self.labels)}
        taus = self.taus[:splits, [column[m] for m in members]]
        return tukey_test(np.ascontiguousarray(taus), tuple(members), trials, seed)

    def order(self) -> np.ndarray:
        """Metric indices by mean tau, descending (ties: the order of ``labels``)."""
        return np.lexsort((np.arange(len(self.labels)), -self.mean_tau))

    def to_frame(self) -> pd.DataFrame:
        """One row per metric, by mean tau descending: ``rank, metric, mean_tau, std_tau,
        outperforms`` and ``beaten_ranks``, the ranks (in this table) of the metrics it
        significantly outperforms, compacted as in Chen & Sakai's Table 3 ("5-9, 12")."""
        import pandas as pd

        order = self.order()
        rank_of = np.empty(len(order), dtype=np.int64)
        rank_of[order] = np.arange(1, len(order) + 1)
        wins = self.wins()
        std = self.std_tau
        return pd.DataFrame({
            "rank": np.arange(1, len(order) + 1),
            "metric": [self.labels[i] for i in order],
            "mean_tau": self.mean_tau[order],
            "std_tau": std[order],
            "outperforms": self.outperforms[order],
            "beaten_ranks": [compact_ranks(rank_of[np.flatnonzero(wins[i])]) for i in order],
        })

    def to_latex(self, digits: int = 3) -> str:
        """The table in Chen & Sakai's layout: rank, metric, mean tau, and the ranks of the
        metrics it significantly outperforms (with their count)."""
        digits = digits_value(digits)
        frame = self.to_frame()
        a = f"{self.alpha:g}"
        rows = [[str(r.rank), _tex(r.metric), f"{r.mean_tau:.{digits}f}",
                 f"{r.beaten_ranks} ({r.outperforms})" if r.outperforms else "--"]
                for r in frame.itertuples(index=False)]
        return grid("rlrl", ["", "Metric", "Mean $\\tau$", f"Significantly outperforms ($\\alpha = {a}$)"], rows,
                    after=[f"% {self.n_splits} splits of {self.n_topics} topics into {self.half_sizes[0]} + "
                           f"{self.half_sizes[1]}; {self.n_runs} runs; randomised Tukey HSD, B = {self.test.n_resamples}"])

    def plot(self, ax: Axes | None = None) -> Axes:
        """Mean tau per metric (descending) with error bars of one standard deviation over the
        splits; above each bar, the number of metrics it is significantly more consistent than (the
        title names that test, its B and alpha). Needs matplotlib (imported here only). Returns the Axes."""
        plt = pyplot("SplitHalfConsistency.plot")

        order = self.order()
        m = len(order)
        if ax is None:
            _, ax = plt.subplots(figsize=(max(5.0, 0.28 * m + 2.0), 4.0))
        x = np.arange(m)
        means, std = self.mean_tau[order], self.std_tau[order]
        ax.errorbar(x, means, yerr=std, fmt="o", capsize=2, markersize=4, color=PALETTE[0], ecolor=PALETTE[0])
        for xx, top, k in zip(x, means + std, self.outperforms[order]):
            if k:
                ax.annotate(str(int(k)), (xx, top), xytext=(0, 2), textcoords="offset points", ha="center",
                            va="bottom", fontsize=6)
        ax.set_xticks(x)
        ax.set_xticklabels([self.labels[i] for i in order], rotation=90)
        ax.set_ylabel("Kendall $\\tau_b$ between the halves\n(mean ± 1 sd over the splits)")
        ax.set_title(f"Split-half consistency: {self.n_splits:,} splits of {self.n_topics} topics "
                     f"({self.half_sizes[0]}+{self.half_sizes[1]}), {self.n_runs} runs\n"
                     f"n above a bar: significantly more consistent than n metrics\n"
                     f"({describe_test(self.test.method, self.test.n_resamples, self.alpha)})", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        return ax


# --------------------------------------------------------------------------- entry point

@validated({"n_splits": Interval("int", 2, None),  # the Tukey HSD treats splits as topics: it needs two
            "seed": SEED, "n_trials": TRIALS, "alpha": ALPHA, "tie_tolerance": A_TIE_TOLERANCE})
def split_half_consistency(values: ArrayLike | Evaluation, labels: Sequence[str] | None = None, *,
                           n_splits: int = 1000, seed: Seed = None, n_trials: int = 2000, alpha: float = 0.05,
                           runs: Sequence[str] | None = None, progress: Progress = None,
                           tie_tolerance: float = TIE_TOLERANCE) -> SplitHalfConsistency:
    """Split-half consistency of each metric's system ranking, and which metrics are
    significantly more consistent than which (Sakai 2021; Chen & Sakai 2023, Algorithm 1).

    Parameters
    ----------
    values : array-like of shape (M, n_runs, n_topics), or a cwla Evaluation
        Scores (``cwla.evaluate(...).values``); finite; M >= 2, n_runs >= 3, n_topics >= 4.
    labels : sequence of str
        One name per metric (default: the Evaluation's labels).
    n_splits : int
        B >= 2, the number of random topic splits.
    seed : int, numpy Generator or None
        Seed of the splits (the Tukey test's seed is derived from it). Same seed, same
        result, whatever the number of threads. None draws one and records it.
    n_trials : int
        Trials of the randomised Tukey HSD over the tau matrix.
    alpha : float
        Significance level for ``outperforms``.
    runs : boolean mask, sequence of int, or run names (with an Evaluation), optional
        The runs to rank (default: all).
    progress : callable(done, total) or None
        Called a few times (about ten) with the number of splits done.
    tie_tolerance : float
        Half means within this count as tied in tau-b.

    Returns
    -------
    SplitHalfConsistency

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> quality = rng.random(10)
    >>> good = quality[:, None] + rng.normal(0, 0.3, (10, 30))
    >>> noise = rng.normal(0, 0.3, (10, 30))
    >>> res = split_half_consistency(np.stack([good, noise]), ["good", "noise"], n_splits=200, seed=1)
    >>> res.to_frame()[["metric", "outperforms"]].values.tolist()
    [['good', 1], ['noise', 0]]
    """
    V, labels, _ = score_array(values, labels, runs, allow_2d=False, min_metrics=2, min_runs=3, min_topics=4)
    B, trials, tol = n_splits, n_trials, tie_tolerance
    if progress is not None and not callable(progress):
        raise DiscpowerError(f"progress must be None or a callable progress(done, total); got {progress!r}")
    check_memory(split_half_memory(V.shape[0], B, trials),
                 f"n_splits={B:,} for {V.shape[0]} metrics with n_trials={trials:,} (the splits x metrics tau "
                 f"matrix and the null distribution of its Tukey HSD)", "use fewer splits or trials")
    return split_half(V, labels, B, trials, alpha, tol, seed, progress)


def split_half(V: np.ndarray, labels: tuple, n_splits: int, n_trials: int, alpha: float, tol: float, seed: int,
               progress=None) -> SplitHalfConsistency:
    """:func:`split_half_consistency` on a checked (metric x run x topic) array and checked parameters (the
    memory planned by the caller)."""
    B, trials = n_splits, n_trials
    n_metrics, n_runs, n_topics = V.shape
    with counted_by(progress, 0, B, B) if progress is not None else contextlib.nullcontext():
        taus = in_slices(_split_half_taus_into, (V, tol), seed, B, "split-half", shape=(n_metrics,))

    undefined = np.isnan(taus)
    if undefined.any():
        bad = np.flatnonzero(undefined.any(axis=0))
        detail = ", ".join(f"'{labels[i]}' ({int(undefined[:, i].sum())} of {B} splits)" for i in bad[:5])
        raise DiscpowerError(f"tau-b is undefined when a metric ties every run on a half: {detail}"
                             f"{' and more' if len(bad) > 5 else ''}; drop such metrics (or runs)")

    tukey_seed = int(mix(np.uint64(seed) ^ _TUKEY_SALT))
    test = tukey_test(np.ascontiguousarray(taus, dtype=np.float64), tuple(labels), trials, tukey_seed)
    mean_tau = column_sums(taus) / B  # the means the test compares (test.diff = their differences)
    wins = beats(test, alpha)
    order = np.lexsort((np.arange(n_metrics), -mean_tau))
    beaten = tuple(tuple(labels[j] for j in order if wins[i, j]) for i in range(n_metrics))
    return SplitHalfConsistency(
        labels=labels, taus=taus, mean_tau=mean_tau, test=test, alpha=alpha,
        outperforms=wins.sum(axis=1).astype(np.int64), beaten=beaten, n_runs=int(n_runs),
        n_topics=int(n_topics), seed=seed, tie_tolerance=tol,
    )
