"""The grid of a sweep: which candidate qrels it compares, with which seeds, and what one chunk of cells computes.

A cell is ``(name, generator or None, parameter, repetition, seed, qrels or None)``: a generator's
candidate for one parameter value and repetition, or a candidate given as it is (:func:`cells`). A
generated candidate's seed depends on (the sweep's seed, the generator's name, the repetition) only
(:func:`discpower.stats.rng.child_seeds`), so adding a parameter value changes no other draw, and the
draws are nested across rates for one repetition.

:func:`run_chunk` computes a chunk of cells under the recipe's comparer: each candidate is built once,
joined with the runs once and compared under every metric; a cell that cannot be compared (e.g. an
empty candidate) becomes a row with NaN values and a ``status`` that says why, and the other cells go on.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from cwla.errors import CwlaError

from ..errors import DiscpowerError
from ..stats.rng import child_seeds
from ..stats.trials import counts_its_own
from .compare import QrelsComparer
from .executors import Recipe, comparer_for, loaded, numba_threads

__all__ = ["cells", "run_chunk", "tidy", "COLUMNS"]

#: the columns of a sweep's frame (``metric`` comes before ``measure`` for several metrics)
COLUMNS = ["generator", "parameter", "repetition", "measure", "value", "status"]


def _named_generators(generators) -> dict:
    """{name: callable} from names, callables, a list of them or a dict."""
    from .generators import GENERATORS

    if isinstance(generators, Mapping):
        named = [(str(k), v) for k, v in generators.items()]
    else:
        if isinstance(generators, str) or callable(generators):
            generators = [generators]
        named = [(g, g) if isinstance(g, str) else (getattr(g, "__name__", "custom"), g) for g in generators]
    out = {}
    for name, fn in named:
        if isinstance(fn, str):
            if fn not in GENERATORS:
                raise DiscpowerError(f"unknown generator {fn!r}; accepted: {', '.join(GENERATORS)} or a "
                                     f"callable (truth, runs, parameter, seed) -> qrels")
            fn = GENERATORS[fn]
        if not callable(fn):
            raise DiscpowerError(f"generator {name!r} is not callable")
        if name in out:
            raise DiscpowerError(f"two generators are named {name!r}; pass a dict {{name: generator}}")
        out[name] = fn
    return out


def cells(generators, parameters, repetitions, candidates, seed) -> list[tuple]:
    """The grid: (name, generator or None, parameter, repetition, seed, qrels or None) per candidate."""
    items = []
    if candidates is not None:
        if not isinstance(candidates, Mapping) or not candidates:
            raise DiscpowerError("candidates must be a non-empty dict {name: qrels path or DataFrame}")
        for name, qrels in candidates.items():
            items.append((str(name), None, np.nan, 0, 0, qrels))
    if generators:
        named = _named_generators(generators)
        clash = sorted(set(named) & {item[0] for item in items})
        if clash:
            raise DiscpowerError(f"generator and candidate names must differ; both use {clash}")
        parameters = list(parameters) if isinstance(parameters, Iterable) and not isinstance(parameters, str) else []
        if not parameters:
            raise DiscpowerError("parameters must be a non-empty list (e.g. sampling rates 0.1 ... 1.0)")
        for name, fn in named.items():
            salt = zlib.crc32(name.encode("utf-8"))
            for rep in range(repetitions):
                child = child_seeds(seed, salt, rep)[0]
                items += [(name, fn, parameter, rep, child, None) for parameter in parameters]
    if not items:
        raise DiscpowerError("nothing to sweep: give generators (with parameters) or candidates")
    return items


def _where(name, fn, parameter, repetition) -> str:
    """The cell, as error messages name it."""
    if fn is None:
        return f"candidate {name!r}"
    return f"generator {name!r}, parameter {parameter}, repetition {repetition}"


def _candidate(comparer: QrelsComparer, where: str, fn, parameter, seed, qrels):
    """The cell's candidate qrels: generated from (parameter, seed), else the one given (loaded)."""
    try:
        if fn is not None:
            return fn(comparer.truth, comparer.runs, parameter, seed)
    except Exception as exc:
        raise DiscpowerError(f"sweep cell ({where}): the generator failed: {type(exc).__name__}: {exc}") from exc
    return loaded(qrels)


def _refused(where: str, call):
    """``(call(), "ok")``, or ``(None, why)`` when cwla or discpower refuse the candidate (a
    :class:`~cwla.errors.CwlaError`: no topic in common with the ground truth, a single topic, ...); any
    other error is raised as a DiscpowerError that names the cell."""
    try:
        return call(), "ok"
    except CwlaError as exc:  # DiscpowerError and cwla's InputError included
        return None, str(exc)
    except Exception as exc:
        raise DiscpowerError(f"sweep cell ({where}): {type(exc).__name__}: {exc}") from exc


def _compared(comparer: QrelsComparer, where: str, fn, qrels) -> list[tuple[dict, str]]:
    """(measures, status) of one candidate under each of the comparer's metrics: the candidate joined
    with the runs once (and its kappa computed once), then compared metric by metric.

    ``"ok"`` with the comparison's measures; ``"empty candidate"`` (no judgement at all) or the
    refusal's message, with no measures."""
    labels = comparer.labels
    if isinstance(qrels, (pd.DataFrame, Mapping)) and len(qrels) == 0:
        return [({}, "empty candidate")] * len(labels)
    # topic subsets are compared against the ground truth on all its topics (McKechnie's Table 2)
    topics = "truth" if getattr(fn, "keeps_truth_topics", False) else None
    joined, status = _refused(where, lambda: comparer.join(qrels))
    if joined is None:
        return [({}, status)] * len(labels)
    c, col = joined
    kappa = comparer.kappa(c)
    out = []
    for label in labels:
        result, status = _refused(where, lambda: comparer.compare_joined(c, col, metric=label, topics=topics,
                                                                         kappa=kappa))
        out.append(({} if result is None else result.measures, status))
    return out


@counts_its_own  # in a worker too (a thread or process of an executor, where the sweep's settings do not reach)
def run_chunk(recipe: Recipe, items: list, comparer: QrelsComparer | None = None) -> tuple[list[dict], list[str]]:
    """Compare every candidate of a chunk under every metric, on the recipe's numba threads: the rows of
    the tidy frame (one row with measure None for a cell that did not compare, see :func:`tidy`) and
    ``"<cell>: <status>"`` for each such cell."""
    with numba_threads(recipe.threads):
        comparer = comparer if comparer is not None else comparer_for(recipe)
        rows, failures = [], []
        for name, fn, parameter, repetition, seed, qrels in items:
            where = _where(name, fn, parameter, repetition)
            qrels = _candidate(comparer, where, fn, parameter, seed, qrels)
            for k, (measures, status) in enumerate(_compared(comparer, where, fn, qrels)):
                cell = {"generator": name, "parameter": parameter, "repetition": repetition}
                if recipe.labels is not None:
                    cell["metric"] = recipe.labels[k]
                if status == "ok":
                    rows += [{**cell, "measure": measure, "value": float(value), "status": status}
                             for measure, value in measures.items()]
                else:
                    rows.append({**cell, "measure": None, "value": np.nan, "status": status})
                    failures.append(f"{where}{'' if recipe.labels is None else f', {recipe.labels[k]}'}: {status}")
    return rows, failures


def tidy(rows: list[dict], several: bool) -> pd.DataFrame:
    """The sweep's frame: a cell that did not compare gets a NaN row for each measure the others have
    (a single row, measure NaN, when no cell compared)."""
    names = list(dict.fromkeys(row["measure"] for row in rows if row["status"] == "ok")) or [np.nan]
    rows = [out for row in rows
            for out in ([row] if row["status"] == "ok" else [{**row, "measure": m} for m in names])]
    columns = COLUMNS[:3] + ["metric"] + COLUMNS[3:] if several else COLUMNS
    return pd.DataFrame(rows, columns=columns)
