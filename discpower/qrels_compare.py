"""Candidate qrels against ground-truth qrels: which significant differences do they keep, lose or invent?

Following McKechnie et al. 2025 (arXiv 2507.07924) and Otero, Parapar & Ferro
(CIKM 2023). The same runs are scored with the same metric under the ground
truth G and the candidate C, the same significance test is run on each, and
every system pair is classified:

=====================  =================  =====================
                       C significant      C not significant
=====================  =================  =====================
G significant          TP                 FN (Type II)
G not significant      FP (Type I)        TN
=====================  =================  =====================

Measures: 1P = TP/(TP+FP), 1R = TP/(TP+FN), 2P = TN/(TN+FN), 2R = TN/(TN+FP),
BAC = (1R + 2R)/2, MCC, F1 (of the significant class), accuracy, the
sensitivity of each qrels (#significant / #pairs) and Delta sensitivity = G - C,
Kendall tau-b between the two system rankings and Cohen's kappa between the
labels. A zero denominator gives NaN, never 0.

Otero et al.'s agreement categories use the sign of each mean difference too:
AA (both significant, same sign), AD (both, opposite), MA_G / MD_G (significant
under G only, same / opposite sign), MA_L / MD_L (under C only), PA / PD
(neither); false-discovery share = (MA_L + MD_L + AD) / #significant under C.
With ``direction_aware=True`` a pair significant under both with opposite signs
is a false discovery (FP), not a TP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import math

import attrs
import numpy as np
import pandas as pd

from cwla._latex import tabular
from cwla.collection import Judgements
from cwla.runset import read_runs
from cwla.evaluation import as_metrics, evaluate
from cwla.readers import read_qrels

from ._types import MetricLike, QrelsLike, RunsLike, Seed
from ._validate import DiscpowerError, alpha_level
from .result import PairwiseTest
from .significance import paired_t_test, parametric_tukey_hsd
from .similarity import kendall_tau_b
from .tukey import randomised_tukey_hsd

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["QrelsComparison", "QrelsComparer", "compare_qrels", "compare_tests", "confusion_measures", "significance_test",
           "cohen_kappa", "CATEGORIES", "COUNTS", "TESTS"]

#: Otero et al.'s agreement categories, in report order
CATEGORIES = ("AA", "AD", "MA_G", "MD_G", "MA_L", "MD_L", "PA", "PD")
#: the measures that are counts of pairs, documents or topics (integers)
COUNTS = frozenset({"TP", "TN", "FP", "FN", "pairs", "kappa_overlap", "topics_truth", "topics_candidate",
                    *CATEGORIES})
#: names accepted by ``test=``
TESTS = ("tukey", "t-test", "t-test-holm", "t-test-bonferroni", "parametric-tukey")


def _ratio(num, den) -> float:
    return num / den if den else math.nan


def confusion_measures(tp: int, tn: int, fp: int, fn: int) -> dict:
    """1P, 1R, 2P, 2R, BAC, MCC, F1 and accuracy from the confusion counts (NaN for a zero denominator).

    Examples
    --------
    >>> m = confusion_measures(tp=443, tn=303, fp=36, fn=929)   # McKechnie et al., Table 2
    >>> round(m["1P"], 4), round(m["1R"], 4), round(m["2P"], 4), round(m["2R"], 4)
    (0.9248, 0.3229, 0.2459, 0.8938)
    """
    for name, value in (("tp", tp), ("tn", tn), ("fp", fp), ("fn", fn)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise DiscpowerError(f"confusion count {name} must be a non-negative integer, got {value!r}")
    p1, r1 = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    p2, r2 = _ratio(tn, tn + fn), _ratio(tn, tn + fp)
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {
        "1P": p1, "1R": r1, "2P": p2, "2R": r2,
        "BAC": (r1 + r2) / 2,
        "MCC": _ratio(tp * tn - fp * fn, den),
        "F1": _ratio(2 * tp, 2 * tp + fp + fn),
        "accuracy": _ratio(tp + tn, tp + tn + fp + fn),
    }


def significance_test(X, systems, test="tukey", *, n_trials=10_000, seed=0) -> PairwiseTest:
    """Run the named pairwise test on a topics x systems matrix (or call ``test(X, systems)``)."""
    if callable(test):
        result = test(X, systems)
        if not isinstance(result, PairwiseTest):
            raise DiscpowerError(f"a test callable must return a PairwiseTest, got {type(result).__name__}")
        return result
    if test == "tukey":
        return randomised_tukey_hsd(X, n_trials, seed, systems=systems)
    if test == "t-test":
        return paired_t_test(X, systems=systems)
    if test in ("t-test-holm", "t-test-bonferroni"):
        return paired_t_test(X, systems=systems, correction=test.rsplit("-", 1)[1])
    if test == "parametric-tukey":
        return parametric_tukey_hsd(X, systems=systems)
    raise DiscpowerError(f"unknown test {test!r}; accepted: {', '.join(TESTS)} or a callable (X, systems) -> "
                         f"PairwiseTest")


def _sign(x):
    return np.sign(np.round(x, 12))


def _categories(sig_g, sig_c, same):
    """Otero et al.'s category of each pair."""
    out = np.empty(len(sig_g), dtype=object)
    out[sig_g & sig_c & same] = "AA"
    out[sig_g & sig_c & ~same] = "AD"
    out[sig_g & ~sig_c & same] = "MA_G"
    out[sig_g & ~sig_c & ~same] = "MD_G"
    out[~sig_g & sig_c & same] = "MA_L"
    out[~sig_g & sig_c & ~same] = "MD_L"
    out[~sig_g & ~sig_c & same] = "PA"
    out[~sig_g & ~sig_c & ~same] = "PD"
    return out


@attrs.frozen(eq=False)
class QrelsComparison:
    """Candidate qrels against ground truth (see :func:`compare_qrels`); plain data.

    Attributes
    ----------
    measures : dict
        ``TP, TN, FP, FN`` and every measure of :func:`confusion_measures`, ``sensitivity_truth``,
        ``sensitivity_candidate``, ``delta_sensitivity``, ``tau``, ``kappa``, ``kappa_overlap``,
        ``topics_truth``, ``topics_candidate``, the eight agreement categories,
        ``false_discovery_share`` and ``pairs``.
    pairs : DataFrame
        One row per system pair: ``system_a, system_b, diff_truth, diff_candidate, p_truth,
        p_candidate, significant_truth, significant_candidate, category, outcome`` (TP/FP/FN/TN).
    truth_means, candidate_means : Series
        Each system's mean score under G and under C.
    truth_test, candidate_test : PairwiseTest
    alpha : float
    direction_aware : bool
    """

    measures: dict
    pairs: pd.DataFrame
    truth_means: pd.Series
    candidate_means: pd.Series
    truth_test: PairwiseTest
    candidate_test: PairwiseTest
    alpha: float
    direction_aware: bool

    def to_frame(self) -> pd.DataFrame:
        """``measure, value``: one row per measure, the counts first (counts as integers)."""
        values = [int(v) if k in COUNTS else float(v) for k, v in self.measures.items()]
        return pd.DataFrame({"measure": list(self.measures), "value": pd.Series(values, dtype=object)})

    def to_latex(self, digits: int = 4) -> str:
        return tabular(self.to_frame(), digits)

    def plot(self, ax: Axes | None = None, *, max_lines: int = 400, labels: bool = False,
             xlim: tuple[float, float] | None = None, ylim: tuple[float, float] | None = None) -> Axes:
        """McKechnie et al.'s Figure 1: each system's mean score under the ground truth (x) and the
        candidate (y); pairs that are Type I errors (FP) joined in red, Type II errors (FN) in blue.
        ``xlim``/``ylim`` zoom past outlying systems. Returns the matplotlib Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 5.5))
        x, y = self.truth_means, self.candidate_means
        for outcome, colour, style, name in (("FN", "tab:blue", "--", "Type II (lost)"),
                                             ("FP", "tab:red", "-", "Type I (invented)")):
            rows = self.pairs[self.pairs.outcome == outcome].head(max_lines)
            for k, row in enumerate(rows.itertuples()):
                ax.plot([x[row.system_a], x[row.system_b]], [y[row.system_a], y[row.system_b]], style,
                        color=colour, lw=0.6, alpha=0.5, label=f"{name}: {int(self.measures[outcome])}" if k == 0
                        else None)
        ax.scatter(x, y, s=18, color="black", zorder=3)
        if labels:
            for name in x.index:
                ax.annotate(name, (x[name], y[name]), fontsize=6)
        lo = min(x.min(), y.min())
        hi = max(x.max(), y.max())
        ax.plot([lo, hi], [lo, hi], ":", color="grey", lw=0.8)
        ax.set_xlabel("mean score, ground-truth qrels")
        ax.set_ylabel("mean score, candidate qrels")
        ax.set_title(f"MCC {self.measures['MCC']:.3f}, tau {self.measures['tau']:.3f}")
        if self.measures["FP"] or self.measures["FN"]:
            ax.legend(fontsize="small", frameon=False)
        if xlim is not None:
            ax.set_xlim(*xlim)
        if ylim is not None:
            ax.set_ylim(*ylim)
        return ax


def compare_tests(truth_test: PairwiseTest, candidate_test: PairwiseTest, *, alpha: float = 0.05,
                  direction_aware: bool = False, extra: dict | None = None) -> QrelsComparison:
    """Compare the significance pattern of two tests on the same systems (G first).

    ``extra`` measures (e.g. kappa) are reported after ``tau``. A pair whose mean
    difference is 0 under either qrels has no direction to contradict: it counts as
    "same sign". With ``direction_aware`` an AD pair (significant under both, opposite
    signs) is an FP, so 1R = TP / (TP + FN) then leaves it out of both terms.
    """
    alpha = alpha_level(alpha)
    if tuple(truth_test.systems) != tuple(candidate_test.systems):
        raise DiscpowerError(f"the two tests compare different systems: {len(truth_test.systems)} vs "
                             f"{len(candidate_test.systems)} (first difference: "
                             f"{_first_difference(truth_test.systems, candidate_test.systems)}); "
                             f"score the same runs with the same metric under both qrels")
    i, j = truth_test.pairs()
    dg, dc = truth_test.diff[i, j], candidate_test.diff[i, j]
    pg, pc = truth_test.pvalue[i, j], candidate_test.pvalue[i, j]
    sig_g, sig_c = pg < alpha, pc < alpha
    sg, sc = _sign(dg), _sign(dc)
    same = (sg == sc) | (sg == 0) | (sc == 0)
    category = _categories(sig_g, sig_c, same)
    tp_mask = sig_g & sig_c & (same if direction_aware else True)
    fp_mask = (~sig_g & sig_c) | (sig_g & sig_c & ~same if direction_aware else False)
    outcome = np.where(tp_mask, "TP", np.where(fp_mask, "FP", np.where(sig_g, "FN", "TN")))
    counts = {k: int(np.sum(outcome == k)) for k in ("TP", "TN", "FP", "FN")}
    n_pairs = len(outcome)
    systems = np.array(truth_test.systems, dtype=object)
    pairs = pd.DataFrame({
        "system_a": systems[i], "system_b": systems[j], "diff_truth": dg, "diff_candidate": dc,
        "p_truth": pg, "p_candidate": pc, "significant_truth": sig_g, "significant_candidate": sig_c,
        "category": category, "outcome": outcome,
    })
    cats = {c: int(np.sum(category == c)) for c in CATEGORIES}
    means_g = pd.Series(_means(truth_test), index=list(truth_test.systems))
    means_c = pd.Series(_means(candidate_test), index=list(candidate_test.systems))
    measures = {**counts, **confusion_measures(**{k.lower(): v for k, v in counts.items()})}
    measures.update({
        "sensitivity_truth": _ratio(int(sig_g.sum()), n_pairs),
        "sensitivity_candidate": _ratio(int(sig_c.sum()), n_pairs),
    })
    measures["delta_sensitivity"] = measures["sensitivity_truth"] - measures["sensitivity_candidate"]
    measures["tau"] = kendall_tau_b(means_g.to_numpy(), means_c.to_numpy())
    measures.update(extra or {})
    measures.update(cats)
    measures["false_discovery_share"] = _ratio(cats["MA_L"] + cats["MD_L"] + cats["AD"], int(sig_c.sum()))
    measures["pairs"] = n_pairs
    return QrelsComparison(measures=measures, pairs=pairs, truth_means=means_g, candidate_means=means_c,
                           truth_test=truth_test, candidate_test=candidate_test, alpha=alpha,
                           direction_aware=bool(direction_aware))


def _means(test: PairwiseTest) -> np.ndarray:
    """Per-system means (a test built without them: recovered from the differences up to a constant)."""
    if test.means is not None:
        return np.asarray(test.means, dtype=np.float64)
    return test.diff[:, 0] - test.diff[:, 0].min()


def _first_difference(a, b):
    for x, y in zip(a, b):
        if x != y:
            return f"{x!r} vs {y!r}"
    return "lengths differ"


def cohen_kappa(truth: QrelsLike, candidate: QrelsLike, *, threshold: float | None = None,
                weights: str | None = None) -> tuple[float, int]:
    """Cohen's kappa between two qrels' labels on the documents judged in both; returns (kappa, overlap).

    ``threshold``: compare binary labels (grade >= threshold) instead of grades; ``weights``:
    None, ``"linear"`` or ``"quadratic"`` (weighted kappa; the weight of a disagreement is the
    distance between the two grades over the range of grades seen, e.g. 1 vs 3 on 0-3 weighs 2/3). NaN when
    nothing overlaps or the expected disagreement is 0 (a single label everywhere).
    """
    if weights not in (None, "linear", "quadratic"):
        raise DiscpowerError(f"The 'weights' parameter must be None, 'linear' or 'quadratic'. Got {weights!r} instead.")
    return _kappa(read_qrels(truth), read_qrels(candidate), threshold, weights)


def _kappa(g: pd.DataFrame, c: pd.DataFrame, threshold, weights) -> tuple[float, int]:
    """:func:`cohen_kappa` of two canonical qrels frames."""
    both = g.merge(c, on=["topic", "docno"], suffixes=("_g", "_c"))
    overlap = len(both)
    if overlap == 0:
        return math.nan, 0
    a, b = both["grade_g"].to_numpy(), both["grade_c"].to_numpy()
    if threshold is not None:
        a, b = (a >= threshold).astype(float), (b >= threshold).astype(float)
    levels = np.unique(np.concatenate([a, b]))
    k = len(levels)
    ia, ib = np.searchsorted(levels, a), np.searchsorted(levels, b)
    observed = np.zeros((k, k))
    np.add.at(observed, (ia, ib), 1.0)
    observed /= overlap
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    if weights is None:
        w = (levels[:, None] != levels[None, :]).astype(float)
    else:
        # disagreement weighted by the distance between the grades themselves (not their ranks)
        span = levels[-1] - levels[0] if k > 1 else 1.0
        dist = np.abs(levels[:, None] - levels[None, :]) / span
        w = dist if weights == "linear" else dist**2
    den = float((w * expected).sum())
    return (1.0 - float((w * observed).sum()) / den if den > 0 else math.nan), overlap


def _check_options(direction_aware, kappa_threshold, kappa_weights, topics):
    if not isinstance(direction_aware, bool):
        raise DiscpowerError(f"The 'direction_aware' parameter must be True or False. Got {direction_aware!r} instead.")
    number = isinstance(kappa_threshold, (int, float, np.integer, np.floating)) and not isinstance(kappa_threshold, bool)
    if kappa_threshold is not None and not (number and math.isfinite(kappa_threshold)):
        raise DiscpowerError(f"The 'kappa_threshold' parameter must be a finite number or None. "
                             f"Got {kappa_threshold!r} instead.")
    if kappa_weights not in (None, "linear", "quadratic"):
        raise DiscpowerError(f"The 'kappa_weights' parameter must be None, 'linear' or 'quadratic'. "
                             f"Got {kappa_weights!r} instead.")
    if topics not in ("common", "truth"):
        raise DiscpowerError(f"The 'topics' parameter must be 'common' or 'truth'. Got {topics!r} instead.")


@attrs.frozen(eq=False)
class QrelsComparer:
    """The ground truth scored and tested once, ready to compare many candidate qrels.

    Build it with :meth:`build`; :meth:`compare` takes a candidate qrels.
    """

    truth: pd.DataFrame
    runs: object  # cwla RunSet
    metric: object
    label: str
    options: dict
    test: object
    alpha: float
    n_trials: int
    seed: int
    direction_aware: bool
    kappa_threshold: float | None
    kappa_weights: str | None
    topics: str
    truth_evaluation: object
    truth_test: PairwiseTest
    _subset_tests: dict = attrs.field(factory=dict, repr=False)  # truth tests on topic subsets, by topic tuple

    @classmethod
    def build(cls, truth: QrelsLike, runs: RunsLike, metric: MetricLike = "nDCG@10", *, test: str = "tukey",
              alpha: float = 0.05, n_trials: int = 10_000, seed: Seed = 0, direction_aware: bool = False,
              kappa_threshold: float | None = None, kappa_weights: str | None = None, topics: str = "common",
              **options: object) -> QrelsComparer:
        alpha = alpha_level(alpha)
        _check_options(direction_aware, kappa_threshold, kappa_weights, topics)
        metrics, labels = as_metrics(metric)
        if len(metrics) != 1:
            raise DiscpowerError(f"compare one metric at a time; got {len(metrics)}: {labels}")
        if test not in TESTS and not callable(test):
            raise DiscpowerError(f"unknown test {test!r}; accepted: {', '.join(TESTS)} or a callable "
                                 f"(X, systems) -> PairwiseTest")
        g = read_qrels(truth)
        run_set = read_runs(runs, ties=options.get("ties", "float32"))
        ev = evaluate(Judgements.from_frame(g), run_set, {labels[0]: metrics[0]}, **options)
        truth_test = significance_test(ev.values[0].T, ev.runs, test, n_trials=n_trials, seed=seed)
        return cls(truth=g, runs=run_set, metric=metrics[0], label=labels[0], options=dict(options), test=test,
                   alpha=alpha, n_trials=n_trials, seed=seed, direction_aware=bool(direction_aware),
                   kappa_threshold=kappa_threshold, kappa_weights=kappa_weights, topics=topics,
                   truth_evaluation=ev, truth_test=truth_test)

    def truth_test_on(self, topics: tuple) -> PairwiseTest:
        """The ground truth's test restricted to ``topics`` (cached)."""
        if tuple(topics) == tuple(self.truth_evaluation.topics):
            return self.truth_test
        if topics not in self._subset_tests:
            columns = [self.truth_evaluation.topics.index(t) for t in topics]
            X = self.truth_evaluation.values[0][:, columns].T
            self._subset_tests[topics] = significance_test(X, self.truth_evaluation.runs, self.test,
                                                           n_trials=self.n_trials, seed=self.seed)
        return self._subset_tests[topics]

    def score(self, candidate: QrelsLike) -> tuple[pd.DataFrame, object]:
        """The candidate qrels (canonical frame) and the runs' scores under it (a cwla Evaluation),
        checked against the ground truth: no topic the truth does not judge, at least one in common."""
        c = read_qrels(candidate)
        truth_topics, cand_topics = set(self.truth_evaluation.topics), set(c["topic"].unique().tolist())
        unknown = sorted(cand_topics - truth_topics)
        if unknown:
            raise DiscpowerError(f"the candidate qrels judge {len(unknown)} topic(s) the ground truth does not: "
                                 f"{unknown[:5]}{' ...' if len(unknown) > 5 else ''}; compare qrels of the same "
                                 f"topics (or a subset of the ground truth's)")
        if not cand_topics & truth_topics:
            raise DiscpowerError("the candidate and ground-truth qrels have no topic in common")
        ev = evaluate(Judgements.from_frame(c), self.runs, {self.label: self.metric}, **self.options)
        if ev.runs != self.truth_evaluation.runs:
            raise DiscpowerError("the candidate was scored on other runs than the ground truth")
        return c, ev

    def compare(self, candidate: QrelsLike, *, topics: str | None = None) -> QrelsComparison:
        """Score and test the runs under ``candidate`` and compare with the ground truth.

        ``topics`` (default: the comparer's): ``"common"`` tests the ground truth on the
        candidate's topics too, so a candidate judging fewer topics is compared on equal
        terms; ``"truth"`` keeps the ground truth's test on all its topics (the topic-subset
        experiments of McKechnie et al., Table 2, where fewer topics is the point).
        """
        topics = self.topics if topics is None else topics
        _check_options(self.direction_aware, self.kappa_threshold, self.kappa_weights, topics)
        c, ev = self.score(candidate)
        cand_test = significance_test(ev.values[0].T, ev.runs, self.test, n_trials=self.n_trials, seed=self.seed)
        truth_test = self.truth_test_on(ev.topics) if topics == "common" else self.truth_test
        kappa, overlap = _kappa(self.truth, c, self.kappa_threshold, self.kappa_weights)
        extra = {"kappa": kappa, "kappa_overlap": overlap, "topics_truth": truth_test.n_topics,
                 "topics_candidate": cand_test.n_topics}
        return compare_tests(truth_test, cand_test, alpha=self.alpha, direction_aware=self.direction_aware,
                             extra=extra)


def compare_qrels(truth: QrelsLike, candidate: QrelsLike, runs: RunsLike, metric: MetricLike = "nDCG@10", *,
                  test: str = "tukey", alpha: float = 0.05, n_trials: int = 10_000, seed: Seed = 0,
                  direction_aware: bool = False, kappa_threshold: float | None = None,
                  kappa_weights: str | None = None, topics: str = "common", **options: object) -> QrelsComparison:
    """Compare candidate qrels with ground-truth qrels through the significance tests they lead to.

    Parameters
    ----------
    truth, candidate : qrels (path, DataFrame or dict)
        The ground truth G and the candidate C. C may judge a subset of G's topics;
        a topic G does not judge is an error.
    runs : run files, DataFrames, dict or cwla RunSet
        The systems, scored under both.
    metric : str or Metric
        One metric (default nDCG@10); ``options`` (gain, cutoff, depth, stop, order) go to cwla.evaluate.
    test : {"tukey", "t-test", "t-test-holm", "t-test-bonferroni", "parametric-tukey"} or callable
        The pairwise test run on both (default: paired randomised Tukey HSD with ``n_trials`` and ``seed``).
    alpha : float
        Significance level (p < alpha).
    direction_aware : bool
        A pair significant under both with opposite signs counts as FP, not TP.
    kappa_threshold, kappa_weights
        Cohen's kappa on binary labels at this grade threshold, and linear/quadratic weights.
    topics : {"common", "truth"}
        "common" (default): when the candidate judges fewer topics, the ground truth is tested
        on those topics too; "truth": the ground truth keeps all its topics (topic-subset studies).
        ``measures`` reports both topic counts.

    Returns
    -------
    QrelsComparison
    """
    comparer = QrelsComparer.build(truth, runs, metric, test=test, alpha=alpha, n_trials=n_trials, seed=seed,
                                   direction_aware=direction_aware, kappa_threshold=kappa_threshold,
                                   kappa_weights=kappa_weights, topics=topics, **options)
    return comparer.compare(candidate)
