"""Randomised Tukey HSD: discpower's kernel against a plain NumPy implementation, and the
whole Chen & Sakai meta-evaluation pipeline on TREC DL 2019.

    python benchmarks/bench_tukey.py [--data DIR] [--repeats N] [--skip-pipeline]

1. Tukey HSD on 50 topics x 60 systems, B = 10,000 and 100,000, on 1 and 2 numba
   threads, side by side with a vectorised NumPy version (``Generator.permuted``
   per row, batched); ns per element-trial = time / (B x topics x systems).
   Targets: <= 3 ns per element-trial on one thread.
2. The full DL19 meta-evaluation: 39 Chen & Sakai metrics (cutoff 10, depth 10,
   stop; linear gains, exponential for the ERR model), randomised Tukey HSD with
   2000 trials per metric, 1000 split-half splits and a 2000-trial Tukey HSD over
   the splits x metrics tau matrix. Target: under 60 s on 2 cores.
3. The randomised max-t test beside the randomised Tukey HSD on DL20 nDCG@10 (54 topics x 59
   runs), B = 10,000, on 1 and 2 threads (median of --repeats). Target: max-t within 3x the Tukey
   HSD's time.
4. The parametric (two-way ANOVA) Tukey HSD on DL20 nDCG@10 (1,711 pairs): a call with the table of the
   studentised range built anew (the first call for an (m, df)) and with it cached, beside
   ``scipy.stats.studentized_range.sf`` on the same statistics (one call) and the randomised Tukey HSD at
   B = 500 and 10,000. Target: under 50 ms a call, p-values within 1e-8 of scipy's.
5. The studentised-permutation max-t (``test="perm-max-t"``) on DL20 nDCG@10, B = 10,000, on 1 and 2
   threads, beside the same statistic in NumPy (each row permuted with ``Generator.permuted``, the pairs'
   sums of squares from ``np.einsum`` Gram matrices, batched) and the randomised Tukey HSD. Targets: under
   1 s on 2 threads and at most 1.5x the NumPy version's time.
6. The Tukey HSD's trials in slices of about 0.1 s (``discpower.stats.trials.in_slices``: Ctrl-C and
   progress between slices) against the kernel called once over all trials, B = 10,000 and 300,000 on
   50 x 60, 1 and 2 threads, run alternately (medians): the same numbers. Target: at most 1.05x one call.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2019-passage"
DL20 = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2020-passage"


def numpy_tukey(X, B, seed, batch=500):
    """The same test in plain NumPy: permute each row independently, B times."""
    rng = np.random.default_rng(seed)
    n, m = X.shape
    S = X.sum(axis=0)
    d = np.abs(S[:, None] - S[None, :]) / n
    ranges = np.empty(B)
    for start in range(0, B, batch):
        k = min(batch, B - start)
        perm = rng.permuted(np.broadcast_to(X, (k, n, m)), axis=2)
        sums = perm.sum(axis=1)
        ranges[start:start + k] = (sums.max(axis=1) - sums.min(axis=1)) / n
    ranges.sort()
    count = B - np.searchsorted(ranges, d - 1e-10, side="left")
    return count / B


def dl20_ndcg(data: Path) -> np.ndarray:
    """DL20's nDCG@10 as a topics x runs matrix (sections 3-5)."""
    import cwla

    ev = cwla.evaluate(data / "qrels" / "qrels.dl20-passage.txt", sorted((data / "runs").glob("*.gz")), ["nDCG@10"])
    return ev.values[0].T


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_kernel(repeats):
    from discpower import randomised_tukey_hsd

    X = np.random.default_rng(0).random((50, 60))
    randomised_tukey_hsd(X, 100, seed=1)  # compile or load the kernel
    print("== 1. randomised Tukey HSD, 50 topics x 60 systems ==")
    print(f"{'B':>8} {'threads':>7} {'discpower':>11} {'ns/elem-trial':>14} {'numpy':>9} {'ratio':>7}")
    before = numba.get_num_threads()
    results = {}
    try:
        for B in (10_000, 100_000):
            numpy_s = median_time(lambda: numpy_tukey(X, B, 1), 1 if B > 10_000 else repeats)
            for threads in (1, 2):
                numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
                ours = median_time(lambda: randomised_tukey_hsd(X, B, seed=1), repeats)
                ns = ours / (B * X.size) * 1e9
                results[(B, threads)] = ns
                print(f"{B:>8} {threads:>7} {ours:>10.3f}s {ns:>14.2f} {numpy_s:>8.2f}s {numpy_s / ours:>6.0f}x")
    finally:
        numba.set_num_threads(before)
    one = results[(100_000, 1)]
    print(f"target <= 3 ns per element-trial on one thread: {one:.2f} ns -> {'PASS' if one <= 3 else 'MISS'}")
    return one


def bench_slices(repeats):
    """Section 6: the cost of running the Tukey HSD's trials in slices (Ctrl-C and progress between them)."""
    from discpower.stats.tukey import null_ranges, null_ranges_into

    X = np.random.default_rng(0).random((50, 60))
    print("\n== 6. the trials in slices of about 0.1 s (Ctrl-C, progress) against one kernel call, 50 x 60 ==")
    print(f"{'B':>8} {'threads':>7} {'slices':>9} {'one call':>9} {'ratio':>6} {'same numbers':>13}")
    before = numba.get_num_threads()
    worst = 0.0
    try:
        for B in (10_000, 300_000):
            for threads in (1, 2):
                numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
                whole = np.empty(B)
                times = {"one": [], "sliced": []}
                for _ in range(repeats):  # alternately, so that the machine's drift falls on both alike
                    times["one"].append(median_time(lambda: null_ranges_into(X, np.uint64(1), 0, whole), 1))
                    times["sliced"].append(median_time(lambda: null_ranges(X, B, 1), 1))
                one, sliced = float(np.median(times["one"])), float(np.median(times["sliced"]))
                same = np.array_equal(null_ranges(X, B, 1), whole)
                worst = max(worst, sliced / one)
                print(f"{B:>8} {threads:>7} {sliced:>8.3f}s {one:>8.3f}s {sliced / one:>5.2f}x {str(same):>13}")
    finally:
        numba.set_num_threads(before)
    print(f"target at most 1.05x one call: {worst:.2f}x -> {'PASS' if worst <= 1.05 else 'MISS'}")
    return worst


def bench_pipeline(data: Path):
    import cwla
    import discpower

    runs = sorted((data / "runs").glob("*.gz"))
    qrels = data / "qrels" / "qrels.dl19-passage.txt"
    metrics = cwla.chen_sakai_paper_grid(gmax=3)
    print(f"\n== 2. full meta-evaluation, DL19 ({len(runs)} runs), 39 metrics ==")
    discpower.meta_evaluate(qrels, runs[:6], dict(list(metrics.items())[:2]), n_trials=10, n_splits=2)  # warm
    t0 = time.perf_counter()
    report = discpower.meta_evaluate(qrels, runs, metrics, n_trials=2000, n_splits=1000, seed=1)
    elapsed = time.perf_counter() - t0
    top = report.to_frame().sort_values("dp", ascending=False).head(3)
    print(f"meta_evaluate: {elapsed:.1f} s (evaluate + 39 x Tukey 2000 + 1000 splits + Tukey 2000 on the tau matrix)")
    print("most discriminative:", ", ".join(f"{r.metric} {r.dp:.3f}" for r in top.itertuples()))
    print(f"target under 60 s on 2 cores: {'PASS' if elapsed < 60 else 'MISS'}")
    return elapsed


def bench_max_t(data: Path, repeats: int):
    from discpower import randomised_max_t, randomised_tukey_hsd

    X = dl20_ndcg(data)
    n, m = X.shape
    B = 10_000
    randomised_max_t(X, 64, seed=1)  # compile or load the kernels
    randomised_tukey_hsd(X, 64, seed=1)
    print(f"\n== 3. randomised max-t beside the randomised Tukey HSD, DL20 nDCG@10 ({n} topics x {m} runs), B = {B:,} ==")
    print(f"{'threads':>7} {'tukey':>9} {'max-t':>9} {'ratio':>7}")
    before = numba.get_num_threads()
    ratios = []
    try:
        for threads in (1, 2):
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            tukey = median_time(lambda: randomised_tukey_hsd(X, B, seed=1), repeats)
            max_t = median_time(lambda: randomised_max_t(X, B, seed=1), repeats)
            ratios.append(max_t / tukey)
            print(f"{threads:>7} {tukey:>8.3f}s {max_t:>8.3f}s {max_t / tukey:>6.2f}x")
    finally:
        numba.set_num_threads(before)
    worst = max(ratios)
    print(f"target: max-t within 3x the Tukey HSD's time: {worst:.2f}x -> {'PASS' if worst <= 3 else 'MISS'}")
    return worst


def bench_parametric(data: Path, repeats: int):
    import scipy.stats

    from discpower import parametric_tukey_hsd, randomised_tukey_hsd
    from discpower.stats import ptukey

    X = dl20_ndcg(data)
    n, m = X.shape
    parametric_tukey_hsd(X)  # compile or load the kernels

    def cold():
        ptukey._prepared.cache_clear()
        return parametric_tukey_hsd(X)

    print(f"\n== 4. parametric Tukey HSD, DL20 nDCG@10 ({n} topics x {m} runs, {m * (m - 1) // 2:,} pairs) ==")
    t_cold = median_time(cold, repeats)
    t_warm = median_time(lambda: parametric_tukey_hsd(X), repeats)
    res = parametric_tukey_hsd(X)
    i, j = np.triu_indices(m, k=1)
    t0 = time.perf_counter()
    ref = scipy.stats.studentized_range.sf(res.statistic[i, j], m, (m - 1) * (n - 1))
    t_scipy = time.perf_counter() - t0
    t_500 = median_time(lambda: randomised_tukey_hsd(X, 500, seed=1), repeats)
    t_10k = median_time(lambda: randomised_tukey_hsd(X, 10_000, seed=1), repeats)
    err = float(np.max(np.abs(res.pvalue[i, j] - ref)))
    print(f"parametric, table built: {t_cold * 1e3:.1f} ms | table cached: {t_warm * 1e3:.1f} ms | "
          f"scipy.stats.studentized_range.sf: {t_scipy:.2f} s (ratio {t_scipy / t_cold:,.0f}x) | "
          f"randomised B=500: {t_500 * 1e3:.1f} ms, B=10,000: {t_10k * 1e3:.1f} ms")
    print(f"max |p - scipy's p| = {err:.1e}")
    print(f"target: under 50 ms a call and within 1e-8: {t_cold * 1e3:.1f} ms -> "
          f"{'PASS' if t_cold < 0.05 and err < 1e-8 else 'MISS'}")
    return t_cold


def numpy_perm_max_t(X, B, seed, batch=200):
    """The studentised-permutation max-t null in NumPy: each trial permutes every row; for each pair the
    sum of squared differences from the Gram matrix, Q_ij = G_ii + G_jj - 2 G_ij (np.einsum), and the
    largest (S_i - S_j)^2 / Q_ij; returns the B maxima of u^2."""
    rng = np.random.default_rng(seed)
    n, m = X.shape
    i, j = np.triu_indices(m, k=1)
    out = np.empty(B)
    for start in range(0, B, batch):
        k = min(batch, B - start)
        Y = rng.permuted(np.broadcast_to(X, (k, n, m)), axis=2)
        S = Y.sum(axis=1)
        G = np.einsum("bti,btj->bij", Y, Y)
        diag = np.einsum("bii->bi", G)
        Q = diag[:, i] + diag[:, j] - 2.0 * G[:, i, j]
        E = S[:, i] - S[:, j]
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.where(Q > 1e-12, E * E / Q, 0.0)
        out[start:start + k] = v.max(axis=1)
    return out


def bench_perm_max_t(data: Path, repeats: int):
    from discpower import permutation_max_t, randomised_tukey_hsd

    X = dl20_ndcg(data)
    n, m = X.shape
    B = 10_000
    permutation_max_t(X, 64, seed=1)  # compile or load the kernels
    randomised_tukey_hsd(X, 64, seed=1)
    print(f"\n== 5. studentised-permutation max-t, DL20 nDCG@10 ({n} topics x {m} runs, {m * (m - 1) // 2:,} pairs), "
          f"B = {B:,} ==")
    print(f"{'threads':>7} {'perm-max-t':>11} {'numpy einsum':>13} {'ratio':>7} {'tukey':>9}")
    before = numba.get_num_threads()
    rows = []
    try:
        for threads in (1, 2):
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            ours = median_time(lambda: permutation_max_t(X, B, seed=1), repeats)
            ref = median_time(lambda: numpy_perm_max_t(X, B, seed=1), repeats)
            tukey = median_time(lambda: randomised_tukey_hsd(X, B, seed=1), repeats)
            rows.append((threads, ours, ref))
            print(f"{threads:>7} {ours:>10.3f}s {ref:>12.3f}s {ours / ref:>6.2f}x {tukey:>8.3f}s")
    finally:
        numba.set_num_threads(before)
    _, two, ref_two = rows[-1]
    ok = two < 1.0 and two <= 1.5 * ref_two
    print(f"target: under 1 s on 2 threads and at most 1.5x NumPy's: {two:.3f} s, {two / ref_two:.2f}x -> "
          f"{'PASS' if ok else 'MISS'}")
    return two


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the trec-dl-2019-passage folder")
    p.add_argument("--repeats", type=int, default=3, help="timed repetitions (median)")
    p.add_argument("--skip-pipeline", action="store_true")
    args = p.parse_args(argv)
    print(f"cpus {numba.config.NUMBA_NUM_THREADS}, numba {numba.__version__}, "
          f"numpy {np.__version__}, {time.strftime('%Y-%m-%d')}")
    bench_kernel(args.repeats)
    bench_slices(args.repeats)
    if (DL20 / "runs").exists():
        bench_max_t(DL20, args.repeats)
        bench_parametric(DL20, args.repeats)
        bench_perm_max_t(DL20, args.repeats)
    else:
        print(f"no DL20 data at {DL20}: skipping the max-t benchmark", file=sys.stderr)
    if not args.skip_pipeline:
        if not (args.data / "runs").exists():
            print(f"no DL19 data at {args.data}: skipping the pipeline benchmark", file=sys.stderr)
        else:
            bench_pipeline(args.data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
