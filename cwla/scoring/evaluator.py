"""The prepared evaluator: runs read once, metrics and every option checked once, any number of qrels scored.

:class:`Evaluator` is the seam between reading and scoring, and between cwla and discpower: it
parses the metrics, checks every option (:func:`evaluate`'s), resolves each metric's options and
reads the runs into a run store (:class:`cwla.RunSet`) at construction; :meth:`Evaluator.score` then
joins one qrels with the runs (one join, whatever the number of metrics) and runs the scoring kernel
(:mod:`cwla.scoring.plan`). :func:`evaluate` is ``Evaluator(runs, metrics, **options).score(qrels)``.

Run files whose text exceeds :func:`cwla.data.runset.group_bytes` are not held: the evaluator keeps
them in groups of consecutive files and reads, joins and scores one group at a time at each
:meth:`~Evaluator.score` (memory holds the qrels and one group; the result is the same).
"""

from __future__ import annotations

import os
import weakref
from types import MappingProxyType
from collections.abc import Mapping, Sequence

import attrs
import numpy as np
import pandas as pd

from .._display import Displayed, Shown, count_text, short_labels
from .._validate import FLAG, NONE, Instance, Interval, check, fmt
from ..data.collection import Collection, Judgements, join, join_costs
from ..data.runset import (A_TIES, A_WORKERS, AN_ORDER, RunSet, file_groups, named_runs, read_named, read_runs,
                           stream_bytes)
from ..errors import CwlaError, ParameterError
from ..metrics.browsing import MAX_CUTOFF
from ..metrics.counting import CONVENTIONS
from ..metrics.gains import Binary, GainMap
from ..metrics.metric import METRIC_CONSTRAINTS, METRIC_OPTIONS, RELEVANCE_LEVEL, Metric
from ..metrics.summary import MEASURE_TYPES, scored
from ..metrics.text import parse_gain, parse_metric
from ..typing import MetricsLike, QrelsLike, RunsLike
from .evaluation import EXPECTED, Evaluation, metric_position
from .plan import check_adaptive, normalised, plans, scores

__all__ = ["Evaluator", "evaluate", "as_metrics", "relevance_level", "OPTIONS", "OPTION_CONSTRAINTS", "EXPECTED"]

#: the options of :func:`evaluate` and :class:`Evaluator`, with their defaults
OPTIONS = {**dict.fromkeys(METRIC_OPTIONS), "rel": None, "trec_eval": None, "max_docs": None, "order": "trec_eval", "ties": None, "workers": None, "costs": None,
           "max_cost": 1.0, "min_cost": 1.0, "expected": None}
#: a number > 0
_POSITIVE = Interval("real", 0, None, closed="neither")
#: the constraints of the options of :func:`evaluate` and :class:`Evaluator` that are not the metrics' (those
#: :class:`Metric` declares), checked once where the options are set up, in this order
OPTION_CONSTRAINTS = MappingProxyType({
    "max_cost": (_POSITIVE,),
    "min_cost": (_POSITIVE,),
    "expected": (FLAG, NONE),
    "order": (AN_ORDER,),
    "trec_eval": (Interval("int", CONVENTIONS[0], CONVENTIONS[-1], whole=True,
                           text="9 (trec_eval 9.0's conventions, the default: pytrec_eval, NIST's published results) "
                                "or 10 (trec_eval >= 10)"), NONE),
    "ties": (A_TIES, NONE),
    "workers": (A_WORKERS, NONE),
    "rel": (RELEVANCE_LEVEL, NONE),
    "max_docs": (Interval("int", 1, None), NONE),
})


def as_metrics(metrics) -> tuple[list, list[str]]:
    """Measures and labels from a measure (:class:`Metric` or counting measure), a text, a sequence
    of them, or a dict {label: measure}."""
    if isinstance(metrics, Mapping) and metrics:
        named = [(str(label), as_metrics([m])[0][0]) for label, m in metrics.items()]
        return [m for _, m in named], [label for label, _ in named]
    if isinstance(metrics, (str, *MEASURE_TYPES)):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or not metrics:
        raise ParameterError("metrics must be a Metric, a metric text, a non-empty list of them, or a dict "
                        "{label: metric}")
    out, labels = [], []
    for m in metrics:
        if isinstance(m, str):
            out.append(parse_metric(m))
            labels.append(m)
        elif isinstance(m, MEASURE_TYPES):
            out.append(m)
            labels.append(str(m))
        else:
            raise ParameterError(f"a metric must be a Metric, a counting measure or a metric text, got {m!r}")
    dupes = sorted({label for label in labels if labels.count(label) > 1})
    if dupes:
        raise CwlaError(f"metrics must be distinct; {dupes} appear more than once")
    return out, labels


def relevance_level(rel=None, gain=None) -> float | None:
    """The evaluation's relevance level: ``rel``, else the threshold of a binary ``gain``, else None
    (binary measures then use 1). Both given and different is an error."""
    rel = check(rel, "rel", *OPTION_CONSTRAINTS["rel"], func="evaluate")
    own = gain.threshold if isinstance(gain, Binary) else None
    if rel is not None and own is not None and rel != own:
        raise CwlaError(f"evaluate: the relevance level rel={fmt(rel)} contradicts gain={gain}; give one of them")
    return rel if rel is not None else own


@attrs.frozen(eq=False)
class _Setup:
    """Metrics and options checked and resolved once (no runs): what every scoring of an Evaluator uses.

    ``options`` is what was given (the arguments that rebuild the setup elsewhere, e.g. in a worker
    process); the other fields are derived from it."""

    requested: tuple
    labels: tuple
    metrics: tuple
    options: dict
    max_docs: int | None
    costs: Judgements | None
    want: bool

    @classmethod
    def of(cls, metrics, options: dict, *, stacklevel: int, func: str = "evaluate") -> _Setup:
        unknown = sorted(set(options) - set(OPTIONS))
        options = dict(options)
        if unknown:
            raise ParameterError(f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}; the "
                            f"options of {func} are {', '.join(OPTIONS)}")
        given = {**OPTIONS, **options}
        parsed, labels = as_metrics(metrics)
        for name, constraints in OPTION_CONSTRAINTS.items():
            given[name] = check(given[name], name, *constraints, func=func)
        for name in METRIC_OPTIONS:  # those a metric may set itself; the gain may be its text (below)
            if name != "gain":
                given[name] = check(given[name], name, *METRIC_CONSTRAINTS[name], func=func)
        convention = given["trec_eval"]
        if given["ties"] is None:  # trec_eval 10 compares scores as doubles, 9.0 as C floats
            given["ties"] = options["ties"] = "float64" if convention == 10 else "float32"
        costs = given["costs"]
        want = bool(given["expected"]) or (given["expected"] is None and costs is not None)
        cost_judgements = None if costs is None else Judgements.of_costs(costs)
        gain = given["gain"]
        if isinstance(gain, str):
            gain = parse_gain(gain)
        check(gain, "gain", Instance(GainMap, "a gain map or its text"), NONE, func=func,
              rule="a gain map or its text")
        level = relevance_level(given["rel"], gain)
        max_docs = given["max_docs"]
        if max_docs is not None:
            max_docs = min(max_docs, MAX_CUTOFF)  # past every ranking: no change
        metric_options = {name: given[name] for name in METRIC_OPTIONS}
        metric_options["gain"] = gain
        resolved = [m.resolve(rel=level, trec_eval=convention, **metric_options) for m in parsed]
        for m, label in zip(resolved, labels):
            if _intents(m) is not None and (scored(m).judged_only or costs is not None or want):
                raise CwlaError(f"{label}: a metric with intents takes no judged_only, costs or expected (the "
                                 f"subtopic judgements make its gains)")
        for m, label in zip(resolved, labels):
            m.warn_if_constant(label, stacklevel=stacklevel + 1)
            m.warn_if_truncated(label, stacklevel=stacklevel + 1)
            if costs is not None and isinstance(m, Metric) and m.normalize == "ideal" and m.browsing.uses_costs:
                raise CwlaError(f"{label}: ideal normalisation of a cost-based model needs the costs of the ideal "
                                 f"ranking's documents, which per-document costs do not give (cwla's ideal ranking "
                                 f"is made of grades); use normalize=none, or no costs (every document then costs "
                                 f"max_cost)")
        return cls(requested=tuple(parsed), labels=tuple(labels), metrics=tuple(resolved), options=dict(options),
                   max_docs=max_docs, costs=cost_judgements, want=want)

    def option(self, name: str) -> object:
        return self.options.get(name, OPTIONS[name])

    def rows(self, metrics) -> list[int]:
        """The positions of ``metrics`` (labels, positions, Metrics or texts, as :meth:`Evaluation.scores`
        takes them; None: all)."""
        if metrics is None:
            return list(range(len(self.labels)))
        wanted = [metrics] if isinstance(metrics, (str, int, *MEASURE_TYPES)) else list(metrics)
        return [metric_position(m, self.labels, self.metrics, self.requested) for m in wanted]

    def score(self, collections, rows: list[int]) -> Evaluation:
        """The Evaluation of the metrics at ``rows`` on ``collections`` (one per group of runs, all of one
        qrels): one plan for the qrels' side, one kernel pass per group."""
        reported = [self.metrics[i] for i in rows]
        resolved = [scored(m) for m in reported]  # what the kernel scores (a GeoMean's measure)
        labels = [self.labels[i] for i in rows]
        max_cost, min_cost = float(self.option("max_cost")), float(self.option("min_cost"))
        the_plans, parts = None, []
        for col in collections:
            if self.max_docs is not None:
                col = col.truncated(self.max_docs)
            the_plans = the_plans or plans(col, resolved, labels, max_cost)  # the qrels' side: once
            parts.append((_Axes.of(col), scores(col, resolved, the_plans, (max_cost, min_cost), self.want)))
            del col  # a group's collection is not kept while the next group is read
        return _assemble(parts, the_plans, resolved, labels, [self.requested[i] for i in rows], self.want, reported)


@attrs.frozen(eq=False)
class _Axes:
    """What an Evaluation keeps of a group's Collection: its runs and topics, which (run, topic) rankings
    exist, and the topics each run misses or the qrels ignore."""

    runs: tuple
    topics: tuple
    present: np.ndarray
    missing_topics: dict
    ignored_topics: dict

    @classmethod
    def of(cls, col: Collection) -> "_Axes":
        return cls(col.runs, col.topics, col.present, col.missing_topics, col.ignored_topics)


def _intents(measure):
    """A measure's ``intents`` (:mod:`cwla.metrics.intents`), or None."""
    return getattr(scored(measure), "intents", None)


def _assemble(parts, the_plans, resolved, labels, requested, want, reported) -> Evaluation:
    """One Evaluation (of the measures ``reported``) from the scores of every group of runs (of the measures
    ``resolved``): trec_eval's -c, the adaptive models' check, residuals, then the ideal normalisation."""
    values = np.concatenate([p[0] for _, p in parts], axis=1)
    uppers = np.concatenate([p[1] for _, p in parts], axis=1)
    x_lo = np.concatenate([p[2] for _, p in parts], axis=2) if want else None
    x_hi = np.concatenate([p[3] for _, p in parts], axis=2) if want else None
    present = np.concatenate([col.present for col, _ in parts])
    runs_axis = tuple(r for col, _ in parts for r in col.runs)
    missing = {r: t for col, _ in parts for r, t in col.missing_topics.items()}
    ignored = {r: t for col, _ in parts for r, t in col.ignored_topics.items()}
    col = parts[0][0]

    # trec_eval -c: a qrels topic missing from a run scores 0 (its upper bound stays)
    # (the counting measures are right on an empty ranking as they are: NumRel = R, NumQ = 1, the rest 0)
    absent = ~present
    for i, m in enumerate(resolved):
        if isinstance(m, Metric):
            values[i][absent] = 0.0
    check_adaptive(resolved, labels, values, uppers, x_lo, x_hi)
    residuals = uppers - values  # before the normalisation: (upper - value) / ideal keeps its digits
    for plan in the_plans:
        for j, i in enumerate(plan.cw):
            if resolved[i].normalize == "ideal":
                values[i], residuals[i] = normalised(values[i], residuals[i], plan.ideal[j], labels[i])
            elif resolved[i].normalize == "full":
                best = np.full(values.shape[2], plan.full[j])
                values[i], residuals[i] = normalised(values[i], residuals[i], best, labels[i])
    return Evaluation(
        metrics=tuple(reported),
        requested=tuple(requested),
        labels=tuple(labels),
        runs=runs_axis,
        topics=col.topics,
        values=values,
        residuals=residuals,
        missing_topics=missing,
        ignored_topics=ignored,
        expected=x_lo,
        expected_residuals=None if x_lo is None else x_hi - x_lo,
    )


class Evaluator(Displayed):
    """Runs read once, metrics and options checked once: score them under any number of qrels.

    ``Evaluator(runs, metrics, **options)`` takes what :func:`evaluate` takes, without the qrels;
    :meth:`score` takes the qrels. Every option is checked and every metric parsed and resolved at
    construction (warnings about a metric are given then, once), and the runs are read into a
    :class:`cwla.RunSet` (:attr:`runs`). Each :meth:`score` joins the qrels with the runs once and
    scores every metric in one kernel pass. discpower's entry points take an Evaluator wherever they
    take runs (``discpower.compare_qrels(truth, candidate, evaluator)``), so the runs are read and the
    options checked once for a whole analysis.

    Parameters
    ----------
    runs : runs (see :func:`cwla.prepare`), a RunSet, a run store's folder, or None
        None makes an evaluator of prepared Collections only (:meth:`score` then takes a
        :class:`cwla.Collection`).
    metrics : measure, str, sequence of them, or dict {label: measure or str}
        As for :func:`evaluate`.
    hold : bool
        Hold the runs whatever their size. By default run files with more text than
        :func:`cwla.data.runset.group_bytes` are read a group at a time at each :meth:`score` (memory
        holds one group); discpower's comparisons, which score many qrels, hold them.
    **options
        Every option of :func:`evaluate`: ``gain, cutoff, depth, stop, normalize, judged_only, rel,
        max_docs, order, ties, workers, costs, max_cost, min_cost, expected``.

    Examples
    --------
    >>> import cwla
    >>> qrels, runs = cwla.synthetic.collection(seed=1)
    >>> evaluator = cwla.Evaluator(runs, ["nDCG@10", "map"], rel=2)
    >>> evaluator.score(qrels).values.shape[:2]
    (2, 12)
    """

    __slots__ = ("_setup", "_runs", "_groups", "_prepared")

    def __init__(self, runs: RunsLike | None, metrics: MetricsLike = ("nDCG@10",), *, hold: bool = False,
                 **options: object):
        self._start(_Setup.of(metrics, options, stacklevel=3, func="Evaluator"), runs, check(hold, "hold", FLAG, func="Evaluator"))

    @classmethod
    def _with(cls, setup: _Setup, runs, budget: int | None = None) -> Evaluator:
        """An Evaluator of an already checked setup (for :func:`evaluate`, which reads the qrels in between);
        run files in groups of ``budget`` bytes of text (default :func:`cwla.data.runset.group_bytes`)."""
        evaluator = cls.__new__(cls)
        evaluator._start(setup, runs, False, budget)
        return evaluator

    def _start(self, setup: _Setup, runs, hold: bool, budget: int | None = None) -> None:
        self._setup, self._prepared = setup, weakref.WeakSet()
        self._runs, self._groups = self._read(runs, hold, budget)

    def _read(self, runs, hold: bool, budget: int | None) -> tuple[RunSet | None, list | None]:
        """``(RunSet, None)``, or ``(None, groups)`` for run files read a group at a time (unless ``hold``);
        (None, None) without runs."""
        if runs is None:
            return None, None
        ties, order, workers = self._setup.option("ties"), self._setup.option("order"), self._setup.option("workers")
        if hold or isinstance(runs, RunSet) or (isinstance(runs, (str, os.PathLike)) and os.path.isdir(runs)):
            return read_runs(runs, workers=workers, ties=ties, order=order), None
        groups = file_groups(named_runs(runs), budget)  # named and checked once
        if len(groups) == 1:
            return read_named(groups[0], workers=workers, ties=ties, order=order), None
        return None, groups

    def __getstate__(self) -> dict:  # picklable: the record of what it prepared stays behind
        return {"_setup": self._setup, "_runs": self._runs, "_groups": self._groups}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._prepared = weakref.WeakSet()

    # ------------------------------------------------------------------ what it holds

    @property
    def metrics(self) -> tuple:
        """The measures with every option resolved, as they are scored."""
        return self._setup.metrics

    @property
    def requested(self) -> tuple:
        """The measures as given (options left unset stay None)."""
        return self._setup.requested

    @property
    def labels(self) -> tuple:
        """One label per metric: the text given, the canonical text, or the dict's key."""
        return self._setup.labels

    @property
    def options(self) -> dict:
        """The options as given (a copy): ``Evaluator(runs, metrics, **evaluator.options)`` rebuilds it."""
        return dict(self._setup.options)

    @property
    def ties(self) -> str:
        return self._setup.option("ties")

    @property
    def order(self) -> str:
        return self._setup.option("order")

    @property
    def streamed(self) -> bool:
        """True when the run files are read a group at a time at every :meth:`score` (not held)."""
        return self._groups is not None

    @property
    def runs(self) -> RunSet:
        """The runs, read once (a :class:`cwla.RunSet`)."""
        if self._runs is None:
            if self._groups is None:
                raise CwlaError("this Evaluator holds no runs (it was built with runs=None, for prepared "
                                "Collections): build it with the runs")
            raise CwlaError(f"this Evaluator reads its {sum(len(g) for g in self._groups)} run files a group at a "
                            f"time ({len(self._groups)} groups: more text than cwla.data.runset.group_bytes()), "
                            f"so it holds no RunSet; read them with cwla.read_runs(...) and build the Evaluator "
                            f"with that RunSet to hold them")
        return self._runs

    @property
    def run_names(self) -> tuple:
        """The run axis: the names of the runs, in order."""
        if self._runs is not None:
            return self._runs.names
        return tuple(name for group in self._groups or () for name, _ in group)

    def __len__(self) -> int:
        return len(self.labels)

    def _shown(self) -> Shown:
        """Its metrics (a label, the measure as scored) and how many runs; the options in the header."""
        shorts = short_labels(self.labels)
        named = [s for k, s in enumerate(shorts) if len(", ".join(shorts[:k + 1])) <= 36] or list(shorts[:1])
        shown = ", ".join(named) + (", ..." if len(named) < len(shorts) else "")
        runs = "no runs" if self._runs is None and self._groups is None else count_text(len(self.run_names), "run")
        table = pd.DataFrame({"measure": [str(m) for m in self.metrics]},
                             index=pd.Index(shorts, name="metric")).rename_axis(columns="field")
        facts = [f"ties={self.ties}", f"order={self.order}"] + (["streamed"] if self.streamed else [])
        return Shown("Evaluator", f"{count_text(len(self.labels), 'metric')} ({shown}) x {runs}", table, tuple(facts),
                     preview=0)

    # ------------------------------------------------------------------ scoring

    def select(self, metrics: str | int | Sequence[str | int]) -> Evaluator:
        """The same runs (shared, not read again) with some of the metrics: labels or positions."""
        rows = self._setup.rows(metrics)
        setup = attrs.evolve(self._setup, requested=tuple(self._setup.requested[i] for i in rows),
                             labels=tuple(self._setup.labels[i] for i in rows),
                             metrics=tuple(self._setup.metrics[i] for i in rows))
        evaluator = Evaluator.__new__(Evaluator)
        evaluator._setup, evaluator._runs, evaluator._groups = setup, self._runs, self._groups
        evaluator._prepared = self._prepared  # the same runs: what one prepared, the other may score
        return evaluator

    def prepare(self, qrels: QrelsLike | Judgements) -> Collection:
        """The qrels joined with the runs (one join): a :class:`cwla.Collection` that :meth:`score` takes,
        as many times as needed, checked once (the per-document costs are joined too)."""
        col = self._join(Judgements.of(qrels), self.runs)
        self._prepared.add(col)
        return col

    def _join(self, judgements: Judgements, run_set: RunSet) -> Collection:
        col = join(judgements, run_set)
        return col if self._setup.costs is None else join_costs(col, self._setup.costs, run_set)

    def score(self, qrels: QrelsLike | Judgements | Collection, *,
              metrics: str | int | Sequence[str | int] | None = None) -> Evaluation:
        """Score the runs under ``qrels``.

        Parameters
        ----------
        qrels : qrels (anything :func:`cwla.read_qrels` accepts), Judgements, or Collection
            A Collection is one :meth:`prepare` made (or :func:`cwla.prepare`, for an evaluator of no runs).
        metrics : label, position or sequence of them, optional
            Score only these of the evaluator's metrics (default: all), in this order; the qrels' side
            (gain tables, judged gain sums, ideal scores) is computed for them alone.

        Returns
        -------
        Evaluation
        """
        rows = self._setup.rows(metrics)
        if any(_intents(self._setup.metrics[i]) is not None for i in rows):
            return self._score_intents(qrels, rows)
        if isinstance(qrels, Collection):
            return self._setup.score([self._checked(qrels)], rows)
        if self._runs is None and self._groups is None:
            raise CwlaError("this Evaluator holds no runs: give it a prepared Collection (cwla.prepare), or "
                            "build it with the runs")
        judgements = Judgements.of(qrels)
        if self._runs is not None:
            return self._setup.score([self._join(judgements, self._runs)], rows)
        setup = self._setup
        def joined():
            """Each group read and joined; neither its runs nor its collection kept once scored."""
            for group in self._groups:
                col = self._join(judgements, read_named(group, workers=setup.option("workers"),
                                                        ties=setup.option("ties"), order=setup.option("order")))
                yield col
                del col

        return setup.score(joined(), rows)

    def _score_intents(self, qrels, rows: list[int]) -> Evaluation:
        """The metrics at ``rows``, some with ``intents``, on subtopic qrels (:mod:`cwla.scoring.intents`): the
        others read each document's largest grade over the subtopics."""
        from ..data.subtopics import Subtopics
        from ..metrics.gains import Linear
        from ..metrics.intents import Novelty
        from .intents import ia_collection, ia_means, novelty_collection, relevance

        if isinstance(qrels, (Collection, Judgements)):
            raise CwlaError("metrics with intents read subtopic qrels (topic subtopic docno grade: a path, a frame, "
                            "a dict or cwla.read_subtopics' Subtopics), not a prepared Collection or Judgements")
        if self._runs is None:
            raise CwlaError("metrics with intents need the runs in memory: build the Evaluator with the runs and "
                            "hold=True (or call cwla.evaluate)")
        subtopics = Subtopics.of(qrels)
        setup = self._setup
        subtopics.warn_if_one_per_topic([setup.labels[i] for i in rows if _intents(setup.metrics[i]) is not None])
        parts = {}  # row -> (values, residuals) of shape (n_runs, n_topics)
        plain = [i for i in rows if _intents(setup.metrics[i]) is None]
        if plain:
            ev = setup.score([self._join(subtopics.judgements(), self._runs)], plain)
            parts.update((i, (ev.values[j], ev.residuals[j])) for j, i in enumerate(plain))
        docs, numbered = subtopics.documents()
        col = self._join(numbered, self._runs)
        groups = {}
        default_level = setup.option("rel") or 1.0
        for i in rows:
            m = setup.metrics[i]
            if _intents(m) is not None:
                gain = scored(m).gain
                level = gain.threshold if isinstance(gain, Binary) and gain.threshold is not None else default_level
                groups.setdefault((_intents(m), level), []).append(i)
        identity = Linear(1.0)  # the derived collections' grades are the gains
        local = attrs.evolve(setup, metrics=tuple(attrs.evolve(m, gain=identity) if _intents(m) is not None else m
                                                  for m in setup.metrics))
        for (intent, level), group in groups.items():
            rel = relevance(subtopics, docs, col, level)
            if isinstance(intent, Novelty):
                ev = local.score([novelty_collection(col, rel, intent.alpha)], group)
                values, residuals = ev.values, ev.residuals
            else:
                derived, owner = ia_collection(col, rel)
                shape = (len(group), len(col.runs), len(col.topics))
                if len(owner):
                    ev = local.score([derived], group)
                    values = ia_means(ev.values, owner, len(col.topics))
                    residuals = ia_means(ev.residuals, owner, len(col.topics))
                else:  # no subtopic of any topic has a relevant document: every score is 0
                    values, residuals = np.zeros(shape), np.zeros(shape)
            parts.update((i, (values[j], residuals[j])) for j, i in enumerate(group))
        return Evaluation(
            metrics=tuple(setup.metrics[i] for i in rows), requested=tuple(setup.requested[i] for i in rows),
            labels=tuple(setup.labels[i] for i in rows), runs=col.runs, topics=col.topics,
            values=np.stack([parts[i][0] for i in rows]), residuals=np.stack([parts[i][1] for i in rows]),
            missing_topics=col.missing_topics, ignored_topics=col.ignored_topics)

    def _checked(self, col: Collection) -> Collection:
        """A Collection given to :meth:`score`, checked: of these runs, with these ties, no costs to join."""
        if self._setup.costs is not None and col.cost_codes is None:  # not one prepare() joined the costs with
            raise CwlaError("evaluate: costs are joined with the runs; pass raw qrels and runs with costs=, "
                             "not a prepared Collection")
        ties = self._setup.option("ties")
        if ties != col.ties and ties != "float32":
            raise CwlaError(f"evaluate: the Collection was prepared with ties={col.ties!r}; prepare it again with "
                             f"ties={ties!r}")
        if col in self._prepared:  # joined here, checked when it was made
            return col
        if self._runs is not None and tuple(col.runs) != tuple(self._runs.names):
            raise CwlaError(f"the Collection holds other runs ({len(col.runs)}) than this Evaluator "
                             f"({len(self._runs.names)}); prepare it with Evaluator.prepare")
        col.check()
        return col


def evaluate(qrels: QrelsLike | Collection, runs: RunsLike | None = None, metrics: MetricsLike = ("nDCG@10",), *,
             gain: GainMap | str | None = None, cutoff: int | None = None, depth: int | str | None = None,
             stop: bool | None = None, normalize: str | None = None, judged_only: bool | None = None,
             rel: float | None = None, trec_eval: int | None = None, max_docs: int | None = None,
             order: str = "trec_eval", ties: str | None = None, workers: int | None = None,
             costs: QrelsLike | None = None, max_cost: float = 1.0, min_cost: float = 1.0,
             expected: bool | None = None) -> Evaluation:
    """Evaluate metrics on runs: Evaluator(runs, metrics, **options).score(qrels), in one call.

    Parameters
    ----------
    qrels : path, DataFrame, dict, iterable, object with ``to_dict()``, or Collection
        The qrels (anything :func:`cwla.read_qrels` accepts), or a :class:`Collection`
        from :func:`cwla.prepare` (then ``runs`` must be None).
    runs : path, DataFrame, list, dict, iterable, object with ``to_dict()``, or RunSet
        The runs (see :func:`cwla.prepare`).
    metrics : measure, str, sequence of them, or dict {label: measure or str}
        Canonical texts, Chen & Sakai names, ir_measures or trec_eval names (see
        :func:`cwla.parse_metric`), :class:`Metric` values or counting measures
        (:mod:`cwla.metrics.counting`); results are labelled by the text given,
        ``str(metric)``, or the dict's keys.
    gain, cutoff, depth, stop, normalize, judged_only
        Options for every metric that does not set them itself (the ir_measures and trec_eval
        names fix some: ``P@k`` binary gains and cutoff, ``nDCG@k`` linear gains, cutoff and
        normalisation, ...). Unset everywhere: ``linear`` gains (gmax = the largest grade in the
        qrels), no cutoff, depth 1000, stop False, no normalisation, every document kept.
        ``gain`` may be a text (``"binary:2"``); a binary ``gain`` also sets the relevance level.
    rel : number, optional
        The relevance level (trec_eval's ``-l``) of every binary measure that does not give its
        own (``P@10``, ``map``, ``R@100``, ``Bpref``, ...): grades >= rel are relevant. Default:
        the threshold of a binary ``gain``, else 1.
    trec_eval : {9, 10}, optional
        trec_eval's conventions where its versions differ (the measures that do not set their own
        ``convention``): 9 (default; trec_eval 9.0, pytrec_eval, NIST's published results) or 10
        (trec_eval >= 10, whose ``iprec_at_recall`` and ``11pt_avg`` cut recall at round(x R), where 9.0
        takes floor(x R + 0.9)).
    max_docs : int, optional
        Keep only the first ``max_docs`` documents of each ranking (in the evaluation's order)
        before anything is measured, as trec_eval's ``-M`` does; unlike a cutoff it applies to
        every measure, counts (``NumRet``) included.
    order : {"trec_eval", "file"}
        Document order when reading runs (see :func:`cwla.prepare`).
    ties : {"float32", "float64"}, optional
        Precision in which scores are compared when ordering (see :func:`cwla.prepare`). Default:
        float32 (trec_eval 9.0), float64 with ``trec_eval=10`` (trec_eval >= 10 compares doubles).
    workers : int, optional
        Threads that read run files (default: the number of CPUs, at most 4). Run files are
        read, joined and scored a group at a time (consecutive files of up to
        :func:`cwla.data.runset.stream_bytes` of text, 512 MiB, at least one file), so memory holds the
        qrels and one group, never every run; other runs are read at once. The result is the same.
    costs : path, DataFrame, dict, iterable, object with ``to_dict()``, or Judgements; optional
        Per-document costs (see :func:`cwla.data.readers.read_costs`): a file shaped as TREC qrels
        whose fourth column is the cost (``qid 0 docno cost``), a frame ``topic, docno, cost`` (or
        ``query_id, doc_id, cost``; or one shaped as qrels with the cost in its ``grade`` column), a
        dict ``{topic: {docno: cost}}``; every cost finite and > 0 (an error names the line, row or
        entry of one that is not). They drive the cost-based models (BPM, TBG, U, IFTRate, IFT) and
        EC / ETC. A document without one costs ``max_cost`` in the score and ``min_cost`` in the upper
        bound (cwl_eval's convention; both 1 by default), as do the padded positions up to H.
    max_cost, min_cost : float
        See ``costs``.
    expected : bool, optional
        Also compute :attr:`Evaluation.expected` (EC, ETC, ED) and their residuals. Default: only
        when ``costs`` are given.

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> from cwla import evaluate, synthetic
    >>> qrels, runs = synthetic.collection(seed=1)
    >>> ev = evaluate(qrels, runs, ["P(rel=2)@10", "nDCG@10", "INST_PE", "map", "R@100"])
    >>> ev.values.shape[0]
    5
    """
    given = dict(gain=gain, cutoff=cutoff, depth=depth, stop=stop, normalize=normalize, judged_only=judged_only,
                 rel=rel, trec_eval=trec_eval, max_docs=max_docs, order=order, ties=ties, workers=workers, costs=costs,
                 max_cost=max_cost, min_cost=min_cost, expected=expected)
    setup = _Setup.of(metrics, given, stacklevel=3)
    if isinstance(qrels, Collection):
        if runs is not None:
            raise CwlaError("evaluate: pass runs inside the Collection or with raw qrels, not both")
        return Evaluator._with(setup, None).score(qrels)
    if runs is None:
        raise CwlaError("evaluate: no runs given")
    if any(_intents(m) is not None for m in setup.metrics):  # subtopic qrels (read first, as below)
        from ..data.subtopics import Subtopics

        subtopics = Subtopics.of(qrels)
        return Evaluator._with(setup, runs).score(subtopics)
    judgements = Judgements.of(qrels)  # the qrels first: a bad qrels file fails before the runs are read
    return Evaluator._with(setup, runs, stream_bytes()).score(judgements)  # scored once: small groups

