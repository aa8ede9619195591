"""Write docs/metrics.md from the code itself (the module docstrings, the parser's name tables and the grid),
so the catalogue cannot drift from what cwla computes. tests/project/test_docs.py checks it is current.

    python docs/make_catalogue.py
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import cwla
from cwla.bridges import cwl
from cwla.metrics import aggregations, browsing, counting, gains, intents, names_ir_measures, names_trec_eval, summary, text

OUT = Path(__file__).with_name("metrics.md")


def _doc(module) -> str:
    """The module's docstring as Markdown: reST roles and ``literals`` as code spans, ``::`` as ``:``."""
    text = inspect.cleandoc(module.__doc__)
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return re.sub(r"::$", ":", text, flags=re.M)


def _cell(value: str) -> str:
    return "`" + value.replace("|", "\\|") + "`"


def _meaning(example: str) -> str:
    measure = cwla.parse_metric(example)
    kind = "" if isinstance(measure, cwla.Metric) else " (outside C/W/L/A)"
    return _cell(str(measure)) + kind


def ir_measures_table() -> str:
    rows = []
    aliases = {}
    for alias, name in names_ir_measures.NAMED_ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    for name, spec in names_ir_measures.NAMED_MEASURES.items():
        params = ", ".join(spec.params) or "-"
        also = f" (also {', '.join(aliases[name])})" if name in aliases else ""
        for i, example in enumerate(spec.examples):
            head = f"`{name}`{also} | {params}" if i == 0 else " | "
            follows = spec.follows if i == 0 else ""
            rows.append(f"| {head} | {_cell(example)} | {_meaning(example)} | {follows} |")
    return "| name | parameters | example | C/W/L/A meaning (canonical text) | semantics of |\n|---|---|---|---|---|\n" \
        + "\n".join(rows)


def trec_eval_table() -> str:
    from cwla.bridges.trec_eval import TREC_10_ONLY

    rows = []
    forms = {None: "`{0}`", "cut": "`{0}_k`, `{0}.k`", "level": "`{0}_x`, `{0}.x`", "list": "`{0}`, `{0}.a,b,...`",
             "pairs": "`{0}`, `{0}.g=v,...`"}
    for name, (kind, build) in names_trec_eval.TREC_MEASURES.items():
        version = "trec_eval 10" if name in TREC_10_ONLY else "trec_eval 9.0 and 10"
        if build is None:
            rows.append(f"| {forms[kind].format(name)} | printed by `cwla eval --format trec` | | {version} |")
            continue
        if name in text.TREC_DEFAULT_CUTOFFS:
            example = text.trec_name(f"{name}.{text.TREC_DEFAULT_CUTOFFS[name][1]}")
        else:
            example = name
        rows.append(f"| {forms[kind].format(name)} | {_cell(example)} | {_meaning(example)} | {version} |")
    rows.append(f"| `ndcg.g=v,...` | `ndcg.1=3,2=9,4=4.5` | {_meaning('ndcg.1=3,2=9,4=4.5')} | trec_eval 9.0 and 10 |")
    return "| trec_eval | example | C/W/L/A meaning (canonical text) | semantics of |\n|---|---|---|---|\n" + \
        "\n".join(rows)


def _params(cls) -> str:
    if not cls.declared:
        return "-"
    return "<br>".join(f"`{p.name}` = {p.text(p.default) if p.default is not None else '-'}: {p.describe()}"
                       + (f" ({p.doc})" if p.doc else "") for p in cls.declared)


def models_table() -> str:
    """Every browsing model, from its declaration (cwla.metrics.browsing.MODELS)."""
    rows = []
    for name, cls in browsing.MODELS.items():
        if cls is browsing.Tabulated:
            params, example = "`C={rank: C}`, `W={rank: W}` or `name=NAME`", "Tabulated(C={1:0.9, 2:0.5})"
        else:
            params, example = _params(cls), str(cls())
        notes = ", ".join(n for n, flag in (("gain-free", cls.gain_free), ("uses costs", cls.uses_costs)) if flag)
        rows.append(f"| `{name}` | {params} | {_cell(cls.formula)} | {cls.reference} | {_cell(example + '+ERG')} "
                    f"| {notes} |")
    return "| model | parameters (default: rule) | C(i) | reference | example | notes |\n|---|---|---|---|---|---|\n" \
        + "\n".join(rows)


def aggregations_table() -> str:
    rows = [f"| `{name}` | {_params(cls)} | {_cell(cls.formula)} | {cls.reference} |"
            for name, cls in aggregations.AGGREGATIONS.items()]
    return "| aggregation | parameters | A(i) | reference |\n|---|---|---|---|\n" + "\n".join(rows)


def cwl_table() -> str:
    rows = []
    for name, spec in cwl.CWL_MEASURES.items():
        args = ", ".join(f"{p}={d}" if d is not None else p for p, d in zip(spec.params, spec.defaults))
        example = f"{name}({', '.join(str(d if d is not None else 2) for d in spec.defaults)})"
        m = cwl.parse_cwl_metric(example)
        rows.append(f"| `{name}({args})` | {_cell(m.name)} | {_cell(str(m.eu))} | {_cell(str(m.etu))} |")
    return "| cwl_eval metric | prints | EU from | ETU, EC, ETC, ED from |\n|---|---|---|---|\n" + "\n".join(rows)


def residuals_section() -> str:
    """What the residual of a C/W/L/A metric is, exactly, and when it is a bound (the models' gain_free flags)."""
    free = ", ".join(n for n, c in browsing.MODELS.items() if c.gain_free)
    adaptive = ", ".join(n for n, c in browsing.MODELS.items() if not c.gain_free)
    return f"""Every value comes with a residual (`Evaluation.residuals`, the `residual` column of `cwla eval`;
cwl_eval's `-r`, as SPEC defines it): the value in the **upper world** minus the value, where the upper world
gives gain 1 to every unjudged document (one not in the qrels; a negative grade is judged, gain 0) of the
(cut) ranking within the depth H and to every position from the end of the (cut) ranking up to H (none
under `depth=all`, the trec_eval and ir_measures names), the judged documents keeping their gains.

* **AP with `R=qrels`** (`AP`, `map`, `map_cut_k`): in the upper world R also counts the gain added, R' = R +
  (the unjudged and padded documents' gain 1 each), as they are relevant documents of the topic there. So
  the residual is AP(upper, R') - AP(value, R).
* **Ideal normalisation** (`nDCG`, `normalize=ideal` or `full`): (upper - value) / the same ideal as the
  value's, made of the judged documents only; value + residual can exceed 1.
* **A topic missing from a run** scores 0; its residual is the upper world of an empty ranking (every position
  up to H at gain 1; 0 under `depth=all`).
* **Intents**: with `intents=novelty(...)` the novelty gains are computed from the judged documents and an
  unjudged one gets gain 1 in the upper world; with `intents=ia` the residual is the mean over the subtopics
  of each subtopic's residual. `GM(...)`: the geometric mean of the upper world's values minus the run's.

**When it is a bound.** A metric whose browsing model ignores the gains ({free}) has a value that never
falls when a gain rises, with every aggregation: its residual is >= 0 and value + residual is the most the
unjudged documents could make it. The other models' continuation depends on the gains ({adaptive}, and the
models registered with `cwla.register_model` that do not say `gain_free`): a relevant document changes
where the user stops, so the upper world can score *lower* and the residual can be **negative**. It is then
the change if every unknown document were relevant, not a bound on it. AP is the common case: a relevant
document at rank j moves the AP user's stopping mass to j, and with `R=qrels` it also adds one to R, so
unjudged documents ranked low lower AP (`AP(rel=2)@100` on TREC DL 2020 runs with many unjudged documents
below the relevant ones: negative on some topics). The counting measures' residuals are stated in the next
section; those with R in a denominator (recall, R-precision, bpref, ...) can be negative for the same
reason.

A true bound for these (the largest value over every way of judging the unjudged documents) is not computed:
it is a search over subsets, not one upper world."""


def catalogue() -> str:
    grid = cwla.all_combinations()
    names = cwla.chen_sakai_names(include_constant=True)
    rows = "\n".join(
        f"| `{name}` | `{metric}` | {'constant (x): flagged, not a ranking metric' if metric.is_constant else ''} |"
        for name, metric in zip(names, grid)
    )
    return f"""# Metric catalogue

Generated by `docs/make_catalogue.py` from cwla's own docstrings, name tables and grid; do not edit by hand.

A metric is a browsing model C(i) composed with an aggregation A(i): score = sum_(i<=H) L(i) A(i),
with V(1) = 1, V(i+1) = V(i) C(i), L(i) = V(i) (1 - C(i)), E = sum_(i<=H) V(i), cg(i) = sum_(j<=i) r_j.
Every name below parses with `cwla.parse_metric` and can be given to `cwla.evaluate` and `cwla eval -m`.

## Browsing models (`cwla.metrics.browsing`)

{_doc(browsing)}

{models_table()}

## Aggregations (`cwla.metrics.aggregations`)

{aggregations_table()}

## cwl_eval's metrics (`cwla cwl`, `cwla.bridges.cwl`)

{_doc(cwl)}

{cwl_table()}

## Gain maps (`cwla.metrics.gains`)

{_doc(gains)}

## The metric language (`cwla.metrics.text`)

{_doc(text)}

## ir_measures' names

Each example's canonical text is what cwla evaluates. A name without `rel=` is binary at the evaluation's
relevance level (`evaluate(rel=...)`, `cwla eval -l`, or a binary `--gain`; 1 if none is given): the
canonical text shows `gain=binary` for it.

{ir_measures_table()}

## trec_eval's names

`_` or `.` separates the parameter; on the command line `-m P.5,10` gives `P_5` and `P_10`, and a bare
`-m P` trec_eval's default cutoffs ({", ".join(map(str, text.TREC_DEFAULT_CUTOFFS["P"]))}).
`cwla eval --format trec` prints them as trec_eval does.

{trec_eval_table()}

## Residuals

{residuals_section()}

## Measures outside C/W/L/A (`cwla.counting`)

{_doc(counting)}

## Geometric means over topics (`cwla.metrics.summary`)

{_doc(summary)}

## Intent-aware (diversity) metrics (`cwla.metrics.intents`)

{_doc(intents)}

## Chen & Sakai's grid: 42 combinations, 39 valid

| Chen & Sakai name | canonical text | note |
|---|---|---|
{rows}
"""


if __name__ == "__main__":
    OUT.write_text(catalogue())
    print(f"wrote {OUT}")
