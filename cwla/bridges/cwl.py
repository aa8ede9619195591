"""cwl_eval's measures, metrics files and output, on cwla's kernels (``cwla cwl``: a drop-in for ``cwl-eval``).

cwl_eval 1.0.12 (Azzopardi, Thomas & Moffat, SIGIR 2019) reports for each measure, per topic of the
results file:

* EU = sum_{i<=H} W(i) r_i, W(i) = V(i) / E: the model with ERG and ``stop=true`` (the users who go on
  past H keep cg(H));
* ETU = sum_{i<=H} L(i) cg(i): the model with ETG and ``stop=false`` (the mass past H is dropped), except
  for the models whose continuation cwl_eval ends with C(H) = 0 (TBG, U, AP: ``stop=true``); cwl_eval's U
  also gives rank H no weight (W(H) = 0): it is U at depth H - 1;
* EC = sum W(i) c_i, ETC = sum L(i) cc(i) and ED = E (:attr:`cwla.Evaluation.expected`), with costs per
  element type (the results file's second column; cwl_eval's cost file), max_cost (default 1) where none
  is given (an element type the cost file does not price, or no cost file);
* with ``-r``, the residuals: unjudged documents and the positions past the ranking up to H at gain 1
  (cwl_eval's max_gain) and their costs at min_cost, minus the above.

cwl_eval reads the results file in file order (the rank and score columns are ignored), scores the topics
of the results file (a topic the gain file does not judge has every document unjudged), and takes gains
from the gain file as they are (in [0, 1]). :data:`CWL_MEASURES` maps each of its metric classes to a
cwla browsing model; ``TrAPCWLMetric`` is not among them: its W does not sum to 1 and its C exceeds 1, so
it is no C/W/L model.

Where ``cwla cwl`` differs from ``cwl-eval`` on purpose: a docno twice in one topic of the results file, or
twice in the gain file, is an error naming the line (cwl_eval scores the document twice / keeps the last
gain); a topic whose lines are not contiguous is one ranking, printed once (cwl_eval scores and prints each
block apart); ``-b`` (BibTeX), ``--max_gain`` and ``--min_gain`` are not offered (gains lie in [0, 1], unjudged
documents count 1 in the residuals). Numbers that cwl_eval sums in another order may differ in the last
printed digit where they fall on a rounding boundary, and its zeros from float noise print as ``-0.0000``.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import warnings

import attrs
import numpy as np
import pandas as pd

from ..metrics.aggregations import ERG, ETG
from ..metrics.browsing import (AP, BPM, DCG, INSQ, INST, NERR8, NERR9, NERR10, NERR11, NPV, RBP, RR, SET, TBG, U, IFT,
                       IFTGoal, IFTRate, Precision)
from ..data.files import read_bytes, text_fields, text_lines
from ..data.readers import line_fields, read_qrels, read_run
from ..data.trec_format import QRELS_LAYOUT, RUN_LAYOUT
from ..errors import CwlaWarning, InputError
from ..metrics.gains import Linear
from ..metrics.metric import METRIC_CONSTRAINTS, Metric
from ..scoring.evaluator import OPTION_CONSTRAINTS
from .._validate import FLAG, validate_params

__all__ = ["CwlMeasure", "CWL_MEASURES", "DEFAULT_CWL_METRICS", "parse_cwl_metric", "read_cwl_metrics",
           "read_cost_file", "cwl_eval", "cwl_frame", "CWL_HEADER", "CWL_RESIDUAL_HEADER"]

CWL_HEADER = "Topic\tMetric\tEU\tETU\tEC\tETC\tED"
CWL_RESIDUAL_HEADER = CWL_HEADER + "\tResEU\tResETU\tResEC\tResETC\tResED"


@attrs.frozen
class _Class:
    """One cwl_eval metric class: its parameters and defaults, the name it prints (a ``str.format`` pattern
    over the parameters as cwl_eval holds them: ints stay ints), the cwla model, whether cwl_eval's
    continuation ends with C(H) = 0 (then ETU keeps ``stop=true``), and whether cwl_eval also gives rank H
    no weight (U: W(H) = 0, so its user stops at H - 1)."""

    params: tuple
    defaults: tuple
    name: str
    model: object
    stops: bool = False
    short: bool = False


def _bpm_dynamic(T, K, hb, hc, gain_med):
    # cwl_eval 1.0.12 updates T where it means to update K: hc has no effect
    return BPM(T=T, K=K, hb=hb, hc=0.0, gain_med=gain_med)


#: cwl_eval's metric class -> how cwla computes it
CWL_MEASURES = {
    "PrecisionCWLMetric": _Class(("k",), (10,), "P@{k}", lambda k: Precision(k)),
    "RBPCWLMetric": _Class(("theta",), (0.9,), "RBP@{theta}", lambda theta: RBP(theta)),
    "NDCGCWLMetric": _Class(("k",), (None,), "NDCG-k@{k}", lambda k: DCG(k)),
    "RRCWLMetric": _Class((), (), "RR", lambda: RR()),
    "APCWLMetric": _Class((), (), "AP", lambda: AP("retrieved"), stops=True),
    "INSTCWLMetric": _Class(("T",), (1.0,), "INST-T={T}", lambda T: INST(T)),
    "INSQCWLMetric": _Class(("T",), (1.0,), "INSQ-T={T}", lambda T: INSQ(T)),
    "NERReq8CWLMetric": _Class(("k",), (None,), "NERR-EQ8@k={k}", lambda k: NERR8(k)),
    "NERReq9CWLMetric": _Class(("k",), (None,), "NERR-EQ9@k={k}", lambda k: NERR9(k)),
    "NERReq10CWLMetric": _Class(("phi",), (0.9,), "NERR-EQ10@phi={phi}", lambda phi: NERR10(phi)),
    "NERReq11CWLMetric": _Class(("T",), (1.0,), "NERR-EQ11@T={T}", lambda T: NERR11(T)),
    "BPMCWLMetric": _Class(("T", "K"), (1.0, 10), "BPM-Static-T={T}-K={K}", lambda T, K: BPM(T, K)),
    "BPMDCWLMetric": _Class(("T", "K", "hb", "hc", "gain_med"), (1, 10, 1.0, 1.0, 0.5),
                            "BPM-Dynamic-T={T}-K={K}-hb={hb}-hc={hc}", _bpm_dynamic),
    "TBGCWLMetric": _Class(("halflife",), (224,), "TBG-H@{halflife} ", lambda halflife: TBG(halflife), stops=True),
    "UMeasureCWLMetric": _Class(("L",), (1000,), "U-L@{L} ", lambda L: U(L), stops=True, short=True),
    "IFTGoalCWLMetric": _Class(("T", "b1", "R1"), (None, None, None), "IFT-C1-T={T}-b1={b1}-R1={R1}",
                               lambda T, b1, R1: IFTGoal(T, b1, R1)),
    "IFTRateCWLMetric": _Class(("A", "b2", "R2"), (None, None, None), "IFT-C2-A={A}-b2={b2}-R2={R2}",
                               lambda A, b2, R2: IFTRate(A, b2, R2)),
    "IFTGoalRateCWLMetric": _Class(("T", "b1", "R1", "A", "b2", "R2"), (None,) * 6,
                                   "IFT-C1-C2-T={T}-b1={b1}-R1={R1}-A={A}-b2={b2}-R2={R2}",
                                   lambda T, b1, R1, A, b2, R2: IFT(T, b1, R1, A, b2, R2)),
    "SETCWLMetric": _Class(("beta", "k"), (0.5, 10), "SET-k@{k}-b@{beta}", lambda beta, k: SET(beta, k)),
    "NPVCWLMetric": _Class(("rate",), (0.1,), "NPV-r@{rate}", lambda rate: NPV(rate)),
}

#: what cwl_eval reports without a metrics file
DEFAULT_CWL_METRICS = ("PrecisionCWLMetric(1)", "PrecisionCWLMetric(2)", "PrecisionCWLMetric(3)",
                       "PrecisionCWLMetric(4)", "PrecisionCWLMetric(5)", "PrecisionCWLMetric(10)",
                       "RBPCWLMetric(0.2)", "RBPCWLMetric(0.4)", "RBPCWLMetric(0.8)", "NDCGCWLMetric(5)",
                       "NDCGCWLMetric(10)", "RRCWLMetric()", "APCWLMetric()", "INSTCWLMetric(1.0)",
                       "INSTCWLMetric(2.0)", "INSTCWLMetric(3.0)")

_LINE = re.compile(r"\s*(?P<cls>[A-Za-z_][A-Za-z0-9_]*)\s*\((?P<args>[^()]*)\)\s*\Z")
_NUMBER = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*\Z")

_INT64_MAX = 2**63 - 1


def _shown(token: str) -> str:
    """A metric argument for a message: quoted, its middle cut if it is long."""
    return repr(token) if len(token) <= 40 else f"{token[:20] + '...' + token[-5:]!r} ({len(token)} characters)"


@attrs.frozen
class CwlMeasure:
    """One line of a cwl_eval metrics file: the name cwl_eval prints and the two cwla metrics behind it
    (EU from ``eu``; ETU, EC, ETC, ED from ``etu``)."""

    text: str
    name: str
    eu: Metric
    etu: Metric


def parse_cwl_metric(text: str, depth: int = 1000, where: str = "") -> CwlMeasure:
    """One metric in cwl_eval's syntax, e.g. ``RBPCWLMetric(0.8)`` or ``BPMCWLMetric(1.2,10)``: arguments
    by position, an argument with a '.' a float, else an int (as cwl_eval reads them)."""
    at = f"{where}: " if where else ""
    m = _LINE.match(text)
    accepted = f"accepted: {', '.join(CWL_MEASURES)} (e.g. RBPCWLMetric(0.8))"
    if m is None:
        raise InputError(f"{at}expected a cwl_eval metric ClassName(arg, ...), found {text.strip()!r}; {accepted}")
    cls = CWL_MEASURES.get(m.group("cls"))
    if cls is None:
        hint = " (TrAPCWLMetric is not a C/W/L model: its W does not sum to 1)" if m.group("cls") == "TrAPCWLMetric" \
            else ""
        raise InputError(f"{at}unknown cwl_eval metric {m.group('cls')!r}{hint}; {accepted}")
    raw = [a.strip() for a in m.group("args").split(",") if a.strip()] if m.group("args").strip() else []
    values = []
    for a in raw:
        if not _NUMBER.match(a):
            raise InputError(f"{at}{m.group('cls')}: argument {_shown(a)} is not a number")
        if "." in a or "e" in a.lower():
            values.append(float(a))
            if not math.isfinite(values[-1]):
                raise InputError(f"{at}{m.group('cls')}: argument {_shown(a)} is not a finite number")
        else:
            # more than 19 digits cannot be a 64-bit integer (and Python refuses ints of over 4300 digits)
            values.append(int(a) if len(a.lstrip("+-").lstrip("0")) <= 19 else _INT64_MAX + 1)
            if not -_INT64_MAX - 1 <= values[-1] <= _INT64_MAX:
                raise InputError(f"{at}{m.group('cls')}: argument {_shown(a)} is out of the 64-bit integer range")
    if len(values) > len(cls.params):
        raise InputError(f"{at}{m.group('cls')} takes at most {len(cls.params)} arguments "
                         f"({', '.join(cls.params) or 'none'}), got {len(values)}")
    args = dict(zip(cls.params, list(values) + list(cls.defaults[len(values):])))
    missing = [p for p, v in args.items() if v is None]
    if missing:
        raise InputError(f"{at}{m.group('cls')} needs {', '.join(missing)} ({', '.join(cls.params)})")
    try:
        model = cls.model(**args)
    except (TypeError, ValueError) as err:
        raise InputError(f"{at}{m.group('cls')}: {err}") from None
    gain = Linear(1.0)
    if cls.short:
        if depth < 2:
            raise InputError(f"{at}{m.group('cls')} needs a depth of at least 2 (cwl_eval gives rank H no weight "
                             f"and divides by zero at depth 1)")
        depth -= 1
    eu = Metric(model, ERG(), gain=gain, depth=depth, stop=True)
    etu = Metric(model, ETG(), gain=gain, depth=depth, stop=cls.stops)
    return CwlMeasure(text.strip(), cls.name.format(**args), eu, etu)


def read_cwl_metrics(path, depth: int = 1000) -> list:
    """The measures of a cwl_eval metrics file (one ``ClassName(args)`` a line; blank lines skipped). A file
    without a metric gives none, with a warning (cwl_eval then prints nothing and exits 0)."""
    out = [parse_cwl_metric(line, depth, f"{path}, line {n}") for n, line in text_lines(path, "cwl_eval metrics")]
    if not out:
        warnings.warn(f"{os.fsdecode(path)}: no metric in the metrics file; nothing is measured", CwlaWarning,
                      stacklevel=2)
    return out


def read_cost_file(path) -> dict:
    """cwl_eval's cost file: ``element_type cost`` a line -> {element type: cost}; costs finite and > 0."""
    costs = {}
    for n, parts in text_fields(path, "cwl_eval cost", "element_type cost"):
        try:
            cost = float(parts[1])
        except ValueError:
            raise InputError(f"{path}, line {n}: the cost {parts[1]!r} is not a number") from None
        if not (np.isfinite(cost) and cost > 0):
            raise InputError(f"{path}, line {n}: costs must be finite and > 0, found {parts[1]!r}")
        costs[parts[0]] = cost
    return costs


def _read_gains(path) -> pd.DataFrame:
    """cwl_eval's gain file as qrels (:func:`cwla.read_qrels`: ``qid iter docno gain``); every gain in [0, 1]."""
    gains = read_qrels(path)
    outside = ((gains["grade"] < 0) | (gains["grade"] > 1)).to_numpy()
    if outside.any():
        # row i of the frame is the i-th line that is neither blank nor a comment
        label = os.fsdecode(path)
        lines = line_fields(read_bytes(path, "qrels", layout=QRELS_LAYOUT), label, comments=True)
        lineno, fields = next(itertools.islice(lines, int(np.argmax(outside)), None))
        raise InputError(f"{label}, line {lineno}: cwl_eval's gains must lie in [0, 1]; found {fields[3]}")
    return gains


def _document_costs(table: dict, result_file) -> pd.DataFrame | None:
    """The cost of every document of the results file (read by :func:`read_run_in_file_order` first: every
    line has its fields) whose element type (second field) ``table`` prices: a frame ``topic, docno, cost``;
    None when ``table`` prices none of them (then every document costs max_cost / min_cost, as in
    cwl_eval, which gives an element type without a cost the default)."""
    label = os.fsdecode(result_file)
    lines = line_fields(read_bytes(result_file, "run", layout=RUN_LAYOUT), label)
    rows = [(f[0], f[2], table[f[1]]) for _, f in lines if f[1] in table]
    if not rows:
        return None
    topic, docno, cost = zip(*rows)
    return pd.DataFrame({"topic": topic, "docno": docno, "cost": np.array(cost, dtype=np.float64)})


CWL_COLUMNS = tuple(CWL_RESIDUAL_HEADER.split("\t"))


#: what cwl_eval's numeric options may be: its depth a metric's depth, its costs evaluate's
_OPTIONS = {"max_depth": METRIC_CONSTRAINTS["depth"][0], "max_cost": OPTION_CONSTRAINTS["max_cost"],
            "min_cost": OPTION_CONSTRAINTS["min_cost"]}


@validate_params(_OPTIONS)
def cwl_frame(gain_file, result_file, metrics_file=None, cost_file=None, max_depth: int = 1000,
              max_cost: float = 1.0, min_cost: float = 1.0) -> pd.DataFrame:
    """cwl_eval's numbers, unrounded: one row per topic (in the results file's order) and measure (in the
    metrics file's order), columns ``Topic, Metric, EU, ETU, EC, ETC, ED, ResEU, ResETU, ResEC, ResETC,
    ResED``."""
    from ..scoring.evaluator import evaluate

    measures = read_cwl_metrics(metrics_file, max_depth) if metrics_file else \
        [parse_cwl_metric(t, max_depth) for t in DEFAULT_CWL_METRICS]
    gains = _read_gains(gain_file)
    run = read_run_in_file_order(result_file)
    topics = list(dict.fromkeys(run["topic"]))
    # cwl_eval scores every topic of the results file: a topic the gain file lacks has only unjudged documents
    absent = sorted(set(topics) - set(gains["topic"]))
    if absent:
        used = set(run["docno"])
        filler = "cwla-cwl-no-document"
        while filler in used:
            filler += "_"
        gains = pd.concat([gains, pd.DataFrame({"topic": absent, "docno": filler, "grade": 0.0})],
                          ignore_index=True)
    costs = _document_costs(read_cost_file(cost_file), result_file) if cost_file else None
    if not measures or run.empty:  # cwl_eval scores the results file's topics: an empty file has none (the
        # reader has said that it is empty, once)
        return pd.DataFrame({name: pd.Series(dtype=object if name in ("Topic", "Metric") else np.float64)
                             for name in CWL_COLUMNS})
    metrics = {}
    for i, m in enumerate(measures):
        metrics[f"{i}:eu"] = m.eu
        metrics[f"{i}:etu"] = m.etu
    ev = evaluate(gains, run, metrics, order="file", costs=costs, expected=True, max_cost=max_cost,
                  min_cost=min_cost)
    t = pd.Index(ev.topics).get_indexer(topics)
    rows = {"Topic": np.repeat(np.array(topics, dtype=object), len(measures)),
            "Metric": np.tile(np.array([m.name for m in measures], dtype=object), len(topics))}
    eu = [ev.labels.index(f"{i}:eu") for i in range(len(measures))]
    etu = [ev.labels.index(f"{i}:etu") for i in range(len(measures))]

    def cells(array, rows_of):  # (measure, topic) -> topic-major, measure-minor
        return array[rows_of][:, 0][:, t].T.reshape(-1)

    rows["EU"], rows["ETU"] = cells(ev.values, eu), cells(ev.values, etu)
    for k, name in enumerate(("EC", "ETC", "ED")):
        rows[name] = cells(ev.expected[k], etu)
    rows["ResEU"], rows["ResETU"] = cells(ev.residuals, eu), cells(ev.residuals, etu)
    for k, name in enumerate(("ResEC", "ResETC", "ResED")):
        rows[name] = cells(ev.expected_residuals[k], etu)
    return pd.DataFrame(rows, columns=list(CWL_COLUMNS))


@validate_params({**_OPTIONS, "residuals": FLAG, "colnames": FLAG})
def cwl_eval(gain_file, result_file, metrics_file=None, cost_file=None, residuals: bool = False,
             colnames: bool = False, max_depth: int = 1000, max_cost: float = 1.0, min_cost: float = 1.0) -> str:
    """What ``cwl-eval GAIN_FILE RESULT_FILE [-m METRICS_FILE] [-c COST_FILE] [-r] [-n]`` prints: tab-separated,
    4 decimals (:func:`cwl_frame`'s numbers)."""
    frame = cwl_frame.__wrapped__(gain_file, result_file, metrics_file, cost_file, max_depth, max_cost,
                                  min_cost)  # (the options checked here already)
    columns = list(CWL_COLUMNS if residuals else CWL_COLUMNS[:7])
    lines = ["\t".join(columns)] if colnames else []
    numbers = frame[columns[2:]].to_numpy()
    for topic, name, values in zip(frame["Topic"], frame["Metric"], numbers):
        lines.append("\t".join([topic, name] + [f"{v:.4f}" for v in values]))
    return "".join(line + "\n" for line in lines)


def read_run_in_file_order(path) -> pd.DataFrame:
    """The results file as a run frame (topic, docno, score) whose scores keep the file order."""
    run = read_run(path)
    return run.assign(score=-np.arange(len(run), dtype=np.float64))
