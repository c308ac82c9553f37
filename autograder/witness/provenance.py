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

import collections
import contextlib
import ctypes
import functools
import os
import types
from collections.abc import Callable
from copy import copy as _copy
from gc import get_referents, get_referrers  # bound at import, before any student code (see hostcall.py)

import jax
import numpy as np

from autograder.witness import inspection
from autograder.shared import compile_line, poison, stablehlo
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
    """Stands in for a host library function that is not a ufunc: poison values shaped and
    typed like its first argument."""
    first = np.asarray(args[0]) if args else np.zeros(())
    dtype = first.dtype if first.dtype.kind == "f" else np.float64
    return poison.values(first.size).reshape(first.shape).astype(dtype)


def _overwritten(result, where=True):
    """`result` (what a ufunc call returned: an array, which is `out` when one was given, a
    NumPy scalar, or a tuple of them) with every element the call produced replaced by
    poison values, cast as NumPy casts into it; elements `where` leaves out keep theirs."""
    if isinstance(result, tuple):
        return tuple(_overwritten(r, where) for r in result)
    if isinstance(result, np.ndarray):
        np.copyto(result, poison.values(result.size).reshape(result.shape), casting="unsafe", where=where)
        return result
    if isinstance(result, np.generic) and np.all(where):
        return result.dtype.type(poison.values(1)[0])
    return result


class PoisonUfunc:
    """Stands in for a NumPy ufunc (scipy.special.gammaln, digamma) while the grader proves
    that values depend on it. Every call first runs the real ufunc with the same arguments,
    so dtypes, casting, broadcasting, `out=` (positional, array or tuple), `where=` and the
    errors are exactly the original's; then every output element the call produced (in the
    returned array, which is `out` when one was given) becomes a poison value. Attributes
    (nin, nout, types, __name__, ...) are the original's."""
    __slots__ = ("_real",)

    def __init__(self, real: np.ufunc):
        object.__setattr__(self, "_real", real)

    def __call__(self, *args, **kwargs):
        return _overwritten(self._real(*args, **kwargs), kwargs.get("where", True))

    def outer(self, *args, **kwargs):
        return _overwritten(self._real.outer(*args, **kwargs), kwargs.get("where", True))

    # reduce's `where` selects inputs, not outputs: every output element comes from the call
    def reduce(self, *args, **kwargs):
        return _overwritten(self._real.reduce(*args, **kwargs))

    def accumulate(self, *args, **kwargs):
        return _overwritten(self._real.accumulate(*args, **kwargs))

    def reduceat(self, *args, **kwargs):
        return _overwritten(self._real.reduceat(*args, **kwargs))

    def at(self, a, indices, *b):
        """In place, as ufunc.at: the elements at `indices` are the call's output."""
        self._real.at(a, indices, *b)
        chosen = np.asarray(a[indices])
        a[indices] = poison.values(chosen.size).reshape(chosen.shape)

    def __getattr__(self, name):   # nin, nout, types, identity, signature, __name__, __doc__...
        if name == "_real":   # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self._real, name)

    def __repr__(self):
        return repr(self._real)


def poison_for(original):
    """What stands in for `original` while it is poisoned."""
    return PoisonUfunc(original) if isinstance(original, np.ufunc) else _poison_function


@contextlib.contextmanager
def replaced(original, replacement):
    """Replace `original` by `replacement` wherever it is referenced (module and notebook
    globals, containers at any depth, closure cells, default arguments, a functools.partial's
    function and arguments, object and class attributes, slots; np.vectorize's cached ufunc
    is dropped), found by object with gc.get_referrers, and put it back afterwards. A tuple
    or frozenset holding it is rebuilt with the replacement and itself replaced, up to the
    mutable owner that holds it (a notebook global `FNS = (sps.gammaln, sps.digamma)`)."""
    if replacement is _poison_function:   # the generic poison named for a ufunc: the ufunc's own
        replacement = poison_for(original)
    keep = (original, replacement)   # neither this tuple nor the replacement is rewritten
    del original
    swap = _Swap(keep, replacement)
    refs = get_referrers(keep[0])   # one scan of every object serves both steps (each costs ~20 ms)
    _drop_vectorize_caches(keep[0], refs, swap.undo)
    swap.substitute(keep[0], keep[1], refs=refs)
    del refs
    try:
        yield
    finally:
        for step in reversed(swap.undo):
            step()


def _drop_vectorize_caches(original, refs: list, undo: list) -> None:
    """np.vectorize caches a ufunc made from its function: drop it while `original` (whose
    referrers are `refs`) is replaced."""
    dicts = [r for r in refs if isinstance(r, dict)]
    owners = [r for r in refs if not isinstance(r, dict)] + (get_referrers(*dicts) if dicts else [])
    for owner in owners:
        if isinstance(owner, np.vectorize) and vars(owner).get("pyfunc") is original:
            undo.append(functools.partial(setattr, owner, "_ufunc", owner._ufunc))
            owner._ufunc = {}


_TUPLE_DEPTH = 16   # tuples nested in tuples rebuilt, at most


class _Swap:
    """One replacement in progress: what to undo, and the objects of its own bookkeeping
    (the referrer lists it holds, which hold what is being replaced) that it must not touch."""

    def __init__(self, keep: tuple, replacement):
        self.undo: list[Callable[[], None]] = []
        self.held: list[list] = []   # referrer lists, alive so that their ids stay theirs
        self.skip = {id(keep), id(replacement), id(self.undo), id(self.held)}
        self.done: set[int] = set()
        self.replacement = replacement

    def substitute(self, old, new, depth: int = 0, refs: list | None = None) -> None:
        """Put `new` wherever `old` (whose referrers are `refs`, when known) is referenced.
        (No closure here may hold `old`: its cell would be a referrer, and rewriting it
        would rebind `old` itself.)"""
        if id(old) in self.done:
            return
        self.done.add(id(old))
        refs = get_referrers(old) if refs is None else refs
        self.held.append(refs)
        self.skip.add(id(refs))
        for ref in refs:
            if id(ref) in self.skip or isinstance(ref, (types.ModuleType, types.FrameType)):
                continue
            if isinstance(ref, dict):
                self._in_dict(ref, old, new)
            elif isinstance(ref, (list, collections.deque)):
                for i, value in enumerate(ref):
                    if value is old:
                        ref[i] = new
                        self.undo.append(functools.partial(ref.__setitem__, i, old))
            elif isinstance(ref, set):
                if _holds(ref, old):
                    _swap_member(ref, old, new)
                    self.undo.append(functools.partial(_swap_member, ref, new, old))
            elif isinstance(ref, types.CellType):
                ref.cell_contents = new
                self.undo.append(functools.partial(setattr, ref, "cell_contents", old))
            elif isinstance(ref, functools.partial):
                self._in_partial(ref, old, new)
            elif isinstance(ref, (tuple, frozenset)):
                if _holds(ref, self.replacement):   # our own call's arguments (the context manager's)
                    continue
                rebuilt = _rebuilt(ref, old, new) if depth < _TUPLE_DEPTH else None
                if rebuilt is not None:
                    self.substitute(ref, rebuilt, depth + 1)
            elif isinstance(ref, types.FunctionType):
                for attr in ("__defaults__", "__kwdefaults__"):
                    if getattr(ref, attr) is old:
                        setattr(ref, attr, new)
                        self.undo.append(functools.partial(setattr, ref, attr, old))
            elif not isinstance(ref, type):
                _replace_attributes(ref, old, new, self.undo)

    def _in_dict(self, d: dict, old, new) -> None:
        keys = [key for key, value in list(d.items()) if value is old]
        if not keys:
            return
        owner = _class_of_namespace(d) if "__module__" in d else None   # every class's namespace has one
        for key in keys:
            if owner is not None:   # setattr, so that the class's attribute cache sees it
                setattr(owner, key, new)
                self.undo.append(functools.partial(setattr, owner, key, old))
            else:
                d[key] = new
                self.undo.append(functools.partial(d.__setitem__, key, old))

    def _in_partial(self, ref: functools.partial, old, new) -> None:
        func, args, keywords, *rest = ref.__reduce__()[2]
        if func is not old and args is not old:
            return   # its keywords are a dict: rewritten as one
        ref.__setstate__((new if func is old else func, new if args is old else args, keywords, *rest))
        self.undo.append(functools.partial(ref.__setstate__, (func, args, keywords, *rest)))


def _holds(members, value) -> bool:
    return any(v is value for v in members)


def _swap_member(members: set, out, back) -> None:
    members.discard(out)
    members.add(back)


def _rebuilt(container, old, new):
    """A copy of a tuple (a namedtuple too) or frozenset with `new` in place of `old`; None
    for a tuple type that cannot be rebuilt from its items."""
    items = [new if v is old else v for v in container]
    if isinstance(container, frozenset):
        return frozenset(items)
    if type(container) is tuple:
        return tuple(items)
    if hasattr(type(container), "_make"):
        return type(container)._make(items)
    return None


def _class_of_namespace(d: dict):
    """The class whose __dict__ is `d`, if any (a class's namespace must be changed through
    the class, or its attribute cache keeps the old value)."""
    for owner in get_referrers(d):
        if isinstance(owner, type) and any(r is d for r in get_referents(owner.__dict__)):
            return owner
    return None


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
        original = _resolve(dotted)
        with replaced(original, poison_for(original)):
            report["poisoned"][dotted] = {"outputs": _flat(jax.block_until_ready(run(*args))),
                                          "sizes": [size]}


def hlo_opcodes(fn: Callable, *args) -> list[str]:
    """The sorted opcodes of every instruction in the optimized module of jax.jit(fn)
    (fusions included; XLA has dropped dead code), e.g. ["custom-call", "exp",
    "multiply"]. What a custom_call computes is not in it: that is the kernel's."""
    return stablehlo.opcodes(jax.jit(fn).lower(*args).compile())
