"""The run store: runs read once, joined cheaply with many qrels; memory that follows the data.

Usage::

    python benchmarks/bench_store.py dl20 [--data DIR] [--trials B] [--repeats N]
    python benchmarks/bench_store.py verify [--data DIR] [--repeats N]
    python benchmarks/bench_store.py large [--topics 5000] [--runs 20] [--depth 1000] [--dir DIR] [--keep]
                                           [--repeats N]
    python benchmarks/bench_store.py huge  [--topics 20000] [--dir DIR] [--keep]  # cwla eval on 20,000 x 20 x 1000

``dl20`` (TREC DL 2020 passage, 59 runs, nDCG@10, randomised Tukey HSD with B = 10,000), side by
side in one process:

1. one ``discpower.compare_qrels`` from files (ground truth, an LLM candidate, the runs);
2. each further candidate (the LLM candidates of ``candidate-qrels/llm``) through a
   ``QrelsComparer`` built once, beside what it needs on prepared data: ``cwla.evaluate`` on a
   Collection already joined plus ``randomised_tukey_hsd``; the ratio (target <= 2.5x);
3. a McKechnie-style sampling sweep: 10 rates x 10 repetitions (target under 10 s on 2 cores).

``verify`` (TREC DL 2020, 59 runs saved to a store in a temporary folder) opens the store with and
without checksum verification, alternately, ``--repeats`` times each (pages in the page cache: the
store was just written), and prints the medians and the cost of verifying against opening without it,
then the same with a ``cwla.evaluate(qrels, store, ["nDCG@10"])`` after each open: first with every
byte hashed on every open (as for a store this machine has not verified), then with the machine's
record of the files it verified (``cwla.data._verified``: the opens after the first; target <= 20 %).
It waits 61 s after saving: files changed less than 60 s before are not recorded.

``large`` writes a generated collection (``--topics`` x ``--runs`` x ``--depth``; docnos drawn from
8.8 M MS MARCO-like ids, 200 judgements per topic; plain-text files, not shipped) and measures in
fresh subprocesses, each reporting its peak RSS: ``cwla.evaluate(qrels, files, ["nDCG@10"])`` (run
files stream a few at a time), ``cwla.read_runs`` + ``cwla.prepare`` (every run in memory at once)
and the bytes per retrieved document of the prepared RunSet. Targets: peak RSS <= 3 GiB, wall time
<= 12 s (a third of the 36 s measured before the run store), <= 24 bytes per document. In the same
run, measured from outside (``os.wait4``: user + sys CPU, wall, peak RSS): the whole
``python -m cwla eval QRELS RUNS -m nDCG@10`` process (stdout to /dev/null), and pytrec_eval in a
fresh process (``parse_qrel``, ``RelevanceEvaluator(qrels, {"ndcg_cut_10"})``, then for each run
file ``parse_run`` + ``evaluate``, one run at a time, dropped after). Targets: cwla eval's CPU at
most 1/8 of pytrec_eval's; its peak RSS at most 16 bytes per retrieved document (the lines of the
run files, counted). ``--repeats`` interleaves the four measurements (default 1); an untimed
``cwla eval`` on one run first fills the kernel cache, and a note says if the sources changed
(a new ``kernels-*`` folder) while measuring. A check compares the mean nDCG@10 of both tools.

``huge`` runs ``cwla eval -m nDCG@10`` on ``--topics`` (default 20,000) topics x 20 runs x 1000
(400 M lines, about 14 GB of text in ``--dir``) and reports its exit code, CPU, wall time, peak RSS
and peak RSS per retrieved document (targets: it completes, <= 16 bytes). It needs that much free disk.

Timings are medians; the machine may be shared: quote ratios, medians and the thread count.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numba
import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2020-passage"
N_DOCS = 8_841_823  # MS MARCO passages


# ---------------------------------------------------------------------------
# dl20
# ---------------------------------------------------------------------------


def _dl20(args) -> int:
    runs = sorted((args.data / "runs").glob("*.gz"))
    candidates = sorted((args.data / "candidate-qrels" / "llm").glob("*.txt"))
    if not runs or not candidates:
        print(f"no runs or candidate qrels under {args.data}", file=sys.stderr)
        return 1
    truth = args.data / "qrels" / "qrels.dl20-passage.txt"
    import cwla
    import discpower
    from discpower.qrels.compare import QrelsComparer
    from discpower.stats.tukey import randomised_tukey_hsd

    cwla.warmup()
    discpower.warmup()
    B = args.trials
    t0 = time.perf_counter()
    discpower.compare_qrels(truth, candidates[0], runs, "nDCG@10", n_trials=B, seed=1)
    one = time.perf_counter() - t0

    comparer = QrelsComparer.build(truth, runs, "nDCG@10", n_trials=B, seed=1)
    run_set = comparer.runs
    further, needed = [], []
    for _ in range(args.repeats):
        for c in candidates:
            t0 = time.perf_counter()
            comparer.compare(c)
            further.append(time.perf_counter() - t0)
            col = cwla.prepare(c, run_set)  # prepared data: the candidate already joined
            t0 = time.perf_counter()
            ev = cwla.evaluate(col, None, ["nDCG@10"])
            randomised_tukey_hsd(ev.values[0].T, B, seed=1)
            needed.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    judgements = cwla.Judgements.of(candidates[0])
    for _ in range(20):
        cwla.data.collection.join(judgements, run_set)
    join = (time.perf_counter() - t0) / 20

    rates = [round(r, 2) for r in np.linspace(0.1, 1.0, 10)]
    t0 = time.perf_counter()
    discpower.sweep(truth, runs, "nDCG@10", generators="sampling", parameters=rates, repetitions=10, n_trials=B,
                    seed=1)
    sweep = time.perf_counter() - t0

    f, n = statistics.median(further), statistics.median(needed)
    print(f"DL20: {len(runs)} runs, {sum(len(d) for d in run_set.doc_ids):,} ranked documents, nDCG@10, "
          f"randomised Tukey HSD B = {B}; numba threads {_threads()}")
    print(f"one compare_qrels from files: {one:.2f} s")
    print(f"further candidate: {f:.3f} s (median of {len(further)}) | evaluate + Tukey HSD on prepared data "
          f"{n:.3f} s | ratio {f / n:.2f}x   [target <= 2.5x: {'PASS' if f / n <= 2.5 else 'MISS'}]")
    print(f"  of which joining the candidate with the runs: {join * 1000:.1f} ms")
    print(f"sweep 10 rates x 10 repetitions: {sweep:.1f} s ({sweep / 100:.3f} s per candidate)   "
          f"[target < 10 s: {'PASS' if sweep < 10 else 'MISS'}]")
    return 0


def _verify(args) -> int:
    runs = sorted((args.data / "runs").glob("*.gz"))
    if not runs:
        print(f"no runs under {args.data}", file=sys.stderr)
        return 1
    truth = args.data / "qrels" / "qrels.dl20-passage.txt"
    import cwla
    from cwla.data import _verified

    cwla.warmup()
    with tempfile.TemporaryDirectory() as tmp:
        folder = cwla.read_runs(runs).save(Path(tmp) / "store")
        size = sum(f.stat().st_size for f in folder.iterdir())
        print(f"store: {len(runs)} runs, {size / 2**20:.1f} MiB; {_threads()}; load {os.getloadavg()[0]:.2f}")
        print(f"waiting {_verified.RACY_NS / 1e9 + 1:.0f} s: files changed less than RACY_NS ago are not recorded")
        time.sleep(_verified.RACY_NS / 1e9 + 1)
        if _verified.file_system(str(folder)) in _verified.IN_MEMORY:
            print(f"{tmp} is on {_verified.file_system(str(folder))}: no record is kept there (set TMPDIR to a disk)")
        cache_dir = _verified.cache_dir
        for record, what in ((False, "every byte hashed (a store this machine has not verified: no record)"),
                             (True, "this machine verified the store before (its record: nothing hashed)")):
            _verified.cache_dir = cache_dir if record else (lambda: None)  # None: nothing recorded, nor read
            try:
                _measure_verify(cwla, folder, truth, args.repeats, what, record)
            finally:
                _verified.cache_dir = cache_dir
        _verified.forget(folder)
    return 0


def _measure_verify(cwla, folder: Path, truth: Path, repeats: int, what: str, record: bool) -> None:
    """Print the medians of opening ``folder`` with and without verification, then with an evaluation."""
    if record:
        cwla.open_runs(folder)  # writes the record
    print(what)
    for label, then in (("  open_runs", None), ("  open_runs + evaluate nDCG@10", truth)):
        times = {True: [], False: []}
        for _ in range(repeats):
            for verify in (False, True):
                t0 = time.perf_counter()
                opened = cwla.open_runs(folder, verify=verify)
                if then is not None:
                    cwla.evaluate(then, opened, ["nDCG@10"])
                times[verify].append(time.perf_counter() - t0)
                del opened
        plain, checked = statistics.median(times[False]), statistics.median(times[True])
        verdict = f" (target <= +20%) [{'PASS' if checked <= 1.2 * plain else 'FAIL'}]" if record else ""
        print(f"{label}: without verification {plain * 1e3:.2f} ms, with {checked * 1e3:.2f} ms: "
              f"verifying costs {(checked - plain) / plain:+.0%}{verdict}")


def _threads() -> str:
    import numba

    return f"{numba.get_num_threads()} ({numba.config.THREADING_LAYER} layer), {os.cpu_count()} CPUs"


# ---------------------------------------------------------------------------
# generated collections
# ---------------------------------------------------------------------------


def _collection(folder: Path, n_topics: int, n_runs: int, depth: int) -> tuple:
    """``(qrels, runs, reused)``: the collection in ``folder`` if one of these sizes was written there
    (by an earlier ``--dir DIR --keep``: pass both again to reuse it), else a new one."""
    marker = folder / "collection.json"
    sizes = {"topics": n_topics, "runs": n_runs, "depth": depth}
    runs = [folder / f"run{r + 1:02d}" for r in range(n_runs)]
    if marker.exists() and json.loads(marker.read_text()) == sizes and all(p.exists() for p in runs):
        return folder / "qrels.txt", runs, True
    qrels, runs = _write_collection(folder, n_topics, n_runs, depth)
    marker.write_text(json.dumps(sizes))
    return qrels, runs, False


def _write_collection(folder: Path, n_topics: int, n_runs: int, depth: int, seed: int = 7) -> tuple:
    """qrels.txt and run01..runNN (plain text) in ``folder``; docnos ``D`` + 8 digits, topics ``T`` + digits."""
    rng = np.random.default_rng(seed)
    pool = int(depth * 1.5)
    docs = rng.integers(0, N_DOCS, size=(n_topics, pool))  # each topic's candidate documents
    topic_names = [f"T{t}" for t in range(n_topics)]
    judged = rng.choice(pool, size=min(200, pool), replace=False)
    grades = rng.choice(4, size=(n_topics, len(judged)), p=[0.55, 0.25, 0.15, 0.05])
    qrels = folder / "qrels.txt"
    with open(qrels, "w") as f:
        for t in range(n_topics):
            seen = set()
            for j, g in zip(judged, grades[t]):
                d = docs[t, j]
                if d not in seen:
                    seen.add(d)
                    f.write(f"{topic_names[t]} 0 D{d:08d} {g}\n")
    paths = []
    for r in range(n_runs):
        path = folder / f"run{r + 1:02d}"
        with open(path, "wb") as f:
            for first in range(0, n_topics, 500):
                block = range(first, min(n_topics, first + 500))
                f.write(_run_lines(rng, docs, block, depth, r))
        paths.append(path)
    return qrels, paths


def _run_lines(rng, docs, topics, depth, r) -> bytes:
    """The lines of run r for ``topics``: each ranks ``depth`` of its topic's candidates (distinct),
    scores descending with 4 decimals (ties occur: the docno decides)."""
    t_ids, d_ids, ranks, scores = [], [], [], []
    for t in topics:
        picked = np.unique(docs[t][rng.permutation(docs.shape[1])[:depth]])
        picked = rng.permutation(picked)
        t_ids.append(np.full(len(picked), t))
        d_ids.append(picked)
        ranks.append(np.arange(1, len(picked) + 1))
        scores.append(np.sort(rng.integers(0, 200_000, len(picked)))[::-1] + 100 * r)
    return _format(np.concatenate(t_ids), np.concatenate(d_ids), np.concatenate(ranks), np.concatenate(scores), r + 1)


@numba.njit(cache=False)
def _put(out, k, prefix, value, width):
    """Write ``prefix`` (a byte, or none if < 0) and ``value`` zero-padded to ``width`` digits at ``out[k]``."""
    if prefix >= 0:
        out[k] = prefix
        k += 1
    n, rest = 1, value // 10
    while rest > 0:
        n += 1
        rest //= 10
    n = max(n, width)
    for j in range(n - 1, -1, -1):
        out[k + j] = 48 + value % 10
        value //= 10
    return k + n


@numba.njit(cache=False)
def _fill(topics, docs, ranks, scores, run, out):
    k = 0
    for i in range(topics.shape[0]):
        k = _put(out, k, 84, topics[i], 0)  # T<topic>
        for c in (32, 81, 48, 32):  # " Q0 "
            out[k] = c
            k += 1
        k = _put(out, k, 68, docs[i], 8)  # D<8 digits>
        out[k] = 32
        k = _put(out, k + 1, -1, ranks[i], 0)
        out[k] = 32
        k = _put(out, k + 1, -1, scores[i] // 10000, 0)
        out[k] = 46
        k = _put(out, k + 1, -1, scores[i] % 10000, 4)
        for c in (32, 114, 117, 110):  # " run"
            out[k] = c
            k += 1
        k = _put(out, k, -1, run, 2)
        out[k] = 10
        k += 1
    return k


def _format(topics, docs, ranks, scores, run) -> bytes:
    """``T<topic> Q0 D<8 digits> <rank> <score / 10^4, 4 decimals> run<NN>`` lines, built digit by digit."""
    out = np.empty(len(topics) * 64, dtype=np.uint8)
    return out[:_fill(topics, docs, ranks, scores, run, out)].tobytes()


_MEASURE = textwrap.dedent("""
    import json, resource, sys, time
    import cwla
    qrels, runs, mode = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
    cwla.warmup()
    t0 = time.perf_counter()
    out = {}
    if mode == "evaluate":
        ev = cwla.evaluate(qrels, runs, ["nDCG@10"])
        out["mean"] = float(ev.values.mean())
    else:
        run_set = cwla.read_runs(runs)
        out["read"] = time.perf_counter() - t0
        col = cwla.prepare(qrels, run_set)
        ev = cwla.evaluate(col, None, ["nDCG@10"])
        out["mean"] = float(ev.values.mean())
        n = sum(len(d) for d in run_set.doc_ids)
        out["bytes_per_doc"] = (sum(a.nbytes for a in run_set.doc_ids) + sum(a.nbytes for a in run_set.scores)
                                + run_set.lengths.nbytes) / n
        out["docno_bytes"] = run_set.docnos.nbytes
        out["collection_bytes_per_doc"] = (col.codes.nbytes + col.starts.nbytes + col.lengths.nbytes) / n
        out["documents"] = n
    out["seconds"] = time.perf_counter() - t0
    out["peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(out))
""")


def _measure(qrels, runs, mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _MEASURE, str(qrels), *map(str, runs), mode], capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


_PYTREC = textwrap.dedent("""
    import json, sys
    import pytrec_eval
    qrels_path, runs = sys.argv[1], sys.argv[2:]
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"})
    means = []
    for path in runs:  # one run at a time, dropped after
        with open(path) as f:
            run = pytrec_eval.parse_run(f)
        scores = evaluator.evaluate(run)
        means.append(sum(s["ndcg_cut_10"] for s in scores.values()) / len(scores))
        del run, scores
    print(json.dumps({"means": means}))
""")


def _child(cmd: list[str], stdout=subprocess.DEVNULL) -> dict:
    """Run ``cmd`` in a fresh process: its CPU (user + sys), wall time and peak RSS (``os.wait4``), exit code,
    the end of its stderr, and its stdout when ``stdout`` is ``subprocess.PIPE`` (small outputs only)."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out if stdout is subprocess.PIPE else stdout, stderr=err,
                                stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        out.seek(0)
        return {"cpu": ru.ru_utime + ru.ru_stime, "wall": wall, "peak_rss": ru.ru_maxrss * 1024,
                "code": proc.returncode, "stderr": err.read().decode(errors="replace")[-3000:],
                "stdout": out.read().decode(errors="replace")}


def _cwla_eval(qrels, runs, stdout=subprocess.DEVNULL) -> dict:
    """The whole ``python -m cwla eval QRELS RUNS -m nDCG@10`` process."""
    return _child([sys.executable, "-m", "cwla", "eval", str(qrels), *map(str, runs), "-m", "nDCG@10"], stdout)


def _pytrec_eval(qrels, runs) -> dict:
    m = _child([sys.executable, "-c", _PYTREC, str(qrels), *map(str, runs)], subprocess.PIPE)
    if m["code"]:
        raise RuntimeError(f"pytrec_eval exited {m['code']}:\n{m['stderr']}")
    m["means"] = json.loads(m["stdout"].strip().splitlines()[-1])["means"]
    return m


def _documents(runs) -> int:
    """The retrieved documents (lines) of the run files; reading them also brings them into the page cache."""
    n = 0
    for path in runs:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 24):
                n += chunk.count(b"\n")
    return n


def _has_pytrec_eval() -> bool:
    import importlib.util

    return importlib.util.find_spec("pytrec_eval") is not None


def _kernel_folders() -> set:
    """The ``kernels-*`` folders of the kernel cache (one per set of sources)."""
    import cwla

    return {p.name for p in Path(cwla.cache_dir() or "/nonexistent").glob("kernels-*")}


def _load() -> str:
    return "load " + "/".join(f"{x:.2f}" for x in os.getloadavg())


def _med(ms: list[dict], key: str) -> float:
    return statistics.median(m[key] for m in ms)


def _large(args) -> int:
    folder = Path(args.dir or tempfile.mkdtemp(prefix="cwla-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        qrels, runs, reused = _collection(folder, args.topics, args.runs, args.depth)
        size = sum(p.stat().st_size for p in runs)
        print(f"{'reused' if reused else 'generated'} {args.topics} topics x {args.runs} runs x {args.depth}: "
              f"{size / 2**30:.2f} GiB of run files in {time.perf_counter() - t0:.0f} s; numba threads "
              f"{numba.get_num_threads()}, {os.cpu_count()} CPUs")
        n_docs = _documents(runs)
        pytrec = _has_pytrec_eval()
        if not pytrec:
            print("pytrec_eval is not installed (pip install pytrec-eval-terrier): its measurement is skipped")
        warm = _cwla_eval(qrels, runs[:1])  # untimed: fills the kernel cache if the sources changed
        if warm["code"]:
            print(f"cwla eval failed (exit {warm['code']}):\n{warm['stderr']}")
            return warm["code"]
        print(f"{n_docs:,} retrieved documents; untimed warm-up cwla eval on one run: CPU {warm['cpu']:.1f} s; "
              f"{_load()}")
        keys = _kernel_folders()
        found = {"cli": [], "pytrec": [], "evaluate": [], "prepare": []}
        for _ in range(args.repeats):  # interleaved
            m = _cwla_eval(qrels, runs)
            if m["code"]:
                print(f"cwla eval failed (exit {m['code']}):\n{m['stderr']}")
                return m["code"]
            found["cli"].append(m)
            if pytrec:
                found["pytrec"].append(_pytrec_eval(qrels, runs))
            for mode in ("evaluate", "prepare"):
                found[mode].append(_measure(qrels, runs, mode))
        n = args.repeats
        if _kernel_folders() != keys:
            print("NOTE: a new kernels-* folder appeared in the kernel cache during the measurement: the sources "
                  "changed and a measured process compiled its kernels; run again on a quiet tree")
        for mode in ("evaluate", "prepare"):
            ms = found[mode]
            m = {k: _med(ms, k) for k in ms[0]}
            line = f"{mode:9s} wall {m['seconds']:.1f} s, peak RSS {m['peak_rss'] / 2**30:.2f} GiB"
            if mode == "prepare":
                line += (f" (read_runs {m['read']:.1f} s); RunSet {m['bytes_per_doc']:.1f} bytes per document "
                         f"+ docnos {m['docno_bytes'] / 2**20:.0f} MiB; Collection {m['collection_bytes_per_doc']:.1f} "
                         f"bytes per document")
            ok = m["peak_rss"] <= 3 * 2**30 and m["seconds"] <= 12
            print(f"{line} (medians of {n})   [targets: peak RSS <= 3 GiB, wall <= 12 s: {'PASS' if ok else 'MISS'}]")
        cli = {k: _med(found["cli"], k) for k in ("cpu", "wall", "peak_rss")}
        line = (f"cwla eval -m nDCG@10 (whole process): CPU {cli['cpu']:.1f} s, wall {cli['wall']:.1f} s, "
                f"peak RSS {cli['peak_rss'] / 2**30:.2f} GiB")
        if pytrec:
            pte = {k: _med(found["pytrec"], k) for k in ("cpu", "wall", "peak_rss")}
            ratio = cli["cpu"] / pte["cpu"]
            print(f"{line} | pytrec_eval ndcg_cut_10 (parse_qrel, RelevanceEvaluator, parse_run + evaluate per run): "
                  f"CPU {pte['cpu']:.1f} s, wall {pte['wall']:.1f} s, peak RSS {pte['peak_rss'] / 2**30:.2f} GiB | "
                  f"CPU ratio 1/{1 / ratio:.1f} ({ratio:.3f}), medians of {n}; numba threads "
                  f"{numba.get_num_threads()}; {_load()}"
                  f"   [target cwla / pytrec_eval CPU <= 1/8: {'PASS' if ratio <= 1 / 8 else 'MISS'}]")
            ours = statistics.fmean(m["mean"] for m in found["evaluate"])
            theirs = statistics.fmean(found["pytrec"][0]["means"])
            print(f"check: mean nDCG@10 cwla.evaluate {ours:.6f} | pytrec_eval {theirs:.6f} | |diff| "
                  f"{abs(ours - theirs):.1e}")
        else:
            print(f"{line}, medians of {n}; numba threads {numba.get_num_threads()}; {_load()}")
        per_doc = cli["peak_rss"] / n_docs
        print(f"cwla eval peak RSS per retrieved document: {per_doc:.1f} bytes ({n_docs:,} documents); numba threads "
              f"{numba.get_num_threads()}; {_load()}   [target <= 16 bytes: {'PASS' if per_doc <= 16 else 'MISS'}]")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


def _huge(args) -> int:
    folder = Path(args.dir or tempfile.mkdtemp(prefix="cwla-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        qrels, runs, reused = _collection(folder, args.topics, 20, 1000)
        size = sum(p.stat().st_size for p in runs)
        print(f"{'reused' if reused else 'generated'} {args.topics:,} topics x 20 runs x 1000: {size / 2**30:.1f} GiB "
              f"of run files in {time.perf_counter() - t0:.0f} s")
        n_docs = _documents(runs)
        _cwla_eval(qrels, runs[:1])  # untimed: fills the kernel cache if the sources changed
        with tempfile.TemporaryFile() as out:
            m = _cwla_eval(qrels, runs, stdout=out)
            out.seek(0)
            lines = sum(chunk.count(b"\n") for chunk in iter(lambda: out.read(1 << 20), b""))
        per_doc = m["peak_rss"] / n_docs
        print(f"cwla eval -m nDCG@10: exit {m['code']}, CPU {m['cpu']:.0f} s, wall {m['wall']:.0f} s, peak RSS "
              f"{m['peak_rss'] / 2**30:.2f} GiB = {per_doc:.1f} bytes per retrieved document ({n_docs:,} documents), "
              f"{lines} output lines; numba threads {numba.get_num_threads()}; {_load()}   [targets: completes, "
              f"<= 16 bytes per document: {'PASS' if m['code'] == 0 and per_doc <= 16 else 'MISS'}]")
        if m["code"]:
            print(m["stderr"])
        return m["code"]
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="part", required=True)
    d = sub.add_parser("dl20")
    d.add_argument("--data", type=Path, default=DEFAULT_DATA)
    d.add_argument("--trials", type=int, default=10_000)
    d.add_argument("--repeats", type=int, default=3)
    v = sub.add_parser("verify")
    v.add_argument("--data", type=Path, default=DEFAULT_DATA)
    v.add_argument("--repeats", type=int, default=31)
    for name in ("large", "huge"):
        g = sub.add_parser(name)
        g.add_argument("--dir", help="where to write the generated files (default: a temporary folder)")
        g.add_argument("--keep", action="store_true", help="keep the generated files")
        g.add_argument("--topics", type=int, default=5000 if name == "large" else 20_000)
        if name == "large":
            g.add_argument("--runs", type=int, default=20)
            g.add_argument("--depth", type=int, default=1000)
            g.add_argument("--repeats", type=int, default=1, help="interleaved repeats of each measurement")
    args = p.parse_args(argv)
    return {"dl20": _dl20, "verify": _verify, "large": _large, "huge": _huge}[args.part](args)


if __name__ == "__main__":
    sys.exit(main())
