"""A host function judged by what the rest of the program could observe (issue 48): a world
where it ran against one where it did not.

`effects(calls)` forks this process (the witness, after the notebook ran) twice: before the
calls, a world where the host function does not run, and after them, a world where it
did. Each observes itself at once (autograder/witness/observable.py) and sends its digests
back. Both are copies of one process made the same way, so what a fork changes by itself
(at-fork hooks: random's reseed, which the child undoes, matplotlib's font cache, the
thread bookkeeping) is alike in both, and anything that differs is what the calls did. Each
difference is named in one phrase ("the process's umask (os.umask)", or for a module
global the path to the first value that differs: "__main__.STATS['calls']"). The first world
observes itself while the calls run. Before the first fork, the settings
a host function could write are perturbed (`_perturb`), so that one that writes the value
the state already holds (the notebook called it before) is seen; they are put back after.

The calls run in this process (the notebook's pid, streams and descriptors); only file
descriptors 1 and 2 are pointed, for the calls, at fresh pipes of the same kind, and Python's
buffers are flushed into them. Threads the calls started and left running are seen here. A
child runs no JAX: it only reads its memory.

What the grader relies on here is the notebook's to change (issue 54): the forks run only the
at-fork hooks registered before the notebook (atfork.py); the witness's guard puts the
grader's code back before each fork (what the calls rebound is named); with the notebook's
threads alive, differences are judged again in a copy where they do not run (`_still`).

Module globals are compared in two passes: each world digests every module's reach in C
(autograder/witness/reach.py: a fraction of a second); only if a module differs do both walk
every module again with observable.Deep, whose differences are the verdict (`_confirmed`).
"""
from __future__ import annotations

import gc
import os
import random
import select
import signal
import stat
import sys
import tempfile
import threading
import time
import warnings
from contextlib import suppress

from autograder.shared import wire
from autograder.witness import atfork, hostcall, observable

SECONDS = 60.0   # the child's observation; past it, the comparison is not made
# Set by the witness before any student code runs (its guard keeps it so). In a Jupyter kernel
# (grader.check, otter assign's run of the master) the kernel's threads change state beside
# the calls, and the comparison is not made: the grader's run always makes it.
ALONE = False
GUARD = None   # the witness's ModuleGuard: the grader's code put back before each fork (a rebinding is an effect)
PATCHED = "the modules the grader relies on (JAX, NumPy, SciPy, builtins or the grader's own: {} rebound)"


def effects(calls, *, seconds: float = SECONDS) -> tuple[list[str], str]:
    """Run each of `calls` (no arguments: a host function bound to its inputs) in this
    process, between two forks of it, one before the calls and one after them, and compare
    what the two observe of themselves: (the names of what differs, each module global's
    with the path to the first value that differs, what the calls wrote to file descriptors
    1 and 2). Raises RuntimeError when a fork does not answer in `seconds`."""
    saved = _perturb()
    try:
        hostcall.flush()
        tempfile.gettempdir()   # its first call writes and removes a probe file: never in a world
        present = sorted(sys.modules)   # what a call imports is walked in neither world
        alive = {t.ident for t in threading.enumerate()}
        key = os.urandom(16)   # the C walk's hash key: the same in both worlds, unknown to the notebook
        # The objects alive now are left out of the collector's passes until the second fork:
        # a world's collection then reads (and copies) only what is newer
        frozen = gc.get_freeze_count() == 0
        if frozen:
            gc.freeze()
        if GUARD is not None:
            GUARD.restore()   # what the question's earlier calls rebound: not the calls' below
        without = _World(present, (), key)          # observes itself while the calls run here
        try:
            files = _files()
            output, during = _run(calls)
            patched = GUARD.restore() if GUARD is not None else 0
            if patched:
                during.append(PATCHED.format(patched))
            started = [t.name for t in threading.enumerate() if t.ident not in alive]   # before the comparison's time
            during += _changed_files(files, _files())
            deadline = time.monotonic() + seconds   # the worlds' time, not the student's calls'
            with_calls = _World(present, without.fds, key)
            if frozen:
                gc.unfreeze()
                frozen = False
            try:
                before, after = without.answer(deadline), with_calls.answer(deadline)
                names = _differing(before, after)
                names = _confirmed(names, present, (without, with_calls), deadline)
                names = _not_theirs(names, present, alive, calls, deadline)
                traced = [n for n in names if observable.root(n) is not None][:3]
                if traced:
                    before, after = without.ask("trace", traced, deadline), with_calls.ask("trace", traced, deadline)
                    names = [observable.first_difference(n, before.get(n, []), after.get(n, []))
                             if n in traced else n for n in names]
            finally:
                with_calls.close()
        finally:
            without.close()
    finally:
        if frozen:
            gc.unfreeze()
        _restore(saved)
    names = sorted(set(names) | set(during))
    if started:
        names.append(f"threads that outlive the call ({', '.join(started[:3])})")
    return names, output


def _confirmed(names: list[str], present: list, worlds, deadline: float) -> list[str]:
    """`names`, where the C walk found modules changed (observable.MODULE), with those
    replaced by the globals whose Deep walks differ: Deep walks every module again in both
    `worlds`, as the C walk did, so that it decides exactly as if it had walked alone (the C
    walk reads more, so it may meet an object first by another module than Deep would)."""
    if not any(n.startswith(observable.MODULE) for n in names):
        return names
    before, after = (world.ask("confirm", present, deadline) for world in worlds)
    return sorted([n for n in names if not n.startswith(observable.MODULE)] + _differing(before, after))


def _differing(before: dict, after: dict) -> list[str]:
    """The keys of either whose values differ (or that only one holds), in order."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def _not_theirs(names: list[str], present: list, alive: set, calls, deadline: float) -> list[str]:
    """`names`, or, while the notebook's own threads run (a progress bar's monitor), those of
    them that the calls change in a copy of this process where no other thread runs
    (`_still`): what such threads change lands in either world at random, so neither the
    worlds' difference nor observing this process twice tells it from the calls' (a thread
    that keeps flipping the umask hid a call's write of it: issue 54)."""
    if names and any(t.ident in alive and t is not threading.current_thread() for t in threading.enumerate()):
        names = _still(calls, present, names, deadline)
    return names


class _World:
    """A fork of this process as it is now: it observes itself at once and answers two
    questions: its digests (`answer`), then Deep's digests or traces of the names asked (`ask`). A fork's
    own changes (random's reseed, which the child undoes; matplotlib's font cache; the
    thread bookkeeping) are alike in both worlds, which are forked the same way."""

    def __init__(self, present: list, others: tuple, key: bytes):
        seed = random.getstate()   # random's at-fork hook reseeds the child: it puts this back
        up_r, up_w = os.pipe()       # child -> this process
        down_r, down_w = os.pipe()   # this process -> child
        pid = _fork()
        if pid == 0:
            random.setstate(seed)
            _child(up_w, down_r, present, key, closing=(up_r, down_w, *others))
        _close(up_w, down_r)
        self.pid, self.fds = pid, (up_r, down_w)

    def answer(self, deadline: float) -> dict:
        return _receive(self.fds[0], deadline)

    def ask(self, what: str, names: list, deadline: float) -> dict:
        """observable.confirm's or observable.traces' answer for `names` ("confirm", "trace")."""
        _send(self.fds[1], {"ask": what, "names": names})
        return _receive(self.fds[0], deadline)

    def close(self) -> None:
        _close(*self.fds)
        with suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def _fork() -> int:
    """os.fork() running only the at-fork hooks registered before the notebook (atfork.py)."""
    with warnings.catch_warnings(), atfork.grader_hooks():   # JAX's at-fork warning: the child runs no JAX
        warnings.simplefilter("ignore")
        return os.fork()


def _still(calls, present: list, names: list[str], deadline: float) -> list[str]:
    """Of `names`, those `calls` change in a fork of this process (no other thread runs
    there), the settings perturbed first as for the worlds, twice: the second time from what
    the calls left (a write of the first perturbation's value, which a notebook's thread can
    steer, is seen). If the fork cannot answer (a call that needs JAX's threads hangs there),
    every one of `names` stands (docs/verdicts.md)."""
    up_r, up_w = os.pipe()
    pid = _fork()
    if pid == 0:
        code = 1
        try:
            os.close(up_r)
            null = os.open(os.devnull, os.O_WRONLY)   # the calls' output was read in this process
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.close(null)
            changed: set = set()
            for _ in range(2):
                _perturb()
                before = observable.observe(present, skip={up_w})
                for call in calls:
                    with suppress(BaseException):
                        call()
                if GUARD is not None and GUARD.restore():   # the calls rebound the code that observes
                    changed = set(names)
                    break
                after = observable.observe(present, skip={up_w})
                changed |= {n for n in names if before.get(n) != after.get(n)}
            _send(up_w, {"names": [n for n in names if n in changed]})
            code = 0
        finally:
            os._exit(code)
    os.close(up_w)
    try:
        return [str(n) for n in _receive(up_r, deadline)["names"]]
    except (RuntimeError, KeyError, TypeError):
        return names
    finally:
        _close(up_r)
        with suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _child(up: int, down: int, present: list, key: bytes, closing) -> None:
    """A world: observe, send, then answer what is asked until the pipe closes."""
    code = 1
    try:
        _close(*closing)
        _send(up, observable.observe(present, skip={up, down}, key=key))
        while True:
            try:
                asked = _receive(down, time.monotonic() + SECONDS)
            except RuntimeError:   # the pipe closed: nothing more to answer
                break
            if asked["ask"] == "confirm":
                _send(up, observable.confirm(asked["names"]))
            else:
                _send(up, observable.traces(asked["names"]))
        code = 0
    finally:
        os._exit(code)


def _close(*fds) -> None:
    for fd in fds:
        with suppress(OSError):
            os.close(fd)


def _send(fd: int, message: dict) -> None:
    """`message` framed as every pipe of the grader's (shared/wire.py)."""
    view = memoryview(wire.frame(message))
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int, deadline: float) -> dict:
    """The next message of _send's from `fd`, by `deadline` (RuntimeError past it)."""
    def read(n: int) -> bytes:
        chunks, got = [], 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise RuntimeError(f"a copy of the process did not answer in {SECONDS:.0f} s")
            chunk = os.read(fd, min(n - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
    try:
        return wire.receive(read, None)
    except wire.WireError as exc:
        raise RuntimeError(f"a copy of the process ended without answering ({exc})") from None


def _files() -> dict[str, tuple]:
    """Each file of the working and temp folders, by path: its size and modification time.
    (The folders are not the process's: both worlds see the same, so they are read here,
    just before and after the calls.)"""
    found = {}
    for folder, names in hostcall.folders().items():
        for name in names:
            path = os.path.join(folder, name)
            with suppress(OSError):
                st = os.stat(path, follow_symlinks=False)
                found[path] = (st.st_size, st.st_mtime_ns)
    return found


def _changed_files(before: dict, after: dict) -> list[str]:
    changed = _differing(before, after)
    return [f"the files in the working and temp folders ({', '.join(changed[:3])})"] if changed else []


def _run(calls) -> tuple[str, list[str]]:
    """Each call, with fds 1 and 2 pointed at fresh pipes (or files, as they are now), read
    where the output lands; Python's stream buffers flushed into them after the calls.
    Returns that output, and what the calls did that no copy of the process shows when it
    wrote what was already there: environment variables set (Python's audit events) and the
    warning filters changed (the calls run with filters of their own)."""
    kinds = []
    for fd in (1, 2):
        try:
            kinds.append(stat.S_ISFIFO(os.fstat(fd).st_mode))
        except OSError:
            kinds.append(True)
    saved = [os.dup(1), os.dup(2)]
    sinks, readers, landed = [], [], [bytearray(), bytearray()]
    try:
        for fd, fifo, got in zip((1, 2), kinds, landed):
            if fifo:
                rd, wr = os.pipe()
                reader = threading.Thread(target=_drain, args=(rd, got), daemon=True)
                reader.start()
                readers.append((reader, rd))
                os.dup2(wr, fd)
                os.close(wr)
            else:
                wr = os.open(tempfile.gettempdir(), os.O_TMPFILE | os.O_RDWR, 0o600)
                sinks.append((wr, got))
                os.dup2(wr, fd)
        with warnings.catch_warnings(record=True), hostcall.recording() as events:
            warnings.simplefilter("always")   # warnings are the warning system's, not output
            filters = list(warnings.filters)
            for call in calls:
                with suppress(BaseException):   # what it raises is the other tests' business
                    call()
            during = ["the warning filters (warnings.simplefilter)"] if list(warnings.filters) != filters else []
        hostcall.flush()
        written = sorted({str(a[0]) for e, a in events if e in ("os.putenv", "os.unsetenv") and a})
        if written:
            during.append(f"the environment (os.environ: {', '.join(written[:3])})")
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)
        for reader, rd in readers:
            reader.join(10)
        for wr, got in sinks:
            os.lseek(wr, 0, os.SEEK_SET)
            got += os.read(wr, 4000)
            os.close(wr)
    return b"".join(bytes(g) for g in landed).decode(errors="replace")[:2000], during


def _drain(rd: int, into: bytearray) -> None:
    try:
        while chunk := os.read(rd, 65536):
            if len(into) < 4000:
                into += chunk
    finally:
        os.close(rd)


def _perturb() -> list:
    """Move the settings a host function could write to other values (both worlds start
    there), so that one that writes the value they held is seen; returns what to put back."""
    import decimal

    import numpy as np
    saved = [np.geterr(), np.geterrcall(), os.umask(0o022)]
    os.umask(saved[2] ^ 0o077)   # another umask
    np.seterrcall(_quiet)
    np.seterr(all="call")        # none of ignore, warn, raise, print, log: any seterr is seen
    context = decimal.getcontext()
    saved.append(context.prec)
    context.prec += 1
    special = sys.modules.get("scipy.special")   # never imported here (0.8 s): read where it is
    saved.append(special.geterr() if special is not None else None)
    if special is not None:
        special.seterr(**{k: "warn" if v == "ignore" else "ignore" for k, v in saved[-1].items()})
    import faulthandler
    saved.append(faulthandler.is_enabled())
    faulthandler.disable()
    return saved


def _quiet(kind, flag) -> None:
    """NumPy's error callback while perturbed: silent."""


def _restore(saved: list) -> None:
    import decimal
    import faulthandler

    import numpy as np
    err, call, mask, prec, special, fault = saved
    np.seterr(**err)
    np.seterrcall(call)
    os.umask(mask)
    decimal.getcontext().prec = prec
    if special is not None:
        sys.modules["scipy.special"].seterr(**special)
    if fault and not faulthandler.is_enabled():
        faulthandler.enable()
