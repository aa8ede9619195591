"""The family of pairs a comparison of systems tests, and its p-values.

Without a baseline the family is every pair i < j of the m systems; with baselines ``b_1, ..., b_k`` it is each
baseline against every other system, each pair once (two baselines are compared once, under the first given):
``k (m - 1) - C(k, 2)`` comparisons. :func:`family_pvalues` tests the family with a test of the registry
(:mod:`discpower.stats.registry`) or a callable ``test(x, y) -> p-value``; :func:`adjust_family` applies a
multiple-comparison correction over it (:func:`discpower.stats.corrections.adjust_pvalues`).

References
----------
Carterette, "Multiple testing in statistical analysis of systems-based information retrieval experiments",
TOIS 30(1), 2012.
Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, ch. 4-5.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Union

import numpy as np

from ..errors import DiscpowerError
from .registry import REGISTRY, label_of, pair_pvalue, run_test
from .corrections import adjust_pvalues
from .significance import checked_pvalue
from .trials import in_parts

__all__ = ["family_pairs", "family_pvalues", "adjust_family", "trials_per_metric", "callable_name",
           "baseline_option", "unknown_baselines", "TestLike"]

#: a test: a name of the registry, or a callable ``test(x, y)`` of two systems' per-topic scores returning the
#: two-sided p-value (a float, or an object with a ``.pvalue`` such as scipy.stats' results)
TestLike = Union[str, Callable[[np.ndarray, np.ndarray], object]]


def baseline_option(baseline) -> str | tuple[str, ...] | None:
    """``baseline`` checked: None, a run name, or a tuple of distinct run names (from a list or tuple)."""
    rule = (f"The 'baseline' parameter must be a run name (a non-empty str), a list or tuple of distinct run "
            f"names (several baselines), or None. Got {baseline!r} instead.")
    if baseline is None or (isinstance(baseline, str) and baseline):
        return baseline
    if not isinstance(baseline, (list, tuple)) or not baseline \
            or not all(isinstance(b, str) and b for b in baseline):
        raise DiscpowerError(rule)
    twice = sorted({b for b in baseline if baseline.count(b) > 1})
    if twice:
        raise DiscpowerError(f"{rule[:-1]} ({', '.join(map(repr, twice))} given twice)")
    return tuple(baseline)


def unknown_baselines(baseline, names, what: str) -> None:
    """A DiscpowerError if a baseline is not one of ``names`` (the systems, or the runs)."""
    for b in (() if baseline is None else (baseline,) if isinstance(baseline, str) else baseline):
        if b not in names:
            raise DiscpowerError(f"unknown baseline {b!r}: the {what} are {', '.join(map(repr, names))} "
                                 f"(a run's name is its file name without directory and .gz)")


def family_pvalues(X: np.ndarray, names: tuple[str, ...], bs: tuple[int, ...], test: TestLike, B: int | None,
             seed: int | None, plus_one: bool = True, label: str = "score") -> np.ndarray:
    """Raw p-values (m, m), symmetric, of the tested pairs (the baselines', or all); NaN elsewhere."""
    m = X.shape[1]
    p = np.full((m, m), np.nan)
    if callable(test):
        name = callable_name(test)
        for a, c in zip(*family_pairs(m, bs)):
            first, second = (c, a) if bs else (a, c)  # (system_a, system_b) of pair_frame
            what = f"the test callable {name} on the pair ({names[first]!r}, {names[second]!r}) of {label!r}"
            try:
                value = test(X[:, first].copy(), X[:, second].copy())
            except Exception as err:  # a user's function: say which pair it failed on, keep its traceback
                raise DiscpowerError(f"{what} raised {type(err).__name__}: {err}") from err
            p[a, c] = p[c, a] = checked_pvalue(value, what)
    elif REGISTRY[test].scope == "all":
        p = run_test(X, names, test, B, seed, plus_one=plus_one).pvalue.copy()
    else:  # a test of two systems, on the pairs compared only
        found = REGISTRY[test]
        pairs = list(zip(*family_pairs(m, bs)))
        with in_parts(len(pairs), label_of(test), B if found.resampling else None) as part:
            for k, (a, c) in enumerate(pairs):
                # (system_a, system_b) of pair_frame, as scipy is called; the randomisation tests' |d| does not
                # depend on the order, so they keep the column order
                first, second = (c, a) if bs and not found.resampling else (a, c)
                with part(k):
                    p[a, c] = p[c, a] = pair_pvalue(found, X[:, [first, second]], (names[first], names[second]),
                                                    B, seed, plus_one)
    if bs:  # only the comparisons with the baselines are reported
        keep = np.zeros((m, m), dtype=bool)
        for b in bs:
            keep[b, :] = keep[:, b] = True
        p[~keep] = np.nan
    np.fill_diagonal(p, np.nan)
    return p


def trials_per_metric(test: TestLike, B: int | None, n_pairs: int) -> int | None:
    """The resampling trials of one metric's p-values (None for a test that does not resample)."""
    if callable(test) or not REGISTRY[test].resampling:
        return None
    return B if REGISTRY[test].scope == "all" else B * n_pairs


def callable_name(test) -> str:
    """A test callable's name, as messages and captions give it: ``wilcoxon``, ``<lambda>``, a partial's
    ``wilcoxon(zero_method='pratt')``, else its repr."""
    if isinstance(test, functools.partial):
        given = [repr(v) for v in test.args] + [f"{k}={v!r}" for k, v in test.keywords.items()]
        return f"{callable_name(test.func)}({', '.join(given)})"
    name = getattr(test, "__name__", None)
    return name if isinstance(name, str) and name else repr(test)


def family_pairs(m: int, bs: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (i, j) of the family: every i < j without baselines; else, for each baseline b in order,
    (b, other) for every other system not already compared with an earlier baseline (so two baselines are
    compared once, under the first of them)."""
    if not bs:
        return np.triu_indices(m, k=1)
    i, j, done = [], [], set()
    for b in bs:
        others = [o for o in range(m) if o != b and o not in done]
        i += [b] * len(others)
        j += others
        done.add(b)
    return np.array(i, dtype=np.intp), np.array(j, dtype=np.intp)


def adjust_family(p: np.ndarray, bs: tuple[int, ...], correction: str | None, alpha: float) -> np.ndarray:
    """``p`` with the family's p-values adjusted by ``correction`` (symmetric again)."""
    i, j = family_pairs(p.shape[0], bs)
    out = p.copy()
    adjusted = adjust_pvalues(p[i, j], correction, alpha=alpha)
    out[i, j] = adjusted
    out[j, i] = adjusted
    return out
