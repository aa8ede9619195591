"""Comparing systems: discpower.compare_systems against ranx.compare, side by side on TREC DL 2019.

    python benchmarks/bench_compare.py [--data DIR] [--repeats N] [--trials B]

All 37 official DL19 passage runs, nDCG@10, every pair of systems, alpha = 0.05:

* discpower: ``compare_systems(qrels, runs, ["nDCG@10"], test="tukey", n_trials=B)`` -- the paired
  randomised Tukey HSD, from the files to the table (reading, scoring and the test);
  and ``test="randomisation", correction="holm"`` (Fisher's paired test per pair, Holm-corrected).
* ranx: ``compare(qrels, runs, ["ndcg@10"], stat_test=...)`` from Qrels/Run objects read once
  beforehand (its reading is not timed): ``"fisher"`` (its paired randomisation test, n_permutations=B,
  uncorrected) and ``"tukey"`` (scipy's *unpaired* Tukey HSD, which treats the topics as independent
  samples).

Prints the median times and their ratios, and how many of the 666 pairs each test calls significant.
Requires ranx (``pip install ranx``); the data is not shipped (the script stops without it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2019-passage"


def median_time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def ranx_significant(report, names) -> int:
    count = 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            result = report.comparisons[frozenset([a, b])]["ndcg@10"]
            count += bool(result["significant"])
    return count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trials", type=int, default=10_000)
    args = parser.parse_args(argv)
    qrels_path = args.data / "qrels" / "qrels.dl19-passage.txt"
    run_paths = sorted(str(p) for p in (args.data / "runs").iterdir())
    if not qrels_path.is_file() or not run_paths:
        sys.exit(f"no DL19 data under {args.data} (qrels/qrels.dl19-passage.txt and runs/)")
    try:
        import ranx
    except ImportError:
        sys.exit("ranx is not installed: pip install ranx")
    import numba

    import cwla
    from discpower import compare_systems

    B = args.trials
    print(f"DL19: {len(run_paths)} runs, nDCG@10, B = {B:,}; numba {numba.get_num_threads()} threads "
          f"({numba.threading_layer() if hasattr(numba, 'threading_layer') else '?'}), CPUs {os.cpu_count()}, "
          f"load {os.getloadavg()[0]:.1f}")
    compare_systems(str(qrels_path), run_paths[:3], ["nDCG@10"], n_trials=100)  # warm the kernels
    # ranx reads no gzip: its Qrels and Runs are built from dicts (cwla's readers), untimed
    q = cwla.read_qrels(str(qrels_path))
    qd: dict = {}
    for t, d, g in zip(q.topic, q.docno, q.grade):
        qd.setdefault(t, {})[d] = int(g)
    r_qrels = ranx.Qrels(qd)
    r_runs = []
    for path in run_paths:
        frame = cwla.read_run(path)
        rd: dict = {}
        for t, d, score in zip(frame.topic, frame.docno, frame.score):
            rd.setdefault(t, {})[d] = float(score)
        r_runs.append(ranx.Run(rd, name=cwla.run_name(path)))
    names = [r.name for r in r_runs]
    ranx.compare(r_qrels, r_runs[:3], ["ndcg@10"], stat_test="fisher", n_permutations=100)  # ranx's numba warm-up

    t_tukey, ours = median_time(lambda: compare_systems(str(qrels_path), run_paths, ["nDCG@10"], test="tukey",
                                                        n_trials=B, seed=0), args.repeats)
    t_fisher, ours_f = median_time(lambda: compare_systems(str(qrels_path), run_paths, ["nDCG@10"],
                                                           test="randomisation", correction="holm",
                                                           n_trials=B, seed=0), args.repeats)
    t_rf, rep_f = median_time(lambda: ranx.compare(r_qrels, r_runs, ["ndcg@10"], stat_test="fisher",
                                                   n_permutations=B, max_p=0.05), args.repeats)
    t_rt, rep_t = median_time(lambda: ranx.compare(r_qrels, r_runs, ["ndcg@10"], stat_test="tukey",
                                                   max_p=0.05), args.repeats)
    sig = lambda res: int(res.significant().sum() // 2)  # noqa: E731  (symmetric matrix)
    print(f"discpower compare_systems, paired randomised Tukey HSD (files -> table): {t_tukey:.2f} s, "
          f"{sig(ours)} of 666 pairs significant")
    print(f"discpower compare_systems, paired randomisation + Holm:                  {t_fisher:.2f} s, "
          f"{sig(ours_f)} pairs")
    print(f"ranx compare, fisher (paired randomisation, uncorrected; runs in memory): {t_rf:.2f} s, "
          f"{ranx_significant(rep_f, names)} pairs")
    print(f"ranx compare, tukey (scipy's unpaired Tukey HSD; runs in memory):         {t_rt:.2f} s, "
          f"{ranx_significant(rep_t, names)} pairs")
    print(f"ratio: ranx fisher / discpower tukey = {t_rf / t_tukey:.1f}x; "
          f"ranx fisher / discpower randomisation+Holm = {t_rf / t_fisher:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
