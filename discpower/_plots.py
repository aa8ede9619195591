"""matplotlib, which only the figures need (the ``plots`` extra): imported when a figure is drawn."""

from __future__ import annotations

from types import ModuleType

from .errors import MissingDependencyError

__all__ = ["pyplot", "PLOTS_EXTRA"]

#: how the figures' dependency is installed (the ``plots`` extra of the ``cwla`` distribution, which holds discpower)
PLOTS_EXTRA = "pip install 'cwla[plots]'"


def pyplot(what: str, backend: str | None = None) -> ModuleType:
    """``matplotlib.pyplot``, for ``what`` (the function or option that draws, as the message names it);
    ``backend`` is selected first (the command's ``"Agg"``). Without matplotlib: a
    :class:`~discpower.errors.MissingDependencyError` naming the extra to install."""
    try:
        import matplotlib

        if backend is not None:
            matplotlib.use(backend)
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise MissingDependencyError(f"{what} needs matplotlib (the 'plots' extra): {PLOTS_EXTRA}. Importing it "
                                     f"failed: {err}") from None
    return plt
