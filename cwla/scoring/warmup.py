"""Compile (or load from numba's on-disk cache) every kernel cwla runs.

numba compiles a kernel on its first call in a fresh environment (a few seconds
per kernel, about 10 s in all) and caches the machine code next to the module;
later processes load it in a fraction of a second. :func:`warmup` pays that cost
up front, on tiny inputs, and says how long it took.
"""

from __future__ import annotations

import time

import pandas as pd

__all__ = ["warmup", "one_topic"]


def one_topic() -> tuple[pd.DataFrame, dict]:
    """A one-topic collection as frames (qrels, ``{"r": run}``; a tie-free run of two documents): what compiles the
    pairs', join's and scoring kernels of an evaluation of frames (:func:`warmup`, :mod:`cwla._ahead`)."""
    qrels = pd.DataFrame({"topic": ["t"], "docno": ["d"], "grade": [1.0]})
    run = pd.DataFrame({"topic": ["t", "t"], "docno": ["d", "e"], "score": [1.0, 2.0]})
    return qrels, {"r": run}


def warmup() -> float:
    """Compile or load every kernel (reading, preparing, scoring); returns the seconds taken.

    Examples
    --------
    >>> import cwla
    >>> seconds = cwla.warmup()   # ~10 s the very first time on a machine, then < 1 s
    """
    import tempfile

    from .evaluator import evaluate

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:  # the file readers' kernels (a tie: the ordering's too)
        path, qrels_path = f"{folder}/run", f"{folder}/qrels"
        with open(path, "w") as f:
            f.write("t Q0 d 1 1.5 x\nt Q0 e 2 1.5 x\n")
        with open(qrels_path, "w") as f:
            f.write("t 0 d 1\n")
        evaluate(qrels_path, [path], ["RBP_ERG"])  # read_run_file, read_qrels_file, read_runs, prepare
    evaluate(*one_topic(), ["RBP_ERG"])
    return time.perf_counter() - t0
