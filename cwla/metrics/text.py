"""The metric language: one canonical text form that prints and parses back, and the names users type.

Grammar (whitespace is free; names are case-sensitive except the aliases noted)::

    metric   := TREC_NAME                     trec_eval:       map, P_10, P.10, ndcg_cut_10, recip_rank
              | head [ "[" option ("," option)* "]" ]
    head     := part "+" part                 canonical:       RBP(p=0.8)+ERG
              | MODEL_AGG                     Chen & Sakai:    RBP_ERG, INST_PE, ERR_ERR
              | part ["@" NUMBER]             ir_measures:     P(rel=2)@10, RR@10, nDCG, AP@100, R@1000
    part     := NAME [ "(" arg ("," arg)* ")" ]
    arg      := [NAME "="] value              (a lone value fills the only parameter)
    value    := NUMBER | NAME | 'string' | "{" NUMBER ":" NUMBER, ... "}"
    option   := gain=GAIN | cutoff=INT | depth=INT|all | stop=true|false | normalize=ideal|none
              | judged_only=true|false
    GAIN     := linear[(gmax=X)] | exponential[(gmax=X)] | binary[(threshold=X)]
              | scaled(min_rel=X, max_rel=Y) | table(G:X, ...) | regrade(G:X, ...)
              | linear:X | exponential:X | binary:X

``str(metric)`` prints every model parameter and only the options that are set,
in the order above, so ``parse_metric(str(m)) == m`` for every metric. The measures
outside C/W/L/A (:mod:`cwla.metrics.counting`) print in ir_measures' form (``R(rel=2)@100``).

**ir_measures' names** keep ir_measures' meaning and parameters (``rel=``, ``@k`` or
``cutoff=``, ``judged_only=``, ``gains=``, ``dcg=``, ``min_rel=``/``max_rel=``, ``p=``,
``T=``); a measure without ``rel=`` is binary at the evaluation's relevance level
(``evaluate(rel=...)``, ``cwla eval -l``; 1 if unset). The trec_eval names use depth
``all`` (a run deeper than 1000 is scored whole, as trec_eval does); the measures that
ir_measures computes with cwl_eval (SDCG, RBP, INST) use its depth 1000 and its
convention for the mass past it (``stop=true``).

==================  ===================================================================  ============
name                meaning                                                              semantics of
==================  ===================================================================  ============
``P@k``             Precision(k)+ERG, binary gains, cutoff k                              trec_eval P_k
``RR[@k]``          ERR+ERR, binary gains (1 / rank of the first relevant), cutoff k      recip_rank
``AP[@k]``, ``MAP``  AP(R=qrels)+ERG, binary gains, cutoff k                              map, map_cut_k
``nDCG[@k]``        DCG(k)+ETG, ideal-normalised, linear gains (``dcg='exp-log2'``:      ndcg, ndcg_cut_k
                    exponential; ``gains={g: v}``: a table), cutoff k
``Success@k``       Precision(k)+max, binary gains, cutoff k (1 if a relevant in top k)  success_k
``ERR[@k]``         ERR+ERR, exponential gains with gmax 4, cutoff k                      gdeval
``SDCG@k``          DCG(k)+ERG (``min_rel``/``max_rel``: scaled gains)                    cwl_eval
``RBP(p=x)``        RBP(p=x)+ERG (``rel=``: binary gains; else graded)                    cwl_eval
``INST(T=x)``       INST(T=x)+ERG, T = 1 by default (``min_rel``/``max_rel``)              cwl_eval
``R@k``, ``SetR``   recall at k, set recall (:mod:`cwla.metrics.counting`)                        recall_k
``Rprec``           R-precision                                                          Rprec
``Bpref``           bpref                                                                bpref
``Judged@k``        fraction of the top k that is judged                                 ir_measures
``SetP``, ``SetF``  set precision, set F (``beta=``), ``SetAP``, ``IPrec@x``              set_P, ...
``NumRel``          relevant documents in the qrels (summed over topics)                 num_rel
``NumRet``          retrieved documents (``NumRet(rel=l)``: relevant retrieved)           num_ret
``NumRelRet``       relevant retrieved documents                                         num_rel_ret
==================  ===================================================================  ============

Aliases as in ir_measures: ``Precision`` (P), ``Recall`` (R), ``MRR`` (RR), ``MAP`` (AP),
``NDCG`` (nDCG), ``RPrec`` (Rprec), ``BPref`` (Bpref), ``SetRelP`` (SetP(relative=True)).

**trec_eval's names** (``map``, ``map_cut_k``, ``P_k``, ``recall_k``, ``ndcg``, ``ndcg_cut_k``,
``recip_rank``, ``success_k``, ``Rprec``, ``bpref``, ``num_rel``, ``num_ret``, ``num_rel_ret``,
``num_q``, ``set_P``, ``set_relative_P``, ``set_recall``, ``set_F``, ``set_map``,
``iprec_at_recall_x``, ``ndcg_g=v,...``) are the ir_measures measures above; ``_`` or ``.``
separates the parameter (``P.10``). :func:`expand_trec_names` turns trec_eval's ``-m P.5,10``
and ``-m P`` (its default cutoffs) into several names.

Chen & Sakai's names (``MODEL_AGG``: ``RBP_ERG``, ``AP_PE``) use the paper's parameters:
Precision and DCG at k = 10, RBP p = 0.8, INST T = 2.5, PE beta = 0.5, and cwl_eval's AP,
``AP(R=retrieved)`` (the AP they computed with cwl_eval: :func:`cwla.chen_sakai_paper_grid`),
not the ``AP(R=qrels)`` of ir_measures' ``AP`` and trec_eval's ``map``; another model takes its
defaults (``INSQ_ERG``). The name fixes the model and the aggregation only: cutoff, depth, stop
and gains come from the evaluation, so ``RBP_PE`` alone is scored at depth 1000 without a
cutoff, and the paper's setting is ``RBP_PE[cutoff=10, depth=10, stop=true]``
(:func:`cwla.chen_sakai_grid`, ``cwla demo``).

A text that does not parse raises :class:`~cwla.errors.MetricSyntaxError` in at most three
lines: what is wrong (with "did you mean" for a name near a known one: any case, a typo or
two, across cwla's, the paper's, ir_measures' and trec_eval's names, the models, the
aggregations, the options and the parameters), where (a caret under the place, when the text
holds more than that name) and the accepted forms. A bad value names the parameter and its rule.
"""

from __future__ import annotations

import re

from .aggregations import AGGREGATIONS, ERG, ETG, ERRAgg, Max
from .browsing import (AP, BPM, BROWSING_MODELS, DCG, ERR, INSQ, INST, MODELS, NERR8, NERR9, NERR10, NERR11, RBP, TABLES,
                       USER_MODELS, Precision, Reciprocal, Tabulated, tabulated)
from .counting import (G, BinG, Bpref, CountingMeasure, InfAP, IPrec, IPrecMean, Judged, NDCGRel, NumNonRelJudgedRet,
                       NumQ, NumRel, NumRelRet, NumRet, RBPResid, RBPTrec, Recall, RelP, RnDCG, RPrec, RprecMult,
                       SetAP, SetF, SetP, Unj, Utility, ELEVEN_POINTS, NumNonJudgedRet, DCGTrec, IdealDCG,
                       Accuracy, Compat)
from .._validate import fmt as _fmt
from ..errors import CwlaError, MetricSyntaxError, ParameterError
from .gains import GAIN_MAPS, Binary, Exponential, GainMap, Linear, Regrade, Scaled
from .metric import ALL, METRIC_OPTIONS, Metric, format_metric
from .summary import GeoMean
from .intents import IntentAware, Intents, Novelty

__all__ = ["parse_metric", "parse_gain", "parser_name", "format_metric", "parse_gain_text", "expand_trec_names", "trec_name", "trec_parts", "trec_sort_key", "TREC_KINDS", "TREC_ORDER",
           "CHEN_SAKAI_DEFAULTS", "TREC_DEFAULT_CUTOFFS"]

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<str>'[^']*'|\"[^\"]*\")|(?P<op>[()\[\]{},=+@:]))"  # digits 0-9 only, not every Unicode digit
)
#: the longest number a metric text may hold (no parameter needs more digits than a double carries)
_LONGEST_NUMBER = 40

#: Chen & Sakai 2023's parameters for their 6 x 7 grid (their AP is cwl_eval's: R = the relevant documents
#: retrieved; see cwla.metrics.grid.chen_sakai_paper_grid).
CHEN_SAKAI_DEFAULTS = {
    "Precision": Precision(k=10),
    "DCG": DCG(k=10),
    "RBP": RBP(p=0.8),
    "INST": INST(T=2.5),
    "AP": AP(R="retrieved"),
    "ERR": ERR(),
}

_AGG_ALIASES = {name.lower(): cls for name, cls in AGGREGATIONS.items()}
_MODEL_ALIASES = {name.lower(): cls for name, cls in MODELS.items()}
_GAINS = {**{name: cls for name, cls in GAIN_MAPS.items() if cls.params}, "exp": Exponential}  # parameters by name
_PAIRS = {name: cls for name, cls in GAIN_MAPS.items() if not cls.params}  # GRADE:VALUE pairs


#: the accepted forms a parse error ends with, unless the error gives its own (one line each)
_ACCEPTED = {
    "metric": "accepted: MODEL+AGGREGATION[options] ('RBP(p=0.8)+ERG[cutoff=10]'), MODEL_AGG ('INST_PE'), "
              "ir_measures' names ('nDCG@10') or trec_eval's ('ndcg_cut_10'); see docs/metrics.md",
    "gain map": "accepted: " + ", ".join(
        [f"{n}[({c.params[0]}=X)]" if len(c.params) == 1 else f"{n}({', '.join(f'{q}={v}' for q, v in zip(c.params, 'XYZ'))})"
         for n, c in GAIN_MAPS.items() if c.params]
        + [f"{n}(GRADE:{'GAIN' if n == 'table' else 'VALUE'}, ...)" for n, c in GAIN_MAPS.items() if not c.params])
        + ", or NAME:X for " + ", ".join(n for n, c in GAIN_MAPS.items() if len(c.params) == 1),
}


class _Parser:
    def __init__(self, text: str, what: str = "metric", inside: str = ""):
        if not isinstance(text, str):
            raise ParameterError(f"a {what} text must be a str, got {type(text).__name__}")
        self.text, self.what, self.inside = text, what, inside
        self.tokens = []  # (kind, value, position)
        pos = 0
        stripped = text.rstrip()
        while pos < len(stripped):
            m = _TOKEN.match(stripped, pos)
            if not m or m.end() == pos:
                self.i = len(self.tokens)
                self.fail(f"unexpected character {stripped[pos:].lstrip()[:1]!r}",
                          pos + len(stripped[pos:]) - len(stripped[pos:].lstrip()))
            kind = m.lastgroup
            value = m.group(kind)
            if kind == "num" and len(value) > _LONGEST_NUMBER:
                self.i = len(self.tokens)
                self.fail(f"a number of {len(value):,} characters ({_clipped(value)}): numbers in a metric text "
                          f"have at most {_LONGEST_NUMBER}", m.start(kind))
            self.tokens.append((kind, value, m.start(kind)))
            pos = m.end()
        self.i = 0

    @classmethod
    def whole(cls, text: str, what: str = "metric", inside: str = "") -> _Parser:
        """A parser of ``text`` that reports errors only (for texts read whole: trec_eval's names)."""
        parser = cls.__new__(cls)
        parser.text, parser.what, parser.inside, parser.tokens, parser.i = text, what, inside, [], 0
        return parser

    def fail(self, problem, pos=None, accepted=None, where=True):
        """Raise :class:`MetricSyntaxError`: ``cannot parse WHAT 'TEXT': PROBLEM``, then the accepted forms
        (``accepted``; None: the usual ones of a ``what``, "": none) -- after a caret under ``pos`` when
        ``where`` and ``pos`` is past the start of a text of several tokens, else on a line of their own."""
        if pos is None:
            pos = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        accepted = _ACCEPTED[self.what] if accepted is None else accepted
        lines = [f"cannot parse {self.what} {_clipped(self.text)}{self.inside}: {problem}"]
        if where and pos > 0 and len(self.tokens) > 1 and "\n" not in self.text and len(self.text) <= _SHOWN:
            lines += [f"    {self.text}", f"    {' ' * pos}^" + (f" {accepted}" if accepted else "")]
        elif accepted:
            lines.append(accepted)
        raise MetricSyntaxError("\n".join(lines))

    def bad(self, problem):
        """Raise the error of a bad value: ``problem`` names the parameter and its rule (no position)."""
        self.fail(problem, where=False, accepted="")

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
            return _number(tok[1])
        if tok[0] == "str":
            return tok[1][1:-1]
        if tok[0] == "name":
            return tok[1]
        if tok[1] == "{":
            return self.mapping(tok)
        self.fail(f"expected a value, found {tok[1]!r}", tok[2])

    def mapping(self, open_tok):
        """``{NUMBER: NUMBER, ...}`` (ir_measures' ``gains=``), after the ``{``."""
        pairs = {}
        while not self.peek("}"):
            key = self.take(kind="num", expected="a grade (a number)")
            self.take(":", expected="':'")
            value = self.take(kind="num", expected="a gain (a number)")
            if float(key[1]) in pairs:
                self.fail(f"grade {key[1]} is given twice", key[2])
            pairs[float(key[1])] = float(value[1])
            if not self.peek("}"):
                self.take(",", expected="',' or '}'")
        self.take("}")
        return pairs


def _number(text: str):
    return float(text) if any(c in text for c in ".eE") else int(text)


def _shown(value) -> str:
    """A parsed value as the user wrote it (a number as such, a name or string quoted)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return str(value) if isinstance(value, int) else _fmt(value)


def _signature(label, params) -> str:
    """``accepted: RBP(p=X)``: how ``label`` takes its parameters."""
    if not params:
        return f"accepted: {label} (it takes no parameters)"
    return f"accepted: {label}({', '.join(f'{p}=...' for p in params)})"


def _build(parser, cls, args, name_tok, params, label=None):
    """Instantiate ``cls`` from parsed args; ``params`` are its parameter names in order, ``label`` its name
    in messages (default: as written). A declared parameter's value is checked against its rule first, so
    that a bad value names the parameter and the rule."""
    label = label or name_tok[1]
    kwargs = {}
    for key, value, pos in args:
        if key is None:
            if len(params) != 1 or params[0] in kwargs:
                parser.fail(f"{label} takes its parameters by name", pos, accepted=_signature(label, params))
            key = params[0]
        if key not in params:
            parser.fail(f"{label} has no parameter {key!r}{_did_you_mean(_close(str(key), params))}", pos,
                        accepted=_signature(label, params))
        if key in kwargs:
            parser.fail(f"{label}: parameter {key!r} given twice", pos, accepted=_signature(label, params))
        kwargs[key] = value
    declared = {p.name: p for p in getattr(cls, "declared", ())}
    for key, value in kwargs.items():
        rule = declared.get(key)
        if rule is None:
            continue
        try:
            rule.check(label, rule.convert(value))
        except (TypeError, ValueError):
            parser.fail(f"{key!r} of {label} must be {rule.describe()}, got {_shown(value)}", where=False,
                        accepted="")
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        if str(err).startswith("expected ") and len(kwargs) == 1:  # a conversion: name the parameter
            parser.bad(f"{next(iter(kwargs))!r} of {label} must be {str(err)[len('expected '):].split(', got')[0]}, "
                       f"got {_shown(next(iter(kwargs.values())))}")
        parser.bad(_reason(label, err, kwargs))


def _declared(cls) -> tuple:
    """The parameter names of a declared model or aggregation, in order."""
    return tuple(p.name for p in cls.declared)


def _tabulated(parser, tok, args):
    """``Tabulated(C={1:0.9, ...})``, ``Tabulated(W={...})`` or ``Tabulated(name=NAME)`` (:func:`register_table`)."""
    forms = "accepted: Tabulated(C={RANK: C, ...}), Tabulated(W={RANK: W, ...}) or Tabulated(name=NAME)"
    if len(args) != 1 or args[0][0] not in ("C", "W", "name"):
        parser.fail("Tabulated takes one table: C=, W= or name= (a table registered with cwla.register_table)",
                    args[0][2] if args else tok[2], accepted=forms)
    key, value, pos = args[0]
    if key == "name":
        if value not in TABLES:
            if not TABLES:
                parser.fail(f"no tabulated model is registered as {value!r} (no tables are registered; see "
                            f"cwla.register_table)",
                            pos, accepted=forms)
            parser.fail(f"no tabulated model is registered as {value!r}{_did_you_mean(_close(str(value), TABLES))}",
                        pos, accepted="registered tables: " + _listed(sorted(TABLES)))
        return TABLES[value]
    if not isinstance(value, dict):
        parser.fail(f"{key} of Tabulated must be a mapping {{rank: value, ...}} with ranks 1..n, got "
                    f"{_shown(value)}", where=False, accepted="")
    try:
        return tabulated(**{key: {int(r) if float(r).is_integer() else r: v for r, v in value.items()}})
    except (TypeError, ValueError) as err:
        parser.fail(f"invalid Tabulated: {err}", where=False, accepted="")


def _listed(names, most: int = 12) -> str:
    """``a, b, c`` (at most ``most`` names, then how many more)."""
    names = list(names)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _models_accepted() -> str:
    """The browsing models a metric may name, built-in and registered."""
    user = (f"; user-defined: {_listed(USER_MODELS, 5)}" if USER_MODELS else
            "; no user-defined ones are registered (cwla.register_model)")
    return f"accepted models: {', '.join(MODELS)}{user}"


def _model(parser, tok, args):
    cls = MODELS.get(tok[1]) or USER_MODELS.get(tok[1]) or _MODEL_ALIASES.get(tok[1].lower())
    if cls is None:
        if tok[1].lower() in _AGG_ALIASES:  # ERG+RBP
            agg = _AGG_ALIASES[tok[1].lower()].name
            parser.fail(f"unknown browsing model {_clipped(tok[1])}: {agg} is an aggregation", tok[2],
                        accepted=f"accepted: MODEL+AGGREGATION, the model first (e.g. 'RBP(p=0.8)+{agg}')")
        near = _close(tok[1], list(MODELS) + list(USER_MODELS))
        parser.fail(f"unknown browsing model {_clipped(tok[1])}{_did_you_mean(near)}", tok[2], accepted=_models_accepted())
    if cls is Tabulated:
        return _tabulated(parser, tok, args)
    return _build(parser, cls, args, tok, _declared(cls), cls.__name__)


def _aggregation(parser, tok, args):
    cls = AGGREGATIONS.get(tok[1]) or _AGG_ALIASES.get(tok[1].lower())
    if cls is None:
        parser.fail(f"unknown aggregation {tok[1]!r}{_did_you_mean(_close(tok[1], AGGREGATIONS))}", tok[2],
                    accepted=f"accepted aggregations: {', '.join(AGGREGATIONS)}")
    return _build(parser, cls, args, tok, _declared(cls), cls.name)


def _gain(parser) -> GainMap:
    tok, args = parser.part()
    name = tok[1].lower()
    if parser.peek(":") and not args:  # CLI form linear:3
        parser.take(":")
        args = [(None, parser.value(), tok[2])]
    if name in _PAIRS:
        pairs = {}
        form = f"accepted: {name}(GRADE:{'GAIN' if name == 'table' else 'VALUE'}, ...), e.g. {name}(0:0, 1:0.5)"
        for key, value, pos in args:
            if key != ":":
                parser.fail(f"{name}() takes GRADE:{'GAIN' if name == 'table' else 'VALUE'} pairs", pos,
                            accepted=form)
            if value[0] in pairs:
                parser.fail(f"{name}() lists grade {value[0]:g} twice", pos, accepted=form)
            pairs[value[0]] = value[1]
        try:
            return _PAIRS[name](pairs)
        except (TypeError, ValueError) as err:
            parser.bad(f"invalid {name}: {err}")
    if name not in _GAINS:
        parser.fail(f"unknown gain map {tok[1]!r}{_did_you_mean(_close(tok[1], GAIN_MAPS))}", tok[2],
                    accepted=_ACCEPTED["gain map"])
    cls = _GAINS[name]
    return _build(parser, cls, args, tok, cls.params, name)


def _flag(parser, name, value, pos):
    text = str(value).lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    parser.bad(f"{name} must be true or false, got {_shown(value)}")


def _options(parser):
    options = {}
    parser.take("[")
    accepted = f"accepted options: {', '.join(METRIC_OPTIONS)}"
    while True:
        key = parser.take(kind="name", expected="an option name")
        if key[1] not in METRIC_OPTIONS:
            parser.fail(f"unknown option {key[1]!r}{_did_you_mean(_close(key[1], METRIC_OPTIONS))}", key[2],
                        accepted=accepted)
        if key[1] in options:
            parser.fail(f"option {key[1]!r} given twice", key[2], accepted=accepted)
        parser.take("=", expected="'='")
        pos = parser.peek()[2] if parser.peek() else len(parser.text)
        if key[1] == "gain":
            options["gain"] = _gain(parser)
        elif key[1] == "intents":
            options["intents"] = _intents(parser)
        else:
            value = parser.value()
            if key[1] in ("stop", "judged_only"):
                value = _flag(parser, key[1], value, pos)
            elif key[1] == "normalize":
                if value not in ("ideal", "full", "none"):
                    parser.bad(f"normalize must be ideal, full or none, got {_shown(value)}")
            elif key[1] == "depth" and value == ALL:
                pass
            elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
                parser.bad(f"{key[1]} must be an integer >= 1{' or all' if key[1] == 'depth' else ''}, got "
                           f"{_shown(value)}")
            options[key[1]] = value
        if parser.peek("]"):
            parser.take("]")
            return options
        parser.take(",", expected="',' or ']'")


def _intents(parser) -> Intents:
    """``ia`` or ``novelty[(alpha=X)]`` (:mod:`cwla.metrics.intents`)."""
    tok, args = parser.part()
    if tok[1] == "ia" and not args:
        return IntentAware()
    if tok[1] != "novelty":
        parser.bad(f"intents must be ia or novelty(alpha=X), got {tok[1]!r}"
                   f"{_did_you_mean(_close(tok[1], ('ia', 'novelty')))}")
    values = {}
    for key, value, pos in args:
        if key not in ("alpha",) or key in values:
            parser.fail("novelty takes one parameter, alpha", pos, accepted="accepted: novelty(alpha=X), e.g. "
                        "novelty(alpha=0.5)")
        values[key] = _number_value(parser, value, pos, key)
    try:
        return Novelty(**values)
    except (TypeError, ValueError) as err:
        parser.bad(str(err))


# ---------------------------------------------------------------------------
# ir_measures' names
# ---------------------------------------------------------------------------


def _cutoff_value(parser, value, pos):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        parser.bad(f"cutoff must be an integer >= 1, got {_shown(value)}")
    return value


def _rel_value(parser, value, pos):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        parser.bad(f"rel must be a number > 0 (the lowest relevant grade), got {_shown(value)}")
    return value


def _number_value(parser, value, pos, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        parser.bad(f"{name} must be a number, got {_shown(value)}")
    return value


_CONVERT = {
    "cutoff": _cutoff_value,
    "rel": _rel_value,
    "judged_only": lambda parser, value, pos: _flag(parser, "judged_only", value, pos),
    "relative": lambda parser, value, pos: _flag(parser, "relative", value, pos),
    "normalize": lambda parser, value, pos: _flag(parser, "normalize", value, pos),
}


class _Named:
    """One ir_measures measure: its parameters, whether it needs ``@``, how it maps to cwla, and (for the
    catalogue, docs/metrics.md) examples of it and the tool whose semantics it follows."""

    def __init__(self, build, params, at="cutoff", required=(), examples=(), follows=""):
        self.build, self.params, self.at, self.required = build, params, at, required
        self.examples, self.follows = examples, follows


def _binary(p):
    return Binary(p.get("rel"))


def _judged_only(p):
    return p.get("judged_only")


def _ndcg(p):
    dcg = p.get("dcg", "log2")
    if "gains" in p:
        gain = Regrade(p["gains"])
    elif dcg == "exp-log2":
        gain = Exponential()
    else:
        gain = Linear()
    k = p.get("cutoff")
    # without a cutoff the discount never reaches 0: stop at the end of the ranking, or its mass would be lost
    return Metric(DCG(k), ETG(), gain=gain, cutoff=k, depth=ALL, stop=True if k is None else None,
                  normalize="ideal", judged_only=_judged_only(p))


def _k20(p) -> int:
    """The cutoff of ndeval's measures read to a depth: @k, else ndeval's deepest, 20 (setting it in ``p``)."""
    return p.setdefault("cutoff", 20)


def _diversity(model, aggregation, p, normalize, alpha, depth=ALL):
    """ndeval's measures as compositions (:mod:`cwla.metrics.intents`): ``alpha`` None: intent-aware (the mean over
    subtopics), else novelty-discounted gains; the relevance level in the binary gain (J)."""
    k = p.get("cutoff")
    intents = IntentAware() if alpha is None else Novelty(alpha)
    return Metric(model, aggregation, gain=_binary(p), cutoff=k, depth=depth,
                  stop=None if isinstance(model, (AP, Precision)) else True,
                  normalize=normalize, judged_only=_judged_only(p), intents=intents)


def _cwl(model, p):
    """ir_measures' cwl_eval measures: the model's ERG over scaled gains, 1000 ranks, the user stopping at 1000."""
    return Metric(model, ERG(), gain=_scaled_or_none(p), depth=1000, stop=True)


def _scaled_or_none(p):
    if "min_rel" in p or "max_rel" in p:
        return Scaled(p.get("min_rel", 0), p.get("max_rel"))
    return None


_NAMED_MEASURES = {
    "P": _Named(lambda p: Metric(Precision(p["cutoff"]), ERG(), gain=_binary(p), cutoff=p["cutoff"], depth=ALL,
                                 judged_only=_judged_only(p)),
                ("cutoff", "rel", "judged_only"), required=("cutoff",),
                examples=("P@10", "P(rel=2)@10", "P(rel=2, judged_only=True)@10"), follows="trec_eval P_k"),
    "RR": _Named(lambda p: Metric(ERR(), ERRAgg(), gain=_binary(p), cutoff=p.get("cutoff"), depth=ALL,
                                  judged_only=_judged_only(p)),
                 ("cutoff", "rel", "judged_only"),
                examples=("RR", "RR(rel=2)@10"), follows="trec_eval recip_rank (on the ranking cut at k)"),
    "AP": _Named(lambda p: Metric(AP("qrels"), ERG(), gain=_binary(p), cutoff=p.get("cutoff"), depth=ALL,
                                  judged_only=_judged_only(p)),
                 ("cutoff", "rel", "judged_only"),
                examples=("AP", "AP(rel=2)", "AP@100"), follows="trec_eval map, map_cut_k"),
    "nDCG": _Named(_ndcg, ("cutoff", "dcg", "gains", "judged_only"),
                examples=("nDCG", "nDCG@10", "nDCG(dcg='exp-log2')@10", "nDCG(gains={0:0,1:0,2:1,3:3})@10"),
                follows="trec_eval ndcg, ndcg_cut_k"),
    "Success": _Named(lambda p: Metric(Precision(p["cutoff"]), Max(), gain=_binary(p), cutoff=p["cutoff"],
                                       depth=ALL, judged_only=_judged_only(p)),
                      ("cutoff", "rel", "judged_only"), required=("cutoff",),
                examples=("Success@10", "Success(rel=2)@1"), follows="trec_eval success_k"),
    "ERR": _Named(lambda p: Metric(ERR(), ERRAgg(), gain=Exponential(4), cutoff=p.get("cutoff"), depth=ALL),
                  ("cutoff",),
                examples=("ERR@20", "ERR"), follows="gdeval ERR@k"),
    "SDCG": _Named(lambda p: Metric(DCG(p["cutoff"]), ERG(), gain=_scaled_or_none(p), depth=1000, stop=True),
                   ("cutoff", "dcg", "min_rel", "max_rel"), required=("cutoff",),
                examples=("SDCG@10", "SDCG(max_rel=3)@10"), follows="cwl_eval NDCG-k (scaled DCG)"),
    "RBP": _Named(lambda p: Metric(RBP(p.get("p", 0.8)), ERG(), gain=Binary(p["rel"]) if "rel" in p else None,
                                   cutoff=p.get("cutoff"), depth=1000, stop=True),
                  ("cutoff", "p", "rel"),
                examples=("RBP(p=0.8)", "RBP(rel=2, p=0.95)"), follows="cwl_eval RBP"),
    "INST": _Named(lambda p: Metric(INST(p.get("T", 1.0)), ERG(), gain=_scaled_or_none(p), depth=1000, stop=True),
                   ("T", "min_rel", "max_rel"), at=None,
                examples=("INST", "INST(T=2.0, max_rel=3)"), follows="cwl_eval INST"),
    "INSQ": _Named(lambda p: _cwl(INSQ(p.get("T", 1.0)), p), ("T", "min_rel", "max_rel"), at=None,
                   examples=("INSQ", "INSQ(T=2.0, max_rel=3)"), follows="cwl_eval INSQ"),
    "NERR8": _Named(lambda p: _cwl(NERR8(p["cutoff"]), p), ("cutoff", "min_rel", "max_rel"), required=("cutoff",),
                    examples=("NERR8@10", "NERR8(max_rel=3)@10"), follows="cwl_eval NERR8"),
    "NERR9": _Named(lambda p: _cwl(NERR9(p["cutoff"]), p), ("cutoff", "min_rel", "max_rel"), required=("cutoff",),
                    examples=("NERR9@10",), follows="cwl_eval NERR9"),
    "NERR10": _Named(lambda p: _cwl(NERR10(p.get("p", 0.9)), p), ("p", "min_rel", "max_rel"), at=None,
                     examples=("NERR10", "NERR10(p=0.8, max_rel=3)"), follows="cwl_eval NERR10 (p: its phi)"),
    "NERR11": _Named(lambda p: _cwl(NERR11(p.get("T", 1.0)), p), ("T", "min_rel", "max_rel"), at=None,
                     examples=("NERR11", "NERR11(T=2.0)"), follows="cwl_eval NERR11"),
    "BPM": _Named(lambda p: _cwl(BPM(T=p.get("T", 1.0), K=p["cutoff"]), p), ("cutoff", "T", "min_rel", "max_rel"),
                  required=("cutoff",), examples=("BPM@1000", "BPM(T=2.0, max_rel=3)@100"),
                  follows="cwl_eval BPM (K = the cutoff, T the benefit budget)"),
    "alpha_nDCG": _Named(lambda p: _diversity(DCG(_k20(p)), ETG(), p, "ideal", p.get("alpha", 0.5)),
                         ("cutoff", "alpha", "rel", "judged_only"),
                         examples=("alpha_nDCG@20", "alpha_nDCG(alpha=0.3)@10"), follows="ndeval alpha-nDCG@k"),
    "alpha_DCG": _Named(lambda p: _diversity(DCG(_k20(p)), ETG(), p, "full", p.get("alpha", 0.5)),
                        ("cutoff", "alpha", "rel", "judged_only"),
                        examples=("alpha_DCG@20",), follows="ndeval alpha-DCG@k (k >= 2)"),
    "ERR_IA": _Named(lambda p: _diversity(Reciprocal(_k20(p)), ETG(), p, "full", 0.5),
                     ("cutoff", "rel", "judged_only"),
                     examples=("ERR_IA@20",), follows="ndeval ERR-IA@k (k >= 2)"),
    "nERR_IA": _Named(lambda p: _diversity(Reciprocal(_k20(p)), ETG(), p, "ideal", 0.5),
                      ("cutoff", "rel", "judged_only"),
                      examples=("nERR_IA@20",), follows="ndeval nERR-IA@k"),
    "NRBP": _Named(lambda p: _diversity(RBP(p.get("beta", 0.5)), ETG(), p, "full", p.get("alpha", 0.5), 1000),
                   ("alpha", "beta", "rel", "judged_only"), at=None,
                   examples=("NRBP", "NRBP(alpha=0.5, beta=0.8)"), follows="ndeval NRBP"),
    "nNRBP": _Named(lambda p: _diversity(RBP(p.get("beta", 0.5)), ETG(), p, "ideal", p.get("alpha", 0.5), 1000),
                    ("alpha", "beta", "rel", "judged_only"), at=None,
                    examples=("nNRBP",), follows="ndeval nNRBP"),
    "P_IA": _Named(lambda p: _diversity(Precision(_k20(p)), ERG(), p, None, None),
                   ("cutoff", "rel", "judged_only"),
                   examples=("P_IA@10",), follows="ndeval P-IA@k"),
    "AP_IA": _Named(lambda p: _diversity(AP("qrels"), ERG(), p, None, None), ("cutoff", "rel", "judged_only"),
                    examples=("AP_IA",), follows="ndeval MAP-IA"),
    "StRecall": _Named(lambda p: _diversity(Precision(_k20(p)), ETG(), p, None, 1.0),
                       ("cutoff", "rel", "judged_only"),
                       examples=("StRecall@10",), follows="ndeval strec@k (subtopic recall)"),
    "R": _Named(lambda p: Recall(p["cutoff"], rel=p.get("rel"), judged_only=_judged_only(p)),
                ("cutoff", "rel", "judged_only"), required=("cutoff",),
                examples=("R@1000", "R(rel=2)@100"), follows="trec_eval recall_k"),
    "SetR": _Named(lambda p: Recall(None, rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"),
                   at=None,
                examples=("SetR", "SetR(rel=2)"), follows="trec_eval set_recall"),
    "Rprec": _Named(lambda p: RPrec(rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"), at=None,
                examples=("Rprec", "Rprec(rel=2)"), follows="trec_eval Rprec"),
    "Bpref": _Named(lambda p: Bpref(rel=p.get("rel")), ("rel",), at=None,
                examples=("Bpref", "Bpref(rel=2)"), follows="trec_eval bpref"),
    "Judged": _Named(lambda p: Judged(p.get("cutoff"), judged_only=_judged_only(p)), ("cutoff", "judged_only"),
                examples=("Judged@10", "Judged"), follows="ir_measures Judged"),
    "SetP": _Named(lambda p: SetP(rel=p.get("rel"), judged_only=_judged_only(p), relative=p.get("relative", False)),
                   ("rel", "relative", "judged_only"), at=None,
                examples=("SetP", "SetP(rel=2, relative=True)"), follows="trec_eval set_P, set_relative_P"),
    "SetRelP": _Named(lambda p: SetP(rel=p.get("rel"), judged_only=_judged_only(p), relative=True),
                      ("rel", "judged_only"), at=None,
                examples=("SetRelP",), follows="trec_eval set_relative_P"),
    "SetF": _Named(lambda p: SetF(beta=p.get("beta", 1.0), rel=p.get("rel"), judged_only=_judged_only(p)),
                   ("rel", "beta", "judged_only"), at=None,
                examples=("SetF", "SetF(beta=0.5)"), follows="trec_eval set_F"),
    "SetAP": _Named(lambda p: SetAP(rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"), at=None,
                examples=("SetAP",), follows="trec_eval set_map"),
    "IPrec": _Named(lambda p: IPrec(p["recall"], rel=p.get("rel"), judged_only=_judged_only(p),
                                    convention=p.get("convention")),
                    ("recall", "rel", "judged_only", "convention"), at="recall", required=("recall",),
                examples=("IPrec@0.5",), follows="trec_eval 9.0.x iprec_at_recall_x"),
    "NumRel": _Named(lambda p: NumRel(rel=p.get("rel")), ("rel",), at=None,
                examples=("NumRel", "NumRel(rel=2)"), follows="trec_eval num_rel"),
    "NumRet": _Named(lambda p: NumRelRet(rel=p["rel"], judged_only=_judged_only(p)) if "rel" in p
                     else NumRet(judged_only=_judged_only(p)), ("rel", "judged_only"), at=None,
                examples=("NumRet", "NumRet(rel=1)"), follows="trec_eval num_ret, num_rel_ret"),
    "NumRelRet": _Named(lambda p: NumRelRet(rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"),
                        at=None,
                examples=("NumRelRet",), follows="trec_eval num_rel_ret"),
    "NumQ": _Named(lambda p: NumQ(), (), at=None,
                examples=("NumQ",), follows="trec_eval num_q"),
    "RelP": _Named(lambda p: RelP(p["cutoff"], rel=p.get("rel"), judged_only=_judged_only(p)),
                   ("cutoff", "rel", "judged_only"), required=("cutoff",),
                   examples=("RelP@10",), follows="trec_eval relative_P_k"),
    "RprecMult": _Named(lambda p: RprecMult(p["mult"], rel=p.get("rel"), judged_only=_judged_only(p)),
                        ("mult", "rel", "judged_only"), at=None, required=("mult",),
                        examples=("RprecMult(mult=0.2)",), follows="trec_eval Rprec_mult_x"),
    "Utility": _Named(lambda p: Utility(**{k: p[k] for k in ("a", "b", "c", "d", "docs") if k in p},
                                        rel=p.get("rel"), judged_only=_judged_only(p)),
                      ("a", "b", "c", "d", "docs", "rel", "judged_only"), at=None,
                      examples=("Utility", "Utility(a=2, b=-1)"), follows="trec_eval utility (docs: -N)"),
    "IPrecMean": _Named(lambda p: IPrecMean(_points_value(p.get("points")), rel=p.get("rel"),
                                            judged_only=_judged_only(p), convention=p.get("convention")),
                        ("points", "rel", "judged_only", "convention"), at=None,
                        examples=("IPrecMean", "IPrecMean(points='0.25,0.5,0.75', convention=10)"),
                        follows="trec_eval 11pt_avg"),
    "infAP": _Named(lambda p: InfAP(rel=p.get("rel")), ("rel",), at=None,
                    examples=("infAP",), follows="trec_eval infAP"),
    "binG": _Named(lambda p: BinG(rel=p.get("rel"), judged_only=_judged_only(p)), ("rel", "judged_only"), at=None,
                   examples=("binG",), follows="trec_eval binG"),
    "NumNonRelJudgedRet": _Named(lambda p: NumNonRelJudgedRet(rel=p.get("rel")), ("rel",), at=None,
                                 examples=("NumNonRelJudgedRet",), follows="trec_eval num_nonrel_judged_ret"),
    "Unj": _Named(lambda p: Unj(p["cutoff"]), ("cutoff",), required=("cutoff",),
                  examples=("Unj@10",), follows="trec_eval unj_k"),
    "RBPResid": _Named(lambda p: RBPResid(**({"p": p["p"]} if "p" in p else {})), ("p",), at=None,
                       examples=("RBPResid", "RBPResid(p=0.8)"), follows="trec_eval rbp_resid"),
    "G": _Named(lambda p: G(gains=p.get("gains", {})), ("gains",), at=None,
                examples=("G", "G(gains={1: 3, 2: 9})"), follows="trec_eval G"),
    "nDCGRel": _Named(lambda p: NDCGRel(gains=p.get("gains", {})), ("gains",), at=None,
                      examples=("nDCGRel",), follows="trec_eval ndcg_rel"),
    "RnDCG": _Named(lambda p: RnDCG(gains=p.get("gains", {}), rel=p.get("rel")), ("gains", "rel"), at=None,
                    examples=("RnDCG",), follows="trec_eval Rndcg"),
    "Accuracy": _Named(lambda p: Accuracy(p.get("cutoff"), rel=p.get("rel")), ("cutoff", "rel"),
                       examples=("Accuracy", "Accuracy(rel=2)@10"), follows="ir_measures Accuracy"),
    "Compat": _Named(lambda p: Compat(**{k: p[k] for k in ("p", "normalize") if k in p}), ("p", "normalize"),
                     at=None, examples=("Compat", "Compat(p=0.8, normalize=False)"), follows="ir_measures Compat"),
    "NumNonJudgedRet": _Named(lambda p: NumNonJudgedRet(), (), at=None,
                              examples=("NumNonJudgedRet",), follows="trec_eval num_nonjudged_ret"),
    "DCGTrec": _Named(lambda p: DCGTrec(gains=p.get("gains", {})), ("gains",), at=None,
                      examples=("DCGTrec",), follows="trec_eval dcg"),
    "IdealDCG": _Named(lambda p: IdealDCG(gains=p.get("gains", {})), ("gains",), at=None,
                       examples=("IdealDCG",), follows="trec_eval ideal_dcg"),
    "RBPTrec": _Named(lambda p: RBPTrec(gains=p.get("gains", {}), **({"p": p["p"]} if "p" in p else {})),
                      ("p", "gains"), at=None,
                      examples=("RBPTrec", "RBPTrec(p=0.8, gains={1: 1, 2: 3})"), follows="trec_eval rbp"),
}


def _points_value(text):
    """IPrecMean's ``points='0.25,0.5'`` as a tuple of floats (None: the 11 points)."""
    if text is None:
        return ELEVEN_POINTS
    try:
        return tuple(float(x) for x in str(text).split(","))
    except ValueError:
        raise CwlaError(f"points must be recall levels separated by commas, e.g. '0.25,0.5', got {text!r}") \
            from None

#: ir_measures' aliases
_NAMED_ALIASES = {"Precision": "P", "Recall": "R", "MRR": "RR", "MAP": "AP", "NDCG": "nDCG", "RPrec": "Rprec",
                  "MAP_IA": "AP_IA",
                  "BPref": "Bpref"}


def _named_forms(label, spec) -> str:
    """``accepted: P(rel=..., judged_only=...)@k, e.g. P@10, P(rel=2)@10``: how an ir_measures name is written."""
    params = [p for p in spec.params if p != spec.at]
    head = f"{label}({', '.join(f'{p}=...' for p in params)})" if params else label
    at = {"cutoff": "@k", "recall": "@x"}.get(spec.at, "") if spec.at else ""
    optional = "" if not at or spec.at in spec.required else "[" + at + "]"
    examples = ", ".join(spec.examples[:2])
    return f"accepted: {head}{optional or at}" + (f", e.g. {examples}" if examples else "")


def _named(parser, tok, args):
    """An ir_measures name: ``NAME[(params)][@value]``."""
    name = _NAMED_ALIASES.get(tok[1], tok[1])
    spec = _NAMED_MEASURES[name]
    forms = _named_forms(tok[1], spec)
    params = {}
    for key, value, pos in args:
        if key is None or key == ":":
            parser.fail(f"{tok[1]} takes its parameters by name", pos, accepted=forms)
        if key not in spec.params:
            parser.fail(f"{tok[1]} has no parameter {key!r}{_did_you_mean(_close(str(key), spec.params))}", pos,
                        accepted=forms)
        if key in params:
            parser.fail(f"{tok[1]}: parameter {key!r} given twice", pos, accepted=forms)
        convert = _CONVERT.get(key)
        if convert is not None:
            value = convert(parser, value, pos)
        elif key in ("p", "T", "beta", "recall", "min_rel", "max_rel", "mult", "a", "b", "c", "d", "docs",
                     "convention", "alpha"):
            value = _number_value(parser, value, pos, key)
        elif key == "dcg" and value not in ("log2", "exp-log2"):
            parser.bad(f"dcg must be 'log2' or 'exp-log2', got {_shown(value)}")
        elif key == "gains" and not isinstance(value, dict):
            parser.bad(f"gains must be a mapping {{grade: gain, ...}}, got {_shown(value)}")
        params[key] = value
    if parser.peek("@"):
        at_tok = parser.take("@")
        if spec.at is None:
            parser.fail(f"{tok[1]} takes no @ parameter", at_tok[2], accepted=forms)
        if spec.at in params:
            parser.fail(f"{tok[1]}: {spec.at} given twice (in the parameters and after @)", at_tok[2],
                        accepted=forms)
        num = parser.take(kind="num", expected=f"a {spec.at} after '@'")
        value = _number(num[1])
        params[spec.at] = _cutoff_value(parser, value, num[2]) if spec.at == "cutoff" else \
            _number_value(parser, value, num[2], spec.at)
    for needed in spec.required:
        if needed not in params:
            example = "IPrec@0.5" if needed == "recall" else f"{tok[1]}@10"
            parser.fail(f"{tok[1]} needs a {needed}: {tok[1]}@{'x' if needed == 'recall' else 'k'} (e.g. {example})",
                        where=False, accepted="")
    try:
        return spec.build(params)
    except (TypeError, ValueError) as err:
        parser.bad(_reason(tok[1], err))


# ---------------------------------------------------------------------------
# trec_eval's names
# ---------------------------------------------------------------------------

def _gm(inner):
    return lambda value, convention: GeoMean(inner(value, convention))


def _irm(name, param=None):
    """A trec_eval measure that is an ir_measures one: its builder with ``param`` set from trec_eval's."""
    def build(value, convention):
        params = {} if value is None else {param: value}
        if name == "IPrec":
            params["convention"] = convention
        return _NAMED_MEASURES[name].build(params)
    return build


def _trec_gains(value):
    """trec_eval's ``level=gain`` pairs (``p=`` aside) as {grade: gain}."""
    return {g: v for g, v in (value or ()) if g != "p"}


def _trec_p(value, default=0.9):
    return next((v for g, v in (value or ()) if g == "p"), default)


#: trec_eval's measures: name -> (parameter kind, builder(value, convention)). Kinds: None (no parameter),
#: "cut" (integer cutoffs, one measure each), "level" (real parameters, one measure each, printed %.2f),
#: "list" (one measure of the whole comma list), "pairs" (one measure of ``a=b`` pairs).
#: The order is trec_eval's measure table (its output order).
_TREC = {
    "runid": (None, None), "num_q": (None, _irm("NumQ")), "num_ret": (None, _irm("NumRet")),
    "num_rel": (None, _irm("NumRel")), "num_rel_ret": (None, _irm("NumRelRet")), "map": (None, _irm("AP")),
    "gm_map": (None, _gm(_irm("AP"))), "Rprec": (None, _irm("Rprec")), "bpref": (None, _irm("Bpref")),
    "recip_rank": (None, _irm("RR")), "iprec_at_recall": ("level", _irm("IPrec", "recall")),
    "P": ("cut", _irm("P", "cutoff")), "relstring": ("list", None), "recall": ("cut", _irm("R", "cutoff")),
    "infAP": (None, lambda v, c: InfAP()), "gm_bpref": (None, _gm(_irm("Bpref"))),
    "Rprec_mult": ("level", lambda v, c: RprecMult(v)),
    "utility": ("list", lambda v, c: Utility() if v is None else Utility(a=v[0], b=v[1], c=v[2], d=v[3])),
    "11pt_avg": ("list", lambda v, c: IPrecMean(convention=c) if v is None else IPrecMean(v, convention=c)),
    "binG": (None, lambda v, c: BinG()), "G": ("pairs", lambda v, c: G(gains=_trec_gains(v))),
    "dcg": ("pairs", lambda v, c: DCGTrec(gains=_trec_gains(v))),
    "ideal_dcg": ("pairs", lambda v, c: IdealDCG(gains=_trec_gains(v))),
    "ndcg": ("pairs", lambda v, c: _NAMED_MEASURES["nDCG"].build({"gains": _trec_gains(v)} if v else {})),
    "ndcg_rel": ("pairs", lambda v, c: NDCGRel(gains=_trec_gains(v))),
    "Rndcg": ("pairs", lambda v, c: RnDCG(gains=_trec_gains(v))), "ndcg_cut": ("cut", _irm("nDCG", "cutoff")),
    "map_cut": ("cut", _irm("AP", "cutoff")), "relative_P": ("cut", lambda v, c: RelP(v)),
    "success": ("cut", _irm("Success", "cutoff")), "set_P": (None, _irm("SetP")),
    "set_relative_P": (None, _irm("SetRelP")), "set_recall": (None, _irm("SetR")), "set_map": (None, _irm("SetAP")),
    "set_F": ("list", lambda v, c: _NAMED_MEASURES["SetF"].build({} if v is None else {"beta": v[0]})),
    "num_nonrel_judged_ret": (None, lambda v, c: NumNonRelJudgedRet()),
    "num_nonjudged_ret": (None, lambda v, c: NumNonJudgedRet()),
    "rbp": ("pairs", lambda v, c: RBPTrec(p=_trec_p(v), gains=_trec_gains(v))),
    "rbp_resid": ("pairs", lambda v, c: RBPResid(p=_trec_p(v))), "unj": ("cut", lambda v, c: Unj(v)),
}

#: trec_eval's names of ir_measures' measures (for the suggestions: ``map@10`` -> ``AP@10``)
_TREC_IN_IR_MEASURES = {"map": "AP", "map_cut": "AP", "P": "P", "recall": "R", "ndcg": "nDCG", "ndcg_cut": "nDCG",
                        "recip_rank": "RR", "success": "Success", "bpref": "Bpref"}

#: trec_eval's names for sets of measures (``-m all_trec``): what each names is :data:`cwla.bridges.trec_eval.NICKNAMES`
TREC_NICKNAMES = ("official", "set", "all_trec")

#: the trec_eval measures cwla names but does not compute (asking for one says so); the preference and
#: judgement-group measures are ``cwla eval --format trec -R prefs | qrels_prefs | qrels_jg``'s
TREC_UNSUPPORTED = ("yaap", "set_relative_P_avgjg")

#: trec_eval's order of its measures (its measure table), the order of its output lines
TREC_ORDER = tuple(_TREC)
#: each trec_eval measure's kind of parameter (None, "cut", "level", "list" or "pairs": see _TREC)
TREC_KINDS = {name: kind for name, (kind, _) in _TREC.items()}

#: trec_eval's default parameters of its measures with one (``-m P`` gives P_5, ..., P_1000)
TREC_DEFAULT_CUTOFFS = {
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "relative_P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "success": (1, 5, 10), "unj": (5, 10, 20),
    "iprec_at_recall": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}

_NUM = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)"
_TREC_RE = re.compile(
    r"(?P<name>" + "|".join(sorted(map(re.escape, _TREC), key=len, reverse=True)) + r")"
    r"(?:[._](?P<param>" + _NUM + r"(?:," + _NUM + r")*|[-+A-Za-z0-9.]+=" + _NUM + r"(?:,[-+A-Za-z0-9.]+="
    + _NUM + r")*))?\Z"
)


def _trec_value(name: str, text: str | None):
    """trec_eval's parameter text of measure ``name`` as a value: an int (cut), a float (level), a tuple of
    floats (list) or of (grade or "p", gain) pairs; None when absent; raises ValueError when malformed."""
    kind = _TREC[name][0]
    if text is None:
        return None
    if kind is None:
        raise CwlaError(f"{name} takes no parameter")
    longest = max(len(part) for part in re.split(r"[,=]", text))
    if longest > _LONGEST_NUMBER:
        raise CwlaError(f"a number of {longest:,} characters: numbers in a metric text have at most "
                         f"{_LONGEST_NUMBER}")
    if kind == "pairs":
        pairs = []
        for pair in text.split(","):
            key, eq, value = pair.partition("=")
            if not eq:
                raise CwlaError(f"{name}'s parameters are level=gain pairs, got {pair!r}")
            pairs.append(("p" if key == "p" else float(key), float(value)))
        return tuple(pairs)
    if "=" in text:
        raise CwlaError(f"{name} takes numbers, not pairs")
    values = tuple(float(v) for v in text.split(","))
    if kind == "list":
        if name == "utility" and len(values) != 4:
            raise CwlaError("utility takes 4 coefficients (a, b, c, d), e.g. utility.1,-1,0,0")
        return values
    if len(values) != 1:
        raise CwlaError(f"{name}.{text} is {len(values)} measures: expand_trec_names or -m gives one each")
    return int(values[0]) if kind == "cut" else values[0]


def _trec_match(text: str):
    """``(name, parameter text or None)`` of a trec_eval measure text, or None."""
    m = _TREC_RE.match(text.strip())
    if m is None:
        return None
    name, param = m.group("name"), m.group("param")
    if param is not None and _TREC[name][0] is None:
        return None
    return name, param


def trec_parts(text: str) -> tuple[str, str | None] | None:
    """``(trec_eval measure name, its parameter text or None)`` of a trec_eval measure text (``P.5,10``,
    ``P_10``, ``ndcg.1=3``, ``map``), or None if ``text`` is not one."""
    return _trec_match(text)


def trec_name(text: str) -> str | None:
    """trec_eval's printed name for a trec_eval measure text (``P.10`` -> ``P_10``,
    ``iprec_at_recall.0.1`` -> ``iprec_at_recall_0.10``, ``utility.2,-1,0,0`` -> ``utility_2,-1,0,0``), or
    None if ``text`` is not one."""
    m = _trec_match(text)
    if m is None:
        return None
    name, param = m
    kind = _TREC[name][0]
    if param is None:
        return None if kind in ("cut", "level") else name
    try:
        value = _trec_value(name, param)
    except ValueError:
        return None
    if kind == "level":
        return f"{name}_{value:.2f}"
    if kind == "cut":
        return f"{name}_{value}"
    return f"{name}_{param}"  # trec_eval prints a list or pairs as given


def trec_sort_key(text: str) -> tuple[int, float] | None:
    """Where trec_eval prints a trec_eval measure text: (its measure's place in trec_eval's table, its
    parameter, ascending), or None if ``text`` is not one."""
    m = _trec_match(text)
    if m is None:
        return None
    name, param = m
    try:
        value = _trec_value(name, param)
    except ValueError:
        return None
    return TREC_ORDER.index(name), float(value) if isinstance(value, (int, float)) else 0.0


def expand_trec_names(text: str) -> list[str]:
    """trec_eval's ``-m`` argument as trec_eval's printed measure names: ``P.5,10`` -> ``['P_5', 'P_10']``,
    ``P`` (a measure with cutoffs, none given) -> its default cutoffs ``['P_5', ..., 'P_1000']``, ``recall.1000``
    -> ``['recall_1000']``, ``utility.2,-1,0,0`` -> ``['utility_2,-1,0,0']``; any other text is returned as it
    is, in a list."""
    stripped = text.strip()
    m = _trec_match(stripped)
    if m is None:
        return [text]
    name, param = m
    kind = _TREC[name][0]
    if param is None:
        if kind in ("cut", "level"):
            return [trec_name(f"{name}.{k}") for k in TREC_DEFAULT_CUTOFFS[name]]
        return [name]
    if kind in ("cut", "level"):
        names = [trec_name(f"{name}.{p}") for p in param.split(",")]
        return [n for n in names if n is not None] if all(names) else [text]
    return [trec_name(stripped) or text]


def _trec(parser, text: str, convention: int | None = None):
    name, param = _trec_match(text)
    kind, build = _TREC[name]
    if build is None:
        parser.fail(f"{name} is not a number per topic: cwla eval --format trec prints it (-m {name})", 0,
                    accepted="")
    if kind in ("cut", "level") and param is None:
        parser.fail(f"{name} needs a parameter: {name}_{'x' if kind == 'level' else 'k'} or {name}.k (e.g. "
                    f"{trec_name(name + '.' + str(TREC_DEFAULT_CUTOFFS[name][1]))}); the command line's "
                    f"-m {name} gives trec_eval's defaults {', '.join(map(_fmt, TREC_DEFAULT_CUTOFFS[name]))}", 0,
                    accepted="")
    try:
        value = _trec_value(name, param)
        if kind == "cut" and value < 1:
            raise CwlaError(f"cutoff must be an integer >= 1, got {param}")
        return build(value, convention)
    except (TypeError, ValueError) as err:
        parser.bad(_reason(name, err))


# ---------------------------------------------------------------------------
# Chen & Sakai's names
# ---------------------------------------------------------------------------


#: model names users write in a MODEL_AGG name from other tools' habits (``P_ERG``, ``map_ERG``, ``ndcg_ERG``)
_MODEL_HINTS = {"p": "Precision", "prec": "Precision", "map": "AP", "ndcg": "DCG", "sdcg": "DCG", "mrr": "RR"}


def _chen_sakai(parser, tok):
    model_name, _, agg_name = tok[1].partition("_")
    model_cls = BROWSING_MODELS.get(model_name) or _MODEL_ALIASES.get(model_name.lower())
    agg_cls = AGGREGATIONS.get(agg_name) or _AGG_ALIASES.get(agg_name.lower())
    if model_cls is None or agg_cls is None or "_" in agg_name:
        parser.fail(f"{tok[1]!r} is not a Chen & Sakai name MODEL_AGG nor a trec_eval name"
                    f"{_suggestion(parser, tok)}", tok[2],
                    accepted=f"accepted MODEL_AGG: MODEL {', '.join(BROWSING_MODELS)} (or another model), AGG "
                             f"{', '.join(AGGREGATIONS)}; or see docs/metrics.md")
    model = CHEN_SAKAI_DEFAULTS.get(model_cls.__name__)
    if model is None:  # a model outside the paper's six: its declared defaults
        try:
            model = model_cls()
        except (TypeError, ValueError):
            parser.fail(f"{tok[1]!r}: {model_cls.__name__} has no default parameters", tok[2],
                        accepted=f"accepted: {model_cls.__name__}(...)+{agg_cls.name}")
    return Metric(model, agg_cls())


def _distance(a: str, b: str) -> int:
    """The optimal-string-alignment edit distance of ``a`` and ``b``: insertions, deletions, substitutions
    and transpositions of two neighbours count 1 each (``RPB`` -> ``RBP``: 1)."""
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[len(b)]


#: the longest text a message repeats whole
_SHOWN = 120


def _clipped(text: str) -> str:
    """``repr(text)``, or for a text longer than :data:`_SHOWN` its start, elided, and its length: a message
    stays short whatever was given."""
    if len(text) <= _SHOWN:
        return repr(text)
    return f"{text[:_SHOWN - 20]!r}... ({len(text):,} characters)"


def _close(word: str, names) -> list[str]:
    """The names near ``word``, case-insensitively, best first: those that differ from it in case only (if
    any, just those), else those within 1 edit (2 for words longer than 4 characters; :func:`_distance`) or
    of difflib ratio >= 0.8."""
    import difflib

    low = word.lower()
    scored = []
    for name in dict.fromkeys(names):
        name_low = str(name).lower()
        if name == word:
            continue
        # bounds that need no search: the distance is at least the difference in length, and difflib's ratio
        # 2 M / (la + lb) at most 2 min(la, lb) / (la + lb) -- so a long word costs nothing against short names
        la, lb = len(low), len(name_low)
        if abs(la - lb) > 2 and 2 * min(la, lb) < 0.8 * (la + lb):
            continue
        d = _distance(low, name_low)
        ratio = difflib.SequenceMatcher(None, low, name_low).ratio()
        if d <= (1 if len(low) <= 4 else 2) or ratio >= 0.8:
            scored.append((d, -ratio, name))
    scored.sort(key=lambda s: s[:2])
    if scored and scored[0][0] == 0:
        scored = [s for s in scored if s[0] == 0]
    return [name for *_, name in scored]


def _did_you_mean(names) -> str:
    """`` (did you mean 'a' or 'b'?)`` for the first two of ``names`` (one per spelling ignoring case), or
    nothing."""
    names = list({str(n).lower(): n for n in reversed(list(dict.fromkeys(names)))}.values())[::-1][:2]
    return f" (did you mean {' or '.join(map(repr, names))}?)" if names else ""


def _reason(label: str, err: Exception, given: dict | None = None) -> str:
    """The message of a rejected value: a parameter's own (``'p' of RBP must be ..., got 1.5``, the value as
    ``given`` it if it is there), else ``invalid LABEL: ...``."""
    text = str(err)
    rule = re.match(r"('(\w+)' of \S+ must be .*): (.*)\Z", text, re.S)
    if rule:
        value = _shown(given[rule.group(2)]) if given and rule.group(2) in given else rule.group(3)
        return f"{rule.group(1)}, got {value}"
    return f"invalid {label}: {text}"


def _vocabulary() -> list[str]:
    """Every name a metric text may start with: ir_measures' names and aliases, trec_eval's, and MODEL_AGG
    for every built-in and registered model (the paper's spelling: ``RBP_ERG``, ``Precision_avg``)."""
    models = [m for m in list(MODELS) + list(USER_MODELS) if m != "Tabulated"]
    return (list(_NAMED_MEASURES) + list(_NAMED_ALIASES) + [n for n, (_, build) in _TREC.items() if build]
            + [f"{m}_{a}" for m in models for a in AGGREGATIONS])


_SUGGESTING = []  # a suggestion is checked by parsing it, which must not suggest in turn
_TREC_PARAM = re.compile(r"(?P<base>.+?)(?P<param>[._][-+0-9.,=]+)\Z")


def _suggestion(parser, tok) -> str:
    """`` (did you mean ...?)`` for the names near the unknown name ``tok`` (:func:`_close`: any case, a
    typo or two; ``RPB``: ``RBP``, ``RBP_PEE``: ``RBP_PE``, ``ndcg@10``: ``nDCG@10``) among cwla's, the
    paper's, ir_measures' and trec_eval's names, keeping those that parse with the rest of the text (two
    at most, one per meaning); ``map@10``: ``AP@10`` or ``map_cut_10``, ir_measures' spelling and trec_eval's."""
    if _SUGGESTING:
        return ""
    word = tok[1]
    rest = parser.text[tok[2] + len(word):].strip()
    candidates = []
    if word in _TREC_IN_IR_MEASURES:
        candidates.append(_TREC_IN_IR_MEASURES[word] + rest)  # trec_eval's name in ir_measures' words
    model, sep, agg = word.partition("_")
    models = aggs = []
    if sep:  # MODEL_AGG, each part a known one in another case or spelling, or near one
        models = [_MODEL_HINTS[model.lower()]] if model.lower() in _MODEL_HINTS else []
        models += _close(model, [m for m in MODELS if m != "Tabulated"])
        aggs = [a for a in AGGREGATIONS if a == agg] + _close(agg, AGGREGATIONS)
        if rest.startswith("(") and ")" in rest:  # RBP_ERG(p=0.9) -> RBP(p=0.9)+ERG
            end = rest.index(")") + 1
            candidates += [f"{m}{rest[:end]}+{a}{rest[end:]}" for m in models[:1] + [model] for a in aggs[:1] + [agg]]
        if model.lower() in _MODEL_HINTS:
            candidates += [f"{models[0]}_{a}{rest}" for a in aggs[:2] + [agg]]
    candidates += [name + rest for name in _close(word, _vocabulary())]
    candidates += [f"{m}_{a}{rest}" for m in models[:2] for a in aggs[:2]]
    trec = _TREC_PARAM.match(word)
    if trec:  # a trec_eval name with its parameter: recal_100 -> recall_100
        candidates += [name + trec.group("param") + rest for name in _close(trec.group("base"), _TREC)]
    good, meanings = [], []
    _SUGGESTING.append(True)
    try:
        for candidate in dict.fromkeys(candidates):
            try:
                meaning = parse_metric(candidate)
            except MetricSyntaxError:
                continue
            if meaning not in meanings:
                good.append(candidate)
                meanings.append(meaning)
            if len(good) == 2:
                break
    finally:
        _SUGGESTING.pop()
    cut = re.match(r"@\s*(\d+)\s*\Z", rest)
    if cut and f"{word}_cut" in _TREC:  # map@10, a trec_eval user's: trec_eval's spelling too (map_cut_10)
        good = good[:1] + [f"{word}_cut_{cut.group(1)}"]
    return _did_you_mean(good)


def parse_metric(text: str) -> Metric | CountingMeasure:
    """Parse a metric text: canonical form, Chen & Sakai name, ir_measures name or trec_eval name.

    Returns a :class:`~cwla.Metric` (C/W/L/A) or, for recall, R-precision, bpref and the
    other counts, a :class:`~cwla.metrics.counting.CountingMeasure`. Raises
    :class:`~cwla.errors.MetricSyntaxError` saying what is wrong, the accepted forms and, for a
    name near a known one (any case, a typo or two), "did you mean ...".

    Examples
    --------
    >>> from cwla import RBP, ERG, Metric
    >>> parse_metric("RBP(p=0.8)+ERG") == Metric(RBP(p=0.8), ERG())
    True
    >>> str(parse_metric("INST_PE"))
    'INST(T=2.5)+PE(beta=0.5)'
    >>> str(parse_metric("nDCG@10"))
    'DCG(k=10)+ETG[gain=linear, cutoff=10, depth=all, normalize=ideal]'
    >>> str(parse_metric("P.10")), str(parse_metric("recall_1000"))
    ('Precision(k=10)+ERG[gain=binary, cutoff=10, depth=all]', 'R@1000')
    >>> try:
    ...     parse_metric("RPB")
    ... except MetricSyntaxError as err:
    ...     print(str(err).splitlines()[0])
    cannot parse metric 'RPB': 'RPB' is not a metric name (did you mean 'RBP'?)
    """
    return _parse_metric(text)


def _parse_metric(text, inside: str = ""):
    if isinstance(text, str) and text.lstrip().startswith("\u03b1_"):  # ir_measures' α_nDCG is alpha_nDCG
        text = text.replace("\u03b1_", "alpha_", 1)
    if isinstance(text, str) and _trec_match(text) is not None:  # before tokenising: 11pt_avg..25,.5
        return _trec(_Parser.whole(text, inside=inside), text)
    parser = _Parser(text, inside=inside)
    if parser.at_end():
        parser.fail("empty text")
    wrapped = _GEOMEAN_RE.match(text)
    if wrapped:
        return _geomean(parser, wrapped)
    if text.strip() in TREC_NICKNAMES:
        parser.fail(f"{text.strip()!r} is trec_eval's name for a set of measures, not one metric", 0,
                    accepted=f"cwla eval -m {text.strip()} (any --format) evaluates them all; in "
                             f"Python, their names are cwla.bridges.trec_eval.trec_measures([{text.strip()!r}])[0]")
    unsupported = re.match(r"(" + "|".join(map(re.escape, TREC_UNSUPPORTED)) + r")(?:[._][-+0-9.,=]*)?\Z",
                           text.strip())
    if unsupported:
        parser.fail(f"{unsupported.group(1)!r} is a trec_eval measure that cwla does not compute", 0,
                    accepted="accepted trec_eval names: those docs/metrics.md lists (e.g. map, P_10, ndcg_cut_10)")
    tok, args = parser.part()
    if parser.peek("+"):
        parser.take("+")
        agg_tok, agg_args = parser.part()
        metric = Metric(_model(parser, tok, args), _aggregation(parser, agg_tok, agg_args))
    elif _NAMED_ALIASES.get(tok[1], tok[1]) in _NAMED_MEASURES:
        metric = _named(parser, tok, args)
    elif "_" in tok[1] and not args and not parser.peek("@"):
        metric = _chen_sakai(parser, tok)
    else:
        parser.fail(f"{_clipped(tok[1])} is not a metric name{_suggestion(parser, tok)}", tok[2])
    if parser.peek("["):
        bracket = parser.peek()
        if isinstance(metric, CountingMeasure):
            parser.fail(f"{metric} takes no [options]: it is not a C/W/L/A metric", bracket[2],
                        accepted=f"accepted: {metric}, without [...]")
        options = _options(parser)
        try:
            metric = metric.with_options(**options)
        except (TypeError, ValueError) as err:
            parser.bad(str(err))
    if not parser.at_end():
        parser.fail(f"unexpected {parser.peek()[1]!r}")
    return metric


_GEOMEAN_RE = re.compile(r"\s*GM\((?P<inner>.*?)(?:,\s*floor\s*=\s*(?P<floor>[^,()]*))?\)\s*\Z", re.S)


def _geomean(parser, match):
    """``GM(MEASURE[, floor=X])``: the measure's geometric mean over topics (:class:`GeoMean`); an error
    inside names the inner text and the whole."""
    inner = match.group("inner")
    accepted = "accepted: GM(MEASURE) or GM(MEASURE, floor=X), e.g. GM(AP)"
    if not inner.strip():
        parser.fail("GM(...) needs a measure inside", 3, accepted=accepted)
    measure = _parse_metric(inner, inside=f" in {parser.text!r}")
    if isinstance(measure, GeoMean):
        parser.fail("GM(...) of a GM(...) is not a measure", match.start("inner"), accepted=accepted)
    floor = match.group("floor")
    if floor is None:
        return GeoMean(measure)
    try:
        return GeoMean(measure, floor=float(floor))
    except ValueError:
        parser.bad(f"'floor' of GM must be a finite number > 0, got {floor.strip()!r}")


def parser_name(name: str) -> str | None:
    """What the metric parser reads ``name`` as besides a user's model, in any spelling it accepts (names
    of models and aggregations in any case, ir_measures' and trec_eval's names, Chen & Sakai's
    ``MODEL_AGG``, anything else that parses as a metric), or None: a name a user's model may take
    (:func:`cwla.register_model`)."""
    low = name.lower()
    if low in _MODEL_ALIASES:
        return f"the built-in browsing model {_MODEL_ALIASES[low].__name__}"
    if low in _AGG_ALIASES:
        return f"the aggregation {_AGG_ALIASES[low].name}"
    if name in _TREC or _trec_match(name) is not None:
        return f"the trec_eval measure {name}"
    for known in list(_NAMED_MEASURES) + list(_NAMED_ALIASES):
        if low == known.lower():
            return f"the ir_measures measure {known}"
    for known in list(_TREC) + list(TREC_UNSUPPORTED):
        if low == known.lower():
            return f"the trec_eval measure {known}"
    model, _, agg = low.partition("_")
    if model in _MODEL_ALIASES and agg in _AGG_ALIASES:
        return f"the Chen & Sakai metric {name}"
    try:
        parse_metric(name)
    except MetricSyntaxError:
        return None
    return f"the metric {name}"


def parse_gain(text: str) -> GainMap:
    """Parse a gain map: the canonical form (``linear(gmax=3)``, ``binary(threshold=2)``,
    ``table(0:0, 1:0.5)``) or the CLI form ``linear:3``, ``exponential:4``, ``binary:2``."""
    parser = _Parser(text, what="gain map")
    if parser.at_end():
        parser.fail("empty text")
    gain = _gain(parser)
    if not parser.at_end():
        parser.fail(f"unexpected {parser.peek()[1]!r}")
    return gain


#: the former name of :func:`parse_gain`
parse_gain_text = parse_gain
