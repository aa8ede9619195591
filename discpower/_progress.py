"""A small progress reporter for long resampling (no dependency; writes to stderr)."""

from __future__ import annotations

import sys
import time

from cwla._shared import FLAG, NONE, check

from .errors import DiscpowerError


class Progress:
    """``Progress(total, label)(done)`` redraws one status line at most every 0.2 s."""

    def __init__(self, total: int, label: str, stream=None):
        self.total, self.label = max(int(total), 1), label
        self.stream = stream if stream is not None else sys.stderr
        self.start = self.last = time.perf_counter()

    def __call__(self, done: int, total: int | None = None) -> None:
        total = self.total if total is None else max(int(total), 1)
        now = time.perf_counter()
        if now - self.last < 0.2 and done < total:
            return
        self.last = now
        width = 28
        filled = int(width * done / total)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
                          f"{now - self.start:5.1f}s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def reporter(progress, total: int, label: str):
    """A callable ``(done, total)`` for ``progress`` = True, False/None, or a user's callable; anything else
    is refused (a DiscpowerError), not taken for "no progress"."""
    if not callable(progress):
        progress = check(progress, "progress", FLAG, NONE, error=DiscpowerError,
                         rule="True, False, None or a callable progress(done, total)")
    if progress is True:
        return Progress(total, label)
    if callable(progress):
        return progress
    return lambda done, total=None: None
