"""numba options for discpower's kernels: cwla's (cached, no fast-math flags, parallel kernels safe to call
from several threads under every threading layer; see :mod:`cwla._numba`)."""

from cwla._numba import jit

__all__ = ["jit"]
