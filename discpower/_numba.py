"""numba options for discpower's kernels (the same as cwla's: cached, no fast-math flags)."""

from cwla._numba import jit

__all__ = ["jit"]
