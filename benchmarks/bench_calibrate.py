"""discpower.calibrate and run_stability on TREC DL 2019 nDCG@10, against the loops a user would write.

    python benchmarks/bench_calibrate.py [--data DIR] [--repeats N]

1. calibrate: the family-wise Type I error of the randomised Tukey HSD under the exchangeable null, 200
   simulations x B = 1000 on the 43 x 37 matrix; discpower.calibrate against the same simulation in plain NumPy
   (Generator.permuted per simulation, a batched NumPy Tukey HSD). Also the parametric Tukey HSD through
   calibrate (decided by its critical value) against calling scipy's studentized range per simulation.
2. run_stability: leave-one-run-out for one candidate qrels (37 left-out run sets, B = 2000), discpower's (runs
   scored once, columns selected) against calling discpower.compare_qrels once per left-out run set (re-scoring).

Prints medians of --repeats calls, the ratios, and the thread count. The machine is shared: read ratios.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tukey import median_time, numpy_tukey  # noqa: E402  (bench_tukey.py's timing and NumPy Tukey HSD)

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2019-passage"


def numpy_fwer(X, n_sim, B, seed, alpha=0.05):
    rng = np.random.default_rng(seed)
    hits = 0
    for s in range(n_sim):
        Y = rng.permuted(X, axis=1)
        p = numpy_tukey(Y, B, int(rng.integers(0, 2**63)))
        hits += bool((p[np.triu_indices(X.shape[1], 1)] < alpha).any())
    return hits / n_sim


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    if not (args.data / "runs").exists():
        sys.exit(f"needs the TREC DL 2019 data at {args.data} (--data DIR)")
    import cwla
    import discpower

    qrels, runs = args.data / "qrels" / "qrels.dl19-passage.txt", sorted((args.data / "runs").glob("*.gz"))
    llm = args.data / "candidate-qrels" / "llm" / "dl2019_test_baseline_relavance_qrel_prompt_order_3210.txt"
    run_set = cwla.read_runs(runs)
    ev = cwla.evaluate(qrels, run_set, ["nDCG@10"])
    X = ev.values[0].T
    print(f"threads: {numba.get_num_threads()} ({numba.threading_layer() if hasattr(numba, 'threading_layer') else ''})")
    discpower.calibrate(X, "tukey", n_sim=2, n_trials=100, deltas=[], seed=0)  # compile outside the timing

    n_sim, B = 200, 1000
    ours = median_time(lambda: discpower.calibrate(X, "tukey", n_sim=n_sim, n_trials=B, deltas=[], seed=1), args.repeats)
    plain = median_time(lambda: numpy_fwer(X, n_sim, B, 1), args.repeats)
    print(f"calibrate tukey, {n_sim} sims x B={B}: discpower {ours:.2f} s | NumPy loop {plain:.2f} s | "
          f"ratio {plain / ours:.1f}x")

    import scipy.stats

    def scipy_parametric():
        rng = np.random.default_rng(1)
        m = X.shape[1]
        i, j = np.triu_indices(m, k=1)
        for _ in range(20):
            res = discpower.parametric_tukey_hsd(rng.permuted(X, axis=1))
            scipy.stats.studentized_range.sf(res.statistic[i, j], m, (m - 1) * (X.shape[0] - 1))

    ours_p = median_time(lambda: discpower.calibrate(X, "parametric-tukey", n_sim=20, deltas=[], seed=1), args.repeats)
    plain_p = median_time(scipy_parametric, 1)
    print(f"calibrate parametric Tukey, 20 sims: discpower {ours_p:.3f} s | p-values per simulation "
          f"(scipy.stats.studentized_range.sf) {plain_p:.2f} s | ratio {plain_p / ours_p:.0f}x")

    def loo_ours():
        discpower.run_stability(qrels, {"zero-shot": llm}, run_set, "nDCG@10", n_boot=1, n_trials=2000, seed=1)

    names = list(run_set.names)

    def loo_plain():
        for r in names:
            keep = [p for p in runs if p.name != f"{r}.gz"]
            discpower.compare_qrels(qrels, llm, keep, "nDCG@10", n_trials=2000, seed=1)

    ours_l = median_time(loo_ours, args.repeats)
    plain_l = median_time(loo_plain, 1)
    print(f"leave-one-run-out, 37 run sets: run_stability {ours_l:.2f} s | compare_qrels per run set "
          f"{plain_l:.2f} s | ratio {plain_l / ours_l:.1f}x")


if __name__ == "__main__":
    main()
