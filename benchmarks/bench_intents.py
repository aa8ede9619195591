"""The diversity measures: cwla's compositions (cwla.metrics.intents) against ndeval (pyndeval), side by side.

Usage::

    python benchmarks/bench_intents.py [--topics 50] [--subtopics 6] [--runs 10] [--depth 1000] [--repeats 5]

A generated subtopic collection (``--topics`` topics of ``--subtopics`` subtopics, 300 judged documents per
topic, each judged for 1 to 3 subtopics, grade 1 with probability 0.3; ``--runs`` runs of ``--depth``
documents, up to 300 of them judged, distinct scores) is scored on ndeval's measures: alpha-nDCG@20, ERR-IA@20,
nERR-IA@20, NRBP, nNRBP, P-IA@20, MAP-IA and strec@20, by ``cwla.evaluate`` (from frames, once the kernels
are compiled) and by ``pyndeval.RelevanceEvaluator(...).evaluate`` (ndeval.c through pyndeval; run by run).
Both values are checked equal first. Prints the medians of ``--repeats`` timings and their ratio;
the machine may be shared: quote the ratio, the medians and the thread count (NUMBA_NUM_THREADS).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import pandas as pd

import cwla

MEASURES = {"alpha-nDCG@20": "alpha_nDCG@20", "ERR-IA@20": "ERR_IA@20", "nERR-IA@20": "nERR_IA@20", "NRBP": "NRBP",
            "nNRBP": "nNRBP", "P-IA@20": "P_IA@20", "MAP-IA": "AP_IA", "strec@20": "StRecall@20"}


def collection(topics: int, subtopics: int, runs: int, depth: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    qrels, run_rows = [], []
    for t in range(topics):
        for d in range(300):
            for s in rng.choice(subtopics, size=int(rng.integers(1, 4)), replace=False):
                qrels.append((f"t{t}", f"s{s}", f"d{t}_{d}", int(rng.random() < 0.3)))
        for r in range(runs):
            judged = rng.choice(300, size=min(300, depth // 2), replace=False)
            docs = [f"d{t}_{d}" for d in judged] + [f"u{t}_{r}_{i}" for i in range(depth - len(judged))]
            order = rng.permutation(len(docs))
            run_rows += [(f"run{r}", f"t{t}", docs[j], float(depth - i)) for i, j in enumerate(order)]
    return (pd.DataFrame(qrels, columns=["topic", "subtopic", "docno", "grade"]),
            pd.DataFrame(run_rows, columns=["system", "topic", "docno", "score"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--subtopics", type=int, default=6)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    import pyndeval

    qrels, runs = collection(args.topics, args.subtopics, args.runs, args.depth)
    tuples = list(qrels.itertuples(index=False, name=None))
    per_run = {name: list(g[["topic", "docno", "score"]].itertuples(index=False, name=None))
               for name, g in runs.groupby("system", sort=True)}

    def ours():
        return cwla.evaluate(qrels, runs, MEASURES)

    def theirs():
        return {name: pyndeval.RelevanceEvaluator(tuples, list(MEASURES)).evaluate(rows)
                for name, rows in per_run.items()}

    ev, ref = ours(), theirs()  # the kernels compile here; and the values agree
    worst = max(abs(ev.values[i, r, t] - ref[run][topic][key])
                for i, key in enumerate(MEASURES) for r, run in enumerate(ev.runs)
                for t, topic in enumerate(ev.topics))
    assert worst < 1e-9, worst
    times = {"cwla": [], "pyndeval": []}
    for _ in range(args.repeats):
        for name, fn in (("cwla", ours), ("pyndeval", theirs)):
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    a, b = statistics.median(times["cwla"]), statistics.median(times["pyndeval"])
    print(f"{args.topics} topics x {args.subtopics} subtopics x {args.runs} runs x {args.depth}, 8 measures, "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'all')}, {args.repeats} repeats")
    print(f"  values: equal to {worst:.1e}")
    print(f"  cwla.evaluate      median {a:.3f} s")
    print(f"  pyndeval           median {b:.3f} s")
    print(f"  ratio pyndeval / cwla: {b / a:.2f}x")


if __name__ == "__main__":
    main()
