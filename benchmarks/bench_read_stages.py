"""Where a ``cwla eval`` of gzip runs spends its time, stage by stage, beside zlib alone (issue 36).

Usage::

    python benchmarks/bench_read_stages.py [--data DIR] [--repeats N]

Each repeat runs in a fresh process (``python -c``), which times, with ``time.perf_counter`` (wall) and
``time.process_time`` (CPU of all its threads): ``import cwla``; ``cwla.read_qrels``; ``cwla.read_runs`` of
every ``runs/*.gz`` of DIR (default TREC DL 2020 passage, 59 runs); ``cwla.evaluate`` of nDCG@10, RR(rel=2)@10
and AP(rel=2) on the RunSet read; and, last, ``gzip.decompress`` of the same files on as many threads as
``cwla.read_runs`` uses by default (what the reading costs in zlib alone; zlib releases the GIL). The kernel
cache must be warm (run the command once first): compile time is ``bench_compile.py``'s subject.

Prints each stage's median wall and CPU over the repeats, and ``read_runs`` / zlib (wall): the share of the
reading that is not decompression. The machine may be shared: the line carries the numba thread count and
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
stages = ["import cwla", "read_qrels", "read_runs", "evaluate", "zlib alone"]
print(json.dumps({"files": len(runs), "text_bytes": text,
                  "stages": {s: [b[0] - a[0], b[1] - a[1]] for s, a, b in zip(stages, marks, marks[1:])}}))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a folder with qrels/*.txt and runs/*.gz")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
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
