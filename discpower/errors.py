"""The error discpower raises for the values a user passed in."""

from cwla.errors import CwlaError

__all__ = ["DiscpowerError"]


class DiscpowerError(CwlaError):
    """Bad input to a discpower function."""
