"""How many values trec_eval 9.0's and 10's conventions move on the TREC DL runs (docs/ecosystem.md).

    python docs/conventions_on_dl.py [DATA_DIR]      (default: ../shared/data beside the repository)

For each collection, every official run at relevance level 2 (NIST's DL convention): the per-topic values of
iprec_at_recall (its 11 points) and 11pt_avg that differ between --trec-eval 9 (floor(x R + 0.9)) and 10
(round(x R)), their largest change, and the run means that move at 4 decimals; the score-comparison
convention (float32 in 9.0, float64 in 10) is docs/ties_on_dl.py's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import cwla
from ties_on_dl import dl_collections

DATA = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data"
MEASURES = [f"iprec_at_recall.{x:.1f}" for x in np.linspace(0, 1, 11)] + ["11pt_avg"]


def main() -> None:
    for name, qrels, runs in dl_collections(DATA):
        col = cwla.prepare(qrels, runs)
        nine = cwla.evaluate(col, metrics=MEASURES, rel=2, trec_eval=9)
        ten = cwla.evaluate(col, metrics=MEASURES, rel=2, trec_eval=10, ties="float32")  # the cut alone
        moved = np.abs(nine.values - ten.values) > 1e-12
        means = np.round(nine.aggregated(), 4) != np.round(ten.aggregated(), 4)
        print(f"{name}: {int(moved.sum())} of {moved.size} per-topic values move (iprec_at_recall "
              f"{int(moved[:-1].sum())}, 11pt_avg {int(moved[-1].sum())}), by up to "
              f"{np.abs(nine.values - ten.values).max():.4f}; {int(means.sum())} of {means.size} run means "
              f"change at 4 decimals ({len(runs)} runs x {len(col.topics)} topics)")


if __name__ == "__main__":
    main()
