"""Observing one call of a host function from below Python.

Runs in the witness. What a pure host function may not do, and how each is seen:
- print or write output: file descriptors 1 and 2 are redirected into a file for the
  call (so `print(file=sys.__stdout__)` and `os.write(1, ...)` are caught as well as
  `print`), besides sys.stdout and sys.stderr. Python warnings raised during the call
  (NumPy's RuntimeWarning on an overflow) are recorded, not printed: they are not output;
- open files, start processes, open sockets: an audit hook (`sys.addaudithook`, installed
  by `install()` before the notebook runs; it cannot be removed) records those events
  during the call. Opening Python's own files (imports) does not count;
- compute with JAX on the host: `sys.monitoring` reports the Python functions that start and
  the callables called during the call; JAX computed when a primitive was bound or applied
  (`Primitive.bind`, `apply_primitive`), an array was put on a device (`device_put`) or a
  compiled JAX function ran (jaxlib's `PjitFunction`, which a cached `jax.jit` call reaches
  without any Python of JAX's). Naming a JAX dtype (`arr.astype(jnp.float32)`: NumPy hashes
  the type, which runs JAX's `__hash__`) or converting a jax.Array with `np.asarray` computes
  nothing and does not count;
- change state: `fingerprint` summarizes everything reachable from a set of roots
  (nested containers, arrays, object and function attributes, closures, defaults), so a
  change anywhere in it is seen, not only a rebinding of a global.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import os
import sys
import types
from contextlib import redirect_stderr, redirect_stdout, suppress
from io import StringIO
from os import close, dup, dup2
from tempfile import TemporaryFile
from warnings import catch_warnings, simplefilter

import numpy as np

# What the observation itself calls is bound here, at import, before any student code runs
# (the witness imports this module first): a notebook that rebinds os.dup2 or
# sys.monitoring.set_events does not reach these names, and the guard (autograder/witness/guard.py)
# puts this module's own globals back before every question.
_monitoring = sys.monitoring
_add_audit_hook = sys.addaudithook

_events: list[tuple[str, tuple]] = []
_recording = [False]
_WATCHED = ("open", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
            "subprocess.Popen", "socket.connect", "socket.bind", "socket.sendto",
            "os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.truncate", "shutil.")
_TOOL = 4  # a sys.monitoring tool id that Python itself does not reserve


def _hook(event: str, args: tuple) -> None:
    if _recording[0] and event.startswith(_WATCHED):
        _events.append((event, args))


def install() -> None:
    """Install the audit hook (once, before any student code runs)."""
    if not getattr(install, "done", False):
        _add_audit_hook(_hook)
        install.done = True


def _python_files(path) -> bool:
    """Files of the Python installation (what imports read)."""
    path = os.path.realpath(os.fsdecode(path)) if isinstance(path, (str, bytes, os.PathLike)) else ""
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return any(path.startswith(r + os.sep) for r in roots)


@contextlib.contextmanager
def _captured_fds():
    """Everything written to fds 1 and 2 (and sys.stdout/stderr) while inside."""
    sink = TemporaryFile()
    text = StringIO()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with suppress(Exception):
            stream.flush()
    saved = [dup(1), dup(2)]
    dup2(sink.fileno(), 1)
    dup2(sink.fileno(), 2)
    out: dict = {}
    try:
        with redirect_stdout(text), redirect_stderr(text):
            yield out
    finally:
        for stream in (sys.__stdout__, sys.__stderr__):
            with suppress(Exception):
                stream.flush()
        dup2(saved[0], 1)
        dup2(saved[1], 2)
        for fd in saved:
            close(fd)
        sink.seek(0)
        out["text"] = (text.getvalue() + sink.read(4000).decode(errors="replace"))[:2000]
        sink.close()


def _jax_dirs() -> tuple[str, ...]:
    import jax
    import jaxlib
    return tuple(os.path.dirname(m.__file__) + os.sep for m in (jax, jaxlib))


# The functions of JAX's through which every JAX computation passes (see the module docstring).
_COMPUTING = frozenset({"Primitive.bind", "Primitive.bind_with_trace", "apply_primitive", "device_put",
                        "_device_put_impl"})


def call(host, *args) -> dict:
    """Call `host(*args)` once, observed. Returns {"result": what it returned, or
    "error": "Error: message"; "output": what it wrote to fds 1/2 or sys.stdout/stderr;
    "files": paths it opened outside Python's own files; "events": other audited
    events (processes, sockets, removals); "jax": whether JAX code ran during the call;
    "codes": the code objects of the Python functions that started, for this process only}."""
    from autograder.shared.checks import describe
    mon, jax_dirs, ran_jax, codes = _monitoring, _jax_dirs(), [False], []

    def started(code, offset):
        if code.co_qualname in _COMPUTING and code.co_filename.startswith(jax_dirs):
            ran_jax[0] = True
        codes.append(code)
        return mon.DISABLE   # each function once: whether it computes does not change

    def called(code, offset, callable_, arg0):
        if type(callable_).__name__ == "PjitFunction" and type(callable_).__module__.startswith("jaxlib"):
            ran_jax[0] = True

    events = mon.events.PY_START | mon.events.CALL
    with suppress(ValueError):  # a notebook that took our tool id loses it
        mon.free_tool_id(_TOOL)
    mon.use_tool_id(_TOOL, "grader")
    mon.register_callback(_TOOL, mon.events.PY_START, started)
    mon.register_callback(_TOOL, mon.events.CALL, called)
    report: dict = {}
    del _events[:]
    try:
        with _captured_fds() as out:
            _recording[0] = True
            mon.set_events(_TOOL, events)
            try:
                # Python warnings (NumPy's on an overflow in arr * 2) are the warnings system's,
                # not the host function's output: recorded, never printed
                with catch_warnings(record=True) as caught:
                    simplefilter("always")
                    report["result"] = host(*args)
                report["warnings"] = [str(w.message) for w in caught[:10]]
            except BaseException as exc:  # student code may raise anything, SystemExit included
                report["error"] = describe(exc)
            finally:
                mon.set_events(_TOOL, 0)
                _recording[0] = False
    finally:
        mon.register_callback(_TOOL, mon.events.PY_START, None)
        mon.register_callback(_TOOL, mon.events.CALL, None)
        mon.free_tool_id(_TOOL)
        mon.restart_events()
    events = list(_events)
    report.update(
        output=out.get("text", ""), jax=ran_jax[0], codes=codes,
        files=sorted({os.fsdecode(a[0]) for e, a in events if e == "open" and a and isinstance(
            a[0], (str, bytes, os.PathLike)) and not _python_files(a[0])}),
        events=sorted({e for e, _ in events if e != "open"}))
    return report


# ------------------------------------------------------------------ state ----------

# Objects of these packages are the libraries' own (JAX's jit caches, np.vectorize's cached
# ufunc): a fingerprint follows only the student's functions they wrap, never their data,
# which changes as they cache.
_LIBRARIES = frozenset({"jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "IPython", "traitlets", "autograder",
                        "kernels"})
_ATOMS = (int, float, complex, str, bytes, bool, type(None), np.generic, range, slice, type(Ellipsis))
_BUDGET = 200_000   # objects visited per fingerprint: the cost stays bounded whatever the notebook holds
_NOTEBOOK = "__main__"   # the module name of what notebook cells define
_PLAIN = frozenset({list, tuple, dict, set, frozenset, collections.deque, np.ndarray})   # no attributes


def fingerprint(value, budget: int = _BUDGET) -> str:
    """A digest of `value` and everything reachable from it at any depth: containers
    (lists, tuples, dicts, sets, deques and their subclasses' attributes), arrays (their
    bytes), objects' attributes and slots, the classes the notebook defines (class
    attributes), functions' defaults, closures and attributes, partials, bound methods. A
    change anywhere in it changes the digest. Each object is visited once (a shared or
    cyclic reference is a back-reference), at most `budget` objects in all."""
    return _Walk(budget).digest(value).hex()


class _Walk:
    def __init__(self, budget: int):
        self.budget = budget
        self.seen: dict[int, tuple[int, object]] = {}   # id -> (visit number, the object: kept alive)

    def digest(self, root) -> bytes:
        h = hashlib.blake2b(digest_size=16)
        stack = [root]
        while stack:
            value = stack.pop()
            if self.budget <= 0:
                h.update(b"\0(budget spent)")
                break
            self.budget -= 1
            try:
                token, children = self._visit(value)
            except Exception:  # an object that cannot be read (a released memoryview): its type only
                token, children = f"unreadable {type(value).__qualname__}".encode(), []
            h.update(token)
            h.update(b"\0")
            stack.extend(reversed(children))
        return h.digest()

    def _visit(self, value) -> tuple[bytes, list]:
        """A token for `value` itself (its type, size, content) and the objects it holds."""
        kind = type(value)
        if isinstance(value, _ATOMS):
            data = value if isinstance(value, bytes) else repr(value).encode("utf-8", "surrogatepass")
            return f"{kind.__qualname__}:{len(data)}:".encode() + data, []
        if id(value) in self.seen:
            return f"@{self.seen[id(value)][0]}".encode(), []
        self.seen[id(value)] = (len(self.seen), value)
        name = f"{kind.__module__}.{kind.__qualname__}"
        if isinstance(value, types.ModuleType):
            if not _students(value.__name__):
                return f"module {value.__name__}".encode(), []
            return self._pairs(f"student module {value.__name__}", dict(vars(value)))
        if isinstance(value, type):
            if not _students(value.__module__):
                return f"class {value.__module__}.{value.__qualname__}".encode(), []
            token, children = self._pairs(f"student class {value.__qualname__}", dict(vars(value)))
            return token, children + list(value.__bases__)   # a base's class attributes too
        if isinstance(value, np.ndarray):
            return self._array(value)
        if isinstance(value, (bytearray, memoryview)) or kind.__module__ == "array":
            return f"{name}:".encode() + bytes(value), []
        if isinstance(value, (list, tuple, collections.deque)):
            return f"{name} {len(value)}".encode(), [*value, *self._extra(value)]
        if isinstance(value, dict):
            token, children = self._pairs(name, value)
            return token, children + self._extra(value)
        if isinstance(value, (set, frozenset)):
            members = sorted(self.digest(v) for v in list(value))
            return f"{name} {len(members)}:".encode() + b"".join(members), self._extra(value)
        if isinstance(value, types.FunctionType):
            cells = [c.cell_contents if _filled(c) else "(empty cell)" for c in value.__closure__ or ()]
            return (f"function {value.__qualname__} code {id(value.__code__)} {len(cells)}".encode(),
                    [value.__defaults__, value.__kwdefaults__, *cells, vars(value)])
        if isinstance(value, types.MethodType):
            return f"method {name}".encode(), [value.__self__, value.__func__]
        if isinstance(value, functools.partial):
            return f"partial {name}".encode(), [value.func, value.args, value.keywords, *self._extra(value)]
        if kind.__module__.partition(".")[0] in _LIBRARIES:   # its identity, and the code it wraps
            wrapped = {k: v for k, v in _attributes(value).items() if _carries_code(v)}
            return self._pairs(f"library object {name} {id(value)}", wrapped)
        attributes = _attributes(value)
        if _students(kind.__module__):   # its class's attributes are its state too (a class-level counter)
            token, children = self._pairs(f"object {name}", attributes)
            return token, children + [kind]
        if not attributes:   # nothing Python can see inside: its identity is all there is
            return f"opaque {name} {id(value)}".encode(), []
        return self._pairs(f"object {name}", attributes)

    def _array(self, value: np.ndarray) -> tuple[bytes, list]:
        head = f"ndarray {value.shape} {value.dtype.str}".encode()
        if value.dtype.hasobject:
            return head, [*value.flat, *self._extra(value)]
        data = np.ascontiguousarray(value).reshape(-1).view(np.uint8)   # a copy only if not contiguous
        return head + hashlib.blake2b(data, digest_size=16).digest(), self._extra(value)

    @staticmethod
    def _pairs(head: str, mapping: dict) -> tuple[bytes, list]:
        items = list(mapping.items())
        return f"{head} {len(items)}".encode(), [x for pair in items for x in pair]

    @staticmethod
    def _extra(value) -> list:
        """The instance attributes of a container or array subclass (a defaultdict's factory too)."""
        if type(value) in _PLAIN:
            return []
        extra = list(_attributes(value).values())
        factory = getattr(value, "default_factory", None)
        return extra + [factory] if factory is not None else extra


def _students(module_name) -> bool:
    """Is `module_name` the notebook's, or a module of the student's own (one made in the
    notebook, or a file outside Python's installation, such as a helper.py it wrote)?"""
    if not isinstance(module_name, str):
        return False
    if module_name == _NOTEBOOK:
        return True
    if module_name.partition(".")[0] in _LIBRARIES or module_name.partition(".")[0] in sys.stdlib_module_names:
        return False
    module = sys.modules.get(module_name)
    if module is None:
        return False
    path = getattr(module, "__file__", None)
    return path is None or not _python_files(path)


def _attributes(value) -> dict:
    """An object's instance attributes and slots, read without running its code."""
    found = {}
    try:
        found.update(object.__getattribute__(value, "__dict__"))
    except (AttributeError, TypeError):
        pass
    for cls in type(value).__mro__:
        slots = vars(cls).get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            descriptor = vars(cls).get(_mangled(cls, slot))
            if isinstance(descriptor, types.MemberDescriptorType):
                with suppress(AttributeError):
                    found[f"{cls.__qualname__}.{slot}"] = descriptor.__get__(value, cls)
    return found


def _mangled(cls: type, name: str) -> str:
    if name.startswith("__") and not name.endswith("__"):
        return f"_{cls.__name__.lstrip('_')}{name}"
    return name


def _carries_code(value) -> bool:
    """Does a library object's attribute hold code the notebook may have written (jit's or
    custom_jvp's function, np.vectorize's pyfunc)?"""
    return isinstance(value, (types.FunctionType, types.MethodType, functools.partial)) or (
        not isinstance(value, type) and type(value).__module__ == _NOTEBOOK)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False
