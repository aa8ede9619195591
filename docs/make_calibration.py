"""Write docs/calibration.md: every shipped test x every null of discpower.calibrate, on DL19 and DL20.

    python docs/make_calibration.py                   (needs ../shared/data; about 15 minutes on 2 cores)
    python docs/make_calibration.py --quick --out F   (small n_sim and B: CI's check that the script runs)

The family-wise tests run on all runs of each matrix (nDCG@10 and AP at relevance 2, DL19 43 topics x 37 runs,
DL20 54 x 59); the tests of two systems (Fisher's randomisation test, the paired bootstrap, Wilcoxon, the sign
test, and the family tests with m = 2) on a pair of runs of each matrix (the two runs whose means are nearest the
median run's). Every row: FWER with its Monte-Carlo SE under each null, and power at each delta.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import cwla
import discpower
from discpower.stats.nulls import NULLS

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "data"
COLLECTIONS = {"DL19": ("trec-dl-2019-passage", "qrels.dl19-passage.txt"),
               "DL20": ("trec-dl-2020-passage", "qrels.dl20-passage.txt")}
METRICS = {"nDCG@10": ("nDCG@10", {}), "AP": ("AP", {"rel": 2})}
FAMILY = ["tukey", "max-t", "parametric-tukey", "t-test", "t-test-holm", "t-test-bonferroni"]
TWO = ["fisher", "bootstrap", "wilcoxon", "sign", "t-test", "tukey", "max-t"]
DELTAS = [0.02, 0.05]
SEED = 1


def matrices():
    """{(collection, metric): (topics x runs matrix, run names)}."""
    out = {}
    for name, (folder, qrels) in COLLECTIONS.items():
        base = SHARED / folder
        runs = sorted((base / "runs").glob("*.gz"))
        for label, (metric, options) in METRICS.items():
            ev = cwla.evaluate(base / "qrels" / qrels, runs, [metric], **options)
            out[(name, label)] = (ev.values[0].T, ev.runs)
    return out


def middle_pair(X):
    """The two runs whose means are nearest the median run's mean."""
    means = X.mean(axis=0)
    order = np.argsort(np.abs(means - np.median(means)), kind="stable")
    return sorted(order[:2].tolist())


def rows(cal, data, part):
    """One row per test: FWER +- SE under this null and power at each delta."""
    null = cal.type_i().set_index("test")
    power = cal.power()
    out = []
    for test in dict.fromkeys(cal.frame.test):
        row = {"data": data, "part": part, "null": cal.null, "test": test, "fwer": null.loc[test, "fwer"],
               "fwer_se": null.loc[test, "fwer_se"]}
        for d in DELTAS:
            p = power[(power.test == test) & (power.delta == d)].iloc[0]
            row[f"power_{d:g}"] = p.power
        out.append(row)
    return out


def table(frame, part, alpha):
    """Markdown: tests as rows, each null's FWER (+- SE) and the copula null's power as columns."""
    lines = []
    for data, block in frame[frame.part == part].groupby("data", sort=False):
        heads = [f"FWER, {n} null" for n in NULLS] + [f"power δ = {d:g} (copula)" for d in DELTAS]
        lines.append(f"\n**{data}**\n")
        lines.append("| test | " + " | ".join(heads) + " |")
        lines.append("|---|" + "---:|" * len(heads))
        for test in dict.fromkeys(block.test):
            cells = []
            for n in NULLS:
                r = block[(block.test == test) & (block.null == n)].iloc[0]
                mark = " ⚠" if r.fwer > alpha + 2 * r.fwer_se else ""
                cells.append(f"{r.fwer:.3f} ± {r.fwer_se:.3f}{mark}")
            r = block[(block.test == test) & (block.null == "copula")].iloc[0]
            cells += [f"{r[f'power_{d:g}']:.3f}" for d in DELTAS]
            lines.append(f"| {test} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="n_sim 20, B 50 (a check that the script runs)")
    p.add_argument("--n-sim", type=int, default=500)
    p.add_argument("--trials", type=int, default=500)
    p.add_argument("--out", type=Path, default=HERE / "calibration.md")
    p.add_argument("--frame", type=Path, help="write the page from an earlier run's TSV (no simulation)")
    args = p.parse_args(argv)
    n_sim, B = (20, 50) if args.quick else (args.n_sim, args.trials)
    if not SHARED.exists():
        print(f"no {SHARED}: nothing to calibrate on", file=sys.stderr)
        return 0
    t0 = time.perf_counter()
    found = []
    for (name, metric), (X, runs) in ({} if args.frame else matrices()).items():
        data = f"{name} {metric} ({X.shape[0]} topics x {X.shape[1]} runs)"
        pair = middle_pair(X)
        for null in NULLS:
            cal = discpower.calibrate(X, FAMILY, n_sim=n_sim, n_trials=B, seed=SEED, deltas=DELTAS, systems=runs,
                                      null=null, progress=False)
            found += rows(cal, data, "family")
            two = discpower.calibrate(X[:, pair], TWO, n_sim=n_sim, n_trials=B, seed=SEED, deltas=DELTAS,
                                      systems=[runs[k] for k in pair], null=null, progress=False)
            found += rows(two, f"{name} {metric}: {runs[pair[0]]} vs {runs[pair[1]]}", "two")
            print(f"{data}, {null} null: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    frame = pd.read_csv(args.frame, sep="\t") if args.frame else pd.DataFrame(found)
    command = "python docs/make_calibration.py" + (" --quick" if args.quick else
                                                   f" --n-sim {n_sim} --trials {B}")
    text = f"""# Calibration of discpower's tests on TREC DL 2019 and 2020

Generated by `{command}` (`discpower.calibrate`, seed {SEED}; about 4 minutes on 2 cores for 500 simulations): {n_sim} simulated data sets per row and null, B = {B} for the randomisation tests, alpha = 0.05,
(count + 1) / (B + 1) p-values. FWER is the share of simulations with at least one pair at p < alpha, ± one
Monte-Carlo standard error; ⚠ marks a FWER above alpha + 2 SE. Power is the share of the shifted run's pairs
found significant in the right direction when every score of one run is raised by δ (under the copula null).

The three nulls (`discpower.stats.nulls`) all give every run the same true mean:

* **exchangeable**: each topic's scores permuted across the runs. The randomisation tests' own null: the
  randomised Tukey HSD holds alpha there by construction, so this column checks the code, not the test.
* **bootstrap**: the topics of the column-centred matrix resampled with replacement. It keeps the runs'
  variances and correlations but repeats topics (about 63% distinct), and it is no judge of a test that does
  not resample topics itself: in the full run every family-wise test exceeds alpha here, the studentised ones
  most.
* **copula**: each run's own empirical marginal, the runs' normal-score rank correlation, and new topics.
  It keeps variances, ties and correlations and repeats nothing: the null that decides.

## The family-wise tests, on all runs
{table(frame, "family", 0.05)}
## The tests of two systems
{table(frame, "two", 0.05)}
## Which test when

From the full run (`python docs/make_calibration.py --n-sim 500 --trials 500`; the figures above when this page
is that run's output):

* **When the error rate must hold**: the Holm or Bonferroni t-tests, the only family-wise tests within alpha +
  2 SE under the copula null on all four matrices (FWER .014 to .032, below alpha), at the price of power.
* **All pairs of many runs, for power**: `max-t` (`discpower.randomised_max_t`, the studentised
  max-statistic randomisation test). Under the copula null its FWER is .068 to .096 (within alpha + 2 SE on
  both nDCG@10 matrices, above it on both AP matrices), and it has the most power of the family-wise tests:
  on DL20 it finds .10 to .11 of the shifted run's pairs at δ = .05, Holm's t-tests .06, the Tukey HSDs .007
  to .014.
* **The Tukey HSDs** (`tukey`, `parametric-tukey`) exceed alpha under both data-based nulls (.098 to .130
  under the copula) and have the least power; keep them to reproduce Sakai's and Carterette's analyses.
* **Two systems**: Fisher's randomisation test, the paired t-test and the bootstrap test hold alpha + 2 SE
  under the copula null on every pair above, with about the same power; under the bootstrap null the sign
  test exceeds it on every pair and Wilcoxon on three of the four.
* **Never uncorrected t-tests over a family**: their FWER is above .9 under every null.
"""
    args.out.write_text(text)
    if not args.frame:
        frame.to_csv(args.out.with_suffix(".tsv"), sep="\t", index=False)
    print(f"wrote {args.out}" + ("" if args.frame else f" and {args.out.with_suffix('.tsv')}"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
