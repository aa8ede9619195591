"""Null populations built from a real topics x systems matrix: every system with the same true mean.

:func:`discpower.calibrate` draws its simulated data sets from one of them (``null=`` by name) and
counts a test's false discoveries there. With X the n x m real matrix, ``mu_j`` its column means and
``mu`` its grand mean:

* ``"exchangeable"`` -- each topic's m scores permuted across the systems, independently per topic::

      Y[t, :] = X[t, pi_t],   pi_t a uniform random permutation of the m systems

  Keeps each topic's scores (its difficulty and spread); makes the systems exchangeable within a
  topic -- the randomisation tests' own assumption, so they hold alpha here by construction.
* ``"bootstrap"`` -- the topics resampled with replacement from the column-centred matrix::

      Y[t, j] = X[s_t, j] - mu_j + mu,   s_1..s_n drawn uniformly from 1..n with replacement

  Keeps each run's variance and the runs' correlations (a topic's row travels whole), but a draw
  repeats topics (about 1 - 1/e = 63% distinct), which makes any test's differences look more
  regular than real data's: it judges a test kindly only if the test resamples too.
* ``"copula"`` -- a Gaussian copula: each run's own empirical marginal, the runs' normal-score rank
  correlation, and no topic repeated::

      Z[t, j] = Phi^-1((r_tj - 1/2) / n)           r_tj: the rank of X[t, j] in column j (ties: mean rank)
      R       = corr(Z)  (a constant column: correlation 0 with the others), R = V diag(l) V^T,
      L       = V diag(max(l, 0))^(1/2), its rows scaled to norm 1   (so L L^T has R's unit diagonal)
      G       = E L^T,   E an n x m matrix of independent standard normals
      Y[t, j] = x_(k) of column j - mu_j + mu,    k = min(floor(Phi(G[t, j]) n), n - 1) (0-based, sorted)

  Each run keeps its distribution (its variance, its ties, its floor at 0) and the dependence between
  runs is the real one in ranks; the topics are new draws. ``E[Y[t, j]] = mu`` exactly: the index k is
  uniform on 0..n-1, so each run's expected score is its own mean, shifted to the grand mean.
* ``"common-marginal"`` -- the same Gaussian copula (the runs' normal-score rank correlation R, new
  topics), every run drawn through one marginal, the pooled scores of all runs::

      p_(0) <= ... <= p_(nm - 1)   the n m scores of X, sorted
      Y[t, j] = p_(k),   k = min(floor(Phi(G[t, j]) n m), n m - 1)      (G = E L^T as above)

  Every run has the same distribution, so the same mean (the grand mean: ``E[Y[t, j]] = mu`` exactly)
  and the same variance, with no shift that could leave [0, 1]; only the dependence between runs is
  theirs. This is Urbano, Lima & Hanjalic's design for Type I errors (SIGIR 2019: the margins made
  equal, the copula fitted to the runs): it separates a test's own flaws from the artefacts of a null
  (a test that fails here fails on its assumptions about the dependence, not on skewed or shifted
  marginals).

Which null judges a test: ``"copula"`` and ``"common-marginal"`` keep what real runs have and repeat
no topic (``"copula"`` is :func:`~discpower.calibrate`'s default). ``"exchangeable"`` checks the code of
the randomisation tests (they hold alpha there by construction). ``"bootstrap"`` is a stress test, not
a judge: centring each run turns the exact ties of near-duplicate runs (equal on most topics) into a
constant offset on every topic where they tie, so the per-topic differences of such pairs become
strongly skewed (|skewness| 3-7 on DL19/DL20), and a studentised test that assumes symmetric
differences (the sign-flip max-t, the t-tests) rejects there far more often than alpha while the data's
own pairs are not skewed that way.

Scores shifted to the grand mean may leave [0, 1] (by at most the largest |mu_j - mu|); the tests
do not assume the range.

References
----------
Parapar, Losada, Presedo-Quindimil & Barreiro, "Using score distributions to compare statistical
significance tests for information retrieval evaluation", JASIST 2020 (simulated nulls from real runs);
Urbano, Lima & Hanjalic, "Statistical significance testing in information retrieval: an empirical
analysis of Type I, Type II and Type III errors", SIGIR 2019 (copulas fitted to TREC runs); Nelsen,
*An Introduction to Copulas*, 2006.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import DiscpowerError

__all__ = ["NULLS", "null_model"]

#: the nulls :func:`null_model` builds by name
NULLS = ("copula", "common-marginal", "exchangeable", "bootstrap")

#: draw(rng) -> one simulated topics x systems matrix
Draw = Callable[[np.random.Generator], np.ndarray]


def _exchangeable(X: np.ndarray) -> Draw:
    def draw(rng):
        return rng.permuted(X, axis=1)
    return draw


def at_grand_mean(X: np.ndarray) -> np.ndarray:
    """X with every system (column) moved to the grand mean: X - mu_j + mu (a new array)."""
    return X - X.mean(axis=0) + X.mean()


def _bootstrap(X: np.ndarray) -> Draw:
    n = X.shape[0]
    centred = at_grand_mean(X)

    def draw(rng):
        return centred[rng.integers(0, n, size=n)]
    return draw


def copula_factor(X: np.ndarray) -> np.ndarray:
    """L (m x m) of the copula null: ``L L^T`` is X's normal-score rank correlation (negative eigenvalues
    clipped, unit diagonal)."""
    import scipy.special
    import scipy.stats

    n, m = X.shape
    Z = scipy.special.ndtri((scipy.stats.rankdata(X, axis=0) - 0.5) / n)
    Z = Z - Z.mean(axis=0)
    norm = np.sqrt(np.sum(Z * Z, axis=0))
    varying = norm > 0.0
    Z[:, varying] /= norm[varying]
    Z[:, ~varying] = 0.0
    R = Z.T @ Z
    R[np.diag_indices(m)] = 1.0  # a constant column: correlation 0 with the others, 1 with itself
    values, vectors = np.linalg.eigh(R)
    L = vectors * np.sqrt(np.clip(values, 0.0, None))
    return L / np.sqrt(np.sum(L * L, axis=1, keepdims=True))


def _quantile_indices(X: np.ndarray, size: int) -> Callable[[np.random.Generator], np.ndarray]:
    """``indices(rng)``: the copula's draw of X's shape as indices into a sorted marginal of ``size`` values,
    ``k = min(floor(Phi(G) size), size - 1)`` with G = E L^T (uniform on 0..size-1 in each column)."""
    import scipy.special

    n, m = X.shape
    L = copula_factor(X)

    def indices(rng):
        G = rng.standard_normal((n, m)) @ L.T
        return np.minimum((scipy.special.ndtr(G) * size).astype(np.intp), size - 1)
    return indices


def _copula(X: np.ndarray) -> Draw:
    indices = _quantile_indices(X, X.shape[0])
    shifted = np.sort(X, axis=0) - X.mean(axis=0) + X.mean()  # each run's marginal, at the grand mean
    columns = np.arange(X.shape[1])

    def draw(rng):
        return shifted[indices(rng), columns]
    return draw


def _common_marginal(X: np.ndarray) -> Draw:
    pooled = np.sort(X, axis=None)  # the one marginal every run is drawn through
    indices = _quantile_indices(X, pooled.size)

    def draw(rng):
        return pooled[indices(rng)]
    return draw


_BUILDERS = {"copula": _copula, "common-marginal": _common_marginal, "exchangeable": _exchangeable,
             "bootstrap": _bootstrap}


def null_model(null: str, X: np.ndarray) -> Draw:
    """The named null population of a checked matrix (module docstring): ``draw(rng)`` returns one
    simulated matrix of X's shape, a new array."""
    if not isinstance(null, str) or null not in _BUILDERS:
        raise DiscpowerError(f"The 'null' parameter must be one of {', '.join(repr(n) for n in NULLS)} or a "
                             f"callable null(rng) -> matrix. Got {null!r} instead.")
    return _BUILDERS[null](X)
