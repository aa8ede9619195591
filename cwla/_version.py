"""cwla's version: the one place it is declared (pyproject.toml reads it, the kernel cache is keyed by it)."""

__version__ = "0.1.0"
