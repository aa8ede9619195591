"""What a first ``cwla`` command costs with an empty kernel cache, and which kernels it compiles.

Usage::

    python benchmarks/bench_compile.py [cold] [demo] [ahead] [install] [--install] [--data DIR] [--repeats N]
                                       [--command "python -m cwla eval ..."] [--json FILE]

With no part named, ``cold`` and ``demo`` run; ``install`` (or ``--install``) is off by default (it
builds a virtual environment: a few minutes).

``cold`` runs a ``cwla`` command (default: ``python -m cwla eval QRELS RUNS... -m map -m P.10 -m
ndcg_cut.10`` on TREC DL 2020 passage, ``qrels/qrels.dl20-passage.txt`` and the 59 ``runs/*.gz``)
in a fresh process with an EMPTY ``CWLA_CACHE_DIR`` (a new temporary folder for each repeat), then
the same command again with that cache, now filled ("cached"); ``--repeats`` times, interleaved
(cold, cached, cold, cached, ...). Each process's CPU time (user + sys, from ``os.wait4``), wall time
and peak RSS are measured from outside; the summary prints the medians and the ratio cold CPU /
cached CPU (target <= 3). The command runs as ``cwla.bridges.cli.main(argv)`` inside ``python -c``
(what ``python -m cwla`` runs), its stdout discarded, after a listener on numba's
``numba:compile`` event is registered: it records every top-level compile (nesting depth 0: the
kernel, not the functions numba compiles while typing it) with its signature and seconds. numba
fires that event only when it compiles, never when it loads a kernel from the cache, so the
cached run's count must be 0. The compile set (function, number of signatures, seconds) is printed
sorted by seconds, with a flag on every function compiled for more than one signature. The same
command's cached CPU is also set beside ``zcat`` of the run files (``.gz`` runs only: issue 23's
"whole process at most 2x zcat"), measured in the same loop.

``demo`` does the same for ``python -m cwla demo`` (it reads and writes no file; it runs with a
temporary folder as its working directory all the same).

Both run with ``CWLA_COMPILE_AHEAD=0``: every kernel compiles in the measured process, so that the compile set
is the whole of it. Each kernel's line gives its compile seconds, the part of them numba's timers put in LLVM
(optimisation and machine code) and the rest, numba's Python front end (bytecode to IR, type inference,
rewrites, lowering to LLVM IR); a kernel's seconds include its callees' (nested) compiles.

``ahead`` runs the first demo and the first eval cold with every kernel compiled in the one process
(``CWLA_COMPILE_AHEAD=0``) and cold with a second process compiling ahead (``=1``, the default;
``cwla/_ahead.py``), alternately, each with a fresh cache, then the latter cached: medians of wall and CPU.

``install`` creates a virtual environment in a temporary folder (no ``--system-site-packages``;
pip installs numpy, numba, pandas, attrs, scipy and xxhash from its configured index or cache),
copies the sources (``--source``, default this repository, without ``.git`` and build leftovers)
so that both installs see the same bytes while the repository may be changing, ``pip install``s
that copy (not editable), runs the eval cold with an empty cache C, then ``pip install -e`` the
same copy into the same environment and runs the eval again with cache C: the kernels compiled
the second time (target 0: two copies of the same sources share one cache). Where pip cannot
install, it says so and skips.

``--json FILE`` writes each part's compile set as JSON: ``{"eval": {name: [signature, ...]},
"demo": {...}}`` (from the first cold repeat). Every temporary folder is deleted at the end.

The machine may be shared: each summary line carries the numba thread count and
``os.getloadavg()``; quote medians and ratios, not single timings.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "trec-dl-2020-passage"
QRELS = Path("qrels") / "qrels.dl20-passage.txt"
MEASURES = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10"]
PACKAGES = ("cwla", "discpower")

# Run inside the measured process: python -c WRAPPER OUT.json ARGV...; records the top-level numba compiles
# of the command, then runs it as `python -m cwla` would.
WRAPPER = r"""
import json, sys, time
from numba.core import event

depth, started, records, nested, compiled = [0], [0.0], [], [0], []


class L(event.Listener):
    def on_start(self, ev):
        if depth[0] == 0:
            started[0] = time.perf_counter()
        else:
            nested[0] += 1
        depth[0] += 1

    def on_end(self, ev):
        depth[0] -= 1
        if depth[0] == 0:
            seconds = time.perf_counter() - started[0]
            disp = ev.data["dispatcher"]
            f = getattr(disp, "py_func", None)
            name = f"{f.__module__}.{f.__qualname__}" if f is not None else repr(disp)
            sig = "(" + ", ".join(str(a) for a in ev.data["args"]) + ")"
            records.append([name, sig, seconds])
            compiled.append((len(records) - 1, disp, tuple(ev.data["args"])))


event.register("numba:compile", L())
out, argv = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
code = 1
try:
    from cwla.bridges.cli import main

    code = main(argv)
finally:
    import cwla, numba

    for i, disp, args in compiled:  # numba's own timers of each compile: all of it, and LLVM's part
        cres = getattr(disp, "overloads", {}).get(args)
        timers = (getattr(cres, "metadata", None) or {}).get("timers", {})
        records[i].append(timers.get("llvm_lock", float("nan")))
    with open(out, "w") as f:
        json.dump({"code": code, "seconds": time.perf_counter() - t0, "compiles": records, "nested": nested[0],
                   "threads": numba.get_num_threads(), "cwla": cwla.__file__, "cache_dir": cwla.cache_dir()}, f)
sys.exit(code)
"""


class Missing(Exception):
    """Data or a tool the benchmark needs is not there."""


def _load() -> str:
    return "load " + "/".join(f"{x:.2f}" for x in os.getloadavg())


def _child(cmd: list[str], env: dict, cwd: str, stdout=subprocess.DEVNULL) -> dict:
    """Run ``cmd``; its CPU (user + sys), wall time, peak RSS (from ``os.wait4``), exit code and stderr."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=stdout, stderr=err, stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return {"cpu": ru.ru_utime + ru.ru_stime, "wall": wall, "rss": ru.ru_maxrss * 1024, "code": proc.returncode,
            "stderr": stderr}


def _cwla(python: str, argv: list[str], cache: str, cwd: str, ahead: bool | None = None) -> dict:
    """``argv`` (cwla's arguments) through the wrapper in a fresh ``python`` process with ``CWLA_CACHE_DIR=cache``
    (and ``CWLA_COMPILE_AHEAD`` 1 or 0 if ``ahead`` is not None): :func:`_child`'s figures plus what the wrapper
    recorded (the compiles of that process; a second process compiling ahead is not in them, but its CPU is in
    the process's, which waits for it)."""
    env = {**os.environ, "CWLA_CACHE_DIR": cache}
    if ahead is not None:
        env["CWLA_COMPILE_AHEAD"] = "1" if ahead else "0"
    env.pop("PYTHONPATH", None)
    fd, out = tempfile.mkstemp(suffix=".json", prefix="cwla-compiles-")
    os.close(fd)
    try:
        m = _child([python, "-c", WRAPPER, out, *argv], env, cwd)
        try:
            m.update(json.loads(Path(out).read_text()))
        except (OSError, ValueError):
            m["compiles"] = None
    finally:
        os.unlink(out)
    if m["code"] != 0 or m.get("compiles") is None:
        raise RuntimeError(f"cwla {shlex.join(argv[:3])} ... exited {m['code']}:\n{m['stderr'][-3000:]}")
    return m


def _ours(name: str) -> bool:
    return name.split(".", 1)[0] in PACKAGES


def _compile_set(records: list) -> dict[str, list]:
    """name -> [[signature, seconds, seconds in LLVM], ...] for cwla's and discpower's functions, in compile order."""
    found: dict[str, list] = {}
    for name, sig, seconds, *llvm in records:
        if _ours(name):
            found.setdefault(name, []).append([sig, seconds, llvm[0] if llvm else float("nan")])
    return found


def _print_compile_set(label: str, records: list, nested: int) -> None:
    found = _compile_set(records)
    others = [r for r in records if not _ours(r[0])]
    total = sum(r[2] for r in records)
    llvm_total = sum(r[3] for r in records if len(r) > 3 and r[3] == r[3])  # NaN: no timer for that compile
    print(f"{label}: compile set, {len(found)} functions, {sum(len(v) for v in found.values())} top-level compiles, "
          f"{total:.2f} s compiling ({nested} nested compiles inside them): {llvm_total:.2f} s in LLVM (optimisation "
          f"and machine code), {total - llvm_total:.2f} s in numba's Python front end (bytecode to IR, type "
          f"inference, rewrites, lowering to LLVM IR)")
    rows = sorted(found.items(), key=lambda kv: -sum(v[1] for v in kv[1]))
    width = max((len(n) for n in found), default=10)
    print(f"  {'kernel':{width}s}  n   total    LLVM   front end")
    for name, sigs in rows:
        flag = f"   <- {len(sigs)} signatures" if len(sigs) > 1 else ""
        t, llvm = sum(v[1] for v in sigs), sum(v[2] for v in sigs if v[2] == v[2])
        print(f"  {name:{width}s}  {len(sigs)}  {t:6.2f} s {llvm:6.2f} s {t - llvm:6.2f} s{flag}")
        if len(sigs) > 1:
            for sig, sec, _ in sigs:
                print(f"  {'':{width}s}     {sec:6.2f} s  {sig}")
    for name, sig, sec, *_ in others:
        print(f"  (not cwla/discpower) {name} {sig} {sec:.2f} s")
    several = [n for n, v in found.items() if len(v) > 1]
    print(f"  functions compiled for more than one signature: {', '.join(several) if several else 'none'}")


def _cold(label: str, argv: list[str], repeats: int, zcat: list[Path] | None = None) -> dict[str, list[str]]:
    """The cold/cached measurement of ``argv``; returns the compile set (name -> signatures) of the first cold run."""
    cold, cached, zc, sets, changed = [], [], [], [], 0
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="cwla-cold-") as tmp:
            cache, cwd = os.path.join(tmp, "cache"), os.path.join(tmp, "cwd")
            os.mkdir(cwd)
            cold.append(_cwla(sys.executable, argv, cache, cwd, ahead=False))
            cached.append(_cwla(sys.executable, argv, cache, cwd, ahead=False))
            keys = len(list(Path(cold[-1]["cache_dir"]).glob("kernels-*")))
            if keys > 1:  # the cache key is a hash of the sources: they were edited between the two runs
                changed += 1
            if zcat:
                zc.append(_child(["zcat", *map(str, zcat)], dict(os.environ), cwd))
        sets.append(sorted((r[0], r[1]) for r in cold[-1]["compiles"] if _ours(r[0])))
    first = cold[0]
    _print_compile_set(f"{label} (first cold run)", first["compiles"], first["nested"])
    if any(s != sets[0] for s in sets[1:]):
        print(f"  NOTE: the cold runs compiled different sets: {[len(s) for s in sets]} compiles")
    med = {k: {f: statistics.median(m[f] for m in runs) for f in ("cpu", "wall", "rss", "seconds")}
           for k, runs in (("cold", cold), ("cached", cached))}
    c, w = med["cold"], med["cached"]
    ratio = c["cpu"] / w["cpu"]
    recompiled = max(len(m["compiles"]) for m in cached)
    threads = first["threads"]
    verdict = 'PASS' if ratio <= 3 and recompiled == 0 else 'MISS'
    if changed:
        verdict = "INVALID"
        print(f"  NOTE: in {changed} of {repeats} pairs the sources changed between the cold and the cached run "
              f"(a second kernels-* folder in the cache): run again on a quiet tree")
    print(f"{label}: cold CPU {c['cpu']:.2f} s (wall {c['wall']:.2f} s, peak RSS {c['rss'] / 2**20:.0f} MiB) | "
          f"cached CPU {w['cpu']:.2f} s (wall {w['wall']:.2f} s, peak RSS {w['rss'] / 2**20:.0f} MiB) | "
          f"ratio {ratio:.2f}x, medians of {repeats}; compiles cached: {recompiled}; numba threads {threads}; {_load()}"
          f"   [target cold/cached CPU <= 3: {verdict}]")
    if zc:
        z = {f: statistics.median(m[f] for m in zc) for f in ("cpu", "wall")}
        rc, rw = w["cpu"] / z["cpu"], w["wall"] / z["wall"]
        print(f"{label} cached vs zcat of its {len(zcat)} run files: zcat CPU {z['cpu']:.2f} s, "
              f"wall {z['wall']:.2f} s | "
              f"ratio CPU {rc:.2f}x, wall {rw:.2f}x; numba threads {threads}; {_load()}"
              f"   [target <= 2x: CPU {'PASS' if rc <= 2 else 'MISS'}, wall {'PASS' if rw <= 2 else 'MISS'}]")
    return {name: [v[0] for v in sigs] for name, sigs in _compile_set(first["compiles"]).items()}


def _ahead(label: str, argv: list[str], repeats: int) -> None:
    """A cold run compiling every kernel itself (``CWLA_COMPILE_AHEAD=0``) against one with a second process
    compiling ahead (``=1``, the default), alternately, each with a fresh cache, then a cached run: medians."""
    runs: dict[str, list] = {"alone": [], "ahead": [], "cached": []}
    for _ in range(repeats):
        for mode in ("alone", "ahead"):
            with tempfile.TemporaryDirectory(prefix="cwla-ahead-") as tmp:
                cache, cwd = os.path.join(tmp, "cache"), os.path.join(tmp, "cwd")
                os.mkdir(cwd)
                runs[mode].append(_cwla(sys.executable, argv, cache, cwd, ahead=mode == "ahead"))
                if mode == "ahead":
                    runs["cached"].append(_cwla(sys.executable, argv, cache, cwd, ahead=True))
    med = {k: {f: statistics.median(m[f] for m in v) for f in ("cpu", "wall")} for k, v in runs.items()}
    here = sorted({r[0] for r in runs["ahead"][0]["compiles"] if _ours(r[0])})
    a, b, c = med["alone"], med["ahead"], med["cached"]
    print(f"{label}: cold, compiling alone: wall {a['wall']:.2f} s, CPU {a['cpu']:.2f} s | cold, compiling ahead in a "
          f"second process: wall {b['wall']:.2f} s, CPU {b['cpu']:.2f} s (the first process compiled {len(here)}: "
          f"{', '.join(n.rsplit('.', 1)[-1] for n in here)}) | cached: wall {c['wall']:.2f} s, CPU {c['cpu']:.2f} s")
    print(f"{label}: ahead / alone: wall {b['wall'] / a['wall']:.2f}x, CPU {b['cpu'] / a['cpu']:.2f}x; cold / cached "
          f"with ahead: wall {b['wall'] / c['wall']:.2f}x, CPU {b['cpu'] / c['cpu']:.2f}x; medians of {repeats}; "
          f"{os.cpu_count()} CPUs; {_load()}")


def _default_eval(data: Path) -> tuple[list[str], list[Path]]:
    qrels, runs = data / QRELS, sorted((data / "runs").glob("*.gz"))
    if not qrels.is_file() or not runs:
        raise Missing(f"TREC DL 2020 passage data not found: need {qrels} and {data / 'runs'}/*.gz "
                      f"(the ../shared/data folder beside the repository; --data DIR to point elsewhere)")
    return ["eval", str(qrels), *map(str, runs), *MEASURES], runs


def _parse_command(text: str) -> list[str]:
    """cwla's arguments from ``python -m cwla ARGS`` or ``cwla ARGS``."""
    words = shlex.split(text)
    for prefix in (["python", "-m", "cwla"], ["python3", "-m", "cwla"], ["cwla"]):
        if words[:len(prefix)] == prefix:
            return words[len(prefix):]
    raise SystemExit(f"--command must start with 'python -m cwla' or 'cwla', not {text!r}")


# ---------------------------------------------------------------------------
# install: a non-editable then an editable install of the same sources share one cache
# ---------------------------------------------------------------------------


def _pip(python: str, args: list[str], log: Path) -> bool:
    with open(log, "a") as f:
        f.write(f"\n$ pip {shlex.join(args)}\n")
        f.flush()
        done = subprocess.run([python, "-m", "pip", *args], stdout=f, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL)
    return done.returncode == 0


def _install(argv: list[str], source: Path) -> None:
    if not (source / "pyproject.toml").is_file():
        raise Missing(f"no pyproject.toml in {source}")
    with tempfile.TemporaryDirectory(prefix="cwla-install-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        copy = tmp / "src"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(
            ".git", "build", "dist", "*.egg-info", "__pycache__", "*.nbi", "*.nbc", ".pytest_cache", ".hypothesis",
            ".ruff_cache", ".cache", ".benchmarks", ".ipynb_checkpoints", "site"))
        subprocess.run([sys.executable, "-m", "venv", str(tmp / "venv")], check=True)
        python = str(tmp / "venv" / "bin" / "python")
        log = tmp / "pip.log"
        if not _pip(python, ["install", "-q", "numpy", "numba", "pandas", "attrs", "scipy", "xxhash"], log) or \
                not _pip(python, ["install", "-q", str(copy)], log):
            print(f"install: SKIPPED, pip could not install (no network and not in the local cache?):\n"
                  f"{log.read_text()[-2000:]}")
            return
        print(f"install: venv with a non-editable install of a copy of {source} in {time.perf_counter() - t0:.0f} s")
        cache, cwd = str(tmp / "cache"), str(tmp / "cwd")
        os.mkdir(cwd)
        first = _cwla(python, argv, cache, cwd, ahead=False)
        kernels = sorted(p.name for p in Path(first["cache_dir"]).glob("kernels-*"))
        if not _pip(python, ["install", "-q", "-e", str(copy)], log):
            print(f"install: SKIPPED, pip install -e failed:\n{log.read_text()[-2000:]}")
            return
        second = _cwla(python, argv, cache, cwd, ahead=False)
        again = sorted(p.name for p in Path(second["cache_dir"]).glob("kernels-*"))
        n1, n2 = len(first["compiles"]), len(second["compiles"])
        print(f"install: non-editable ({first['cwla']}): {n1} kernels compiled, CPU {first['cpu']:.2f} s, "
              f"cache {kernels}")
        print(f"install: editable ({second['cwla']}), same cache: CPU {second['cpu']:.2f} s, cache folders now {again}")
        if n2:
            _print_compile_set("install: compiled again by the editable install", second["compiles"], second["nested"])
        print(f"install: kernels compiled after pip install -e with the cache of pip install: {n2}; "
              f"numba threads {second['threads']}; {_load()}   [target 0: {'PASS' if n2 == 0 and n1 > 0 else 'MISS'}]")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("parts", nargs="*", metavar="PART", help="cold, demo, ahead, install (default: cold demo)")
    p.add_argument("--install", action="store_true", help="also run the install part (slow)")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"TREC DL 2020 passage folder ({DEFAULT_DATA})")
    p.add_argument("--command", help="the command of `cold` and `install` (default: python -m cwla eval QRELS RUNS "
                   "-m map -m P.10 -m ndcg_cut.10 on DL20)")
    p.add_argument("--repeats", type=int, default=3, help="cold/cached pairs per command (default 3)")
    p.add_argument("--json", type=Path, help="write the compile sets here")
    p.add_argument("--source", type=Path, default=ROOT, help=f"what `install` installs (default {ROOT})")
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    unknown = [x for x in args.parts if x not in ("cold", "demo", "ahead", "install")]
    if unknown:
        p.error(f"unknown part {unknown[0]!r}: choose from cold, demo, ahead, install")
    parts = list(dict.fromkeys(args.parts or ["cold", "demo"]))
    if args.install and "install" not in parts:
        parts.append("install")
    try:
        if args.command:
            command, runs = _parse_command(args.command), []
        else:
            command, runs = _default_eval(args.data)
        gz = runs if runs and all(r.suffix == ".gz" for r in runs) else None  # the zcat comparison
        sets = {}
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, NUMBA_NUM_THREADS="
              f"{os.environ.get('NUMBA_NUM_THREADS', '(unset)')}; {_load()}")
        if "cold" in parts:
            sets["eval"] = _cold("eval", command, args.repeats, zcat=gz)
        if "demo" in parts:
            sets["demo"] = _cold("demo", ["demo"], args.repeats)
        if "ahead" in parts:
            _ahead("demo", ["demo"], args.repeats)
            _ahead("eval", command, args.repeats)
        if "install" in parts:
            _install(command, args.source)
    except Missing as e:
        print(f"bench_compile: {e}", file=sys.stderr)
        return 1
    if args.json and sets:
        args.json.write_text(json.dumps(sets, indent=1) + "\n")
        print(f"compile sets written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
