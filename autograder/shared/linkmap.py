"""Where a loaded function lives, as the dynamic loader knows it: the object (its name and
load address, glibc's link_map) that holds an address, and the load address of a library
opened with ctypes.

The witness reports a handler as (the name its library was loaded by, that library's load
address, the handler's offset from it) (autograder/witness/registry.py); the executor loads
the bytes of that library as the notebook loaded them (kernels/loaded_audit.c,
autograder/runner/libraries.py) and finds the same function at the same offset from where
that copy is loaded (autograder/executor/handlers.py). So a handler need not be an exported
symbol, and two names for one function are one address. Functions bound at import, before
any student code runs.
"""
from __future__ import annotations

import ctypes

AUDIT_MODULE = "loaded-audit.so"   # kernels/loaded_audit.c, built into the prebuilt kernels' folder
RTLD_DL_LINKMAP = 2   # dladdr1's extra information: the object's struct link_map
RTLD_DI_LINKMAP = 2   # dlinfo's request: the handle's struct link_map


class _LinkMap(ctypes.Structure):   # the first fields of glibc's struct link_map (<link.h>)
    _fields_ = [("l_addr", ctypes.c_size_t), ("l_name", ctypes.c_char_p)]


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


_libc = ctypes.CDLL(None)
_dladdr1 = _libc.dladdr1
_dladdr1.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo), ctypes.POINTER(ctypes.POINTER(_LinkMap)), ctypes.c_int]
_dlinfo = _libc.dlinfo
_dlinfo.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.POINTER(_LinkMap))]


def object_of(address: int | None) -> tuple[str, int, str]:
    """(the name the loader knows the object holding `address` by, its load address, the
    exported symbol that is exactly `address` or ""); ("", 0, "") when no loaded object
    holds it."""
    info, link = _DlInfo(), ctypes.POINTER(_LinkMap)()
    if not address or not _dladdr1(address, ctypes.byref(info), ctypes.byref(link), RTLD_DL_LINKMAP) or not link:
        return "", 0, ""
    exact = info.dli_sname is not None and info.dli_saddr == address
    name = link.contents.l_name or info.dli_fname or b""
    return name.decode(errors="surrogateescape"), int(link.contents.l_addr), (info.dli_sname.decode() if exact else "")


def base_of(library: ctypes.CDLL) -> int:
    """The load address (l_addr) of a library opened with ctypes."""
    link = ctypes.POINTER(_LinkMap)()
    if _dlinfo(library._handle, RTLD_DI_LINKMAP, ctypes.byref(link)) != 0 or not link:
        raise OSError(f"dlinfo found no link map for {library._name}")
    return int(link.contents.l_addr)
