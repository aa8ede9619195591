"""cwla vs pytrec_eval on TREC DL 2020 passage (59 official runs, depth 1000).

Usage::

    python benchmarks/bench_eval.py [--data DIR] [--repeats N] [--profile]

Measures, side by side in one process:

1. from files, end to end: cwla.evaluate(qrels, run files, 39 Chen & Sakai metrics)
   vs pytrec_eval (parse qrels, build the evaluator, gunzip + parse + evaluate
   every run) for map, ndcg_cut_10 and P_10 (relevance_level=2);
2. in memory, per metric: cwla.evaluate on a prepared Collection (39 and 3
   metrics) vs pytrec_eval's evaluator on runs already parsed into dicts; and the
   table every TREC DL paper prints (map, recip_rank, P_10, ndcg_cut_10,
   recall_1000, Rprec, bpref, num_rel_ret: trec_eval's names, -l 2) in both tools;
3. a correctness cross-check of AP(rel=2), P(rel=2)@10 and nDCG@10 against
   pytrec_eval's map, P_10 and ndcg_cut_10;
4. the environment.

Timed calls are interleaved (A B A B ...) so machine noise hits both tools;
medians are reported. The machine may be shared: quote medians and ratios.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gzip
import io
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2020-passage"
QRELS = Path("qrels") / "qrels.dl20-passage.txt"
PTE_MEASURES = {"map", "ndcg_cut_10", "P_10"}
# cwla label -> pytrec_eval measure
PAIRS = {"AP(rel=2)": "map", "P(rel=2)@10": "P_10", "nDCG@10": "ndcg_cut_10"}
CWLA_3 = list(PAIRS)
# the DL results table in trec_eval's names (cwla evaluates them at rel=2, pytrec_eval at relevance_level=2)
DL_TABLE = ["map", "recip_rank", "P_10", "ndcg_cut_10", "recall_1000", "Rprec", "bpref", "num_rel_ret"]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA,
                   help=f"TREC DL 2020 passage directory (default: {DEFAULT_DATA})")
    p.add_argument("--repeats", type=int, default=5, help="timed repetitions per measurement (default: 5)")
    p.add_argument("--profile", action="store_true",
                   help="also cProfile one cwla.evaluate-from-files call and print the top costs")
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    return args


def find_inputs(data: Path):
    qrels = data / QRELS
    runs = sorted((data / "runs").glob("*.gz"))
    if not data.is_dir() or not qrels.is_file() or not runs:
        sys.exit(
            f"bench_eval: TREC DL 2020 passage data not found under {data}\n"
            f"  expected {QRELS} and runs/*.gz; pass --data DIR"
        )
    return qrels, runs


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def alternated(repeats: int, *fns) -> list:
    """The times of ``repeats`` rounds of calling each of ``fns`` in turn (A B A B ...): one list per function."""
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, out in zip(fns, times):
            out.append(timed(fn)[0])
    return times


def fresh_process(code: str) -> str:
    """Run ``code`` (which prints seconds last) in a new Python process; the seconds, formatted."""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if res.returncode != 0:
        err = res.stderr.strip().splitlines()
        return f"failed ({err[-1] if err else res.returncode})"
    try:
        return f"{float(res.stdout.strip().splitlines()[-1]):.2f} s"
    except (ValueError, IndexError):
        return f"? ({res.stdout.strip()!r})"


def fmt_s(x: float) -> str:
    return f"{x:.2f} s"


def fmt_ms(x: float) -> str:
    ms = x * 1e3
    return f"{ms:.2f} ms" if ms < 10 else f"{ms:.0f} ms" if ms >= 100 else f"{ms:.1f} ms"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def spread(xs) -> str:
    return f"min {min(xs):.3f} / max {max(xs):.3f} s"


def main(argv=None) -> int:
    args = parse_args(argv)
    qrels_path, run_paths = find_inputs(args.data)
    n_runs, R = len(run_paths), args.repeats

    print("cwla vs pytrec_eval -- TREC DL 2020 passage")
    print(f"data: {args.data}  ({n_runs} runs, qrels {qrels_path.name})")
    print()

    # -- one-off costs in fresh processes (before this process touches numba) -------------------------
    warm_code = "import time,cwla; t=time.perf_counter(); cwla.warmup(); print(time.perf_counter()-t)"
    warm_fresh = [fresh_process(warm_code) for _ in range(2)]
    first_code = (
        "import time,cwla; "
        f"q={str(qrels_path)!r}; r={[str(p) for p in run_paths]!r}; "
        "t=time.perf_counter(); cwla.evaluate(q, r, cwla.chen_sakai_metrics()); "
        "print(time.perf_counter()-t)"
    )
    first_fresh = fresh_process(first_code)
    import_code = "import time; t=time.perf_counter(); import cwla; print(time.perf_counter()-t)"
    import_fresh = fresh_process(import_code)

    t_import, _ = timed(lambda: __import__("cwla"))
    import cwla
    import numba
    import numpy as np
    import pandas as pd
    import pytrec_eval

    metrics39 = cwla.chen_sakai_metrics()
    assert len(metrics39) == 39

    def cwla_files():
        return cwla.evaluate(str(qrels_path), [str(p) for p in run_paths], metrics39)

    def pte_files():
        with open(qrels_path) as fh:
            qrels = pytrec_eval.parse_qrel(fh)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, PTE_MEASURES, relevance_level=2)
        out = {}
        for path in run_paths:
            with gzip.open(path, "rt") as fh:
                run = pytrec_eval.parse_run(fh)
            out[cwla.run_name(path)] = evaluator.evaluate(run)
        return out

    print("== one-off costs (fresh processes) ==")
    print(f"  import cwla (fresh process)                            {import_fresh}")
    print(f"  cwla.warmup() (numba compile or cache load), 1st/2nd   {warm_fresh[0]} / {warm_fresh[1]}")
    print(f"  first cwla.evaluate from files, 39 metrics, no warmup  {first_fresh}")
    print()

    # -- 1. from files ---------------------------------------------------------------------------------
    t_cw_warm, _ = timed(cwla_files)      # untimed warm-up (reported for information only)
    t_pt_warm, _ = timed(pte_files)
    cw_files, pt_files = alternated(R, cwla_files, pte_files)
    cw_f, pt_f = statistics.median(cw_files), statistics.median(pt_files)
    ratio_f = pt_f / cw_f

    print("== 1. from files, end to end ==")
    print(f"  (warm-up calls, untimed in the medians: cwla {t_cw_warm:.2f} s, pytrec_eval {t_pt_warm:.2f} s)")
    print(f"  cwla        39 metrics  median {fmt_s(cw_f):>8}  ({spread(cw_files)})")
    print(f"  pytrec_eval  3 metrics  median {fmt_s(pt_f):>8}  ({spread(pt_files)})")
    print(f"  ratio pytrec_eval / cwla: {ratio_f:.1f}x   "
          f"(per metric: cwla {fmt_ms(cw_f / 39)}, pytrec_eval {fmt_ms(pt_f / 3)})")
    print()

    # -- 2. in memory ----------------------------------------------------------------------------------
    t_prep, col = timed(lambda: cwla.prepare(str(qrels_path), [str(p) for p in run_paths]))
    with open(qrels_path) as fh:
        pte_qrels = pytrec_eval.parse_qrel(fh)
    evaluator = pytrec_eval.RelevanceEvaluator(pte_qrels, PTE_MEASURES, relevance_level=2)
    t_parse0 = time.perf_counter()
    pte_runs = {}
    for path in run_paths:
        with gzip.open(path, "rt") as fh:
            pte_runs[cwla.run_name(path)] = pytrec_eval.parse_run(fh)
    t_parse = time.perf_counter() - t_parse0

    def cwla_mem39():
        return cwla.evaluate(col, metrics=metrics39)

    def cwla_mem3():
        return cwla.evaluate(col, metrics=CWLA_3)

    def pte_mem():
        return {name: evaluator.evaluate(run) for name, run in pte_runs.items()}

    cwla_mem39(), cwla_mem3(), pte_mem()  # warm-up
    m39, m3, mpt = alternated(R, cwla_mem39, cwla_mem3, pte_mem)
    cw39, cw3, pt = statistics.median(m39), statistics.median(m3), statistics.median(mpt)
    cw39_pm, cw3_pm, pt_pm = cw39 / 39, cw3 / 3, pt / 3
    ratio_m39, ratio_m3 = pt_pm / cw39_pm, pt_pm / cw3_pm

    print("== 2. in memory, per metric ==")
    print(f"  (set-up, not timed below: cwla.prepare {t_prep:.2f} s; "
          f"pytrec_eval gunzip + parse_run of {n_runs} runs {t_parse:.2f} s)")
    print(f"  cwla        39 metrics  median {fmt_ms(cw39):>9} total  {fmt_ms(cw39_pm):>9}/metric")
    print(f"  cwla         3 metrics  median {fmt_ms(cw3):>9} total  {fmt_ms(cw3_pm):>9}/metric   ({', '.join(CWLA_3)})")
    print(f"  pytrec_eval  3 metrics  median {fmt_ms(pt):>9} total  {fmt_ms(pt_pm):>9}/metric   "
          f"({', '.join(sorted(PTE_MEASURES))})")
    print(f"  ratio per metric pytrec_eval / cwla: {ratio_m39:.0f}x (cwla 39 metrics), "
          f"{ratio_m3:.0f}x (cwla the same 3)")
    print()

    # -- 2b. the DL results table: trec_eval's names, the measures outside C/W/L/A included ---------------
    table_evaluator = pytrec_eval.RelevanceEvaluator(pte_qrels, set(DL_TABLE), relevance_level=2)

    def cwla_table():
        return cwla.evaluate(col, metrics=DL_TABLE, rel=2)

    def pte_table():
        return {name: table_evaluator.evaluate(run) for name, run in pte_runs.items()}

    cwla_table(), pte_table()  # warm-up
    mt_cw, mt_pt = alternated(R, cwla_table, pte_table)
    tcw, tpt = statistics.median(mt_cw), statistics.median(mt_pt)
    ratio_t = tpt / tcw
    ev_t, res_t = cwla_table(), pte_table()
    d_table = max(abs(ev_t.values[i, r, t] - res_t[run][topic][m])
                  for i, m in enumerate(DL_TABLE) for r, run in enumerate(ev_t.runs)
                  for t, topic in enumerate(ev_t.topics))
    print(f"== 2b. the DL results table in trec_eval's names ({', '.join(DL_TABLE)}; -l 2) ==")
    print(f"  cwla        {len(DL_TABLE)} measures  median {fmt_ms(tcw):>9}  | pytrec_eval median {fmt_ms(tpt):>9}"
          f"  | ratio {ratio_t:.0f}x  | max |diff| per topic {d_table:.1e}")
    print()

    # -- 3. correctness cross-check --------------------------------------------------------------------
    ev = cwla_mem3()
    means = ev.means()
    n_topics = len(col.topics)
    res = pte_mem()
    worst = (0.0, None, None)
    per_measure = {}
    for label, measure in PAIRS.items():
        dmax = 0.0
        for run in ev.runs:
            # trec_eval -c: average over every qrels topic (a topic missing from the run counts 0)
            pte_mean = sum(v[measure] for v in res[run].values()) / n_topics
            d = abs(float(means.loc[run, label]) - pte_mean)
            dmax = max(dmax, d)
            if d > worst[0]:
                worst = (d, run, label)
        per_measure[label] = dmax
    # and the 39-metric from-files evaluation agrees with the in-memory one
    ev39 = cwla_files()
    ev39m = cwla_mem39()
    d_files_mem = float(np.max(np.abs(ev39.values - ev39m.values)))
    check_ok = worst[0] < 1e-6
    print("== 3. correctness cross-check (per-run means over the qrels topics) ==")
    for label, measure in PAIRS.items():
        print(f"  cwla {label:<12} vs pytrec_eval {measure:<12} max |diff| over {n_runs} runs: {per_measure[label]:.2e}")
    if check_ok:
        print(f"  max |diff| {worst[0]:.2e} < 1e-6: PASS")
    else:
        print(f"  max |diff| {worst[0]:.2e} >= 1e-6: MISS (run {worst[1]!r}, {worst[2]})")
        for label, measure in PAIRS.items():
            for run in ev.runs:
                pte_mean = sum(v[measure] for v in res[run].values()) / n_topics
                d = abs(float(means.loc[run, label]) - pte_mean)
                if d >= 1e-6:
                    print(f"    {run:<28} {label:<12} cwla {means.loc[run, label]:.6f}  pytrec_eval {pte_mean:.6f}")
    print(f"  cwla 39 metrics from files vs on the prepared collection: max |diff| {d_files_mem:.1e}")
    print()

    # -- optional profile ------------------------------------------------------------------------------
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        cwla_files()
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
        print("== profile: one cwla.evaluate from files (sorted by own time) ==")
        print(buf.getvalue().rstrip())
        print()

    # -- 4. environment --------------------------------------------------------------------------------
    try:
        layer = numba.threading_layer()
    except ValueError:
        layer = "(none initialised)"
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    print("== environment ==")
    print(f"  cpus {os.cpu_count()} (usable {affinity}) | numba threading layer {layer}, "
          f"{numba.get_num_threads()} threads | python {platform.python_version()} | numpy {np.__version__} | "
          f"numba {numba.__version__} | pandas {pd.__version__} | pytrec_eval {_pte_version()} | "
          f"cwla {cwla.__version__} | {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"  (import cwla in this process: {t_import:.2f} s)")
    print()

    # -- summary ---------------------------------------------------------------------------------------
    print("== summary ==")
    print(f"files: cwla 39 metrics {cw_f:.2f} s (median of {R}) | pytrec_eval 3 metrics {pt_f:.2f} s | "
          f"ratio {ratio_f:.1f}x   [target: cwla's 39 faster than pytrec_eval's 3: {verdict(cw_f < pt_f)}]")
    print(f"memory: cwla {cw39_pm * 1e3:.1f} ms/metric | pytrec_eval {pt_pm * 1e3:.0f} ms/metric | "
          f"ratio {ratio_m39:.0f}x   [target: >= 10x per metric: {verdict(ratio_m39 >= 10)}]")
    print(f"table: cwla {len(DL_TABLE)} trec_eval measures {fmt_ms(tcw)} | pytrec_eval {fmt_ms(tpt)} | ratio "
          f"{ratio_t:.0f}x | per topic max |diff| {d_table:.1e}   [target: < 1e-9: {verdict(d_table < 1e-9)}]")
    print(f"check: max |diff| vs pytrec_eval {worst[0]:.1e}   [target: < 1e-6: {verdict(check_ok)}]")
    return 0


def _pte_version() -> str:
    try:
        from importlib.metadata import version

        return version("pytrec-eval-terrier")
    except Exception:  # noqa: BLE001 - any failure: fall back to the module attribute
        import pytrec_eval

        return getattr(pytrec_eval, "__version__", "?")


if __name__ == "__main__":
    sys.exit(main())
