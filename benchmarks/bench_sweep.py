"""A McKechnie-style sampling sweep on TREC DL 2020: 10 rates x 10 repetitions of percentage
sampling of the relevant documents, 59 runs, nDCG@10, randomised Tukey HSD with B = 10,000.

    python benchmarks/bench_sweep.py [--data DIR] [--rates N] [--repetitions N] [--trials B] [--pool]

Target: under 5 minutes on 2 cores. ``--pool`` runs the grid on a 2-process pool (spawned
workers) instead of in this process with numba's threads.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2020-passage"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--rates", type=int, default=10)
    p.add_argument("--repetitions", type=int, default=10)
    p.add_argument("--trials", type=int, default=10_000)
    p.add_argument("--pool", action="store_true", help="2 spawned worker processes")
    args = p.parse_args(argv)
    runs = sorted((args.data / "runs").glob("*.gz"))
    if not runs:
        print(f"no runs under {args.data}", file=sys.stderr)
        return 1
    qrels = args.data / "qrels" / "qrels.dl20-passage.txt"

    import discpower

    discpower.warmup()
    rates = [round(r, 2) for r in np.linspace(0.1, 1.0, args.rates)]
    t0 = time.perf_counter()
    if args.pool:
        with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
            result = discpower.sweep(qrels, runs, "nDCG@10", generators="sampling", parameters=rates,
                                     repetitions=args.repetitions, n_trials=args.trials, seed=1, executor=pool)
    else:
        result = discpower.sweep(qrels, runs, "nDCG@10", generators="sampling", parameters=rates,
                                 repetitions=args.repetitions, n_trials=args.trials, seed=1)
    elapsed = time.perf_counter() - t0
    n = len(rates) * args.repetitions
    print(f"DL20: {len(runs)} runs, nDCG@10, {len(rates)} rates x {args.repetitions} repetitions = {n} candidate "
          f"qrels, randomised Tukey HSD B = {args.trials}, {'2-process pool' if args.pool else 'in process'}")
    print(result.table(("FN", "FP", "1R", "2R", "BAC", "MCC")).round(3).to_string())
    print(f"sweep: {elapsed:.1f} s ({elapsed / n:.2f} s per candidate); target under 300 s on 2 cores: "
          f"{'PASS' if elapsed < 300 else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
