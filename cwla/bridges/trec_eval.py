"""trec_eval's command line as ``cwla eval --format trec``: its measure selection, its output and its options.

What trec_eval (usnistgov/trec_eval, ``trec_eval.c``, ``measures.c``, ``meas_*.c``) does, and cwla with it:

- **Measures.** ``-m NAME`` marks a measure, ``-m NAME.PARAMS`` gives its parameters (the first ``-m`` with
  parameters for a name wins; a bare ``-m P`` beside ``-m P.10`` gives only P_10, as in trec_eval and
  pytrec_eval), ``-m NICKNAME`` marks a group (``official``, ``set``, ``all_trec``). Without ``-m``:
  ``official``. Lines come in trec_eval's measure order (its measure table), a measure's cutoffs ascending.
- **Topics.** Without ``-c`` the topics of both the qrels and the run are printed and averaged; with ``-c``
  every qrels topic is averaged (a missing topic scores as an empty ranking), and trec_eval >= 10 also
  prints it (9.0 does not).
- **Summary.** ``runid`` (the run's tag, its sixth column) and ``num_q`` print in the summary only, as do
  ``gm_map`` and ``gm_bpref`` (geometric means); ``relstring`` prints per topic only.
- **-Z FILE** (``topic measure mean sd`` lines): every per-topic value v becomes (v - mean) / sd, printed as
  ``Z<name>``; a topic or measure missing from the file, or sd = 0 with v != mean, gives -1000000 (trec_eval's
  MISSING_ZSCORE_VALUE). The summary averages the z values (sums for the counts, the geometric mean of
  log-scaled values for gm_*), as trec_eval does.
- **-N NUM**: the number of documents in the collection (``utility``'s d term).
- **Conventions.** ``--trec-eval 9`` (default: trec_eval 9.0, pytrec_eval, NIST's published results) or
  ``10`` (trec_eval >= 10): interpolated precision's recall cut (iprec_at_recall, 11pt_avg), which topics
  ``-c`` prints, and which measures exist (rbp, rbp_resid, unj are trec_eval 10's).
"""

from __future__ import annotations

import math
import os

import attrs
import numpy as np

from ..data.files import read_bytes
from ..data.trec_format import RUN_LAYOUT
from ..errors import CwlaError, InputError
from ..metrics.text import TREC_KINDS, TREC_NICKNAMES, TREC_ORDER, expand_trec_names, parse_metric, trec_name, trec_parts
from ..metrics.text import trec_sort_key

__all__ = ["NICKNAMES", "TREC_10_ONLY", "trec_measures", "trec_eval_lines", "read_zscores", "relstrings",
           "run_tag", "MISSING_ZSCORE_VALUE"]

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P")
_SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
        "set_map", "set_F")
_ALL_TREC_9 = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
               "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
               "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
               "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
               "num_nonrel_judged_ret")
#: the measures trec_eval 10 added (not in 9.0)
TREC_10_ONLY = ("unj", "rbp", "rbp_resid", "dcg", "ideal_dcg", "num_nonjudged_ret")
#: trec_eval's nicknames (groups of measures), per convention
NICKNAMES = {
    9: dict(zip(TREC_NICKNAMES, (_OFFICIAL, _SET, _ALL_TREC_9))),
    10: dict(zip(TREC_NICKNAMES, (_OFFICIAL, _SET, _ALL_TREC_9 + ("unj", "rbp", "rbp_resid")))),
}
#: the value trec_eval gives a z-score it cannot compute
MISSING_ZSCORE_VALUE = -1000000.0
#: the measures printed in the summary only
_SUMMARY_ONLY = ("runid", "num_q", "gm_map", "gm_bpref")


def _split(text: str) -> tuple[str, str | None]:
    """``P.5,10`` -> ('P', '5,10'); trec_eval splits a -m argument at its first '.'."""
    name, dot, params = text.strip().partition(".")
    return name, (params if dot else None)


def trec_measures(texts, convention: int = 9, docs: float = 0.0) -> tuple[dict, int | None]:
    """trec_eval's selection from its ``-m`` arguments: ``({printed name: measure text}, relstring length)``,
    the names in trec_eval's output order (``runid`` and ``relstring`` are not measures: they map to None;
    the relstring length is returned apart, None when not asked for). Texts that are not trec_eval
    names (cwla's or ir_measures' names) follow, as given. ``docs`` is ``-N`` (utility's collection size)."""
    marked, params, others = [], {}, []
    for text in texts or ["official"]:
        name, given = _split(text)
        parts = trec_parts(text)
        if name in NICKNAMES[convention] and given is None:
            marked.extend(NICKNAMES[convention][name])
        elif parts is not None or name in TREC_ORDER:
            name, given = parts if parts is not None else (name, given)
            if convention == 9 and name in TREC_10_ONLY:
                raise CwlaError(f"{name} is a trec_eval 10 measure (not in trec_eval 9.0, whose conventions "
                                 f"--trec-eval 9 follows): add --trec-eval 10")
            if given == "":
                raise CwlaError(f"-m {text}: no parameters after the '.' (e.g. P.10)")
            marked.append(name)
            if given is not None:
                params.setdefault(name, []).append(given)
        else:
            others.append(text)
    selected, relstring = {}, None
    for name in TREC_ORDER:
        if name not in marked:
            continue
        given = _joined(name, params.get(name))
        if name == "runid":
            selected["runid"] = None
            continue
        if name == "relstring":
            relstring = 10 if given is None else int(float(given.split(",")[0]))
            selected["relstring" if given is None else f"relstring_{given}"] = None
            continue
        full = name if given is None else f"{name}.{given}"
        names = expand_trec_names(full)
        keyed = sorted(names, key=lambda n: trec_sort_key(n)[1])
        for printed in keyed:
            if name == "utility" and docs:
                selected[printed] = _with_docs(printed, docs)
            else:
                selected[printed] = printed
    for text in others:
        for printed in expand_trec_names(text):
            selected.setdefault(trec_name(printed) or printed, printed)
    return selected, relstring


def _joined(name: str, given: list | None) -> str | None:
    """The parameters of one measure from its -m arguments: a cutoff measure's lists joined (``-m P.5 -m
    P.10`` is P_5 and P_10; trec_eval itself keeps the first), a list or pairs measure's first."""
    if not given:
        return None
    if TREC_KINDS[name] in ("cut", "level"):
        seen = list(dict.fromkeys(v for g in given for v in g.split(",")))
        return ",".join(seen)
    return given[0]


def _with_docs(text: str, docs: float):
    return attrs.evolve(parse_metric(text), docs=docs)


def run_tag(path) -> str:
    """trec_eval's runid of a run file: the sixth field of its last line that is neither blank nor a comment."""
    data = bytes(read_bytes(path, "run", layout=RUN_LAYOUT))
    for line in reversed(data.splitlines()):
        fields = line.split()
        if len(fields) >= 6 and not line.lstrip().startswith(b"#"):
            return fields[5].decode("utf-8", "replace")
    return os.path.basename(os.fsdecode(path))


def read_zscores(path) -> dict:
    """trec_eval's -Z file: ``topic measure mean sd`` lines -> {(topic, measure): (mean, sd)} (``nan`` is read
    as trec_eval reads it: its z-scores are then nan)."""
    from ..data.files import text_fields

    out = {}
    for n, fields in text_fields(path, "trec_eval z-scores", "topic measure mean sd"):
        try:
            mean, sd = float(fields[2]), float(fields[3])
        except ValueError:
            raise InputError(f"{path}, line {n}: mean and sd must be numbers, got {fields[2]!r} {fields[3]!r}") \
                from None
        if sd < 0:
            raise InputError(f"{path}, line {n}: sd must be >= 0, got {fields[3]}")
        out[(fields[0], fields[1])] = (mean, sd)
    return out


def relstrings(col, length: int) -> list[list[str]]:
    """trec_eval's ``relstring`` of every (run, topic) of a Collection: the grades of the first ``length``
    documents, one character each: the digit of a grade 0..9, '>' above 9, '.' for a grade < 0, '-' for a
    document not in the qrels."""
    grades = col.grades
    chars = np.array(["-" if i == len(grades) else (">" if g > 9 else ("." if g < 0 else str(int(g))))
                      for i, g in enumerate(list(grades) + [0])], dtype=object)
    out = []
    n_t = len(col.topics)
    for r in range(len(col.runs)):
        row = []
        for t in range(n_t):
            c = r * n_t + t
            start, n = col.starts[c], min(col.lengths[c], length)
            row.append("".join(chars[col.codes[start:start + n]]))
        out.append(row)
    return out


def _z(value: float, entry) -> float:
    if entry is None:
        return MISSING_ZSCORE_VALUE
    mean, sd = entry
    if sd:
        return (value - mean) / sd
    return 0.0 if value == mean else MISSING_ZSCORE_VALUE


def trec_eval_lines(ev, names: dict, *, tags: list, per_topic: bool = False, complete: bool = False,
                    convention: int = 9, zscores: dict | None = None, relstring: list | None = None,
                    summary: bool = True) -> str:
    """trec_eval's output of an Evaluation whose labels are trec_eval's printed names (:func:`trec_measures`):
    per topic (``per_topic``: -q) and the summary (``summary=False``: -n, none), one block per run (several
    runs: each block after a ``runid`` line with the run's name, unless runid is asked for); ``tags`` the
    runs' runids, ``complete`` -c, ``zscores`` -Z's table, ``relstring`` the relstrings per (run, topic)."""
    label = {name: i for i, name in enumerate(ev.labels)}
    kinds = [ev.metrics[i].aggregate for i in range(len(ev.labels))]
    zed = zscores is not None
    out = []
    for r, run in enumerate(ev.runs):
        missing = set(ev.missing_topics.get(run, ()))
        present = [t for t, topic in enumerate(ev.topics) if topic not in missing]
        averaged = list(range(len(ev.topics))) if complete else present
        printed = averaged if (complete and convention == 10) else present
        if len(ev.runs) > 1 and "runid" not in names:  # one block per run, each after a line naming it
            out.append("%-22s\t%s\t%s" % ("runid", "all", run))
        per_value = {}
        for name, i in label.items():
            values = ev.values[i, r].copy()
            if kinds[i] == "gmean":
                values = np.log(np.maximum(values, ev.metrics[i].floor))
            if zed:
                measure = name
                values = np.array([_z(v, zscores.get((topic, measure))) for v, topic in zip(values, ev.topics)])
            per_value[name] = values
        if per_topic:
            for t in printed:
                for name in names:
                    if _is_relstring(name):
                        out.append("%-22s\t%s\t'%s'" % (name, ev.topics[t], relstring[r][t]))
                    elif name not in _SUMMARY_ONLY:
                        out.append(_line(name, ev.topics[t], per_value[name][t], kinds[label[name]], zed))
        for name in names if summary else ():
            if name == "runid":
                out.append("%-22s\t%s\t%s" % ("runid", "all", tags[r]))
                continue
            if _is_relstring(name):
                continue
            kind = kinds[label[name]]
            values = per_value[name][averaged]
            if name == "num_q":
                total = float(len(averaged))
            elif kind == "sum":
                total = float(values.sum())
            elif kind == "gmean":
                total = math.exp(values.mean()) if len(values) else 0.0
            else:
                total = float(values.mean()) if len(values) else 0.0
            out.append(_line(name, "all", total, kind, zed))
    return "".join(line + "\n" for line in out)


def _is_relstring(name: str) -> bool:
    return name == "relstring" or name.startswith("relstring_")


def _line(name: str, topic: str, value: float, kind: str, zed: bool) -> str:
    if zed:
        return "Z%-22s\t%s\t%6.4f" % (name, topic, value)
    if kind == "sum" or name == "num_q":
        return "%-22s\t%s\t%d" % (name, topic, int(round(value)))
    return "%-22s\t%s\t%6.4f" % (name, topic, value)
