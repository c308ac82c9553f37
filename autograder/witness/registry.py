"""Which C function each FFI target name is: every registration the notebook makes, recorded.

Runs where the student's code runs (the witness; the notebook itself under Otter's own
runs). `install()` (before the notebook runs) records every FFI target registration with
the address of its handler and where the dynamic loader put it (the library's name, its
load address, the handler's offset: autograder/shared/linkmap.py), and registers the
grader's poison handler (kernels/poison.cc). So two names for one handler count as one
(`handler`), the course's own kernels are told apart from the student's, and the executor
learns which function of which loaded library each target is (`bindings`, handed over with
every program by autograder/witness/handover.py; the library's bytes come from the capture
the loader's audit module made when the notebook loaded it: kernels/loaded_audit.c).
"""
from __future__ import annotations

import ctypes
import functools
import os

from autograder.shared import linkmap, poison
from kernels.build import address_of

_registry: dict[str, dict] = {}   # target name -> _located(its handler)

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
    """{"handler": address, "name": the name the loader knows its library by, "base": that
    library's load address, "library": the library's real path, "symbol": the exported name
    that is exactly this address ("" when there is none)}."""
    name, base, symbol = linkmap.object_of(address)
    return {"handler": address, "name": name, "base": base, "symbol": symbol,
            "library": os.path.realpath(name) if name else ""}


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
    load_and_register(os.path.join(_kernels_dir(), "poison.cc"), poison.TARGETS)
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
    """Which function of which loaded library each FFI target registered here is, for the
    executor (which loads the bytes of that library as the notebook loaded them:
    autograder/executor/handlers.py): {target: {"symbol": its exported name or "", "course":
    whether the course's library holds it, "library": {"name": the name the loader knows it
    by, "base": its load address, "path": its real path}, "offset": the handler's offset from
    the base}}; a handler no loaded library holds has no "library"."""
    found = {}
    for target, entry in _registry.items():
        if target in poison.TARGETS:
            continue
        found[target] = {"symbol": entry["symbol"], "course": _course_library(entry["library"])}
        if entry["name"] and entry["handler"] is not None:
            found[target].update(library={"name": entry["name"], "base": entry["base"], "path": entry["library"]},
                                 offset=entry["handler"] - entry["base"])
    return found
