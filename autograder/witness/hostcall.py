"""Observing one call of a host function from below Python.

Runs in the witness. What a pure host function may not do, and how each is seen:
- print or write output: file descriptors 1 and 2 are redirected into a file for the
  call (so `print(file=sys.__stdout__)` and `os.write(1, ...)` are caught as well as
  `print`), besides sys.stdout and sys.stderr;
- open files, start processes, open sockets: an audit hook (`sys.addaudithook`, installed
  by `install()` before the notebook runs; it cannot be removed) records those events
  during the call. Opening Python's own files (imports) does not count;
- run JAX on the host: `sys.monitoring` reports every Python function that starts during
  the call; one from the jax package means the host function computed with JAX;
- change state: `fingerprint` summarizes everything reachable from a set of roots
  (nested containers, arrays, object and function attributes, closures, defaults), so a
  change anywhere in it is seen, not only a rebinding of a global.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import types
from contextlib import redirect_stderr, redirect_stdout, suppress
from io import StringIO
from os import close, dup, dup2
from tempfile import TemporaryFile

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


def call(host, *args) -> dict:
    """Call `host(*args)` once, observed. Returns {"result": what it returned, or
    "error": "Error: message"; "output": what it wrote to fds 1/2 or sys.stdout/stderr;
    "files": paths it opened outside Python's own files; "events": other audited
    events (processes, sockets, removals); "jax": whether JAX code ran during the call}."""
    from autograder.shared.checks import describe
    mon, jax_dirs, ran_jax = _monitoring, _jax_dirs(), [False]

    def started(code, offset):
        if code.co_filename.startswith(jax_dirs):
            ran_jax[0] = True
        return mon.DISABLE if ran_jax[0] else None

    with suppress(ValueError):  # a notebook that took our tool id loses it
        mon.free_tool_id(_TOOL)
    mon.use_tool_id(_TOOL, "grader")
    mon.register_callback(_TOOL, mon.events.PY_START, started)
    report: dict = {}
    del _events[:]
    try:
        with _captured_fds() as out:
            _recording[0] = True
            mon.set_events(_TOOL, mon.events.PY_START)
            try:
                report["result"] = host(*args)
            except BaseException as exc:  # student code may raise anything, SystemExit included
                report["error"] = describe(exc)
            finally:
                mon.set_events(_TOOL, 0)
                _recording[0] = False
    finally:
        mon.register_callback(_TOOL, mon.events.PY_START, None)
        mon.free_tool_id(_TOOL)
        mon.restart_events()
    events = list(_events)
    report.update(
        output=out.get("text", ""), jax=ran_jax[0],
        files=sorted({os.fsdecode(a[0]) for e, a in events if e == "open" and a and isinstance(
            a[0], (str, bytes, os.PathLike)) and not _python_files(a[0])}),
        events=sorted({e for e, _ in events if e != "open"}))
    return report


# ------------------------------------------------------------------ state ----------

def fingerprint(value, depth: int = 6, _seen: set | None = None) -> object:
    """A comparable summary of `value` and everything reachable from it (to `depth`)."""
    seen = _seen if _seen is not None else set()
    if isinstance(value, (int, float, complex, str, bytes, bool, type(None))):
        return value
    if isinstance(value, (types.ModuleType, type)) or depth == 0 or id(value) in seen:
        return (type(value).__name__, id(value))
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        data = value.tobytes() if value.dtype.kind not in "OV" else repr(value).encode()
        return ("ndarray", value.shape, str(value.dtype), hashlib.sha1(data).hexdigest())
    if isinstance(value, bytearray):
        return ("bytearray", bytes(value))
    step = lambda v: fingerprint(v, depth - 1, seen)  # noqa: E731
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(step(v) for v in value))
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, tuple(sorted(repr(step(v)) for v in value)))
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), step(v)) for k, v in list(value.items())))
    parts = [type(value).__name__]
    if isinstance(value, types.FunctionType):
        parts += [step(value.__defaults__), step(value.__kwdefaults__),
                  step([c.cell_contents for c in value.__closure__ or () if _filled(c)])]
    for attr in ("func", "args", "keywords", "__self__", "__wrapped__", "pyfunc"):
        if attr in ("func", "args", "keywords") and not hasattr(value, "__setstate__"):
            continue
        with suppress(Exception):
            parts.append((attr, step(getattr(value, attr))))
    with suppress(Exception):
        parts.append(step(vars(value)))
    return tuple(parts)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
        return True
    except ValueError:
        return False


def reachable_globals(fn, namespace: dict) -> dict:
    """The notebook globals `fn`'s code (and code nested in it) names, by name."""
    names: set[str] = set()
    stack = [getattr(fn, "__code__", None)]
    while stack:
        code = stack.pop()
        if code is None:
            continue
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return {n: namespace[n] for n in sorted(names) if n in namespace}
