"""The grader's handle on the executor (autograder.executor): started on the first program
a test hands it, as the `executor` user with the witness's limits, in its own folder, with
the C++ files the answer wrote (read here, by root, from the student's folder: see
read_answer_cpp), which the executor compiles itself; restarted after a crash; every process
of that user is killed on close()."""
from __future__ import annotations

import errno
import os
import pwd
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.shared import config as settings, wire
from autograder.shared.config import Limits
from autograder.shared.probe import Unanswered
from autograder.runner.sandbox import LimitedProcess, compile_log, death

USER = "executor"
ENCODED = ("args", "operands", "recorded")   # the request's keys that hold arrays


@dataclass
class Executor(LimitedProcess):
    user: str = USER
    # The answer's C++ files, read on the first start (after the notebook ran) and kept for
    # restarts: () -> read_answer_cpp's {"sources", "headers", "skipped"}.
    read_cpp: Callable[[], dict] | None = None
    _cpp: dict | None = None
    notes: list[str] = field(default_factory=list)   # the executor's sentences for the student (capped)

    def run(self, request: dict, serve: Callable | None = None) -> dict:
        """program.handle's data for `request` ({"op": "run" | "call", ...}, arrays as arrays);
        `serve(index, operands, context)` answers each host callback the run reaches (the
        witness's host function: see probe.Ask.program). Raises Unanswered when the process
        crashes (a kernel's segfault) or runs out of time."""
        if self.proc is None:
            self._start()
        deadline = time.monotonic() + min(self.limits.question_s, self._left())
        message = {k: wire.encode(v) if k in ENCODED else v for k, v in request.items()}
        try:
            self._write(wire.frame(message), deadline)
            while "ok" not in (reply := self._receive(deadline)):
                self._write(wire.frame(_served(reply.get("callback"), serve)), deadline)
            self._note(reply.get("notes"))
            return wire.decode(reply["ok"])
        except TimeoutError:
            self._stop()
            raise Unanswered(f"The grader's run of your program did not finish computing {{what}} within "
                             f"{self.limits.question_s:.0f} s") from None
        except (EOFError, BrokenPipeError):
            raise Unanswered(f"The grader's run of your program {death(self._stop())} while computing "
                             "{what}") from None

    def _note(self, notes) -> None:
        """Keep the executor's sentences (read as data: at most 4 strings of 500 characters)."""
        for note in notes if isinstance(notes, list) else []:
            if isinstance(note, str) and note[:500] not in self.notes and len(self.notes) < 4:
                self.notes.append(note[:500])

    def _start(self) -> None:
        if not available(self.user):
            raise Unanswered(f"{{what}} was not computed: this grading environment has no account "
                             f"{self.user!r} to run programs with (its setup.sh or image is out of date)")
        self._prepare_home()
        self._spawn_module("autograder.executor")
        if self.read_cpp is not None:
            self._cpp = self._cpp if self._cpp is not None else self.read_cpp()
            self._write(wire.frame({"op": "sources", **self._cpp}), time.monotonic() + self.limits.question_s)

    def _prepare_home(self) -> None:
        account = pwd.getpwnam(self.user)
        (self.work / "tmp").mkdir(parents=True, exist_ok=True)
        for path in (self.work, self.work / "tmp"):
            os.chown(path, account.pw_uid, account.pw_gid)
        os.chmod(self.work, 0o700)


# The C++ files an answer may write, by how their names end (.C is C++, .c would be C).
SOURCE_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++", ".C")
HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".inc")
SKIPPED_FOLDERS = (".cache",)   # the witness's own kernel cache ($JAX_INTEROP_KERNEL_CACHE), no sources


def read_answer_cpp(folder: Path, user: str, limits: Limits | None = None) -> dict:
    """The records of the notebook's compiler runs (read_compiles), and every C++ source and
    header the notebook wrote where it could write (its folder, its subfolders, its
    temporary folder folder/tmp), by path relative to `folder` (what the executor compiles
    for a library the notebook loaded but no compiler run of it made), as the executor's
    "sources" message: {"sources": {path: text}, "headers": {path: text}, "skipped": [why a
    file was left out], "compiles": [record text]}. Read as root from a tree the student controls
    (its process may still be running), so: the folders walked by descriptor without
    following a symbolic link, each file opened in its folder with O_NOFOLLOW, and only a
    regular file owned by the student (a hard link to someone else's file is not) of at
    most limits.cpp_file_bytes, UTF-8, within limits.cpp_bytes and limits.cpp_sources, the
    walk stopped after limits.cpp_folder_entries entries (`limits`: the zip's; None: the
    repository's otter_config.json)."""
    limits = limits or settings.load().limits
    uid = pwd.getpwnam(user).pw_uid
    compiles, skipped = read_compiles(folder, uid, limits)
    found = {"sources": {}, "headers": {}, "skipped": skipped, "compiles": compiles}
    total = entries = 0
    for top, dirs, files, top_fd in os.fwalk(folder, follow_symlinks=False):
        relative = Path(top).relative_to(folder)
        if relative == Path("."):
            dirs[:] = [d for d in dirs if d not in SKIPPED_FOLDERS]
        dirs.sort()
        entries += len(dirs) + len(files)
        if entries > limits.cpp_folder_entries:
            found["skipped"].append(f"the folders hold more than {limits.cpp_folder_entries} files, so not all were read")
            break
        for name in sorted(files):
            kind = "sources" if name.endswith(SOURCE_SUFFIXES) else "headers" if name.endswith(HEADER_SUFFIXES) else ""
            if not kind:
                continue
            path = (relative / name).as_posix()
            if kind == "sources" and len(found["sources"]) >= limits.cpp_sources:
                found["skipped"].append(f"{path} was not read: only {limits.cpp_sources} C++ sources are compiled")
                continue
            text, problem = _read_owned(name, top_fd, uid, limits.cpp_file_bytes)
            if text is not None and total + len(text.encode()) > limits.cpp_bytes:
                text, problem = None, f"the C++ files are larger than {limits.cpp_bytes >> 20} MB in all"
            if text is None:
                found["skipped"].append(f"{path} was not read: {problem}")
                continue
            total += len(text.encode())
            found[kind][path] = text
    return found


def read_compiles(folder: Path, uid: int, limits: Limits) -> tuple[list[str], list[str]]:
    """The records of the notebook's compiler runs (autograder/witness/compile_record.py), as
    text, oldest first, and why any was left out. Read as root like the sources: the
    record folder (sandbox.compile_log) opened component by component without following a
    link, and only regular files the student owns, within limits.compile_records (the
    latest), compile_record_bytes and compile_records_bytes."""
    records, skipped = [], []
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        for part in compile_log(Path(".")).parts:
            fd, parent = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd), fd
            os.close(parent)
    except OSError:   # no compiler ran, or the folder is not one
        return records, skipped
    try:
        names = sorted(n for n in os.listdir(fd) if n.endswith(".json"))
        if len(names) > limits.compile_records:
            skipped.append(f"only the last {limits.compile_records} of your notebook's {len(names)} compiler runs were read")
            names = names[len(names) - limits.compile_records:]
        total = 0
        for name in reversed(names):   # the latest first, so the limits cost the oldest
            text, problem = _read_owned(name, fd, uid, limits.compile_record_bytes)
            if text is not None and total + len(text) > limits.compile_records_bytes:
                text, problem = None, f"the records are larger than {limits.compile_records_bytes >> 20} MB in all"
            if text is None:
                skipped.append(f"a record of a compiler run was not read: {problem}")
                continue
            total += len(text)
            records.insert(0, text)
    finally:
        os.close(fd)
    return records, skipped


def _read_owned(name: str, folder_fd: int, uid: int, max_bytes: int) -> tuple[str | None, str]:
    """The text of the file `name` in the folder open as `folder_fd` when it is a regular file
    owned by `uid` of at most `max_bytes` in UTF-8, else None and why not."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder_fd)
    except OSError as exc:   # ELOOP: a symbolic link
        return None, "it is a symbolic link" if exc.errno == errno.ELOOP else f"it could not be opened ({exc.strerror})"
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != uid:
            return None, "it is not a file the notebook wrote"
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        return None, f"it is larger than {max_bytes >> 20} MB"
    try:
        return data.decode(), ""
    except UnicodeDecodeError:
        return None, "it is not UTF-8 text"


def available(user: str = USER) -> bool:
    """Whether this machine has the executor's account (the image and setup.sh create it)."""
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def _served(callback, serve) -> dict:
    """The runner's answer to one host callback the executor's run reached: {"results"} or
    {"error"}. What the executor sends is read as data only: an index, arrays, a number."""
    if serve is None or not isinstance(callback, dict):
        return {"error": "no host callback can be served here"}
    try:
        operands = [np.asarray(wire.decode(o)) for o in callback["operands"]]
        results = serve(int(callback["index"]), operands, int(callback.get("context", -1)))
        return {"results": [wire.encode(np.asarray(r)) for r in results]}
    except AssertionError as exc:    # the witness could not serve it: its sentence
        return {"error": str(exc)}
    except (wire.WireError, KeyError, TypeError, ValueError) as exc:
        return {"error": f"a malformed host callback request ({type(exc).__name__})"}
