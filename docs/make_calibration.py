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
FAMILY = ["perm-max-t", "tukey", "max-t", "parametric-tukey", "t-test", "t-test-holm", "t-test-bonferroni"]
TWO = ["fisher", "bootstrap", "wilcoxon", "sign", "t-test", "tukey", "max-t", "perm-max-t"]
#: the nulls that judge a test (the others: a check of the code, a stress test)
JUDGES = ("copula", "common-marginal")
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


def _range(values, digits=3) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.{digits}f}" if f"{lo:.{digits}f}" == f"{hi:.{digits}f}" else f"{lo:.{digits}f} to {hi:.{digits}f}"


def verdicts(frame, alpha):
    """Per family-wise test, from the run's own figures: FWER range under the judging nulls, the cells within
    alpha + 2 SE, the bootstrap null's range and the power range at each delta (copula null)."""
    family = frame[frame.part == "family"]
    out = {}
    for test in dict.fromkeys(family.test):
        rows = family[family.test == test]
        judged = rows[rows.null.isin(JUDGES)]
        within = int((judged.fwer <= alpha + 2 * judged.fwer_se).sum())
        copula = rows[rows.null == "copula"]
        out[test] = {"fwer": _range(judged.fwer), "within": within, "cells": len(judged),
                     "bootstrap": _range(rows[rows.null == "bootstrap"].fwer),
                     "power": {d: _range(copula[f"power_{d:g}"]) for d in DELTAS}}
    return out


def recommendation(frame, alpha) -> str:
    """The section "Which test when", every figure from this run's frame."""
    v = verdicts(frame, alpha)
    two = frame[(frame.part == "two") & frame.null.isin(JUDGES)]
    holding = [t for t in dict.fromkeys(two.test)
               if (two[two.test == t].fwer <= alpha + 2 * two[two.test == t].fwer_se).all()]
    d = DELTAS[-1]

    def line(test):
        x = v[test]
        return (f"FWER {x['fwer']} under the copula and common-marginal nulls, within alpha + 2 SE in {x['within']} "
                f"of {x['cells']} cells; power at δ = {d:g} {x['power'][d]}")

    perm = v["perm-max-t"]
    verdict = ("it holds alpha + 2 SE in every cell" if perm["within"] == perm["cells"] else
               f"it exceeds alpha + 2 SE in {perm['cells'] - perm['within']} of {perm['cells']} cells, which this "
               f"page's reader should weigh")
    return f"""Every figure below is this page's own (the tables above), under the two nulls that judge a test: the
copula and the common-marginal copula.

* **Which pairs differ, all pairs of many runs**: `perm-max-t`, the studentised-permutation max-t
  (`discpower.permutation_max_t`; `compare_systems`' and `discpower compare`'s default): {line("perm-max-t")};
  {verdict}.
* **When the error rate must hold with the fewest assumptions**: the Holm t-tests (`t-test-holm`):
  {line("t-test-holm")}; Bonferroni's: {line("t-test-bonferroni")}.
* **The sign-flip max-t** (`max-t`): {line("max-t")}.
* **The Tukey HSDs**: the randomised one (`tukey`): {line("tukey")}; the parametric one: {line("parametric-tukey")}.
  They assume exchangeable runs; keep them to reproduce Sakai's and Carterette's analyses (`meta_evaluate` and
  the qrels comparisons keep `tukey` by default for that reason, and say so).
* **Two systems**: under both judging nulls, on every pair above, {", ".join(f"`{t}`" for t in holding) or "no test"}
  hold alpha + 2 SE.
* **Never uncorrected t-tests over a family**: FWER {v["t-test"]["fwer"]}.

The bootstrap column is a stress test, not a ranking: centring each run turns the exact ties of near-duplicate
runs into a constant offset on the topics where they tie, so their per-topic differences are strongly skewed, and
the studentised tests, which assume symmetric differences, reject there far more often than on the data itself
(`perm-max-t` {v["perm-max-t"]["bootstrap"]}, `max-t` {v["max-t"]["bootstrap"]}, Holm {v["t-test-holm"]["bootstrap"]}).
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="n_sim 4, B 20 (a check that the script runs)")
    p.add_argument("--n-sim", type=int, default=500)
    p.add_argument("--trials", type=int, default=500)
    p.add_argument("--out", type=Path, default=HERE / "calibration.md")
    p.add_argument("--frame", type=Path, help="write the page from an earlier run's TSV (no simulation)")
    args = p.parse_args(argv)
    n_sim, B = (4, 20) if args.quick else (args.n_sim, args.trials)
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

Generated by `{command}` (`discpower.calibrate`, seed {SEED}): {n_sim} simulated data sets per row and null, B = {B} for the randomisation tests, alpha = 0.05,
(count + 1) / (B + 1) p-values. FWER is the share of simulations with at least one pair at p < alpha, ± one
Monte-Carlo standard error; ⚠ marks a FWER above alpha + 2 SE. Power is the share of the shifted run's pairs
found significant in the right direction when every score of one run is raised by δ (under the copula null).

The four nulls (`discpower.stats.nulls`) all give every run the same true mean:

* **copula** (`calibrate`'s default): each run's own empirical marginal, the runs' normal-score rank
  correlation, and new topics. It keeps variances, ties and correlations and repeats nothing.
* **common-marginal**: the same copula with every run drawn through the pooled scores of all runs (Urbano,
  Lima & Hanjalic, SIGIR 2019): equal marginals, the runs' dependence. A test that fails here fails on its
  assumptions about the dependence, not on skewed or shifted marginals.
* **exchangeable**: each topic's scores permuted across the runs. The randomisation tests' own null: the
  randomised Tukey HSD holds alpha there by construction, so this column checks the code, not the test.
* **bootstrap**: the topics of the column-centred matrix resampled with replacement: a stress test (below).

## The family-wise tests, on all runs
{table(frame, "family", 0.05)}
## The tests of two systems
{table(frame, "two", 0.05)}
## Which test when

{recommendation(frame, 0.05)}"""
    args.out.write_text(text)
    if not args.frame:
        frame.to_csv(args.out.with_suffix(".tsv"), sep="\t", index=False)
    print(f"wrote {args.out}" + ("" if args.frame else f" and {args.out.with_suffix('.tsv')}"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
