"""The one place where cwla's numba options live.

Every kernel is compiled with ``cache=True`` (the compiled code is kept on disk
next to the module, so the compile cost is paid once per machine, not per
process), ``error_model="numpy"`` (a division by zero gives inf/nan as NumPy
does, never an exception from inside the kernel: the Python wrappers validate
first) and **no fast-math flags**: scores must match trec_eval and cwl_eval to the
last printed decimal, and reassociation would change them.
"""

import numba

__all__ = ["jit"]


def jit(*, parallel=False):
    """Return numba's ``njit`` decorator with cwla's options."""
    return numba.njit(cache=True, error_model="numpy", parallel=parallel, nogil=True)
