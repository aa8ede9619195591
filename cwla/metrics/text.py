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

from .aggregations import AGGREGATIONS
from .browsing import BROWSING_MODELS, MODELS, TABLES, USER_MODELS, Tabulated, tabulated
from .counting import CountingMeasure
from .._validate import NONE, check, rule_of, fmt as _fmt
from ..errors import CwlaError, MetricSyntaxError, ParameterError
from .gains import GAIN_MAPS, Exponential, GainMap
from .metric import METRIC_CONSTRAINTS, METRIC_OPTIONS, RELEVANCE_LEVEL, Metric, format_metric
from .summary import GeoMean
from .intents import IntentAware, Intents, Novelty
from .names_ir_measures import NAMED_ALIASES, NAMED_MEASURES, named_forms
from .names_trec_eval import (TREC_DEFAULT_CUTOFFS, TREC_IN_IR_MEASURES, TREC_KINDS, TREC_MEASURES, TREC_NICKNAMES,
                              TREC_ORDER, TREC_UNSUPPORTED, trec_match, trec_value, expand_trec_names, trec_name,
                              trec_parts, trec_sort_key)
from .names_chen_sakai import CHEN_SAKAI_DEFAULTS, MODEL_HINTS
from .spelling import LONGEST_NUMBER, SHOWN, clipped, close, did_you_mean

__all__ = ["parse_metric", "parse_gain", "parser_name", "format_metric", "parse_gain_text", "expand_trec_names",
           "trec_name", "trec_parts", "trec_sort_key", "TREC_KINDS", "TREC_ORDER", "CHEN_SAKAI_DEFAULTS",
           "TREC_DEFAULT_CUTOFFS"]

_TOKEN = re.compile(
    r"\s*(?:(?P<num>[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<str>'[^']*'|\"[^\"]*\")|(?P<op>[()\[\]{},=+@:]))"  # digits 0-9 only, not every Unicode digit
)

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
            if kind == "num" and len(value) > LONGEST_NUMBER:
                self.i = len(self.tokens)
                self.fail(f"a number of {len(value):,} characters ({clipped(value)}): numbers in a metric text "
                          f"have at most {LONGEST_NUMBER}", m.start(kind))
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
        lines = [f"cannot parse {self.what} {clipped(self.text)}{self.inside}: {problem}"]
        if where and pos > 0 and len(self.tokens) > 1 and "\n" not in self.text and len(self.text) <= SHOWN:
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
            parser.fail(f"{label} has no parameter {key!r}{did_you_mean(close(str(key), params))}", pos,
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
            parser.fail(f"no tabulated model is registered as {value!r}{did_you_mean(close(str(value), TABLES))}",
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
            parser.fail(f"unknown browsing model {clipped(tok[1])}: {agg} is an aggregation", tok[2],
                        accepted=f"accepted: MODEL+AGGREGATION, the model first (e.g. 'RBP(p=0.8)+{agg}')")
        near = close(tok[1], list(MODELS) + list(USER_MODELS))
        parser.fail(f"unknown browsing model {clipped(tok[1])}{did_you_mean(near)}", tok[2], accepted=_models_accepted())
    if cls is Tabulated:
        return _tabulated(parser, tok, args)
    return _build(parser, cls, args, tok, _declared(cls), cls.__name__)


def _aggregation(parser, tok, args):
    cls = AGGREGATIONS.get(tok[1]) or _AGG_ALIASES.get(tok[1].lower())
    if cls is None:
        parser.fail(f"unknown aggregation {tok[1]!r}{did_you_mean(close(tok[1], AGGREGATIONS))}", tok[2],
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
        parser.fail(f"unknown gain map {tok[1]!r}{did_you_mean(close(tok[1], GAIN_MAPS))}", tok[2],
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
            parser.fail(f"unknown option {key[1]!r}{did_you_mean(close(key[1], METRIC_OPTIONS))}", key[2],
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
            else:  # cutoff, depth, normalize
                value = _accepted(parser, key[1], value, METRIC_CONSTRAINTS[key[1]])
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
                   f"{did_you_mean(close(tok[1], ('ia', 'novelty')))}")
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


def _accepted(parser, name, value, constraints):
    """``value`` as a parameter's declared ``constraints`` take it (:func:`~cwla._validate.check`; a text never
    gives None); else the parser's message, with the rule they state."""
    try:
        return check(value, name, *(c for c in constraints if c is not NONE),
                     message=lambda rule: f"{name} must be {rule}, got {_shown(value)}")
    except ParameterError as err:
        parser.bad(str(err))


def _cutoff_value(parser, value, pos):
    return _accepted(parser, "cutoff", value, METRIC_CONSTRAINTS["cutoff"])


def _rel_value(parser, value, pos):
    _accepted(parser, "rel", value, (RELEVANCE_LEVEL,))
    return value  # as written (an integral level stays an int in the measure)


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


def _named(parser, tok, args):
    """An ir_measures name: ``NAME[(params)][@value]``."""
    name = NAMED_ALIASES.get(tok[1], tok[1])
    spec = NAMED_MEASURES[name]
    forms = named_forms(tok[1], spec)
    params = {}
    for key, value, pos in args:
        if key is None or key == ":":
            parser.fail(f"{tok[1]} takes its parameters by name", pos, accepted=forms)
        if key not in spec.params:
            parser.fail(f"{tok[1]} has no parameter {key!r}{did_you_mean(close(str(key), spec.params))}", pos,
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

def _trec(parser, text: str, convention: int | None = None):
    name, param = trec_match(text)
    kind, build = TREC_MEASURES[name]
    if build is None:
        parser.fail(f"{name} is not a number per topic: cwla eval --format trec prints it (-m {name})", 0,
                    accepted="")
    if kind in ("cut", "level") and param is None:
        parser.fail(f"{name} needs a parameter: {name}_{'x' if kind == 'level' else 'k'} or {name}.k (e.g. "
                    f"{trec_name(name + '.' + str(TREC_DEFAULT_CUTOFFS[name][1]))}); the command line's "
                    f"-m {name} gives trec_eval's defaults {', '.join(map(_fmt, TREC_DEFAULT_CUTOFFS[name]))}", 0,
                    accepted="")
    try:
        value = trec_value(name, param)
        if kind == "cut" and value < 1:
            raise CwlaError(f"cutoff must be {rule_of(METRIC_CONSTRAINTS['cutoff'], value, none=False)}, got {param}")
        return build(value, convention)
    except (TypeError, ValueError) as err:
        parser.bad(_reason(name, err))


# ---------------------------------------------------------------------------
# Chen & Sakai's names
# ---------------------------------------------------------------------------




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
    return (list(NAMED_MEASURES) + list(NAMED_ALIASES) + [n for n, (_, build) in TREC_MEASURES.items() if build]
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
    if word in TREC_IN_IR_MEASURES:
        candidates.append(TREC_IN_IR_MEASURES[word] + rest)  # trec_eval's name in ir_measures' words
    model, sep, agg = word.partition("_")
    models = aggs = []
    if sep:  # MODEL_AGG, each part a known one in another case or spelling, or near one
        models = [MODEL_HINTS[model.lower()]] if model.lower() in MODEL_HINTS else []
        models += close(model, [m for m in MODELS if m != "Tabulated"])
        aggs = [a for a in AGGREGATIONS if a == agg] + close(agg, AGGREGATIONS)
        if rest.startswith("(") and ")" in rest:  # RBP_ERG(p=0.9) -> RBP(p=0.9)+ERG
            end = rest.index(")") + 1
            candidates += [f"{m}{rest[:end]}+{a}{rest[end:]}" for m in models[:1] + [model] for a in aggs[:1] + [agg]]
        if model.lower() in MODEL_HINTS:
            candidates += [f"{models[0]}_{a}{rest}" for a in aggs[:2] + [agg]]
    candidates += [name + rest for name in close(word, _vocabulary())]
    candidates += [f"{m}_{a}{rest}" for m in models[:2] for a in aggs[:2]]
    trec = _TREC_PARAM.match(word)
    if trec:  # a trec_eval name with its parameter: recal_100 -> recall_100
        candidates += [name + trec.group("param") + rest for name in close(trec.group("base"), TREC_MEASURES)]
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
    if cut and f"{word}_cut" in TREC_MEASURES:  # map@10, a trec_eval user's: trec_eval's spelling too (map_cut_10)
        good = good[:1] + [f"{word}_cut_{cut.group(1)}"]
    return did_you_mean(good)


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
    if isinstance(text, str) and trec_match(text) is not None:  # before tokenising: 11pt_avg..25,.5
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
    elif NAMED_ALIASES.get(tok[1], tok[1]) in NAMED_MEASURES:
        metric = _named(parser, tok, args)
    elif "_" in tok[1] and not args and not parser.peek("@"):
        metric = _chen_sakai(parser, tok)
    else:
        parser.fail(f"{clipped(tok[1])} is not a metric name{_suggestion(parser, tok)}", tok[2])
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
    if name in TREC_MEASURES or trec_match(name) is not None:
        return f"the trec_eval measure {name}"
    for known in list(NAMED_MEASURES) + list(NAMED_ALIASES):
        if low == known.lower():
            return f"the ir_measures measure {known}"
    for known in list(TREC_MEASURES) + list(TREC_UNSUPPORTED):
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
