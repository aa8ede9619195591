"""discpower's progress reports: :func:`cwla.progress.reporter` with discpower's error for a bad ``progress``."""

from __future__ import annotations

from cwla._shared import reporter as _cwla_reporter
from cwla._shared import scope

from .errors import DiscpowerError

__all__ = ["reporter", "scope"]


def reporter(progress, total: int, label: str, *, unit: str = ""):
    """A callable ``(done, total)`` for ``progress``: None (a bar when stderr is a terminal), True (a bar),
    False (nothing) or a user's callable; anything else is refused with a DiscpowerError."""
    return _cwla_reporter(progress, total, label, unit=unit, error=DiscpowerError)
