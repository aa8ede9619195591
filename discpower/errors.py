"""The errors discpower raises: for the values a user passed in, and for an optional dependency that is missing."""

from cwla.errors import CwlaError

__all__ = ["DiscpowerError", "MissingDependencyError"]


class DiscpowerError(CwlaError):
    """Bad input to a discpower function."""


class MissingDependencyError(DiscpowerError, ImportError):
    """An optional dependency a discpower function needs (matplotlib, for the figures) cannot be imported: an
    ImportError, and a DiscpowerError so that the ``discpower`` command reports it as an error, not a traceback.
    The message names the extra to install."""
