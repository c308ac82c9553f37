"""Which C function each FFI target name is: every registration the notebook makes, recorded.

Runs where the student's code runs (the witness; the notebook itself under Otter's own
runs). `install()` (before the notebook runs) records every FFI target registration with
the address of its handler, the library that holds it and the exported name that is that
address, and registers the grader's poison handler (kernels/poison.cc). So two names for
one handler count as one (`handler`), the course's own kernels are told apart from the
student's, and the executor learns which exported function each target is (`bindings`,
handed over with every program by autograder/witness/handover.py).
"""
from __future__ import annotations

import ctypes
import functools
import os

from autograder.shared import compile_line, poison
from kernels.build import address_of, locate

_registry: dict[str, dict] = {}   # target name -> {"handler": address, "library": path, "symbol": name}

# Bound at import, before any student code runs.
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype, _capsule_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def _handler_address(fn) -> int | None:
    capsule = fn.get("execute") if isinstance(fn, dict) else fn
    try:
        return _capsule_pointer(capsule, _capsule_name(capsule))
    except Exception:  # not a capsule: the registration itself will fail
        return None


def _located(address: int | None) -> dict:
    """{"handler": address, "library": the path of the library that holds it, "symbol": the
    exported name that is exactly this address ("" when there is none), "digest": the
    sha256 of the library's file as it is when registered (None when it is gone), by which
    the executor finds the compiler run that made it (autograder/witness/compile_record.py)}."""
    library, symbol = locate(address)
    return {"handler": address, "library": library, "symbol": symbol, "digest": compile_line.digest(library)}


def _record(name, fn) -> None:
    _registry.setdefault(str(name), _located(_handler_address(fn)))


def install() -> None:
    """Record FFI target registrations from now on (jax.ffi.register_ffi_target and the
    xla_client functions below it), and register the grader's poison handler."""
    from jax._src.lib import xla_client
    if getattr(xla_client.register_custom_call_target, "_records", False):
        return
    original = xla_client.register_custom_call_target

    @functools.wraps(original)
    def register(name, fn, *args, **kwargs):
        _record(name, fn)
        return original(name, fn, *args, **kwargs)
    register._records = True
    xla_client.register_custom_call_target = register
    for platform, handler in list(xla_client._custom_callback_handler.items()):
        def direct(name, fn, *args, _handler=handler, **kwargs):
            _record(name, fn)
            return _handler(name, fn, *args, **kwargs)
        xla_client._custom_callback_handler[platform] = direct
    from kernels.build import load_and_register
    load_and_register(os.path.join(_kernels_dir(), "poison.cc"), {poison.TARGET: poison.SYMBOL})
    _record_course_kernels()


def _record_course_kernels() -> None:
    """The course's kernel modules registered before install() (in-process runs): their
    handlers are known from the library they loaded."""
    import sys
    for name, module in list(sys.modules.items()):
        if name.startswith("kernels.") and hasattr(module, "TARGETS") and hasattr(module, "library"):
            for target, symbol in module.TARGETS.items():
                if target not in _registry:
                    _registry[target] = _located(address_of(module.library.cdll, symbol))


def _kernels_dir() -> str:
    import kernels
    return os.path.dirname(kernels.__file__)


def _course_library(path: str) -> bool:
    """A library built from this course's kernels (the prebuilt cache, or the package)."""
    prebuilt = os.environ.get("JAX_INTEROP_PREBUILT_KERNELS", "")
    return bool(path) and ((bool(prebuilt) and path.startswith(os.path.realpath(prebuilt) + os.sep))
                           or path.startswith(os.path.realpath(_kernels_dir()) + os.sep))


def handler(target: str) -> dict:
    """{"handler": an id shared by every name bound to the same C function (the name
    itself when the registration was not seen), "course": whether it is one of the
    course's own kernels}."""
    entry = _registry.get(target)
    if entry is None or entry["handler"] is None:
        return {"handler": f"name:{target}", "course": False}
    return {"handler": f"0x{entry['handler']:x}", "course": _course_library(entry["library"])}


def bindings() -> dict:
    """Which exported function each FFI target registered here is, for the executor (which
    runs its own build of the answer's C++, autograder/executor/handlers.py):
    {target: {"symbol": name or "", "course": whether the course's library holds it,
    "library": {"path", "sha256"} of the library file it was registered from}}."""
    return {target: {"symbol": entry["symbol"], "course": _course_library(entry["library"]),
                     "library": {"path": entry["library"], "sha256": entry.get("digest")}}
            for target, entry in _registry.items() if target != poison.TARGET}
