"""The pairwise tests by name: each test declared once, read by every entry point that takes ``test=``.

A :class:`Entry` says what a test is (its name and other spellings, its description, whether it
controls the family-wise error over all pairs itself, whether it resamples) and how it runs on a
checked topics x systems matrix. Two scopes:

* ``"all"`` -- one call tests every pair of the m systems (the Tukey HSDs, the max-t test, the
  paired t-test, vectorised);
* ``"pair"`` -- one call tests two systems (Fisher's randomisation test, the paired bootstrap,
  Wilcoxon, the sign test); on m systems it is run on each pair.

A test that does not control the family-wise error itself takes a correction by name:
``"<test>-<correction>"`` (e.g. ``"t-test-holm"``, ``"wilcoxon-bonferroni"``, ``"fisher-bh"``) adjusts
its C(m, 2) p-values with :func:`~discpower.stats.corrections.adjust_pvalues`.

:func:`run_test` runs a test by name (or a callable ``(X, systems) -> PairwiseTest``) on every pair;
:func:`check_test` checks a name before any work is done. The systems table
(:func:`discpower.compare_systems`) runs the per-pair tests on the compared pairs only.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import numpy as np

from .._params import n_trials as trials_value
from ..errors import DiscpowerError
from .matrix import finite_sums, score_matrix
from .maxt import max_t_test, perm_max_t_test
from .result import PairwiseTest
from .rng import seed_value
from .trials import in_parts
from .corrections import CORRECTION_NAMES, adjust_pvalues, check_correction, correction_name
from .significance import bootstrap_test, fisher_test
from .significance import mean_diff, paired_t_test, parametric_tukey_hsd, sign_test, wilcoxon_test
from .tukey import tukey_test

__all__ = ["Entry", "REGISTRY", "TESTS", "NAMES", "FAMILY_WISE", "RESAMPLING", "lookup", "check_test", "run_test",
           "pair_pvalue", "resamples", "words_of", "significance_test", "resolve", "reachable", "trials_needed",
           "check_reachable"]

#: run(X, systems, n_trials, seed, plus_one) -> PairwiseTest, on a checked matrix (n_trials and seed None
#: for a test that does not resample)
Runner = Callable[[np.ndarray, tuple, "int | None", "int | None", bool], PairwiseTest]


@attrs.frozen
class Entry:
    """One pairwise test as the entry points know it.

    Attributes
    ----------
    name : str
        The name ``test=`` takes.
    words : str
        What it is, as captions and reports say it.
    scope : "all" or "pair"
        One call tests every pair, or two systems.
    family_wise : bool
        It controls the family-wise error over all C(m, 2) pairs itself (no correction applies).
    resampling : bool
        It draws random numbers: ``n_trials`` and ``seed`` apply, and ``plus_one``.
    run : callable
        ``run(X, systems, n_trials, seed, plus_one) -> PairwiseTest`` on a checked matrix (two
        columns for a ``"pair"`` test).
    finite : str
        The name the finiteness check of its sums uses in its message.
    squares : bool
        Its sums of squares must be finite too.
    aliases : tuple of str
        Other names accepted for it.
    reference : str
        Where the test comes from.
    """

    name: str
    words: str
    scope: str
    family_wise: bool
    resampling: bool
    run: Runner
    finite: str
    squares: bool = False
    aliases: tuple = ()
    reference: str = ""


def _tukey(X, systems, B, seed, plus_one):
    return tukey_test(X, systems, B, seed, plus_one=plus_one)


def _max_t(X, systems, B, seed, plus_one):
    return max_t_test(X, systems, B, seed, plus_one=plus_one)


def _perm_max_t(X, systems, B, seed, plus_one):
    return perm_max_t_test(X, systems, B, seed, plus_one=plus_one)


def _parametric_tukey(X, systems, B, seed, plus_one):
    return parametric_tukey_hsd(X, systems=systems)


def _t_test(X, systems, B, seed, plus_one):
    return paired_t_test(X, systems=systems)


def _fisher(X, systems, B, seed, plus_one):
    return fisher_test(X, systems, B, seed, plus_one=plus_one)


def _bootstrap(X, systems, B, seed, plus_one):
    return bootstrap_test(X, systems, B, seed, plus_one=plus_one)


def _wilcoxon(X, systems, B, seed, plus_one):
    return wilcoxon_test(X, systems)


def _sign(X, systems, B, seed, plus_one):
    return sign_test(X, systems)


#: every shipped test, in the order lists and tables show them
REGISTRY: dict[str, Entry] = {t.name: t for t in (
    Entry("tukey", "paired randomised Tukey HSD", "all", True, True, _tukey, "randomised Tukey HSD",
         reference="Carterette, TOIS 2012; Sakai, Laboratory Experiments in IR, 2018, ch. 4"),
    Entry("max-t", "randomised max-t test (paired t, sign flips)", "all", True, True, _max_t,
         "randomised max-t test", squares=True,
         reference="Westfall & Young, Resampling-Based Multiple Testing, 1993"),
    Entry("perm-max-t", "studentised-permutation max-t test (paired t, the Tukey HSD's relabelling)", "all", True,
          True, _perm_max_t, "studentised-permutation max-t test", squares=True,
          reference="Westfall & Young 1993; Janssen 1997; Chung & Romano, Annals of Statistics 2013"),
    Entry("parametric-tukey", "paired parametric Tukey HSD (two-way ANOVA)", "all", True, False, _parametric_tukey,
         "parametric Tukey HSD", squares=True, reference="Sakai, Laboratory Experiments in IR, 2018, ch. 4"),
    Entry("t-test", "paired t-test", "all", False, False, _t_test, "paired t-test", squares=True,
         reference="Student 1908"),
    Entry("fisher", "Fisher's paired randomisation test", "pair", False, True, _fisher, "Fisher randomisation",
         aliases=("randomisation",), reference="Fisher 1935; Smucker, Allan & Carterette, CIKM 2007"),
    Entry("bootstrap", "paired bootstrap test", "pair", False, True, _bootstrap, "paired bootstrap", squares=True,
         reference="Sakai, SIGIR 2006"),
    Entry("wilcoxon", "Wilcoxon signed-rank test", "pair", False, False, _wilcoxon, "Wilcoxon signed-rank test",
         reference="Wilcoxon 1945"),
    Entry("sign", "sign test (exact binomial)", "pair", False, False, _sign, "sign test", reference="Conover 1999"),
)}
#: the tests' names (beside them: each alias, and ``"<name>-<correction>"`` for a test that is not family-wise)
TESTS = tuple(REGISTRY)
#: the tests that control the family-wise error over all pairs themselves
FAMILY_WISE = tuple(t.name for t in REGISTRY.values() if t.family_wise)
#: the tests that draw random numbers
RESAMPLING = tuple(t.name for t in REGISTRY.values() if t.resampling)
_ALIASES = {alias: t.name for t in REGISTRY.values() for alias in t.aliases}
#: every name a test is known by: the names, then the aliases
NAMES = TESTS + tuple(_ALIASES)


def _accepted() -> str:
    aliases = ", ".join(f"{a!r} (= {n!r})" for a, n in _ALIASES.items())
    return (f"{', '.join(repr(t) for t in TESTS)} (also {aliases}); a test that is not family-wise also as "
            f"'<test>-<correction>' (e.g. 't-test-holm', 'wilcoxon-bonferroni', 'fisher-bh')")


def lookup(name: object, *, corrected: bool = True, callables: bool = True) -> tuple[Entry, str | None]:
    """(the test, its correction or None) of a name: a test's name or alias, or, when ``corrected``,
    ``"<test>-<correction>"``; else a DiscpowerError listing the accepted names (and a callable, where the caller
    takes one: ``callables``)."""
    if isinstance(name, str):
        base = _ALIASES.get(name, name)
        if base in REGISTRY:
            return REGISTRY[base], None
        if corrected:
            for head in sorted((*REGISTRY, *_ALIASES), key=len, reverse=True):  # "t-test-hs": t-test, holm-sidak
                correction = correction_name(name[len(head) + 1:]) if name.startswith(head + "-") else None
                if correction is not None:
                    test = REGISTRY[_ALIASES.get(head, head)]
                    if test.family_wise:
                        raise DiscpowerError(f"test {name!r}: {test.name!r} controls the family-wise error over all "
                                             f"pairs itself; it takes no correction (use {test.name!r})")
                    return test, correction
    raise DiscpowerError(f"unknown test {name!r}; accepted: {_accepted()}"
                         f"{'' if corrected else ' (the correction given apart)'}{', or a callable' if callables else ''}")


def _spelled(found: Entry, correction: str | None) -> str:
    """A test and its correction as one canonical name: ``"fisher"``, ``"t-test-holm"``."""
    return found.name if correction is None else f"{found.name}-{correction}"


def check_test(test: object, *, corrected: bool = True, correction: object = None, callables: bool = True) -> object:
    """``test`` normalised: a callable as given, a name as its canonical spelling (``"randomisation"`` ->
    ``"fisher"``, ``"randomisation-holm"`` -> ``"fisher-holm"``; with ``correction`` given apart, the two
    joined by :func:`resolve`: ``("t-test", "holm")`` -> ``"t-test-holm"``); a DiscpowerError for anything else."""
    if callable(test):
        return test
    found, named = resolve(test, correction) if correction is not None else \
        lookup(test, corrected=corrected, callables=callables)
    return _spelled(found, named)


def resolve(test: object, correction: object = None) -> tuple[Entry, str | None]:
    """(the test, its correction or None) of a name given as ``"<test>-<correction>"`` or as a name and a
    ``correction`` apart (both ways at once only if they agree); one message for an unknown name, and a
    family-wise test takes no correction."""
    found, named = lookup(test)
    given = check_correction(correction)
    if named is not None and given is not None and named != given:
        raise DiscpowerError(f"test {test!r} names the correction {named!r}, and correction={given!r} another; "
                             f"give it once")
    correction = named or given
    if correction is not None and found.family_wise:
        per_pair = ", ".join(repr(t.name) for t in REGISTRY.values() if not t.family_wise)
        raise DiscpowerError(f"test {found.name!r} controls the family-wise error over all pairs itself; it takes "
                             f"no correction (got {correction!r}). A corrected family: one of {per_pair} with a "
                             f"correction, e.g. 't-test-{correction}'")
    return found, correction


def reachable(correction: str | None, family: int, n_trials: int, alpha: float, plus_one: bool = True) -> bool:
    """Whether a family of ``family`` randomised p-values, each at least 1/(B + 1) (``plus_one``; 0 else), can
    have any member significant (adjusted p < alpha) after ``correction``: for every correction of
    :data:`~discpower.stats.corrections.CORRECTIONS` (the two-stage ones included) the best case is every
    p-value at its smallest, 1/(B + 1). Without a correction it is True (a test's own B is its business)."""
    if correction is None or not plus_one or family < 1:
        return True
    p = np.full(family, 1.0 / (n_trials + 1))
    return bool(np.any(adjust_pvalues(p, correction, alpha=alpha) < alpha))


def trials_needed(correction: str | None, family: int, alpha: float) -> int:
    """The smallest B at which :func:`reachable` holds (plus-one p-values)."""
    if reachable(correction, family, 1, alpha):
        return 1
    lo, hi = 1, 2
    while not reachable(correction, family, hi, alpha):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reachable(correction, family, mid, alpha) else (mid, hi)
    return hi


def check_reachable(test: object, n_systems: int, n_trials: int | None, alpha: float, plus_one: bool = True, *,
                    correction: str | None = None, family: int | None = None) -> None:
    """Refuse a randomised test whose p-values cannot be significant at this B: with plus-one p-values the
    smallest is 1/(B + 1), and a correction over a family of k comparisons (default C(m, 2)) may need less
    (Holm's or Bonferroni's first threshold is alpha / k). The correction is in the test's name or given
    apart (``correction``). The message gives the B that can."""
    if callable(test) or n_trials is None:
        return
    found, correction = resolve(test, correction)
    if not found.resampling:
        return
    k = n_systems * (n_systems - 1) // 2 if family is None else family
    if reachable(correction, k, n_trials, alpha, plus_one):
        return
    needed = trials_needed(correction, k, alpha)
    how = f"{CORRECTION_NAMES[correction]}'s correction over {k:,} comparisons"
    raise DiscpowerError(
        f"test {_spelled(found, correction)!r} at B = {n_trials:,} can find no pair significant: its smallest p-value, "
        f"1/(B + 1) = {1 / (n_trials + 1):.2g}, cannot pass {how} at alpha {alpha:g}. B >= {needed:,} can "
        f"(n_trials={needed}), or take a family-wise test that needs no correction (test='perm-max-t')")


def resamples(test: object) -> bool:
    """Whether a checked test (a name, or a callable: False) draws random numbers."""
    return not callable(test) and lookup(test)[0].resampling


def label_of(test: object) -> str:
    """A test as its progress line names it: its canonical name (what ``test=`` and ``--test`` take); a
    callable, its name."""
    if callable(test):
        return getattr(test, "__name__", "test")
    found, correction = lookup(test)
    return _spelled(found, correction)


def words_of(test: object) -> str:
    """A test in words, as captions say it (a callable: its name)."""
    if callable(test):
        return f"test {getattr(test, '__name__', repr(test))}"
    found, correction = lookup(test)
    return found.words if correction is None else f"{found.words} ({CORRECTION_NAMES[correction]})"


def pair_pvalue(test: Entry, X: np.ndarray, systems: tuple, n_trials: int | None, seed: int | None,
                plus_one: bool) -> float:
    """The p-value of a ``"pair"`` test of the two columns of a checked matrix."""
    pair = np.ascontiguousarray(X)
    finite_sums(pair, test.finite, squares=test.squares)
    return float(test.run(pair, systems, n_trials, seed, plus_one).pvalue[0, 1])


def _every_pair(test: Entry, X: np.ndarray, systems: tuple, n_trials, seed, plus_one) -> PairwiseTest:
    """A ``"pair"`` test run on each pair i < j of the columns (the same seed for every pair)."""
    n, m = X.shape
    p = np.full((m, m), np.nan)
    statistic = np.zeros((m, m))
    trials = n_trials if test.resampling else None
    with in_parts(m * (m - 1) // 2, f"{test.name} of each pair", trials) as part:
        for k, (a, c) in enumerate(zip(*np.triu_indices(m, k=1))):
            pair = np.ascontiguousarray(X[:, [a, c]])
            finite_sums(pair, test.finite, squares=test.squares)
            with part(k):
                res = test.run(pair, (systems[a], systems[c]), n_trials, seed, plus_one)
            p[a, c] = p[c, a] = res.pvalue[0, 1]
            statistic[a, c], statistic[c, a] = res.statistic[0, 1], res.statistic[1, 0]
    means = X.mean(axis=0)
    _, diff = mean_diff(X)
    return PairwiseTest(method=f"{test.finite} of each pair", systems=systems, diff=diff, statistic=statistic,
                        pvalue=p, n_topics=n, n_resamples=n_trials if test.resampling else None,
                        seed=seed if test.resampling else None, means=means,
                        plus_one=bool(plus_one) if test.resampling else False)


def _corrected(result: PairwiseTest, correction: str, alpha: float) -> PairwiseTest:
    m = len(result.systems)
    i, j = np.triu_indices(m, k=1)
    p = np.full((m, m), np.nan)
    p[i, j] = p[j, i] = adjust_pvalues(result.pvalue[i, j], correction, alpha=alpha)  # two-stage ones use alpha
    return attrs.evolve(result, method=f"{result.method} ({correction})", pvalue=p)


def run_test(X: np.ndarray, systems: tuple, test: object, n_trials: int | None, seed: int | None, *,
             plus_one: bool = True, alpha: float = 0.05) -> PairwiseTest:
    """Every pair of a checked matrix tested by a checked test name (or a callable ``(X, systems) ->
    PairwiseTest``); n_trials and seed checked (unused by a test that does not resample); ``alpha`` is the
    level of a two-stage correction (``fdr_tsbh``, ``fdr_tsbky``), which depends on it."""
    if callable(test):
        result = test(X, systems)
        if not isinstance(result, PairwiseTest):
            raise DiscpowerError(f"a test callable must return a PairwiseTest, got {type(result).__name__}")
        return result
    found, correction = lookup(test)
    if found.scope == "pair":
        result = _every_pair(found, X, systems, n_trials, seed, plus_one)
    else:
        finite_sums(X, found.finite, squares=found.squares)
        result = found.run(X, systems, n_trials, seed, plus_one)
    return result if correction is None else _corrected(result, correction, alpha)


def significance_test(X, systems, test="tukey", *, n_trials=10_000, seed=0, plus_one=True,
                      alpha=0.05) -> PairwiseTest:
    """:func:`run_test` on a matrix and options not yet checked (the qrels comparisons call it).

    The resampling's memory is not checked here: the entry point that plans many tests checks it once
    (:mod:`discpower.stats.memory`)."""
    test = check_test(test)
    if callable(test):
        return run_test(X, systems, test, None, None)
    X, names = score_matrix(X, systems=systems)
    return run_test(X, names, test, trials_value(n_trials), seed_value(seed), plus_one=plus_one, alpha=alpha)
