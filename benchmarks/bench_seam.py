"""The seam between cwla and discpower: each piece of work done once, and what a further candidate costs.

Usage::

    python benchmarks/bench_seam.py [--data DIR] [--trials B] [--candidates N] [--repeats R]

On TREC DL 2020 (59 runs; the NIST qrels as ground truth) with 3 metrics (nDCG@10, map, RBP_ERG) and
N = 10 candidate qrels (percentage sampling of the relevant documents at 10 rates), randomised Tukey
HSD with B = 10,000, in one process:

1. a ``discpower.sweep`` of the 3 metrics x N candidates, counting what it does:
   joins of qrels with the runs (target: N + 1, one per candidate and one for the truth), tests of
   the ground truth (target: 3, one per metric) and memory checks (target: 1, where the sweep plans
   its resampling);
2. each further candidate through a ``QrelsComparer`` built once (``compare_all``: one join, 3
   comparisons), beside what it needs on prepared data -- the candidate already joined with the runs,
   its 3 evaluations (``cwla.evaluate`` on the Collection, one metric each) and 3 randomised Tukey
   HSDs; the ratio of the medians (target: at most 1.3x).

The counts are read by wrapping the functions that do the work (the joins of
``cwla.scoring.evaluator``, the comparer's tests, the memory probe of ``discpower.stats.memory``);
nothing in the library keeps a counter. Timings are medians of interleaved calls; the machine may be
shared: quote ratios, medians, the thread count and the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2020-passage"
METRICS = ("nDCG@10", "map", "RBP_ERG")


class Counter:
    """Wrap ``owner.name`` so that calls are counted (``when`` filters which calls count)."""

    def __init__(self, owner, name, when=None):
        self.owner, self.name, self.when, self.calls = owner, name, when, 0
        self.original = getattr(owner, name)

    def __enter__(self):
        original, counter = self.original, self

        def counted(*args, **kwargs):
            if counter.when is None or counter.when(*args, **kwargs):
                counter.calls += 1
            return original(*args, **kwargs)

        setattr(self.owner, self.name, counted)
        return self

    def __exit__(self, *exc):
        setattr(self.owner, self.name, self.original)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--trials", type=int, default=10_000)
    p.add_argument("--candidates", type=int, default=10)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    runs = sorted((args.data / "runs").glob("*.gz"))
    truth = args.data / "qrels" / "qrels.dl20-passage.txt"
    if not runs or not truth.exists():
        print(f"no runs or qrels under {args.data}", file=sys.stderr)
        return 1

    import numba

    import cwla
    import discpower
    import discpower.stats.memory as memory
    from cwla.scoring import evaluator as evaluator_module
    from discpower.qrels.compare import QrelsComparer

    cwla.warmup()
    discpower.warmup()
    B, N = args.trials, args.candidates
    rates = [round(r, 2) for r in np.linspace(0.1, 1.0, N)]

    # 1. the sweep, counted
    tests_of_truth = lambda self, ev, label, topics=None: ev is self.truth_evaluations.get(label)  # noqa: E731
    with Counter(evaluator_module, "join") as joins, Counter(QrelsComparer, "_test", tests_of_truth) as truth_tests, \
            Counter(memory, "available_memory") as memory_checks:
        t0 = time.perf_counter()
        result = discpower.sweep(truth, runs, list(METRICS), generators="sampling", parameters=rates, repetitions=1,
                                 n_trials=B, seed=1)
        sweep_seconds = time.perf_counter() - t0
    assert (result.frame["status"] == "ok").all()
    print(f"DL20: {len(runs)} runs, metrics {', '.join(METRICS)}, {N} candidates (sampling at rates "
          f"{rates[0]}..{rates[-1]}), randomised Tukey HSD B = {B:,}; numba threads {numba.get_num_threads()} "
          f"({numba.threading_layer()} layer), {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print(f"sweep of {len(METRICS)} metrics x {N} candidates: {sweep_seconds:.1f} s")
    for what, counter, target in (("joins of qrels with the runs", joins, N + 1),
                                  ("tests of the ground truth", truth_tests, len(METRICS)),
                                  ("memory checks", memory_checks, 1)):
        print(f"  {what}: {counter.calls}   [target {target}: {'PASS' if counter.calls == target else 'MISS'}]")

    # 2. a further candidate, beside its evaluations and tests on prepared data
    comparer = QrelsComparer.build(truth, runs, list(METRICS), n_trials=B, seed=1)
    candidates = [discpower.sample_relevant(comparer.truth, rate, seed=k) for k, rate in enumerate(rates)]
    comparer.compare_all(candidates[0])  # the truth's tests, computed once, before the timing
    further, needed = [], []
    for _ in range(args.repeats):
        for c in candidates:
            t0 = time.perf_counter()
            comparer.compare_all(c)
            further.append(time.perf_counter() - t0)
            col = comparer.evaluator.prepare(c)  # prepared data: the candidate already joined
            t0 = time.perf_counter()
            for metric in METRICS:
                ev = cwla.evaluate(col, None, [metric])
                discpower.randomised_tukey_hsd(ev.scores(metric), B, seed=1)
            needed.append(time.perf_counter() - t0)
    f, n = statistics.median(further), statistics.median(needed)
    print(f"further candidate (3 metrics, one join): {f:.3f} s (median of {len(further)}) | its 3 evaluations + "
          f"3 Tukey HSDs on prepared data {n:.3f} s | ratio {f / n:.2f}x   [target <= 1.3x: "
          f"{'PASS' if f / n <= 1.3 else 'MISS'}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
