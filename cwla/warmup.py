"""Compile (or load from numba's on-disk cache) every kernel cwla runs.

numba compiles a kernel on its first call in a fresh environment (a few seconds
per kernel, about 10 s in all) and caches the machine code next to the module;
later processes load it in a fraction of a second. :func:`warmup` pays that cost
up front, on tiny inputs, and says how long it took.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

__all__ = ["warmup"]


def warmup() -> float:
    """Compile or load every kernel (reading, preparing, scoring); returns the seconds taken.

    Examples
    --------
    >>> import cwla
    >>> seconds = cwla.warmup()   # ~10 s the very first time on a machine, then < 1 s
    """
    from . import _tokenize
    from .collection import prepare
    from .evaluation import evaluate

    t0 = time.perf_counter()
    buf = np.frombuffer(b"t Q0 d 1 1.5 x\n", dtype=np.uint8)
    spans, _, _, _ = _tokenize.tokenize(buf, 6, True)
    _tokenize._first_bad_int(buf, spans, 3)
    _tokenize.parse_float32(buf, spans, 4)
    _tokenize.field_strings(buf, spans, 2)
    qrels = pd.DataFrame({"topic": ["t"], "docno": ["d"], "grade": [1.0]})
    run = pd.DataFrame({"topic": ["t"], "docno": ["d"], "score": [1.0]})
    evaluate(qrels, {"r": run}, ["RBP_ERG"])
    return time.perf_counter() - t0
