"""numba's parallel kernels (``_norm_kernel``, ``_alti_kernel``) run within the threads torch is allowed, and
leave the user's thread settings as they were found.

numba's OpenMP threading layer, started by the first parallel kernel, sets the OpenMP thread count that torch's
intra-op pool reads: after ``torch.set_num_threads(1)`` the first norm-based map left torch with every core.
"""

from __future__ import annotations

import contextlib

import torch


@contextlib.contextmanager
def torch_threads():
    """Run a parallel kernel (its import included: loading it may start the threading layer) on no more threads
    than torch and numba are each allowed, and give both back the counts they had."""
    import numba

    threads = torch.get_num_threads()
    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(threads, before)))
    try:
        yield
    finally:
        numba.set_num_threads(before)
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
