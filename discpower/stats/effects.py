"""Per-system intervals and per-pair effect sizes of a score matrix (topics x systems).

Formulas (n topics, per-topic scores x_t of a system, differences d_t = x_t - y_t of a pair):

* ``(1 - alpha)`` confidence interval ``xbar +- t_{n-1, 1-alpha/2} s / sqrt(n)``, with
  ``s^2 = sum_t (x_t - xbar)^2 / (n - 1)`` (Student's t over the topics);
* effect size (paired Cohen's d, "d_z") ``d_z = dbar / s_d``,
  ``s_d^2 = sum_t (d_t - dbar)^2 / (n - 1)``; 0 when the two systems score the same on every topic,
  +-inf when the difference is the same non-zero number on every topic.

References
----------
Sakai, "Statistical reform in information retrieval?", SIGIR Forum 48(1), 2014 (effect sizes, intervals).
Lakens, "Calculating and reporting effect sizes ...", Frontiers in Psychology 4, 2013 (d_z).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._params import alpha_level
from .matrix import score_matrix
from .tukey import column_sums

__all__ = ["confidence_intervals", "effect_sizes"]


def confidence_intervals(X: ArrayLike, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """The t-based ``1 - alpha`` confidence interval of each system's mean over the topics.

    ``xbar_j +- t_{n-1, 1-alpha/2} s_j / sqrt(n)`` with ``s_j^2 = sum_t (x_tj - xbar_j)^2 / (n - 1)``:
    an interval for the system's expected score over topics like these (topics as a random
    sample). It is marginal: two overlapping intervals do not mean that the paired test of the two
    systems is not significant (the pairing removes the topic variance the intervals contain).

    Parameters
    ----------
    X : array-like of shape (n_topics, n_systems)
        Scores, one row per topic.
    alpha : float
        1 - the confidence level.

    Returns
    -------
    (low, high) : two ndarrays of shape (n_systems,)
    """
    X, _ = score_matrix(X)
    alpha = alpha_level(alpha)
    import scipy.stats  # here, not at import time: scipy.stats costs about 0.5 s to import

    n = X.shape[0]
    mean = column_sums(X) / n
    half = float(scipy.stats.t.ppf(1.0 - alpha / 2.0, n - 1)) * X.std(axis=0, ddof=1) / math.sqrt(n)
    return mean - half, mean + half


def effect_sizes(X: ArrayLike) -> np.ndarray:
    """Paired Cohen's d (d_z) of every pair of systems: an (m, m) antisymmetric matrix.

    ``effect[i, j] = dbar / s_d`` with ``d_t = X[t, i] - X[t, j]`` and
    ``s_d^2 = sum_t (d_t - dbar)^2 / (n - 1)`` -- the mean difference in standard deviations of the
    per-topic differences (the standardisation of the paired t-test: ``t = d_z sqrt(n)``). A pair
    whose differences are exactly equal on every topic has ``s_d = 0``: d_z is 0 when they are all
    0 (the same scores) and +-inf otherwise. The diagonal is 0.

    Parameters
    ----------
    X : array-like of shape (n_topics, n_systems)

    Returns
    -------
    ndarray of shape (n_systems, n_systems)
    """
    X, _ = score_matrix(X)
    m = X.shape[1]
    i, j = np.triu_indices(m, k=1)
    D = X[:, i] - X[:, j]
    mean = D.mean(axis=0)
    constant = np.all(D == D[:1], axis=0)
    sd = np.where(constant, 1.0, D.std(axis=0, ddof=1))
    dz = np.where(constant, np.where(D[0] == 0.0, 0.0, np.copysign(np.inf, D[0])), mean / sd)
    out = np.zeros((m, m))
    out[i, j] = dz
    out[j, i] = -dz
    return out
