"""How often float32 and float64 score comparison order TREC DL rankings differently (docs/ecosystem.md).

    python docs/ties_on_dl.py [DATA_DIR]      (default: ../shared/data beside the repository)

For each collection: the rankings whose sequence of grades differs between ties="float32" (trec_eval 9.x,
pytrec_eval, NIST's official results) and ties="float64" (trec_eval >= 10), and the largest effect on
map (binary, at relevance levels 1 and 2), nDCG@10 and nDCG over the whole ranking, per topic and on a
run's mean.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import cwla

DATA = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data"


def dl_collections(data: Path = DATA):
    """``(name, qrels path, run paths)`` of each TREC DL collection under ``data`` (a missing one is said)."""
    for name in ("trec-dl-2019-passage", "trec-dl-2020-passage"):
        root = data / name
        if not root.exists():
            print(f"{name}: not found under {data}")
            continue
        yield name, next((root / "qrels").glob("*.txt")), sorted((root / "runs").glob("*.gz"))


def main() -> None:
    for name, qrels, runs in dl_collections():
        single, double = cwla.prepare(qrels, runs), cwla.prepare(qrels, runs, ties="float64")
        differ = [c for c in range(len(single.lengths))
                  if not np.array_equal(single.codes[single.starts[c]:single.starts[c] + single.lengths[c]],
                                        double.codes[double.starts[c]:double.starts[c] + double.lengths[c]])]
        n_topics = len(single.topics)
        run_names = sorted({single.runs[c // n_topics] for c in differ})
        metrics = {"map (level 1)": "map", "map (level 2)": "AP(rel=2)", "nDCG@10": "nDCG@10", "nDCG": "nDCG"}
        a, b = cwla.evaluate(single, metrics=metrics), cwla.evaluate(double, metrics=metrics)
        per_topic = np.abs(a.values - b.values).max(axis=(1, 2))
        means = np.abs(a.values.mean(axis=2) - b.values.mean(axis=2)).max(axis=1)
        print(f"{name}: {len(differ)} of {len(single.lengths)} rankings ({len(run_names)} of {len(runs)} runs: "
              f"{', '.join(run_names)}) change their grade sequence; largest change per topic / of a run's mean:")
        for label, topic_change, mean_change in zip(metrics, per_topic, means):
            print(f"  {label:<14} {topic_change:.2g} / {mean_change:.2g}")


if __name__ == "__main__":
    main()
