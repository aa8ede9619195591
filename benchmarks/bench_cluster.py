"""A sweep on a Dask cluster against the same sweep in this process: TREC DL 2020 passage, 59 runs,
sampling rates x repetitions plus the six LLM candidate qrels, under several metrics, randomised
Tukey HSD.

    python benchmarks/bench_cluster.py [--data DIR] [--rates N] [--repetitions N] [--trials B]
                                       [--metrics M ...] [--workers N] [--threads-per-worker N]
                                       [--worker-threads N] [--chunk-size N] [--repeats N]

The cluster is a ``distributed.LocalCluster`` of ``--workers`` spawned processes with
``--threads-per-worker`` threads each, used through ``client.get_executor()``; each chunk runs on
``--worker-threads`` numba threads (``discpower.sweep(worker_threads=)``). The in-process sweep runs on
numba's threads (every core). The runs are in memory (a RunSet): the sweep writes them once to a
temporary run store that the workers map. Both are timed ``--repeats`` times, interleaved, after
one untimed call each (numba's kernels loaded in every worker); medians and their ratio are printed,
with the per-chunk payload (what ``pickle`` makes of each submitted call) and the machine's load.
Needs ``dask[distributed]``.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import time
from concurrent.futures import Executor, Future
from pathlib import Path

import numpy as np
import pandas as pd

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2020-passage"


class Recording(Executor):
    """Measures what each submitted call pickles to, then hands it on."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.sizes: list[int] = []

    def submit(self, fn, /, *args, **kwargs) -> Future:  # noqa: ANN001 - an Executor's signature
        self.sizes.append(len(pickle.dumps((fn, args, kwargs))))
        return self.inner.submit(fn, *args, **kwargs)


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "uptime: not available"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--rates", type=int, default=5)
    p.add_argument("--repetitions", type=int, default=4)
    p.add_argument("--trials", type=int, default=10_000)
    p.add_argument("--metrics", nargs="+", default=["nDCG@10", "AP(rel=2)", "P(rel=2)@10"])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads-per-worker", type=int, default=1)
    p.add_argument("--worker-threads", type=int, default=1)
    p.add_argument("--chunk-size", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    run_files = sorted((args.data / "runs").glob("*.gz"))
    if not run_files:
        print(f"no runs under {args.data}", file=sys.stderr)
        return 1
    try:
        import distributed
    except ImportError:
        print("needs dask[distributed]: pip install 'dask[distributed]'", file=sys.stderr)
        return 1
    import numba

    import cwla
    import discpower
    from discpower.qrels import sweeps

    print(f"before: {_uptime()}")
    discpower.warmup()
    truth = cwla.read_qrels(args.data / "qrels" / "qrels.dl20-passage.txt")
    runs = cwla.read_runs(run_files)
    candidates = {path.stem: cwla.read_qrels(path) for path in sorted((args.data / "candidate-qrels" / "llm").glob("*.txt"))}
    rates = [round(float(r), 2) for r in np.linspace(0.2, 1.0, args.rates)]
    grid = dict(generators="sampling", parameters=rates, repetitions=args.repetitions, candidates=candidates,
                n_trials=args.trials, seed=1, chunk_size=args.chunk_size)
    n_candidates = len(rates) * args.repetitions + len(candidates)
    n_chunks = -(-n_candidates // args.chunk_size)

    started = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=args.threads_per_worker,
                                       processes=True, dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    startup = time.perf_counter() - started
    try:
        executor = client.get_executor()
        worker_numba = client.run(lambda: numba.config.NUMBA_NUM_THREADS)

        def in_process() -> pd.DataFrame:
            return discpower.sweep(truth, runs, args.metrics, **grid).frame

        def on_cluster(recording: Recording | None = None) -> pd.DataFrame:
            return discpower.sweep(truth, runs, args.metrics, executor=recording or executor,
                                   worker_threads=args.worker_threads, **grid).frame

        reference = in_process()  # untimed: warm-up
        recording = Recording(executor)
        pd.testing.assert_frame_equal(reference, on_cluster(recording))  # untimed: warm-up, and the same frame
        local_times, cluster_times = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            in_process()
            local_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            on_cluster()
            cluster_times.append(time.perf_counter() - t0)
    finally:
        client.close()
        cluster.close()
    by_value = len(pickle.dumps(sweeps._Recipe(token="", truth=truth, runs=runs, metrics=tuple(args.metrics),
                                               labels=tuple(args.metrics), settings={})))
    local, remote = statistics.median(local_times), statistics.median(cluster_times)
    print(f"DL20: {len(run_files)} runs, {len(rates)} sampling rates x {args.repetitions} repetitions + "
          f"{len(candidates)} LLM candidates = {n_candidates} candidate qrels x {len(args.metrics)} metrics "
          f"({', '.join(args.metrics)}) = {n_candidates * len(args.metrics)} comparisons, randomised Tukey HSD "
          f"B = {args.trials}, {n_chunks} chunks of {args.chunk_size}")
    print(f"machine: {os.cpu_count()} CPUs, numba {numba.__version__} layer {numba.threading_layer()}; "
          f"in process: {numba.get_num_threads()} numba threads; cluster: LocalCluster {args.workers} processes x "
          f"{args.threads_per_worker} threads, {args.worker_threads} numba thread(s) per task (workers' "
          f"NUMBA_NUM_THREADS {sorted(set(worker_numba.values()))}); cluster start {startup:.1f} s (not timed below)")
    print(f"payload per chunk: max {max(recording.sizes)} bytes (median {int(statistics.median(recording.sizes))}); "
          f"the runs and truth by value would be {by_value / 1e6:.1f} MB a chunk")
    print(f"in process: {local:.2f} s (median of {args.repeats}: {', '.join(f'{t:.2f}' for t in local_times)})")
    print(f"cluster:    {remote:.2f} s (median of {args.repeats}: {', '.join(f'{t:.2f}' for t in cluster_times)})")
    print(f"speed-up (in process / cluster): {local / remote:.2f}x; frames equal: yes")
    print(f"after: {_uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
