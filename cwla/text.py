"""The metric language: one canonical text form that prints and parses back.

Grammar (whitespace is free; names are case-sensitive except the aliases noted)::

    metric   := head [ "[" option ("," option)* "]" ]
    head     := part "+" part                 canonical:       RBP(p=0.8)+ERG
              | MODEL_AGG                     Chen & Sakai:    RBP_ERG, INST_PE, ERR_ERR
              | part ["@" INT]                trec habits:     P@10, AP, nDCG@10, ERR@20
    part     := NAME [ "(" arg ("," arg)* ")" ]
    arg      := [NAME "="] value              (a lone value fills the only parameter)
    option   := gain=GAIN | cutoff=INT | depth=INT | stop=true|false | normalize=ideal|none
    GAIN     := linear[(gmax=X)] | exponential[(gmax=X)] | binary(threshold=X)
              | table(G:X, ...) | linear:X | exponential:X | binary:X

``str(metric)`` prints every model parameter and only the options that are set,
in the order above, so ``parse_metric(str(m)) == m`` for every metric.

The trec_eval / ir_measures names keep those tools' semantics:

=================  ===============================================================
``P@k``            Precision(k)+ERG, binary gains (``P(rel=2)@k``: threshold 2)
``AP``, ``MAP``    AP(R=qrels)+ERG, binary gains (``AP(rel=2)``)
``nDCG@k``         DCG(k)+ETG, cutoff k, ideal-normalised, linear gains
``SDCG@k``         DCG(k)+ERG (cwl_eval's scaled DCG)
``RBP(p=x)``       RBP(p=x)+ERG
``INST(T=x)``      INST(T=x)+ERG
``ERR@k``          ERR+ERR, cutoff k, exponential gains with gmax 4 (gdeval)
=================  ===============================================================

Chen & Sakai's names use the paper's parameters: Precision and DCG at k = 10,
RBP p = 0.8, INST T = 2.5, PE beta = 0.5; AP with R = qrels.
"""

from __future__ import annotations

import re

from .aggregations import AGGREGATIONS, ERG, ETG, ERRAgg
from .browsing import AP, BROWSING_MODELS, DCG, ERR, INST, RBP, Precision
from .errors import MetricSyntaxError
from .gains import Binary, Exponential, GainMap, Linear, Table
from .metric import Metric

__all__ = ["parse_metric", "format_metric", "parse_gain_text", "CHEN_SAKAI_DEFAULTS"]

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<str>'[^']*'|\"[^\"]*\")|(?P<op>[()\[\],=+@:]))"
)

#: Chen & Sakai 2023's parameters for their 6 x 7 grid.
CHEN_SAKAI_DEFAULTS = {
    "Precision": Precision(k=10),
    "DCG": DCG(k=10),
    "RBP": RBP(p=0.8),
    "INST": INST(T=2.5),
    "AP": AP(R="qrels"),
    "ERR": ERR(),
}

_AGG_ALIASES = {name.lower(): cls for name, cls in AGGREGATIONS.items()}
_MODEL_ALIASES = {name.lower(): cls for name, cls in BROWSING_MODELS.items()}
_GAINS = {"linear": (Linear, "gmax"), "exponential": (Exponential, "gmax"), "exp": (Exponential, "gmax"),
          "binary": (Binary, "threshold")}
_OPTIONS = ("gain", "cutoff", "depth", "stop", "normalize")


_ACCEPTED = {
    "metric": "accepted: MODEL+AGGREGATION[options] (e.g. 'RBP(p=0.8)+ERG[cutoff=10]'), Chen & Sakai names "
              "(e.g. 'INST_PE') or P@k, AP, nDCG@k, SDCG@k, RBP(p=..), INST(T=..), ERR@k",
    "gain map": "accepted: linear[(gmax=X)], exponential[(gmax=X)], binary(threshold=X), table(GRADE:GAIN, ...), "
                "or linear:X, exponential:X, binary:X",
}


class _Parser:
    def __init__(self, text: str, what: str = "metric"):
        if not isinstance(text, str):
            raise TypeError(f"a {what} text must be a str, got {type(text).__name__}")
        self.text, self.what = text, what
        self.tokens = []  # (kind, value, position)
        pos = 0
        stripped = text.rstrip()
        while pos < len(stripped):
            m = _TOKEN.match(stripped, pos)
            if not m or m.end() == pos:
                self.fail(f"unexpected character {stripped[pos:].lstrip()[:1]!r}", pos)
            kind = m.lastgroup
            value = m.group(kind)
            self.tokens.append((kind, value, m.start(kind)))
            pos = m.end()
        self.i = 0

    def fail(self, problem, pos=None):
        if pos is None:
            pos = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        raise MetricSyntaxError(
            f"cannot parse {self.what} {self.text!r}: {problem} at position {pos}\n"
            f"    {self.text}\n    {' ' * pos}^\n" + _ACCEPTED[self.what]
        )

    def peek(self, value=None):
        if self.i >= len(self.tokens):
            return None
        tok = self.tokens[self.i]
        if value is None or tok[1] == value:
            return tok
        return None

    def take(self, value=None, kind=None, expected=None):
        tok = self.peek()
        if tok is None or (value is not None and tok[1] != value) or (kind is not None and tok[0] != kind):
            found = "end of text" if tok is None else repr(tok[1])
            self.fail(f"expected {expected or repr(value) or kind}, found {found}")
        self.i += 1
        return tok

    def at_end(self):
        return self.i >= len(self.tokens)

    # part := NAME [ "(" arg ("," arg)* ")" ]
    def part(self):
        name = self.take(kind="name", expected="a name")
        args = []
        if self.peek("("):
            self.take("(")
            if not self.peek(")"):
                args.append(self.arg())
                while self.peek(","):
                    self.take(",")
                    args.append(self.arg())
            self.take(")", expected="')'")
        return name, args

    def arg(self):
        tok = self.peek()
        nxt = self.tokens[self.i + 1] if self.i + 1 < len(self.tokens) else None
        if tok and tok[0] == "name" and nxt and nxt[1] == "=":
            self.i += 2
            return (tok[1], self.value(), tok[2])
        if tok and tok[0] == "num" and nxt and nxt[1] == ":":
            self.i += 2
            return (":", (float(tok[1]), float(self.take(kind="num", expected="a number")[1])), tok[2])
        return (None, self.value(), tok[2] if tok else len(self.text))

    def value(self):
        tok = self.take(expected="a value")
        if tok[0] == "num":
            return float(tok[1]) if any(c in tok[1] for c in ".eE") else int(tok[1])
        if tok[0] == "str":
            return tok[1][1:-1]
        if tok[0] == "name":
            return tok[1]
        self.fail(f"expected a value, found {tok[1]!r}", tok[2])


def _build(parser, cls, args, name_tok, params):
    """Instantiate ``cls`` from parsed args; ``params`` are its parameter names in order."""
    kwargs = {}
    for key, value, pos in args:
        if key is None:
            if len(params) != 1 or params[0] in kwargs:
                parser.fail(f"{name_tok[1]} takes {', '.join(params) or 'no parameters'} by name", pos)
            key = params[0]
        if key not in params:
            accepted = ", ".join(params) if params else "no parameters"
            parser.fail(f"{name_tok[1]} has no parameter {key!r} (accepted: {accepted})", pos)
        kwargs[key] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        parser.fail(f"invalid {name_tok[1]}: {err}", name_tok[2])


_MODEL_PARAMS = {Precision: ("k",), DCG: ("k",), RBP: ("p",), INST: ("T",), AP: ("R",), ERR: ()}
_AGG_PARAMS = {cls: (("beta",) if name == "PE" else ()) for name, cls in AGGREGATIONS.items()}


def _model(parser, tok, args):
    cls = BROWSING_MODELS.get(tok[1]) or _MODEL_ALIASES.get(tok[1].lower())
    if cls is None:
        parser.fail(f"unknown browsing model {tok[1]!r} (accepted: {', '.join(BROWSING_MODELS)})", tok[2])
    return _build(parser, cls, args, tok, _MODEL_PARAMS[cls])


def _aggregation(parser, tok, args):
    cls = AGGREGATIONS.get(tok[1]) or _AGG_ALIASES.get(tok[1].lower())
    if cls is None:
        parser.fail(f"unknown aggregation {tok[1]!r} (accepted: {', '.join(AGGREGATIONS)})", tok[2])
    return _build(parser, cls, args, tok, _AGG_PARAMS[cls])


def _gain(parser) -> GainMap:
    tok, args = parser.part()
    name = tok[1].lower()
    if parser.peek(":") and not args:  # CLI form linear:3
        parser.take(":")
        args = [(None, parser.value(), tok[2])]
    if name == "table":
        pairs = {}
        for key, value, pos in args:
            if key != ":":
                parser.fail("table() takes GRADE:GAIN pairs", pos)
            if value[0] in pairs:
                parser.fail(f"table() lists grade {value[0]:g} twice", pos)
            pairs[value[0]] = value[1]
        try:
            return Table(pairs)
        except (TypeError, ValueError) as err:
            parser.fail(f"invalid table: {err}", tok[2])
    if name not in _GAINS:
        parser.fail(f"unknown gain map {tok[1]!r} (accepted: linear, exponential, binary, table)", tok[2])
    cls, param = _GAINS[name]
    return _build(parser, cls, args, tok, (param,))


def _bool(parser, value, pos):
    text = str(value).lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    parser.fail(f"stop must be true or false, got {value!r}", pos)


def _options(parser):
    options = {}
    parser.take("[")
    while True:
        key = parser.take(kind="name", expected="an option name")
        if key[1] not in _OPTIONS:
            parser.fail(f"unknown option {key[1]!r} (accepted: {', '.join(_OPTIONS)})", key[2])
        if key[1] in options:
            parser.fail(f"option {key[1]!r} given twice", key[2])
        parser.take("=", expected="'='")
        pos = parser.peek()[2] if parser.peek() else len(parser.text)
        if key[1] == "gain":
            options["gain"] = _gain(parser)
        else:
            value = parser.value()
            if key[1] == "stop":
                value = _bool(parser, value, pos)
            elif key[1] == "normalize":
                if value not in ("ideal", "none"):
                    parser.fail(f"normalize must be ideal or none, got {value!r}", pos)
            elif not isinstance(value, int):
                parser.fail(f"{key[1]} must be an integer, got {value!r}", pos)
            options[key[1]] = value
        if parser.peek("]"):
            parser.take("]")
            return options
        parser.take(",", expected="',' or ']'")


def _at(parser, name_tok):
    if not parser.peek("@"):
        parser.fail(f"{name_tok[1]} needs a cutoff: {name_tok[1]}@k")
    parser.take("@")
    tok = parser.take(kind="num", expected="an integer cutoff")
    if not tok[1].isdigit() or int(tok[1]) < 1:
        parser.fail(f"cutoff must be an integer >= 1, got {tok[1]}", tok[2])
    return int(tok[1])


def _rel_gain(parser, tok, args):
    """ir_measures' ``rel=`` parameter: binary gains at that threshold (default 1)."""
    threshold = 1
    for key, value, pos in args:
        if key not in ("rel", None):
            parser.fail(f"{tok[1]} accepts only rel= (binary relevance threshold)", pos)
        threshold = value
    try:
        return Binary(threshold)
    except (TypeError, ValueError) as err:
        parser.fail(f"invalid rel: {err}", tok[2])


def _habit(parser, tok, args):
    """The trec_eval / ir_measures names."""
    name = tok[1]
    if name == "P":
        k = _at(parser, tok)
        return Metric(Precision(k), ERG(), gain=_rel_gain(parser, tok, args), cutoff=k)
    if name in ("AP", "MAP", "map") and not any(key == "R" for key, _, _ in args):
        return Metric(AP("qrels"), ERG(), gain=_rel_gain(parser, tok, args))
    if name in ("nDCG", "NDCG", "ndcg"):
        k = _at(parser, tok)
        if args:
            parser.fail(f"{name}@k takes no parameters", tok[2])
        return Metric(DCG(k), ETG(), gain=Linear(), cutoff=k, normalize="ideal")
    if name in ("SDCG", "sdcg"):
        if args:
            parser.fail(f"{name}@k takes no parameters", tok[2])
        k = _at(parser, tok)
        return Metric(DCG(k), ERG())
    if name == "ERR" and parser.peek("@"):
        if args:
            parser.fail(f"{name}@k takes no parameters", tok[2])
        k = _at(parser, tok)
        return Metric(ERR(), ERRAgg(), gain=Exponential(4), cutoff=k)
    if name in ("RBP", "INST"):
        return Metric(_model(parser, tok, args), ERG())
    parser.fail(
        f"{name!r} is not a metric name; write MODEL+AGGREGATION (models: {', '.join(BROWSING_MODELS)}; "
        f"aggregations: {', '.join(AGGREGATIONS)})",
        tok[2],
    )


def _chen_sakai(parser, tok):
    model_name, _, agg_name = tok[1].partition("_")
    model_cls = BROWSING_MODELS.get(model_name) or _MODEL_ALIASES.get(model_name.lower())
    agg_cls = AGGREGATIONS.get(agg_name) or _AGG_ALIASES.get(agg_name.lower())
    if model_cls is None or agg_cls is None or "_" in agg_name:
        parser.fail(
            f"{tok[1]!r} is not a Chen & Sakai name MODEL_AGGREGATION (models: {', '.join(BROWSING_MODELS)}; "
            f"aggregations: {', '.join(AGGREGATIONS)})",
            tok[2],
        )
    model = CHEN_SAKAI_DEFAULTS[model_cls.__name__]
    return Metric(model, agg_cls())


def parse_metric(text: str) -> Metric:
    """Parse a metric text (canonical form, Chen & Sakai name or trec_eval habit).

    Raises :class:`~cwla.errors.MetricSyntaxError` pointing at the offending position.

    Examples
    --------
    >>> parse_metric("RBP(p=0.8)+ERG")
    Metric(browsing=RBP(p=0.8), aggregation=ERG(), gain=None, cutoff=None, depth=None, stop=None, normalize=None)
    >>> str(parse_metric("INST_PE"))
    'INST(T=2.5)+PE(beta=0.5)'
    >>> str(parse_metric("nDCG@10"))
    'DCG(k=10)+ETG[gain=linear, cutoff=10, normalize=ideal]'
    """
    parser = _Parser(text)
    if parser.at_end():
        parser.fail("empty text")
    tok, args = parser.part()
    if parser.peek("+"):
        parser.take("+")
        agg_tok, agg_args = parser.part()
        metric = Metric(_model(parser, tok, args), _aggregation(parser, agg_tok, agg_args))
    elif "_" in tok[1] and not args:
        metric = _chen_sakai(parser, tok)
    else:
        metric = _habit(parser, tok, args)
    if parser.peek("["):
        options = _options(parser)
        try:
            metric = metric.with_options(**options)
        except (TypeError, ValueError) as err:
            parser.fail(str(err))
    if not parser.at_end():
        parser.fail(f"unexpected {parser.peek()[1]!r}")
    return metric


def parse_gain_text(text: str) -> GainMap:
    """Parse a gain map text (``linear(gmax=3)``, ``binary:2``, ``table(0:0, 1:0.5)``)."""
    parser = _Parser(text, what="gain map")
    if parser.at_end():
        parser.fail("empty text")
    gain = _gain(parser)
    if not parser.at_end():
        parser.fail(f"unexpected {parser.peek()[1]!r}")
    return gain


def format_metric(metric: Metric) -> str:
    """The canonical text of ``metric``: ``MODEL+AGGREGATION[options]``."""
    options = []
    if metric.gain is not None:
        options.append(f"gain={metric.gain}")
    if metric.cutoff is not None:
        options.append(f"cutoff={metric.cutoff}")
    if metric.depth is not None:
        options.append(f"depth={metric.depth}")
    if metric.stop is not None:
        options.append(f"stop={'true' if metric.stop else 'false'}")
    if metric.normalize is not None:
        options.append(f"normalize={metric.normalize}")
    head = f"{metric.browsing}+{metric.aggregation}"
    return head + (f"[{', '.join(options)}]" if options else "")
