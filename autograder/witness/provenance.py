"""Where a result comes from: the answer's compiled program re-run with pieces poisoned.

Runs where the student's code runs (the witness; the notebook itself under Otter's own
runs) and returns plain data; the verdict is the grader's (autograder/shared/checks.py).

- `trace(fn, *args, ...)`: lowers `jax.jit(fn)` on the grader's inputs and runs the
  compiled program as it is ("value"), then with every custom_call of one kind (registered
  FFI handlers, host callbacks), or each FFI call alone, retargeted to the grader's poison
  handler (kernels/poison.cc), and with named host functions (scipy.special.gammaln)
  replaced by a poison wherever they are referenced. A piece the output depends on
  changes every output element; a decoy beside the real computation, a call whose result
  is multiplied by zero, or one that XLA drops as dead code changes none.
- `hlo_opcodes(fn, *args)`: the operations of the optimized module (after XLA dropped
  dead code), so a test can say where the math happens whatever produced it.
- handler registry: `install()` (before the notebook runs) records every FFI target
  registration with the address of its handler and the library that holds it, so two
  names for one handler count as one, and the course's own kernels are told apart.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import types
from collections.abc import Callable
from copy import copy as _copy
from gc import get_referrers  # bound at import, before any student code (see hostcall.py)

import jax
import numpy as np

from autograder.witness import inspection
from autograder.shared import poison, stablehlo
from kernels.build import address_of, locate

_registry: dict[str, dict] = {}   # target name -> {"handler": address, "library": path, "symbol": name}


# ------------------------------------------------------------ registrations ----------

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
    exported name that is exactly this address ("" when there is none)}."""
    library, symbol = locate(address)
    return {"handler": address, "library": library, "symbol": symbol}


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
    runs its own build of the answer's source, autograder/executor/handlers.py):
    {target: {"symbol": name or "", "course": whether the course's library holds it}}."""
    return {target: {"symbol": entry["symbol"], "course": _course_library(entry["library"])}
            for target, entry in _registry.items() if target != poison.TARGET}


# ------------------------------------------------------------------ poisoning ----------

def _flat(outputs) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree.leaves(outputs)]


def _retargeted(lowered, indices: set[int]):
    """A copy of `lowered` whose custom_calls number `indices` (program order) call the
    poison handler; the cached original is never touched."""
    from jax.extend.mlir import ir
    lowering = lowered._lowering
    with lowering.stablehlo().context:
        module = ir.Module.parse(str(lowering.stablehlo()))
        sizes = stablehlo.retarget(module, indices, poison.TARGET)
    poisoned_lowering = _copy(lowering)
    poisoned_lowering._hlo, poisoned_lowering._executable = module, None
    poisoned = _copy(lowered)
    poisoned._lowering = poisoned_lowering
    return poisoned, sizes


def _poison_function(*args, **kwargs):
    """Stands in for a host library function (scipy.special.gammaln, ...): poison values
    shaped and typed like its first argument."""
    first = np.asarray(args[0]) if args else np.zeros(())
    dtype = first.dtype if first.dtype.kind == "f" else np.float64
    return poison.values(first.size).reshape(first.shape).astype(dtype)


@contextlib.contextmanager
def replaced(original, replacement):
    """Replace `original` by `replacement` wherever it is referenced (module and notebook
    globals, containers, closure cells, default arguments, a functools.partial's function
    and arguments, object attributes and slots; np.vectorize's cached ufunc is dropped),
    found by object with gc.get_referrers, and put it back afterwards."""
    keep = (original,)   # a tuple: nothing below rewrites it, whatever else holds `original`
    del original
    undo: list[Callable[[], None]] = []
    for ref in get_referrers(keep[0]):  # np.vectorize caches a ufunc made from its function
        for owner in get_referrers(ref) if isinstance(ref, dict) else [ref]:
            if isinstance(owner, np.vectorize) and vars(owner).get("pyfunc") is keep[0]:
                undo.append(functools.partial(setattr, owner, "_ufunc", owner._ufunc))
                owner._ufunc = {}
    for ref in get_referrers(keep[0]):
        if ref is keep:
            continue
        if isinstance(ref, dict):
            for key, value in list(ref.items()):
                if value is keep[0]:
                    ref[key] = replacement
                    undo.append(functools.partial(ref.__setitem__, key, keep[0]))
        elif isinstance(ref, list):
            for i, value in enumerate(ref):
                if value is keep[0]:
                    ref[i] = replacement
                    undo.append(functools.partial(ref.__setitem__, i, keep[0]))
        elif isinstance(ref, types.CellType):
            ref.cell_contents = replacement
            undo.append(functools.partial(setattr, ref, "cell_contents", keep[0]))
        elif isinstance(ref, functools.partial) and ref.func is keep[0]:
            state = ref.__reduce__()[2]
            ref.__setstate__((replacement, *state[1:]))
            undo.append(functools.partial(ref.__setstate__, state))
        elif isinstance(ref, tuple):
            for owner in get_referrers(ref):
                for attr in ("__defaults__", "__kwdefaults__"):
                    if isinstance(owner, types.FunctionType) and getattr(owner, attr) is ref:
                        setattr(owner, attr, tuple(replacement if v is keep[0] else v for v in ref))
                        undo.append(functools.partial(setattr, owner, attr, ref))
                if isinstance(owner, functools.partial) and owner.args is ref:
                    state = owner.__reduce__()[2]
                    args = tuple(replacement if v is keep[0] else v for v in state[1])
                    owner.__setstate__((state[0], args, *state[2:]))
                    undo.append(functools.partial(owner.__setstate__, state))
        elif not isinstance(ref, (types.ModuleType, types.FrameType, type)):
            _replace_attributes(ref, keep[0], replacement, undo)
    try:
        yield
    finally:
        for step in reversed(undo):
            step()


def _replace_attributes(owner, original, replacement, undo: list) -> None:
    """Slots (JAX keeps the host function given to pure_callback in a slotted object) and
    instance attributes that Python 3.13 keeps inline, where no dict is a referrer."""
    names = {n for cls in type(owner).__mro__ for n in getattr(cls, "__slots__", ())
             if isinstance(n, str) and n not in ("__dict__", "__weakref__")}
    for name in names:
        if getattr(owner, name, None) is original:
            object.__setattr__(owner, name, replacement)
            undo.append(functools.partial(object.__setattr__, owner, name, original))
    attrs = getattr(owner, "__dict__", None)
    if isinstance(attrs, dict):
        for key, value in list(attrs.items()):
            if value is original:
                attrs[key] = replacement
                undo.append(functools.partial(attrs.__setitem__, key, original))


def _resolve(dotted: str):
    module, _, name = dotted.rpartition(".")
    return getattr(__import__(module, fromlist=[name]), name)


def trace(fn: Callable, *args, kinds=("ffi", "host_callback"), each: bool = False,
          replace: tuple[str, ...] = ()) -> dict:
    """Run `jax.jit(fn)(*args)` as compiled, and poisoned. Returns {"value": the flat
    outputs, "calls": [{"target", "kind", "handler", "course"} per custom_call, in
    program order], "poisoned": {piece: {"outputs": flat outputs, "sizes": element counts
    of the poisoned buffers} or None when the program has no such piece}}, where the
    pieces are each kind of `kinds` (all its custom_calls at once), "call:<i>" for each
    FFI custom_call alone when `each`, and each dotted name of `replace`."""
    lowered = jax.jit(fn).lower(*args)
    calls = [{"target": c.target, "kind": c.kind, **handler(c.target)}
             for c in inspection.custom_calls(lowered)]
    compiled = lowered.compile()
    report = {"value": _flat(compiled(*args)), "calls": calls, "poisoned": {}}

    def run(indices):
        if not indices:
            return None
        poisoned, sizes = _retargeted(lowered, set(indices))
        return {"outputs": _flat(poisoned.compile()(*args)), "sizes": sizes}

    for kind in kinds:
        report["poisoned"][kind] = run([i for i, c in enumerate(calls) if c["kind"] == kind])
    if each:
        for i, c in enumerate(calls):
            if c["kind"] == "ffi":
                report["poisoned"][f"call:{i}"] = run([i])
    poison_replaced(report, compiled, args, replace)
    return report


def poison_replaced(report: dict, run: Callable, args: tuple, replace: tuple[str, ...]) -> None:
    """Add to `report` (trace's shape) `run(*args)` with each dotted name of `replace`
    poisoned wherever it is referenced; `run` is a compiled program or, for eager paths,
    the function itself."""
    size = max((a.size for a in report["value"]), default=0)
    for dotted in replace:
        with replaced(_resolve(dotted), _poison_function):
            report["poisoned"][dotted] = {"outputs": _flat(jax.block_until_ready(run(*args))),
                                          "sizes": [size]}


def hlo_opcodes(fn: Callable, *args) -> list[str]:
    """The sorted opcodes of every instruction in the optimized module of jax.jit(fn)
    (fusions included; XLA has dropped dead code), e.g. ["custom-call", "exp",
    "multiply"]. What a custom_call computes is not in it: that is the kernel's."""
    return stablehlo.opcodes(jax.jit(fn).lower(*args).compile())
