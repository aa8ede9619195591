"""Where a ``cwla eval`` of gzip runs spends its time, stage by stage, beside zlib alone (issue 36).

Usage::

    python benchmarks/bench_read_stages.py [--data DIR] [--repeats N]
    python benchmarks/bench_read_stages.py --lines DIR [--runs N] [--repeats N]

Each repeat runs in a fresh process (``python -c``), which times, with ``time.perf_counter`` (wall) and
``time.process_time`` (CPU of all its threads): ``import cwla``; loading the cached kernels (``cwla.warmup()``:
what a first ``cwla eval`` pays before it reads anything); ``cwla.read_qrels``; ``cwla.read_runs`` of
every ``runs/*.gz`` of DIR (default TREC DL 2020 passage, 59 runs); ``cwla.evaluate`` of nDCG@10, RR(rel=2)@10
and AP(rel=2) on the RunSet read; and, last, ``gzip.decompress`` of the same files on as many threads as
``cwla.read_runs`` uses by default (what the reading costs in zlib alone; zlib releases the GIL). The kernel
cache must be warm (run the command once first): compile time is ``bench_compile.py``'s subject.

Prints each stage's median wall and CPU over the repeats, and ``read_runs`` / zlib (wall): the share of the
reading that is not decompression.

``--lines DIR`` measures instead the reader's work per line, stage by stage, on one thread, over the first
``--runs`` run files of DIR (plain text: ``bench_store.py large --dir DIR --keep`` writes them): the blocks
alone (reading, :func:`cwla.data.files.text_blocks`), scanning them (:func:`cwla.data._tokenize.scan_run_block`),
scanning and interning (:func:`cwla.data._reading.read_interned`, which includes the scan), freezing the pairs
and ranking each run (trec_eval order); nanoseconds a line, medians of ``--repeats`` in one process. The machine may be shared: the line carries the numba thread count and
``os.getloadavg()``; quote medians and ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2020-passage"

CHILD = r"""
import json, sys, time
marks = [(time.perf_counter(), time.process_time())]
def mark():
    marks.append((time.perf_counter(), time.process_time()))
import cwla
mark()
cwla.warmup()
mark()
from pathlib import Path
base = Path(sys.argv[1])
runs = sorted((base / "runs").glob("*.gz"))
qrels = cwla.read_qrels(next((base / "qrels").glob("*.txt")))
mark()
runset = cwla.read_runs(runs)
mark()
cwla.evaluate(qrels, runset, ["nDCG@10", "RR(rel=2)@10", "AP(rel=2)"])
mark()
import gzip
from concurrent.futures import ThreadPoolExecutor
from cwla.data.runset import default_workers
with ThreadPoolExecutor(default_workers()) as pool:
    text = sum(pool.map(lambda f: len(gzip.decompress(f.read_bytes())), runs))
mark()
stages = ["import cwla", "kernels", "read_qrels", "read_runs", "evaluate", "zlib alone"]
print(json.dumps({"files": len(runs), "text_bytes": text,
                  "stages": {s: [b[0] - a[0], b[1] - a[1]] for s, a, b in zip(stages, marks, marks[1:])}}))
"""


LINES = r"""
import glob, json, sys, time
import cwla
from cwla.data import _pairs, _reading, _tokenize
from cwla.data.files import text_blocks
files = sorted(glob.glob(sys.argv[1] + "/run*"))[:int(sys.argv[2])]
cwla.warmup()
workspace = _tokenize.Workspace()
times = {}
def timed(stage, func):
    t = time.perf_counter()
    out = func()
    times[stage] = time.perf_counter() - t
    return out
def blocks(scan):
    for f in files:
        for block in text_blocks(f, "run"):
            if scan:
                _tokenize.scan_run_block(block, "float32", workspace)
timed("blocks", lambda: blocks(False))
timed("blocks + scan", lambda: blocks(True))
pairs = _pairs.PairBuilder()
runs = timed("scan + intern", lambda: [_reading.read_interned(r, f, f, "float32", pairs, len(files), workspace)
                                       for r, f in enumerate(files)])
labels = sorted(set().union(*(run.cell_labels for run in runs)))
_, docnos = timed("freeze", lambda: pairs.freeze(labels, [run.cells() for run in runs], 1))
timed("rank", lambda: [_reading.ranked(run, "trec_eval", docnos) for run in runs])
print(json.dumps({"lines": int(sum(len(run.ids) for run in runs)), "times": times}))
"""


def lines(args) -> None:
    results = [json.loads(subprocess.run([sys.executable, "-c", LINES, str(args.lines), str(args.runs)], check=True,
                                         capture_output=True, text=True).stdout.strip().splitlines()[-1])
               for _ in range(args.repeats)]
    n = results[0]["lines"]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.runs} run files of {args.lines}: {n:,} lines, one thread, medians of {args.repeats} processes, "
          f"load {load}")
    for stage in results[0]["times"]:
        seconds = statistics.median(r["times"][stage] for r in results)
        print(f"  {stage:<14} {seconds:6.3f} s   {seconds / n * 1e9:6.1f} ns a line")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a folder with qrels/*.txt and runs/*.gz")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--lines", type=Path, help="a folder of plain run files: the reader's work per line")
    p.add_argument("--runs", type=int, default=6, help="with --lines: how many of its run files")
    args = p.parse_args()
    if args.lines is not None:
        lines(args)
        return
    if not (args.data / "runs").is_dir():
        print(f"no runs under {args.data}: nothing to measure")
        return
    results = [json.loads(subprocess.run([sys.executable, "-c", CHILD, str(args.data)], check=True,
                                         capture_output=True, text=True).stdout.strip().splitlines()[-1])
               for _ in range(args.repeats)]
    threads = os.environ.get("NUMBA_NUM_THREADS", str(os.cpu_count()))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{results[0]['files']} gz runs, {results[0]['text_bytes'] / 1e6:.0f} MB of text, medians of "
          f"{args.repeats} processes, numba threads {threads}, load {load}")
    medians = {}
    for stage in results[0]["stages"]:
        wall = statistics.median(r["stages"][stage][0] for r in results)
        cpu = statistics.median(r["stages"][stage][1] for r in results)
        medians[stage] = wall
        print(f"  {stage:<12} wall {wall:6.3f} s   cpu {cpu:6.3f} s")
    print(f"read_runs / zlib alone (wall): {medians['read_runs'] / medians['zlib alone']:.1f}x")


if __name__ == "__main__":
    main()
