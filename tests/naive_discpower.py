"""Slow, obviously correct oracles for discpower's resampling tests (no code shared with the kernels).

The exact oracles work in integer arithmetic: every score is read as the
decimal it prints as (``0.7`` -> 7/10) and the matrix is scaled to integers, so
sums and comparisons are exact and no tie tolerance is needed. ``strict=True``
counts r > d instead of r >= d, i.e. what a test that breaks exact ties gets.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

TABLE_5_1 = {
    "A": [.70, .30, .20, .60, .40, .40, .00, .70, .10, .30, .50, .40, .00, .60, .50, .30, .10, .50, .20, .10],
    "B": [.50, .10, .00, .20, .40, .30, .00, .50, .30, .30, .40, .40, .10, .40, .20, .10, .10, .60, .30, .20],
    "C": [.00, .00, .20, .10, .30, .30, .10, .20, .40, .40, .40, .30, .30, .20, .20, .20, .10, .50, .40, .30],
}


def table_5_1() -> np.ndarray:
    """Sakai's Table 5.1 as a 20 topics x 3 systems matrix (columns A, B, C)."""
    return np.array([TABLE_5_1["A"], TABLE_5_1["B"], TABLE_5_1["C"]]).T


def integer_grid(X) -> list[list[int]]:
    """The matrix scaled to integers: each score as the decimal it prints as, times the common denominator."""
    fracs = [[Fraction(repr(float(v))) for v in row] for row in np.asarray(X, dtype=float)]
    scale = 1
    for row in fracs:
        for f in row:
            scale = scale * f.denominator // math.gcd(scale, f.denominator)
    return [[int(f * scale) for f in row] for row in fracs]


def exact_tukey_pvalues(X, strict: bool = False) -> dict[tuple[int, int], Fraction]:
    """Randomised Tukey HSD p-values by enumerating all (m!)^n row permutations.

    p_ij = #{labellings : r >= d_ij} / (m!)^n with r = max_j S*_j - min_j S*_j and
    d_ij = |S_i - S_j| (the common factor 1/n cancels). The observed labelling is
    one of the enumerated ones, so this is the limit of the randomised test as B grows.
    """
    rows = integer_grid(X)
    m = len(rows[0])
    S = [sum(row[j] for row in rows) for j in range(m)]
    ranges = []
    per_row = [list(itertools.permutations(row)) for row in rows]
    for choice in itertools.product(*per_row):
        sums = [sum(col) for col in zip(*choice)]
        ranges.append(max(sums) - min(sums))
    total = len(ranges)
    out = {}
    for i in range(m):
        for j in range(i + 1, m):
            d = abs(S[i] - S[j])
            count = sum(1 for r in ranges if (r > d if strict else r >= d))
            out[(i, j)] = Fraction(count, total)
    return out


def exact_sign_flip_pvalue(x, y, strict: bool = False) -> Fraction:
    """Two-system randomisation p-value by enumerating all 2^n sign flips of the differences.

    p = #{s in {-1, +1}^n : |sum s_t d_t| >= |sum d_t|} / 2^n, in exact integers
    (numpy int64, vectorised over blocks of 2^16 flips).
    """
    rows = integer_grid(np.column_stack([x, y]))
    d = np.array([a - b for a, b in rows], dtype=np.int64)
    n = d.size
    observed = abs(int(d.sum()))
    count = 0
    block = 1 << min(n, 16)
    bits = np.arange(n, dtype=np.int64)
    for start in range(0, 1 << n, block):
        masks = np.arange(start, start + block, dtype=np.int64)
        signs = 1 - 2 * ((masks[:, None] >> bits[None, :]) & 1)
        r = np.abs(signs @ d)
        count += int(np.count_nonzero(r > observed if strict else r >= observed))
    return Fraction(count, 1 << n)


def bootstrap_z(d) -> float:
    """Sakai's paired-bootstrap statistic z = mean(d) / (sd(d) / sqrt(n)) (sd with n - 1)."""
    d = [float(v) for v in d]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in d) / (n - 1))
    return mean / (sd / math.sqrt(n))


def holm(p) -> list[float]:
    """Holm's step-down adjustment, written out: sort, multiply by k - rank, running max, cap at 1."""
    k = len(p)
    order = sorted(range(k), key=lambda a: p[a])
    out = [0.0] * k
    running = 0.0
    for rank, a in enumerate(order):
        running = max(running, (k - rank) * p[a])
        out[a] = min(1.0, running)
    return out
