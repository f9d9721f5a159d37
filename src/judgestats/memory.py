"""How the command line's process asks the kernel for memory.

NumPy advises the kernel to back every array of 4 MB or more with transparent huge
pages (``madvise(MADV_HUGEPAGE)``). Where the kernel's huge-page defragmentation is
``madvise`` (``/sys/kernel/mm/transparent_hugepage/defrag``, a common default), the
first touch of such an array makes the kernel try to compact memory on the spot;
when no huge page can be had, every large allocation pays for the attempt. On the
2-core virtual machines this package is measured on (defrag ``madvise``, no huge
page ever obtained: ``AnonHugePages: 0 kB``), filling a new 170 MB array took
1.26 s with the advice and 0.084 s without, and a ``report --fast`` of the LLMBar
logs allocates more than that in draws alone.

:func:`no_hugepage_advice` turns the advice off for the process, unless the user
chose with NumPy's own ``NUMPY_MADVISE_HUGEPAGE`` variable. The command line calls
it; importing :mod:`judgestats` in a notebook changes nothing (it is the user's
process: call the function, or set the variable, to get the same effect).
"""

from __future__ import annotations

import os

__all__ = ["no_hugepage_advice"]


def no_hugepage_advice() -> bool:
    """Stop NumPy from advising huge pages for large arrays, unless the user chose.

    Returns
    -------
    bool
        Whether the advice was on and is now off. False if ``NUMPY_MADVISE_HUGEPAGE``
        is set (the user's choice stands) or this NumPy has no such switch.
    """
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return False
    from numpy._core import multiarray

    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    return bool(switch(False)) if switch is not None else False
