"""Every buffer malloc hands out (the outputs of the kernels called here among them) filled
with a byte pattern, glibc's M_PERTURB, not the zero pages of a fresh large allocation: a
kernel that reads its result buffer before writing it (`y[i] += ...`) then shows at every
size, as it does at small ones where the heap hands out used memory (make mutants, silu_ffi:
its forward kernel accumulating above 1000 elements).

The setting is the process's, and the student's C++ runs here: a library's constructor or a
kernel may call mallopt(M_PERTURB, 0). So it is set again after each library is loaded and
before each request (autograder/executor/__main__.py, handlers.py), through libc's own handle
(a library of the student's cannot stand in for libc's mallopt there): a kernel that turns it
off while it runs has its buffers, allocated before it is called, filled all the same.
"""
from __future__ import annotations

import ctypes

M_PERTURB = -6
PATTERN = 0xA5   # allocations filled with ~0xA5


try:
    _mallopt = ctypes.CDLL("libc.so.6").mallopt
except (OSError, AttributeError):   # not glibc
    _mallopt = None


def dirty() -> None:
    if _mallopt is not None:
        _mallopt(M_PERTURB, PATTERN)
