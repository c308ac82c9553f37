"""Observing one call of a host function from below Python.

Runs in the witness. What a pure host function may not do, and how each is seen:
- print or write output: file descriptors 1 and 2 are redirected into a file for the
  call, and Python's stream buffers flushed into it (so `print`, `print(file=sys.__stdout__)`
  and `os.write(1, ...)` are caught alike); sys.stdout itself is left as the notebook's run
  has it (when it writes to fd 1), so that the function sees no capture. Python warnings raised during the call
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
- write to or read from a file it holds open (a logging handler's file opened when a cell
  ran: no open during the call, nothing on fds 1 and 2): with `descriptors=True`, every open
  regular file's size and position (/proc/self/fd, fstat, lseek) is read just before and
  just after the call; files created or removed in the working and temp folders are seen by
  `folders()` around it;
- change state: seen by comparing fingerprints (autograder/witness/fingerprint.py) of what
  it can reach (autograder/witness/reachable.py) before and after the call.
"""
from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout, suppress
from io import StringIO
from os import close, dup, dup2
from tempfile import TemporaryFile
import warnings as _warnings
from warnings import catch_warnings, simplefilter

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
            "os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.truncate", "shutil.",
            "os.putenv", "os.unsetenv")   # an environment variable set, even to the value it holds
_TOOL = 4  # a sys.monitoring tool id that Python itself does not reserve


def _hook(event: str, args: tuple) -> None:
    if _recording[0] and event.startswith(_WATCHED):
        _events.append((event, args))


@contextlib.contextmanager
def recording():
    """The audit events of _WATCHED raised inside the block, as (event, args) in a list."""
    mark, was = len(_events), _recording[0]
    _recording[0] = True
    got: list = []
    try:
        yield got
    finally:
        _recording[0] = was
        got += _events[mark:]
        del _events[mark:]


def install() -> None:
    """Install the audit hook (once, before any student code runs)."""
    if not getattr(install, "done", False):
        _add_audit_hook(_hook)
        install.done = True


def python_files(path) -> bool:
    """Files of the Python installation (what imports read)."""
    path = os.path.realpath(os.fsdecode(path)) if isinstance(path, (str, bytes, os.PathLike)) else ""
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return any(path.startswith(r + os.sep) for r in roots)


def flush() -> None:
    """Python's stream buffers written through to their descriptors."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with suppress(Exception):
            stream.flush()


@contextlib.contextmanager
def _captured_fds():
    """Everything written to fds 1 and 2 while inside, Python's stream buffers flushed into
    them at the end. sys.stdout and sys.stderr stay what they are in the notebook's own run
    (a host function that prints only when its output is not captured sees no capture):
    the output is read where it lands."""
    sink = TemporaryFile()
    flush()
    saved = [dup(1), dup(2)]
    dup2(sink.fileno(), 1)
    dup2(sink.fileno(), 2)
    out: dict = {"sink": (sink.fileno(),)}
    # A stream not written to fds 1 and 2 (Jupyter's, under grader.check in the student's
    # own notebook) is captured as before; in the grader's run both are the fds' own.
    text = StringIO()
    loose = [redirect(text) for redirect, stream, fd in ((redirect_stdout, sys.stdout, 1),
                                                         (redirect_stderr, sys.stderr, 2)) if not _writes_to(stream, fd)]
    try:
        with contextlib.ExitStack() as stack:
            for redirect in loose:
                stack.enter_context(redirect)
            yield out
    finally:
        flush()
        dup2(saved[0], 1)
        dup2(saved[1], 2)
        for fd in saved:
            close(fd)
        sink.seek(0)
        out["text"] = (text.getvalue() + sink.read(4000).decode(errors="replace"))[:2000]
        sink.close()


def _writes_to(stream, fd: int) -> bool:
    try:
        return stream.fileno() == fd
    except Exception:
        return False


_listdir, _fstat, _lseek, _readlink = os.listdir, os.fstat, os.lseek, os.readlink


def descriptors(skip=()) -> dict[int, tuple]:
    """Every open file descriptor of a regular file but those in `skip`: {fd: (inode, path,
    size, position)}; about 10 µs per descriptor."""
    found = {}
    with suppress(OSError):
        for name in _listdir("/proc/self/fd"):
            fd = int(name)
            if fd in skip:
                continue
            with suppress(OSError):
                st = _fstat(fd)
                if stat.S_ISREG(st.st_mode):
                    found[fd] = (st.st_ino, _readlink(f"/proc/self/fd/{fd}"), st.st_size, _lseek(fd, 0, os.SEEK_CUR))
    return found


def descriptor_changes(before: dict, after: dict) -> list[str]:
    """What happened to the files held open between two `descriptors()`: one phrase each."""
    said = []
    for fd, (ino, path, size, pos) in sorted(before.items()):
        now = after.get(fd)
        if now is None or now[0] != ino:
            said.append(f"closed {path} (file descriptor {fd})")
        elif now[2] != size:
            said.append(f"wrote {now[2] - size:+d} bytes to {path} (file descriptor {fd}, open before the call)")
        elif now[3] != pos:
            said.append(f"read or moved in {path} (file descriptor {fd}, open before the call)")
    return said


def folders() -> dict[str, set]:
    """The names in the working folder and in the temp folder."""
    found = {}
    for folder in dict.fromkeys((".", tempfile.gettempdir())):
        with suppress(OSError):
            found[folder] = set(_listdir(folder))
    return found


_descriptors = descriptors   # bound before any student code runs, as the names above


def _jax_dirs() -> tuple[str, ...]:
    import jax
    import jaxlib
    return tuple(os.path.dirname(m.__file__) + os.sep for m in (jax, jaxlib))


# The functions of JAX's through which every JAX computation passes (see the module docstring).
_COMPUTING = frozenset({"Primitive.bind", "Primitive.bind_with_trace", "apply_primitive", "device_put",
                        "_device_put_impl"})


def call(host, *args, descriptors: bool = False):
    """Call `host(*args)` once, observed: an evidence.HostCall (what it returned or raised,
    wrote, opened, started, whether JAX ran, the code objects of the Python functions that
    started, for this process only; with `descriptors`, what it did to the files held open
    before the call, fds 1 and 2 aside: HostCall.descriptors)."""
    from autograder.shared.errors import describe
    from autograder.shared.evidence import HostCall
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
    outcome: dict = {}   # result or error, and warnings: the HostCall fields the call decides
    del _events[:]
    try:
        with _captured_fds() as out:
            skip = {1, 2, *out.get("sink", ())}
            held = _descriptors(skip) if descriptors else None
            _recording[0] = True
            mon.set_events(_TOOL, events)
            try:
                # Python warnings (NumPy's on an overflow in arr * 2) are the warnings system's,
                # not the host function's output: recorded, never printed
                with catch_warnings(record=True) as caught:
                    simplefilter("always")
                    filters = list(_warnings.filters), _warnings.showwarning
                    try:
                        outcome["result"] = host(*args)
                    finally:   # catch_warnings puts them back: what the call did to them is seen here
                        outcome["warning_filters"] = (list(_warnings.filters), _warnings.showwarning) != filters
                outcome["warnings"] = [str(w.message) for w in caught[:10]]
            except BaseException as exc:  # student code may raise anything, SystemExit included
                outcome["error"] = describe(exc)
            finally:
                mon.set_events(_TOOL, 0)
                _recording[0] = False
            if held is not None:
                outcome["descriptors"] = descriptor_changes(held, _descriptors(skip))
    finally:
        mon.register_callback(_TOOL, mon.events.PY_START, None)
        mon.register_callback(_TOOL, mon.events.CALL, None)
        mon.free_tool_id(_TOOL)
        mon.restart_events()
    events = list(_events)
    return HostCall(
        output=out.get("text", ""), jax=ran_jax[0], codes=codes,
        files=sorted({os.fsdecode(a[0]) for e, a in events if e == "open" and a and isinstance(
            a[0], (str, bytes, os.PathLike)) and not python_files(a[0])}),
        events=sorted({e for e, _ in events if e != "open"}), **outcome)
