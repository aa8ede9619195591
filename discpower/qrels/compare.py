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

import math
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
import numpy as np
import pandas as pd

from cwla import Collection, Evaluation, Evaluator, Judgements, read_qrels
from cwla.errors import CwlaError
from cwla._shared import scoped
from cwla._shared import FLAG, NONE, Displayed, Interval, Options, Shown, check, count_text, legend, short_labels, tabular

from .._params import ALPHA, TRIALS, count, validated
from .._params import digits as digits_value
from .._plots import BLUE, NEUTRAL, VERMILLION, describe_test, pyplot, topics_label
from ..errors import DiscpowerError
from ..scoring import DEFAULT_METRIC, evaluator_for, parsed_metrics
from ..stats.rng import SEED
from ..stats.matrix import score_matrix
from ..stats.memory import null_memory
from ..stats.result import A_TEST_RESULT, PairwiseTest
from ..stats.registry import TESTS, check_reachable, check_test, resamples, significance_test
from ..stats.similarity import kendall_tau_b
from ..typing import MetricLike, Progress, QrelsLike, RunsLike, Seed

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["QrelsComparison", "QrelsComparer", "compare_qrels", "compare_tests", "confusion_measures", "significance_test",
           "cohen_kappa", "kappa_of", "ratio", "CATEGORIES", "COUNTS", "MEANINGS", "TESTS",
           "TOPIC_POLICIES"]

#: Otero et al.'s agreement categories, in report order
CATEGORIES = ("AA", "AD", "MA_G", "MD_G", "MA_L", "MD_L", "PA", "PD")
#: the measures that are counts of pairs, documents or topics (integers)
COUNTS = frozenset({"TP", "TN", "FP", "FN", "pairs", "kappa_overlap", "topics_truth", "topics_candidate",
                    *CATEGORIES})
#: the measures a :class:`QrelsComparison`'s ``summary()`` shows (those it has), in this order
HEADLINE = ("TP", "FN", "FP", "TN", "1P", "1R", "2P", "2R", "BAC", "MCC", "tau", "kappa", "sensitivity_truth",
            "sensitivity_candidate", "delta_sensitivity", "pairs")
#: what each measure of a :class:`QrelsComparison` means, in words (said once in every report; G = the ground
#: truth, C = the candidate; "significant" = p < alpha under the comparison's test)
MEANINGS = {
    "TP": "pairs significant under both G and C",
    "TN": "pairs significant under neither",
    "FP": "Type I errors of C: pairs C finds significant and G does not (with direction_aware, also pairs "
          "significant under both in opposite directions)",
    "FN": "Type II errors of C: pairs G finds significant and C does not",
    "1P": "precision of C's significant pairs, TP / (TP + FP)",
    "1R": "recall of G's significant pairs, TP / (TP + FN)",
    "2P": "precision of C's non-significant pairs, TN / (TN + FN)",
    "2R": "recall of G's non-significant pairs, TN / (TN + FP)",
    "BAC": "balanced accuracy, (1R + 2R) / 2",
    "MCC": "Matthews correlation between the two significance decisions",
    "F1": "F1 of the significant class, 2 TP / (2 TP + FP + FN)",
    "accuracy": "(TP + TN) / pairs",
    "sensitivity_truth": "share of pairs significant under G",
    "sensitivity_candidate": "share of pairs significant under C",
    "delta_sensitivity": "sensitivity_truth - sensitivity_candidate",
    "tau": "Kendall tau-b between the systems' mean scores under G and under C",
    "kappa": "Cohen's kappa between G's and C's labels of the documents both judge",
    "kappa_overlap": "documents judged in both G and C (kappa's sample)",
    "topics_truth": "topics G's test is run on",
    "topics_candidate": "topics C's test is run on (the topics C judges)",
    "AA": "significant under both, same direction (Otero et al.'s categories follow)",
    "AD": "significant under both, opposite directions",
    "MA_G": "significant under G only, same direction of the mean difference",
    "MD_G": "significant under G only, opposite direction",
    "MA_L": "significant under C only, same direction",
    "MD_L": "significant under C only, opposite direction",
    "PA": "significant under neither, same direction",
    "PD": "significant under neither, opposite direction",
    "false_discovery_share": "(MA_L + MD_L + AD) / pairs significant under C",
    "pairs": "system pairs compared, m (m - 1) / 2",
}
#: values of ``topics=``
TOPIC_POLICIES = ("common", "truth")
_WEIGHTS = Options((None, "linear", "quadratic"))
_TOPICS = Options(TOPIC_POLICIES)
_COUNT = Interval("int", 0, None, text="a non-negative integer (a count)")
#: a grade that makes labels binary, or None (the grades themselves)
_THRESHOLD = (Interval("real"), NONE)
#: the parameters of a comparison of qrels, declared once for compare_qrels and QrelsComparer.build
_COMPARISON = {"alpha": ALPHA, "n_trials": TRIALS, "seed": SEED, "direction_aware": FLAG,
               "kappa_threshold": _THRESHOLD, "kappa_weights": _WEIGHTS,
               "topics": _TOPICS}


def ratio(num, den) -> float:
    """num / den, NaN for a zero denominator (never 0)."""
    return num / den if den else math.nan


@validated({name: _COUNT for name in ("tp", "tn", "fp", "fn")})
def confusion_measures(tp: int, tn: int, fp: int, fn: int) -> dict:
    """1P, 1R, 2P, 2R, BAC, MCC, F1 and accuracy from the confusion counts (NaN for a zero denominator).

    Examples
    --------
    >>> m = confusion_measures(tp=443, tn=303, fp=36, fn=929)   # McKechnie et al., Table 2
    >>> round(m["1P"], 4), round(m["1R"], 4), round(m["2P"], 4), round(m["2R"], 4)
    (0.9248, 0.3229, 0.2459, 0.8938)
    """
    p1, r1 = ratio(tp, tp + fp), ratio(tp, tp + fn)
    p2, r2 = ratio(tn, tn + fn), ratio(tn, tn + fp)
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {
        "1P": p1, "1R": r1, "2P": p2, "2R": r2,
        "BAC": (r1 + r2) / 2,
        "MCC": ratio(tp * tn - fp * fn, den),
        "F1": ratio(2 * tp, 2 * tp + fp + fn),
        "accuracy": ratio(tp + tn, tp + tn + fp + fn),
    }


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


@attrs.frozen(eq=False, repr=False)
class QrelsComparison(Displayed):
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
    metric : str or None
        The label of the metric both tests are on (None when not known: :func:`compare_tests` not told).
    """

    measures: dict
    pairs: pd.DataFrame
    truth_means: pd.Series
    candidate_means: pd.Series
    truth_test: PairwiseTest
    candidate_test: PairwiseTest
    alpha: float
    direction_aware: bool
    metric: str | None = None

    def _shown(self) -> Shown:
        """The headline measures (``measure``, ``value``: the outcomes, the rates, MCC, tau, kappa, the
        sensitivities); the repr names the outcomes, MCC and tau."""
        names = [k for k in HEADLINE if k in self.measures]
        values = [int(self.measures[k]) if k in COUNTS else float(self.measures[k]) for k in names]
        table = pd.DataFrame({"value": pd.Series(values, index=pd.Index(names, name="measure"), dtype=object)})
        m = self.measures
        facts = [", ".join(f"{k}={int(m[k])}" for k in ("TP", "FN", "FP", "TN") if k in m)]
        facts += [f"{k}={float(m[k]):.3f}" for k in ("MCC", "tau") if k in m]
        pairs = int(m["pairs"]) if "pairs" in m else len(self.pairs)
        facts.append(f"alpha={self.alpha:g}")
        what = f"{self.metric}, " if self.metric is not None else ""
        test = self.truth_test.method if self.truth_test.method == self.candidate_test.method else \
            f"{self.truth_test.method} / {self.candidate_test.method}"
        return Shown("QrelsComparison", f"{what}{test}; {count_text(len(self.truth_means), 'system')}, "
                     f"{count_text(pairs, 'pair')}",
                     table.rename_axis(columns="statistic"), tuple(facts), preview=0)

    def to_frame(self) -> pd.DataFrame:
        """``measure, value``: one row per measure, the counts first (counts as integers)."""
        values = [int(v) if k in COUNTS else float(v) for k, v in self.measures.items()]
        return pd.DataFrame({"measure": list(self.measures), "value": pd.Series(values, dtype=object)})

    def to_latex(self, digits: int = 4) -> str:
        return tabular(self.to_frame(), digits_value(digits))

    def plot(self, ax: Axes | None = None, *, max_lines: int = 400, labels: bool = False,
             xlim: tuple[float, float] | None = None, ylim: tuple[float, float] | None = None,
             metric: str | None = None, truth_name: str = "ground-truth qrels",
             candidate_name: str = "candidate qrels") -> Axes:
        """McKechnie et al.'s Figure 1: each system's mean score under the ground truth (x) and the
        candidate (y); pairs that are Type I errors (FP) joined by solid vermillion lines, Type II errors
        (FN) by dashed blue ones (Okabe-Ito colours: no red/green pair, and told apart in greyscale by the
        dashes). The axes name the metric (``metric``, default the comparison's) and the topics of each
        mean, ``truth_name`` and ``candidate_name`` the two qrels; the title names the test, B and alpha.
        ``xlim``/``ylim`` zoom past outlying systems. Returns the matplotlib Axes."""
        plt = pyplot("QrelsComparison.plot")
        max_lines = count(max_lines, "max_lines", 0)

        if ax is None:
            _, ax = plt.subplots(figsize=(5.5, 5.5))
        x, y = self.truth_means, self.candidate_means
        for outcome, colour, style, name in (("FN", BLUE, "--", "Type II (lost)"),
                                             ("FP", VERMILLION, "-", "Type I (invented)")):
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
        ax.plot([lo, hi], [lo, hi], ":", color=NEUTRAL, lw=0.8)
        metric = metric if metric is not None else self.metric if self.metric is not None else "score"
        ax.set_xlabel(f"{topics_label(metric, self.truth_test.n_topics)}, {truth_name}")
        ax.set_ylabel(f"{topics_label(metric, self.candidate_test.n_topics)}, {candidate_name}")
        ax.set_title(f"MCC {self.measures['MCC']:.3f}, tau {self.measures['tau']:.3f}; "
                     f"{self.truth_test.n_systems} systems\n"
                     f"{describe_test(self.truth_test.method, self.truth_test.n_resamples, self.alpha)}",
                     fontsize=9)
        if self.measures["FP"] or self.measures["FN"]:
            ax.legend(fontsize="small", frameon=False)
        if xlim is not None:
            ax.set_xlim(*xlim)
        if ylim is not None:
            ax.set_ylim(*ylim)
        return ax


@validated({"alpha": ALPHA, "direction_aware": FLAG})
def compare_tests(truth_test: PairwiseTest, candidate_test: PairwiseTest, *, alpha: float = 0.05,
                  direction_aware: bool = False, extra: dict | None = None,
                  metric: str | None = None) -> QrelsComparison:
    """Compare the significance pattern of two tests on the same systems (G first).

    ``extra`` measures (e.g. kappa) are reported after ``tau``. A pair whose mean
    difference is 0 under either qrels has no direction to contradict: it counts as
    "same sign". With ``direction_aware`` an AD pair (significant under both, opposite
    signs) is an FP, so 1R = TP / (TP + FN) then leaves it out of both terms. ``metric``: the label of
    the metric the tests are on (the figure's axes name it).
    """
    for name, test in (("truth_test", truth_test), ("candidate_test", candidate_test)):
        check(test, name, A_TEST_RESULT, func="compare_tests")
    if metric is not None and not isinstance(metric, str):
        raise DiscpowerError(f"The 'metric' parameter must be a metric label (a string) or None. Got {metric!r} "
                             f"instead.")
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
        "sensitivity_truth": ratio(int(sig_g.sum()), n_pairs),
        "sensitivity_candidate": ratio(int(sig_c.sum()), n_pairs),
    })
    measures["delta_sensitivity"] = measures["sensitivity_truth"] - measures["sensitivity_candidate"]
    measures["tau"] = kendall_tau_b(means_g.to_numpy(), means_c.to_numpy())
    measures.update(extra or {})
    measures.update(cats)
    measures["false_discovery_share"] = ratio(cats["MA_L"] + cats["MD_L"] + cats["AD"], int(sig_c.sum()))
    measures["pairs"] = n_pairs
    return QrelsComparison(measures=measures, pairs=pairs, truth_means=means_g, candidate_means=means_c,
                           truth_test=truth_test, candidate_test=candidate_test, alpha=alpha,
                           direction_aware=bool(direction_aware), metric=metric)


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


@validated({"threshold": _THRESHOLD, "weights": _WEIGHTS})
def cohen_kappa(truth: QrelsLike, candidate: QrelsLike, *, threshold: float | None = None,
                weights: str | None = None) -> tuple[float, int]:
    """Cohen's kappa between two qrels' labels on the documents judged in both; returns (kappa, overlap).

    ``threshold``: compare binary labels (grade >= threshold) instead of grades; ``weights``:
    None, ``"linear"`` or ``"quadratic"`` (weighted kappa; the weight of a disagreement is the
    distance between the two grades over the range of grades seen, e.g. 1 vs 3 on 0-3 weighs 2/3). NaN when
    nothing overlaps or the expected disagreement is 0 (a single label everywhere).
    """
    return kappa_of(_qrels_of(truth, "truth", "cohen_kappa"), _qrels_of(candidate, "candidate", "cohen_kappa"),
                    threshold, weights)


def _qrels_of(qrels: QrelsLike, name: str, func: str):
    """``read_qrels(qrels)``, its error naming the parameter ``name`` of ``func``."""
    try:
        return read_qrels(qrels)
    except CwlaError as err:
        raise type(err)(f"{name!r} of {func}: {err}") from None


def kappa_of(g: pd.DataFrame, c: pd.DataFrame, threshold, weights) -> tuple[float, int]:
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


@attrs.frozen(eq=False, repr=False)
class QrelsComparer(Displayed):
    """The ground truth scored once, ready to compare many candidate qrels under one metric or several.

    Build it with :meth:`build`. Its :class:`cwla.Evaluator` holds the runs and the metrics; the truth
    is joined with the runs once and scored metric by metric on that join (``truth_evaluations``).
    The truth's significance test is computed when a comparison first needs it, once per (metric,
    topic set), and kept (:meth:`truth_test_on`). Each candidate is joined once, whatever the number
    of metrics (:meth:`compare_all`); :meth:`compare` gives one metric's comparison.

    Attributes
    ----------
    truth : DataFrame
        The ground truth, canonical (:func:`cwla.read_qrels`).
    evaluator : cwla.Evaluator
        The runs and the metrics.
    truth_evaluations : dict
        ``{label: cwla.Evaluation}``: the runs under the truth, one metric each.
    test, alpha, n_trials, seed, direction_aware, kappa_threshold, kappa_weights, topics
        As for :func:`compare_qrels` (``seed`` an integer: the same for every test).
    """

    truth: pd.DataFrame
    evaluator: Evaluator
    test: object
    alpha: float
    n_trials: int
    seed: int
    direction_aware: bool
    kappa_threshold: float | None
    kappa_weights: str | None
    topics: str
    truth_evaluations: dict
    _truth_tests: dict = attrs.field(init=False, factory=dict, repr=False)  # (label, topics) -> the truth's test
    _locks: dict = attrs.field(init=False, factory=dict, repr=False)  # (label, topics) -> its lock
    _lock: object = attrs.field(init=False, factory=threading.Lock, repr=False)  # guards the two dicts

    def _shown(self) -> Shown:
        """Each run's mean under the ground truth, runs x metrics (long labels abbreviated)."""
        labels = tuple(self.truth_evaluations)
        shorts = short_labels(labels)
        means = [ev.means().iloc[:, 0].rename(short) for ev, short in zip(self.truth_evaluations.values(), shorts)]
        table = pd.concat(means, axis=1).rename_axis(index="run", columns="metric")
        test = self.test if isinstance(self.test, str) else getattr(self.test, "__name__", type(self.test).__name__)
        facts = (f"test={test}", f"alpha={self.alpha:g}", f"B={self.n_trials:,}", f"seed={self.seed}",
                 f"topics={self.topics}")
        return Shown("QrelsComparer", f"{count_text(len(labels), 'metric')} x {count_text(len(table), 'run')}; "
                     f"truth: {count_text(self.truth['topic'].nunique(), 'topic')}, "
                     f"{count_text(len(self.truth), 'judgement')}", table, facts, legend(labels, shorts))

    def __getstate__(self) -> dict:  # picklable: the locks stay behind, the tests computed go along
        return {name: getattr(self, name) for name in attrs.fields_dict(type(self)) if name not in ("_locks", "_lock")}

    def __setstate__(self, state: dict) -> None:
        for name, value in {**state, "_locks": {}, "_lock": threading.Lock()}.items():
            object.__setattr__(self, name, value)

    @classmethod
    @validated(_COMPARISON)
    def build(cls, truth: QrelsLike, runs: RunsLike | Evaluator, metric: MetricLike | Sequence | None = None, *,
              test: str = "tukey", alpha: float = 0.05, n_trials: int = 10_000, seed: Seed = 0,
              direction_aware: bool = False, kappa_threshold: float | None = None, kappa_weights: str | None = None,
              topics: str = "common", one_metric: str | None = None, **options: object) -> QrelsComparer:
        """Check every parameter, build (or take) the Evaluator, and score the ground truth (one join).

        ``runs`` may be a :class:`cwla.Evaluator`: then ``metric`` selects some of its metrics by label
        (default: all of them) and no option may be given beside it. Otherwise ``metric`` (one or a
        list or dict of them; default nDCG@10) and ``options`` build the Evaluator, which holds the runs
        whatever their size (a comparison scores many qrels). ``one_metric``: the name of an entry point
        that compares one metric (more is refused before any file is read)."""
        test = check_test(test)
        func = one_metric or "compare_qrels"
        if isinstance(runs, Evaluator):
            evaluator = evaluator_for(runs, None, options, func)
            if metric is not None:
                try:
                    evaluator = evaluator.select(metric)
                except KeyError as err:
                    raise DiscpowerError(f"{func}: {err.args[0]}; with an Evaluator, metric= names some of its "
                                         f"metrics by label") from None
            if evaluator.streamed:
                raise DiscpowerError(f"{func}: the Evaluator reads its run files a group at a time and holds no "
                                     f"runs, and a comparison scores many qrels; build it with hold=True")
            labels = evaluator.labels
        else:
            metric = parsed_metrics(DEFAULT_METRIC if metric is None else metric)  # parsed once, before reading
            labels = tuple(metric)
        if one_metric is not None and len(labels) != 1:
            raise DiscpowerError(f"{one_metric}: compare one metric at a time; got {len(labels)}: {list(labels)} "
                                 f"(name one with metric=, or use QrelsComparer.compare_all)")
        if resamples(test):  # the plan's one memory check: a truth test per metric kept, a candidate's at a time
            null_memory(n_trials, tests=len(labels) + 1)
        if not isinstance(runs, Evaluator):
            evaluator = evaluator_for(runs, metric, options, func, hold=True)
        check_reachable(test, len(evaluator.runs.names), n_trials, alpha)  # a correction this B cannot pass: refused
        g = read_qrels(truth)
        col = evaluator.prepare(Judgements.from_frame(g))  # the truth joined with the runs once
        scored = {label: evaluator.score(col, metrics=[label]) for label in evaluator.labels}
        return cls(truth=g, evaluator=evaluator, test=test, alpha=alpha, n_trials=n_trials, seed=seed,
                   direction_aware=bool(direction_aware), kappa_threshold=kappa_threshold,
                   kappa_weights=kappa_weights, topics=topics, truth_evaluations=scored)

    # ------------------------------------------------------------------ what it holds

    @property
    def labels(self) -> tuple:
        """The labels of the metrics compared."""
        return self.evaluator.labels

    @property
    def label(self) -> str:
        """The first metric's label."""
        return self.labels[0]

    @property
    def metric(self) -> object:
        """The first metric, as given."""
        return self.evaluator.requested[0]

    @property
    def runs(self) -> object:
        """The runs (a :class:`cwla.RunSet`)."""
        return self.evaluator.runs

    @property
    def options(self) -> dict:
        """The options of the evaluation."""
        return self.evaluator.options

    @property
    def truth_evaluation(self) -> Evaluation:
        """The runs under the ground truth, first metric."""
        return self.truth_evaluations[self.label]

    @property
    def truth_test(self) -> PairwiseTest:
        """The ground truth's test on all its topics, first metric."""
        return self.truth_test_on(self.truth_evaluation.topics)

    def matrix(self, ev: Evaluation, metric: str | None = None) -> np.ndarray:
        """``metric``'s scores in ``ev`` (default: the first metric's) as a checked topics x runs matrix."""
        return score_matrix(ev.scores(self._label(metric)))[0]  # runs x topics, labelled: read as topics x runs

    @property
    def truth_matrix(self) -> np.ndarray:
        """The runs' scores under the ground truth, first metric, topics x runs."""
        return self.matrix(self.truth_evaluation)

    def _label(self, metric) -> str:
        if metric is None:
            return self.label
        if metric not in self.truth_evaluations:
            raise DiscpowerError(f"unknown metric {metric!r}; this comparer compares {list(self.labels)}")
        return metric

    def _test(self, ev: Evaluation, label: str, topics: tuple | None = None) -> PairwiseTest:
        """The comparer's test of ``label``'s scores in ``ev`` (on ``topics`` only, if given)."""
        scores = ev.scores(label)
        if topics is not None:
            scores = scores.loc[:, list(topics)]
        X, systems = score_matrix(scores)  # runs x topics, labelled: read as topics x runs
        return significance_test(X, systems, self.test, n_trials=self.n_trials, seed=self.seed, alpha=self.alpha)

    def truth_test_on(self, topics: tuple, metric: str | None = None) -> PairwiseTest:
        """The ground truth's test of ``metric`` (default: the first) on ``topics``: computed once, kept."""
        label = self._label(metric)
        ev = self.truth_evaluations[label]
        key = (label, tuple(topics))
        with self._lock:
            found = self._truth_tests.get(key)
            if found is not None:
                return found
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:  # one thread computes it; others asking for the same test wait for it, not for other tests
            found = self._truth_tests.get(key)
            if found is None:
                whole = key[1] == tuple(ev.topics)
                found = self._test(ev, label, None if whole else key[1])
                with self._lock:
                    self._truth_tests[key] = found
        return found

    # ------------------------------------------------------------------ candidates

    def join(self, candidate: QrelsLike) -> tuple[pd.DataFrame, Collection]:
        """The candidate qrels (canonical frame) and their join with the runs (one join, for every metric),
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
        return c, self.evaluator.prepare(Judgements.from_frame(c))

    def kappa(self, candidate: pd.DataFrame) -> tuple[float, int]:
        """Cohen's kappa between the ground truth's labels and a candidate's (canonical frame), with the
        comparer's threshold and weights: ``(kappa, documents judged in both)``."""
        return kappa_of(self.truth, candidate, self.kappa_threshold, self.kappa_weights)

    def score(self, candidate: QrelsLike, metric: str | None = None) -> tuple[pd.DataFrame, Evaluation]:
        """The candidate qrels (canonical frame) and the runs' scores under it for ``metric`` (default: the
        first), checked against the ground truth (:meth:`join`)."""
        label = self._label(metric)
        c, col = self.join(candidate)
        return c, self.evaluator.score(col, metrics=[label])

    def compare_joined(self, candidate: pd.DataFrame, joined: Collection, *, metric: str | None = None,
                       topics: str | None = None, kappa: tuple[float, int] | None = None) -> QrelsComparison:
        """The comparison of a candidate already joined (:meth:`join`) under ``metric`` (default: the first);
        ``kappa`` as :meth:`kappa` gives it (computed here if None)."""
        topics = self.topics if topics is None else check(topics, "topics", _TOPICS, error=DiscpowerError)
        label = self._label(metric)
        ev = self.evaluator.score(joined, metrics=[label])  # scored on its own: its values are evaluate's alone
        cand_test = self._test(ev, label)
        truth_topics = ev.topics if topics == "common" else self.truth_evaluations[label].topics
        truth_test = self.truth_test_on(truth_topics, label)
        k, overlap = self.kappa(candidate) if kappa is None else kappa
        extra = {"kappa": k, "kappa_overlap": overlap, "topics_truth": truth_test.n_topics,
                 "topics_candidate": cand_test.n_topics}
        return compare_tests(truth_test, cand_test, alpha=self.alpha, direction_aware=self.direction_aware,
                             extra=extra, metric=label)

    def compare(self, candidate: QrelsLike, *, topics: str | None = None, metric: str | None = None) -> QrelsComparison:
        """Score and test the runs under ``candidate`` and compare with the ground truth, for ``metric``
        (default: the first).

        ``topics`` (default: the comparer's): ``"common"`` tests the ground truth on the
        candidate's topics too, so a candidate judging fewer topics is compared on equal
        terms; ``"truth"`` keeps the ground truth's test on all its topics (the topic-subset
        experiments of McKechnie et al., Table 2, where fewer topics is the point).
        """
        c, joined = self.join(candidate)
        return self.compare_joined(c, joined, metric=metric, topics=topics)

    def compare_all(self, candidate: QrelsLike, *, topics: str | None = None) -> dict:
        """:meth:`compare` under every metric, the candidate joined with the runs once and its kappa
        computed once: ``{label: QrelsComparison}``."""
        c, joined = self.join(candidate)
        kappa = self.kappa(c)
        return {label: self.compare_joined(c, joined, metric=label, topics=topics, kappa=kappa)
                for label in self.labels}


@scoped
@validated(_COMPARISON)
def compare_qrels(truth: QrelsLike, candidate: QrelsLike, runs: RunsLike | Evaluator,
                  metric: MetricLike | None = None, *, test: str = "tukey", alpha: float = 0.05,
                  n_trials: int = 10_000, seed: Seed = 0, direction_aware: bool = False,
                  kappa_threshold: float | None = None, kappa_weights: str | None = None, topics: str = "common",
                  progress: Progress = None, **options: object) -> QrelsComparison:
    """Compare candidate qrels with ground-truth qrels through the significance tests they lead to.

    Parameters
    ----------
    truth, candidate : qrels (path, DataFrame or dict)
        The ground truth G and the candidate C. C may judge a subset of G's topics;
        a topic G does not judge is an error.
    runs : run files, DataFrames, dict, cwla RunSet, or a cwla.Evaluator
        The systems, scored under both. An Evaluator brings its metrics and options: then
        ``metric`` (a label of one of them) picks one when it holds several, and no option may
        be given beside it.
    metric : str or Metric
        One metric (default nDCG@10); ``options`` (every option of :func:`cwla.evaluate`: gain,
        cutoff, depth, stop, normalize, judged_only, rel, max_docs, order, ties, workers, costs,
        max_cost, min_cost, expected) build the Evaluator with it, checked before any file is read.
    test : str or callable
        The pairwise test run on both, by name (:mod:`discpower.stats.registry`: ``"tukey"``, ``"max-t"``,
        ``"parametric-tukey"``, ``"t-test"``, ``"t-test-holm"``, ...) or a callable ``(X, systems) ->
        PairwiseTest``; default: the paired randomised Tukey HSD with ``n_trials`` and ``seed``.
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
    progress : bool, None or callable
        The progress of reading the runs and compiling the kernels: None (default) on stderr when it is a
        terminal, False never, True always (:mod:`cwla.progress`).

    Returns
    -------
    QrelsComparison
        Two tests are run: the truth's (on the topics it is compared on) and the candidate's.

    Examples
    --------
    >>> import cwla, discpower
    >>> qrels, runs = cwla.synthetic.collection(seed=1)
    >>> candidate = discpower.sample_relevant(qrels, 0.5, seed=1)   # half the relevant judgements kept
    >>> c = discpower.compare_qrels(qrels, candidate, runs, "nDCG@10", n_trials=200, seed=1)
    >>> {k: c.measures[k] for k in ("TP", "FP", "FN", "TN", "pairs")}   # significant pairs: truth vs candidate
    {'TP': 21, 'FP': 0, 'FN': 13, 'TN': 32, 'pairs': 66}
    >>> c.pairs[["system_a", "system_b", "outcome"]].head(2)
      system_a system_b outcome
    0    run01    run02      TN
    1    run01    run03      TN
    """
    comparer = QrelsComparer.build(truth, runs, metric, test=test, alpha=alpha, n_trials=n_trials, seed=seed,
                                   direction_aware=direction_aware, kappa_threshold=kappa_threshold,
                                   kappa_weights=kappa_weights, topics=topics, one_metric="compare_qrels", **options)
    return comparer.compare(candidate)
