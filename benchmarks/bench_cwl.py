"""``cwla cwl`` vs ``cwl-eval`` (cwl_eval 1.0.12) on TREC DL 2019 passage runs, side by side.

Usage::

    python benchmarks/bench_cwl.py [--data DIR] [--runs N] [--repeats R]

For each of the first N official DL19 runs (depth 1000, written out uncompressed once), both commands are
run as subprocesses on the same gain file (gain = (2^rel - 1) / 7) and metrics file (the DL19 mini set's
19 cwl_eval metrics: P@k, RBP, NDCG-k, RR, AP, INST, INSQ, NERR eq8/eq10, BPM, TBG) with ``-r``, timed calls
interleaved (cwla, cwl-eval, cwla, ...). Prints the median wall time of each over the runs and repeats, the
ratio, and the largest difference between their printed numbers (both print 4 decimals: at most 1e-4).
cwla's first call compiles or loads its kernels: one untimed call warms the cache first.
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"


def _run(command, cwd):
    t = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    elapsed = time.perf_counter() - t
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed: {done.stderr.strip()[-500:]}")
    return elapsed, done.stdout


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder (default ../shared/data)")
    p.add_argument("--runs", type=int, default=5, help="how many DL19 runs (default 5)")
    p.add_argument("--repeats", type=int, default=3, help="timed calls per run and tool (default 3)")
    args = p.parse_args()
    dl19, mini = args.data / "trec-dl-2019-passage", args.data / "trec-dl-2019-passage-mini"
    cwl = shutil.which("cwl-eval")
    cwla = shutil.which("cwla")
    if not (dl19.exists() and mini.exists()):
        sys.exit(f"needs {dl19} and {mini}")
    if cwl is None or cwla is None:
        sys.exit("needs both cwl-eval (pip install cwl-eval==1.0.12) and cwla on PATH")
    runs = sorted((dl19 / "runs").glob("*.gz"))[: args.runs]
    gains = mini / "reference-outputs" / "gains.exp.txt"
    metrics = mini / "reference-outputs" / "cwl_metrics.txt"
    times = {"cwla": [], "cwl-eval": []}
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for run in runs:
            plain = Path(tmp) / run.name[:-3]
            plain.write_bytes(gzip.decompress(run.read_bytes()))
            commands = {"cwla": [cwla, "cwl", str(gains), str(plain), "-m", str(metrics), "-r"],
                        "cwl-eval": [cwl, str(gains), str(plain), "-m", str(metrics), "-r"]}
            _run(commands["cwla"], tmp)  # warm: the kernel cache
            outputs = {}
            for _ in range(args.repeats):
                for tool, command in commands.items():
                    elapsed, outputs[tool] = _run(command, tmp)
                    times[tool].append(elapsed)
            frames = [pd.read_csv(io.StringIO(outputs[t]), sep="\t", header=None, dtype={0: str}) for t in commands]
            if frames[0].shape != frames[1].shape:
                sys.exit(f"{run.name}: the outputs differ in shape {frames[0].shape} vs {frames[1].shape}")
            worst = max(worst, float(np.abs(frames[0].iloc[:, 2:].to_numpy() - frames[1].iloc[:, 2:].to_numpy()).max()))
            print(f"{run.name[:-3]}: {len(frames[0])} lines; cwla {statistics.median(times['cwla'][-args.repeats:]):.2f} s, "
                  f"cwl-eval {statistics.median(times['cwl-eval'][-args.repeats:]):.2f} s")
    a, b = statistics.median(times["cwla"]), statistics.median(times["cwl-eval"])
    print(f"\nmedian over {len(runs)} runs x {args.repeats}: cwla cwl {a:.2f} s, cwl-eval {b:.2f} s, "
          f"ratio {b / a:.1f}x; largest difference in the printed numbers {worst:.1e}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'default')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
