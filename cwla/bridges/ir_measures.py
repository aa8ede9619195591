"""cwla's metrics inside ir_measures and PyTerrier.

Importing this module registers a measure provider ``"cwla"`` with ir_measures (it needs the
``ir_measures`` package; ``import cwla`` alone never imports it). Then any text
:func:`cwla.parse_metric` accepts becomes an ir_measures measure that cwla computes, and goes
wherever ir_measures' own measures go, mixed with them:

>>> import ir_measures
>>> import cwla.ir_measures
>>> rbp_pe = cwla.ir_measures.measure("RBP_PE")
>>> rbp_pe
cwla(metric='RBP_PE')
>>> from ir_measures import Qrel, ScoredDoc
>>> qrels = [Qrel("q1", "d1", 2), Qrel("q1", "d2", 1), Qrel("q2", "d3", 1)]
>>> run = [ScoredDoc("q1", "d2", 2.0), ScoredDoc("q1", "d1", 1.0), ScoredDoc("q2", "d3", 1.0)]
>>> result = ir_measures.calc_aggregate([rbp_pe, ir_measures.nDCG@10], qrels, run)
>>> round(result[rbp_pe], 6)
0.44

What is computed
----------------
An evaluator built from qrels (``ir_measures.evaluator(measures, qrels)``, or the one
``ir_measures.calc_aggregate`` / ``iter_calc`` / ``calc`` build) reads the qrels once and scores
each run it is given with one :func:`cwla.evaluate` call over all the run's topics and all the
evaluator's cwla measures, with cwla's defaults and cwla's tie order (score as float32
descending, then docno descending, as trec_eval). So per topic the values are
``cwla.evaluate(qrels, run, texts)``'s, whatever subset of the topics the run covers. Everything
that depends on the qrels as a whole -- the ``gmax`` of the default ``linear`` gain (the largest
grade in the qrels), that of ``exponential``, the ``max_rel`` of ``scaled``, the scale of
``regrade`` -- comes from the qrels the evaluator was given.

Where the caller hands the evaluator only part of the qrels (PyTerrier's
``pt.Experiment(..., batch_size=n)`` filters the qrels to each batch's topics; a loop that
evaluates one query at a time), those quantities would come from that part. ``measure(text,
qrels=full_qrels)`` fixes them from the full qrels instead: the measure's text then carries
them explicitly (``cwla(metric='INST_PE[gain=linear(gmax=3)]')``), and it gives the full-qrels
values on any subset.

Topics (ir_measures' convention, which differs from :func:`cwla.evaluate`'s): the bridge
reports the topics of the run that are in the qrels; ir_measures' Evaluator then adds every
qrels topic missing from the run with the measure's ``DEFAULT``, 0.0, and the run's value
(``calc_aggregate``) is the mean over all qrels topics (the sum for ``NumRel``, ``NumRet``,
``NumRelRet``, ``NumQ``, as cwla and ir_measures aggregate them). For the C/W/L/A metrics that is
what :func:`cwla.evaluate` gives too (a missing topic scores 0); for the counts it is not
(cwla gives a missing topic ``NumRel`` = R and ``NumQ`` = 1, ir_measures 0). Run topics that are not
in the qrels are ignored, by both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

import pandas as pd

try:  # the top-level package: absolute import, never this module
    import ir_measures as _irm
    from ir_measures.measures.base import Agg, MeanAgg, SumAgg
    from ir_measures.providers.base import Evaluator, Provider
    from ir_measures.util import Metric as _IrmMetric
except ImportError as _err:  # pragma: no cover - depends on the environment
    raise ImportError("cwla.ir_measures needs the ir_measures package (pip install ir_measures); "
                      "the rest of cwla works without it") from _err

from ..typing import QrelsLike, RunLike
from ..data.collection import Judgements
from ..metrics.counting import CountingMeasure
from ..errors import CwlaError, MetricSyntaxError, ParameterError
from ..scoring.evaluator import evaluate
from ..metrics.gains import Binary, Exponential, GainMap, Linear, Scaled, Table
from ..metrics.metric import Metric
from ..metrics.summary import MEASURE_TYPES, scored
from ..data.readers import read_run
from ..metrics.text import parse_metric

__all__ = ["CwlaMeasure", "CwlaProvider", "CwlaEvaluator", "measure", "measures", "provider", "NAME"]

#: the provider's and the measure's name in ir_measures (``ir_measures.providers.registry["cwla"]``,
#: ``ir_measures.parse_measure("cwla(metric='RBP_PE')")``)
NAME = "cwla"

_ACCEPTED_INPUT = ("accepted: a pandas DataFrame with columns query_id, doc_id, {value} (ir_measures), "
                   "qid, docno, {pt} (PyTerrier) or topic, docno, {own} (cwla); a dict {{query_id: {{doc_id: "
                   "{value}}}}}; an iterable of namedtuples with query_id, doc_id, {value} (ir_measures.{nt}, "
                   "ir_datasets); an object with to_dict() of that dict (ranx); a TREC file path")


def _accepted(kind: str) -> str:
    if kind == "qrels":
        return _ACCEPTED_INPUT.format(value="relevance", pt="label", own="grade", nt="Qrel")
    return _ACCEPTED_INPUT.format(value="score", pt="score", own="score", nt="ScoredDoc")


class CwlaMeasure(_irm.Measure):
    """An ir_measures measure computed by cwla: one cwla metric text.

    Parameters
    ----------
    metric : str
        Any text :func:`cwla.parse_metric` accepts: canonical (``"INST(T=2.5)+PE(beta=0.5)"``),
        Chen & Sakai's (``"RBP_PE"``), ir_measures' (``"nDCG@10"``, ``"P(rel=2)@10"``) or trec_eval's
        (``"ndcg_cut_10"``) names, with cwla's meaning of them.

    Notes
    -----
    The measure is a value: its ``repr`` is ``cwla(metric='TEXT')``, which ``ir_measures.parse_measure``
    reads back, and its ``str`` the text alone (``INST_PE``: the column name PyTerrier's tables show); two
    measures are equal (and hash alike) when their texts are. Its ``repr`` never collides with ir_measures'
    own measures: ``cwla(metric='nDCG@10')`` and ``ir_measures.nDCG@10`` are two measures, side by side in
    one ``calc_aggregate`` (whose keys are the measures); their ``str`` is the same, ``nDCG@10``.

    A run's value (:meth:`aggregator`) is the mean over topics, or the sum for cwla's counts
    (``NumRel``, ``NumRet``, ``NumRelRet``, ``NumQ``); a qrels topic missing from the run gets
    :attr:`DEFAULT` (0.0), ir_measures' convention (see the module docstring).

    ``@k`` is refused: write the cutoff in the text (``"RBP_PE[cutoff=10]"``, ``"nDCG@10"``).
    """

    NAME = NAME
    __name__ = NAME
    AT_PARAM = "cutoff"
    SUPPORTED_PARAMS = {
        "metric": _irm.ParamInfo(dtype=str, required=True,
                                 desc="a cwla metric text (anything cwla.parse_metric accepts)"),
    }
    DEFAULT = 0.0
    PRETTY_NAME = "cwla metric"
    SHORT_DESC = "A C/W/L/A metric (or a count) computed by cwla"

    def __init__(self, metric: str | None = None, **params: object) -> None:
        if params:
            raise ParameterError(f"a cwla measure takes only metric=TEXT, got {sorted(params)} too; put every option "
                            f"in the text (e.g. cwla(metric='RBP(p=0.8)+ERG[cutoff=10]'))")
        if metric is None:
            raise ParameterError("a cwla measure needs a metric text: cwla(metric='RBP_PE'), or "
                            "cwla.ir_measures.measure('RBP_PE')")
        if not isinstance(metric, str):
            raise ParameterError(f"a cwla measure's metric must be a text (str), got {type(metric).__name__} "
                            f"{metric!r}; cwla.ir_measures.measure() also takes a cwla Metric")
        try:
            parsed = parse_metric(metric)
        except MetricSyntaxError as err:
            raise MetricSyntaxError(str(err)) from None
        super().__init__(metric=metric)
        self._metric = parsed

    @property
    def text(self) -> str:
        """The cwla metric text, as given."""
        return self.params["metric"]

    @property
    def metric(self) -> Metric | CountingMeasure:
        """The cwla metric the text parses to (options the text leaves unset stay None)."""
        return self._metric

    def __matmul__(self, at_param: object) -> CwlaMeasure:
        raise ParameterError(f"{self!r}@{at_param!r}: a cwla measure takes no @k; write the cutoff in the cwla text "
                        f"(e.g. measure('RBP_PE[cutoff={at_param}]'), measure('nDCG@{at_param}'))")

    def aggregator(self) -> Agg:
        """The run's value from the per-topic values: their sum for cwla's counts (``NumRel``, ``NumRet``,
        ``NumRelRet``, ``NumQ``), else their mean (NaN over no topic)."""
        return SumAgg() if self._metric.aggregate == "sum" else MeanAgg()

    def __repr__(self) -> str:
        return f"{NAME}(metric={self.text!r})"

    def __str__(self) -> str:
        """The metric text alone (``INST_PE``): what a results table (PyTerrier's columns) names it by."""
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _irm.Measure) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def __reduce__(self) -> tuple:
        return (type(self), (self.text,))


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------


def _materialised(source: object) -> object:
    """``source``, with a one-shot iterable (a generator, a tee of ir_measures) turned into a list, so that
    it can be checked for emptiness and then read."""
    if isinstance(source, (str, bytes, Mapping, pd.DataFrame)) or callable(getattr(source, "to_dict", None)):
        return source
    if isinstance(source, Iterable) and not isinstance(source, (list, tuple)):
        return list(source)
    return source


def _is_empty(source: object) -> bool:
    """No (topic, document) entry at all: an empty frame, dict (or dict of empty dicts) or sequence."""
    if isinstance(source, pd.DataFrame):
        return len(source) == 0
    if isinstance(source, Mapping):
        return all(isinstance(docs, Mapping) and not docs for docs in source.values())
    if isinstance(source, (list, tuple)):
        return len(source) == 0
    return False


def _read_qrels(qrels: QrelsLike, where: str) -> Judgements | None:
    """The qrels as cwla's Judgements (None when there is no judgement: no topic to score), or a clear
    error naming ``where`` and the accepted forms."""
    qrels = _materialised(qrels)
    if _is_empty(qrels):
        return None
    try:
        return Judgements.of(qrels)
    except (CwlaError, TypeError) as err:
        raise type(err)(f"{where}: the qrels could not be read: {err}. {_accepted('qrels')}") from None


def _read_subtopics(qrels, where: str):
    """Subtopic qrels (the diversity measures: ir_measures' ``iteration`` is the subtopic), or None when empty."""
    from ..data.subtopics import read_subtopics

    qrels = _materialised(qrels)
    if _is_empty(qrels):
        return None
    if isinstance(qrels, (list, tuple)):
        qrels = pd.DataFrame([q._asdict() if hasattr(q, "_asdict") else q for q in qrels])
    try:
        return read_subtopics(qrels)
    except (CwlaError, TypeError) as err:
        raise type(err)(f"{where}: the subtopic qrels could not be read: {err}") from None


def _read_run(run: RunLike, where: str) -> pd.DataFrame | None:
    """The run as cwla's canonical frame (None when it has no row), or a clear error."""
    run = _materialised(run)
    if _is_empty(run):
        return None
    try:
        return read_run(run)
    except (CwlaError, TypeError) as err:
        raise type(err)(f"{where}: the run could not be read: {err}. {_accepted('run')}") from None


def _gain_fixed(gain: GainMap, grades, max_grade: float) -> GainMap | None:
    """``gain`` with what it takes from the qrels as a whole made explicit (None: it takes nothing).

    Exactly what :func:`cwla.evaluate` computes on those qrels: ``linear`` divides by the largest grade
    (1 if it is <= 0), ``exponential`` by 2^(largest grade), ``scaled`` clips at the largest grade; a
    ``regrade`` (and a gain map cwla does not know) becomes the table of its gains on the qrels' grades."""
    if isinstance(gain, (Binary, Table)):
        return None
    if type(gain) is Linear:
        return None if gain.gmax is not None else Linear(gmax=max_grade if max_grade > 0 else 1.0)
    if type(gain) is Exponential and gain.gmax is not None:
        return None
    if type(gain) is Exponential and max_grade > 0:
        return Exponential(gmax=max_grade)
    if type(gain) is Scaled and gain.max_rel is not None:
        return None
    if type(gain) is Scaled and max_grade > gain.min_rel:
        return Scaled(min_rel=gain.min_rel, max_rel=max_grade)
    if len(grades) == 0:
        return None
    # Regrade, an exponential or scaled map that gives every grade 0, a user's GainMap
    return Table(dict(zip(grades.tolist(), gain.table(grades, max_grade).tolist())))


def _fixed_text(text: str, metric: Metric | CountingMeasure, judgements: Judgements | None) -> str:
    """``text`` with the gain scale fixed from ``judgements``: ``TEXT[gain=...]`` where that parses to the
    same metric, else the canonical text of the fixed metric; ``text`` itself when nothing depends on
    the qrels as a whole."""
    if not isinstance(metric, Metric) or judgements is None:
        return text
    grades = judgements.grades
    max_grade = float(grades.max()) if len(grades) else 0.0
    gain = _gain_fixed(metric.resolve().gain, grades, max_grade)
    if gain is None:
        return text
    fixed = metric.with_options(gain=gain)
    if "[" not in text:
        candidate = f"{text}[gain={gain}]"
        try:
            if parse_metric(candidate) == fixed:
                return candidate
        except MetricSyntaxError:
            pass
    return str(fixed)


# ---------------------------------------------------------------------------
# public constructors
# ---------------------------------------------------------------------------


def measure(metric: str | Metric | CountingMeasure | _irm.Measure, *, qrels: QrelsLike | None = None) -> CwlaMeasure:
    """An ir_measures measure computed by cwla.

    Parameters
    ----------
    metric : str, Metric, CountingMeasure or ir_measures Measure
        A cwla metric text (anything :func:`cwla.parse_metric` accepts: ``"RBP_PE"``,
        ``"INST(T=2.5)+PE(beta=0.5)"``, ``"nDCG@10"``, ``"map"``), a cwla metric (its canonical
        text is used), a :class:`CwlaMeasure`, or one of ir_measures' own measures, which cwla then
        computes under the same name (``measure(ir_measures.nDCG@10)`` is ``measure("nDCG@10")``).
    qrels : qrels, optional
        Fix everything the metric takes from the qrels as a whole from these qrels (the full
        qrels): ``gmax`` of the default ``linear`` gain (the largest grade), of ``exponential``,
        ``max_rel`` of ``scaled``, the scale of ``regrade``. The measure's text then states them
        (``INST_PE[gain=linear(gmax=3)]``; the canonical text where the given text cannot take an
        option), and it scores each topic as :func:`cwla.evaluate` on these qrels does even where
        it is handed a subset of them (PyTerrier's ``batch_size``, one query at a time). Without
        it they come from the qrels each evaluator is given.

    Returns
    -------
    CwlaMeasure

    Raises
    ------
    cwla.MetricSyntaxError
        If the text does not parse (the message points at the position).
    TypeError
        If ``metric`` is of none of these types.

    Examples
    --------
    >>> import cwla.ir_measures
    >>> cwla.ir_measures.measure("INST_PE", qrels={"q1": {"d1": 3, "d2": 0}, "q2": {"d3": 1}})
    cwla(metric='INST_PE[gain=linear(gmax=3)]')
    """
    if isinstance(metric, CwlaMeasure):
        text = metric.text
    elif isinstance(metric, str):
        text = metric
    elif isinstance(metric, MEASURE_TYPES):
        text = str(metric)
    elif isinstance(metric, _irm.Measure):
        text = repr(metric)
        try:
            parse_metric(text)
        except MetricSyntaxError as err:
            raise MetricSyntaxError(f"the ir_measures measure {text} is not one cwla computes: {err}") from None
    else:
        raise ParameterError(f"cwla.ir_measures.measure() takes a cwla metric text (e.g. 'RBP_PE', 'nDCG@10'), a cwla "
                        f"Metric or counting measure, or an ir_measures measure; got {type(metric).__name__} "
                        f"{metric!r}")
    result = CwlaMeasure(metric=text)
    if qrels is None:
        return result
    fixed = _fixed_text(text, result.metric, _read_qrels(qrels, "cwla.ir_measures.measure(qrels=...)"))
    return result if fixed == text else CwlaMeasure(metric=fixed)


_SEPARATOR = re.compile(r"[\s,]")
_JOINS_BEFORE = tuple("+@[(={:,")  # a chunk ending so goes on
_JOINS_AFTER = tuple("+@[(=})]:")  # a chunk starting so continues the previous one


def _split_texts(text: str) -> list[str]:
    """Split a text of several metric texts at the whitespace and commas outside brackets and quotes,
    except whitespace next to an operator (``RBP (p=0.8) + ERG`` is one text, the grammar's whitespace
    being free)."""
    chunks, separators, buf, depth, quote = [], [], [], 0, None
    for ch in text:
        if quote:
            buf.append(ch)
            quote = None if ch == quote else quote
            continue
        if depth == 0 and _SEPARATOR.match(ch):
            if buf:
                chunks.append("".join(buf))
                separators.append(ch)
                buf = []
            elif separators and ch == ",":
                separators[-1] = ","
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        buf.append(ch)
    if buf:
        chunks.append("".join(buf))
    texts: list[str] = []
    for i, chunk in enumerate(chunks):
        if texts and separators[i - 1] != "," and (texts[-1].endswith(_JOINS_BEFORE) or chunk.startswith(_JOINS_AFTER)):
            texts[-1] = f"{texts[-1]} {chunk}"
        else:
            texts.append(chunk)
    return texts


def measures(metrics: str | Iterable[str | Metric | CountingMeasure | _irm.Measure], *,
             qrels: QrelsLike | None = None) -> list[CwlaMeasure]:
    """Several cwla measures at once.

    Parameters
    ----------
    metrics : str or iterable
        One text holding several cwla metric texts separated by whitespace or commas
        (``"RBP_PE INST_ERG nDCG@10"``, ``"P(rel=2)@10, RBP(rel=2, p=0.8)"``; whitespace and commas
        inside brackets, braces or quotes, and whitespace beside an operator such as ``+`` or
        ``@``, belong to the text), or an iterable of what :func:`measure` takes.
    qrels : qrels, optional
        As in :func:`measure`, for every measure.

    Returns
    -------
    list of CwlaMeasure
        In the order given.

    Examples
    --------
    >>> import cwla.ir_measures
    >>> cwla.ir_measures.measures("RBP_PE  INST(T=2.5) + PE(beta=0.5), nDCG@10")
    [cwla(metric='RBP_PE'), cwla(metric='INST(T=2.5) + PE(beta=0.5)'), cwla(metric='nDCG@10')]
    """
    if isinstance(metrics, str):
        items: list = _split_texts(metrics)
        if not items:
            raise MetricSyntaxError("cwla.ir_measures.measures(): no metric text in ''; give e.g. 'RBP_PE INST_ERG'")
    elif isinstance(metrics, Iterable):
        items = list(metrics)
    else:
        raise ParameterError(f"cwla.ir_measures.measures() takes a text of metric texts or an iterable of them; got "
                        f"{type(metrics).__name__}")
    judgements = None if qrels is None else _read_qrels(qrels, "cwla.ir_measures.measures(qrels=...)")
    out = []
    for item in items:
        m = measure(item)
        fixed = _fixed_text(m.text, m.metric, judgements)
        out.append(m if fixed == m.text else CwlaMeasure(metric=fixed))
    return out


# ---------------------------------------------------------------------------
# the provider
# ---------------------------------------------------------------------------


class CwlaEvaluator(Evaluator):
    """Scores runs with cwla's measures against one set of qrels (read once).

    Parameters
    ----------
    measures : iterable of CwlaMeasure
        The measures (ir_measures' FallbackProvider hands each provider the measures it supports).
    qrels : qrels
        What ir_measures accepts (a DataFrame with query_id, doc_id, relevance; a dict
        {query_id: {doc_id: relevance}}; an iterable of namedtuples), PyTerrier's frames (qid,
        docno, label) and anything else :func:`cwla.read_qrels` reads.

    Notes
    -----
    :meth:`iter_calc` (ir_measures' ``Evaluator.iter_calc``) yields, for each measure, the value of
    every topic of the run that is in the qrels, from one :func:`cwla.evaluate` call over the run
    and every measure; then each qrels topic missing from the run with ``DEFAULT`` (0.0).
    """

    def __init__(self, measures: Iterable[CwlaMeasure], qrels: QrelsLike) -> None:
        chosen = list(dict.fromkeys(measures))
        wrong = [m for m in chosen if not isinstance(m, CwlaMeasure)]
        if wrong:
            raise ParameterError(f"the cwla provider computes only cwla measures (cwla.ir_measures.measure(...)); got "
                            f"{wrong}")
        if any(getattr(scored(m.metric), "intents", None) is not None for m in chosen):
            self._judgements = _read_subtopics(qrels, "ir_measures evaluator with cwla measures")
        else:
            self._judgements = _read_qrels(qrels, "ir_measures evaluator with cwla measures")
        super().__init__(chosen, set() if self._judgements is None else set(self._judgements.topics))

    def _iter_calc(self, run: RunLike) -> Iterator[_IrmMetric]:
        """The (query_id, measure, value) of every run topic in the qrels, for every measure."""
        if self._judgements is None:
            return
        where = f"ir_measures evaluator with {sorted(map(repr, self.measures))}"
        frame = _read_run(run, where)
        if frame is None:
            return
        labelled = {m.text: m.metric for m in self.measures}
        try:
            ev = evaluate(self._judgements, frame, labelled)
        except CwlaError as err:
            raise type(err)(f"{where}: {err}") from None
        missing = set(ev.missing_topics[ev.runs[0]])
        scored = [(t, topic) for t, topic in enumerate(ev.topics) if topic not in missing]
        for i, m in enumerate(self.measures):
            row = ev.values[i, 0]
            for t, topic in scored:
                yield _IrmMetric(query_id=topic, measure=m, value=float(row[t]))


class CwlaProvider(Provider):
    """The ir_measures provider of :class:`CwlaMeasure` (registered as ``"cwla"``, and put first in
    ir_measures' default pipeline, so that ``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and
    ``evaluator`` compute cwla measures with it and every other measure as before)."""

    NAME = NAME
    SUPPORTED_MEASURES: list = []

    def supports(self, measure: _irm.Measure) -> bool:
        """True for a :class:`CwlaMeasure`, False for every other measure."""
        return isinstance(measure, CwlaMeasure)

    def _evaluator(self, measures: Iterable[_irm.Measure], qrels: QrelsLike) -> CwlaEvaluator:
        return CwlaEvaluator(measures, qrels)


#: the registered provider (``ir_measures.providers.registry["cwla"]``); ``provider.calc_aggregate(measures,
#: qrels, run)`` computes cwla measures without the rest of ir_measures' pipeline
provider: CwlaProvider = CwlaProvider()


def _register() -> None:
    """Register the provider and the measure with ir_measures: the provider in its registry and first in its
    default pipeline (in place of an earlier one of this name), the measure class in its measure registry
    (for ``ir_measures.parse_measure``)."""
    _irm.providers.registry[NAME] = provider
    _irm.measures.registry[NAME] = CwlaMeasure
    pipeline = _irm.DefaultPipeline.providers
    pipeline[:] = [provider] + [p for p in pipeline if getattr(p, "NAME", None) != NAME]


_register()
