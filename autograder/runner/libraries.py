"""The libraries the notebook loaded, as it loaded them, handed to the executor.

The witness runs with kernels/loaded_audit.c in LD_AUDIT (sandbox.py): whenever the dynamic
loader maps a file the student's user owns (a library the notebook built, by any route), the
audit module copies it, while it is still there, into the witness's capture folder
(`capture_folder`), with a record of the name the loader knows it by and its load address.
When a program names one of the answer's FFI targets, the witness says which library (that
name and address, in its live process) and which offset the handler is
(autograder/witness/registry.py); here, as root, the captures of the live witness are read
(the folder opened component by component without following a link; only regular files the
student owns, within limits.loaded_library_bytes each, loaded_libraries_bytes and
loaded_libraries in all; at most loaded_libraries records, chosen by their names and each
read within RECORD_BYTES: the folder is the student's to fill) and copied as <sha256>.so
into the folder of copies, root's (the executor's group may read it, nobody else write it:
it is beside the executor's home, not in it), each also
named for the audit module's lookup of dependencies (n-<fnv1a64 of its full name>,
b-<fnv1a64 of its last component>), so a library that needs another of the notebook's finds
its copy. The claim handed on carries the sha256 (or, when there is no copy, why not).

The copies are the student's word like the C++ they came from: the executor runs them as
the student's machine code, in its own process, on the grader's inputs.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from autograder.shared.config import Limits
from autograder.shared.linkmap import AUDIT_MODULE
from autograder.shared.safe_files import open_folder, read_regular

CAPTURE = Path(".cache") / "loaded"   # in the witness's folder, beside its kernel cache
AUDIT_ENV = "JAX_INTEROP_LOADED_CAPTURE"
LIBRARIES_ENV = "JAX_INTEROP_LOADED_LIBRARIES"
SCANNED = 20000                       # entries of the capture folder looked at (the student's to fill)
RECORD_BYTES = 4096 + 32              # a record: a load address and a path (PATH_MAX)


def audit_module() -> str | None:
    """The audit module's path in this image, None when it has none."""
    folder = os.environ.get("JAX_INTEROP_PREBUILT_KERNELS", "/opt/jax-interop/prebuilt-kernels")
    path = os.path.join(folder, AUDIT_MODULE)
    return path if os.path.isfile(path) else None


def witness_env(work: Path) -> dict:
    """The witness's environment for the capture (none when the image has no audit module)."""
    module = audit_module()
    return {"LD_AUDIT": module, AUDIT_ENV: str(work / CAPTURE)} if module else {}


def executor_env(folder: Path | None) -> dict:
    """The executor's environment for the copies in `folder` (None: no copies)."""
    module = audit_module()
    return {**({LIBRARIES_ENV: str(folder)} if folder else {}), **({"LD_AUDIT": module} if module else {})}


def fnv1a64(data: bytes) -> int:
    """The audit module's hash of a name (64-bit FNV-1a)."""
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


@dataclass(frozen=True)
class Capture:
    pid: int
    number: int
    name: bytes      # the name the loader knew the library by
    base: int        # its load address


class Libraries:
    """The captures of one grading's witness, copied for its executor on demand.
    `student`: the witness's folder; `uid`: the student's; `target`: the folder of copies,
    made here (root's, setgid `reader_gid`, 2750: the executor reads it, nobody but root
    writes in it; its parent must be root's alone); `pid`: the live witness's process id;
    `runs_answer`: whether this task runs the answer's own C++ (its record's answer_kernels)."""

    def __init__(self, student: Path, uid: int, limits: Limits, target: Path, pid: Callable[[], int | None],
                 runs_answer: bool, reader_gid: int | None = None) -> None:
        self.student, self.uid, self.limits, self.target = student, uid, limits, target
        self.pid, self.runs_answer = pid, runs_answer
        target.mkdir(mode=0o700)   # new: nobody else made it
        if reader_gid is not None:
            os.chown(target, 0, reader_gid)
        os.chmod(target, 0o2750)   # the copies take the folder's group
        self._records: dict[tuple[int, int], Capture | None] = {}   # (pid, number) -> its record, read once
        self._copied: dict[tuple[int, int], str] = {}   # (pid, number) -> sha256, or "" when not copied
        self._bytes = 0
        self.problems: list[str] = []                   # why a capture was not copied

    def claims(self, bindings: dict) -> dict:
        """`bindings` (the witness's, registry.bindings) with each of the answer's libraries
        given the sha256 of its copy in the executor's folder, or why there is none."""
        out, captures = {}, None
        for target, claim in (bindings or {}).items():
            claim = dict(claim) if isinstance(claim, dict) else {}
            library = claim.get("library")
            if isinstance(library, dict) and not claim.get("course"):
                if captures is None and self.runs_answer:
                    captures = self._refresh()   # once per request, whatever the number of targets
                claim["library"] = {**library, **self._copy_of(library, captures or [])}
            out[str(target)] = claim
        return out

    def _copy_of(self, library: dict, captures: list[Capture]) -> dict:
        name = str(library.get("name") or "")
        shown = os.path.basename(name) or "its library"
        if not self.runs_answer:
            return {"missing": f"{shown}, which is not one of the course's kernels, and this task runs no C++ "
                               "of yours"}
        want = (os.fsencode(name), library.get("base"))
        for capture in reversed(captures):   # the latest of that name at that address
            if (capture.name, capture.base) == want and self._copied.get((capture.pid, capture.number)):
                return {"sha256": self._copied[(capture.pid, capture.number)]}
        why = f" ({self.problems[-1]})" if self.problems else ""
        return {"missing": f"{shown}, of which the grader found no copy taken when your notebook loaded it{why}; "
                           "the grader runs the library your notebook loaded, copied as it is loaded, so load "
                           "it from a file your notebook wrote and leave the grader's .cache folder alone"}

    def _refresh(self) -> list[Capture]:
        """The live witness's captures, in the order they were made, those not seen before read
        and copied into the executor's folder (all of them: one library may need another), in
        one opening of the capture folder."""
        pid = self.pid()
        fd = open_folder(self.student, CAPTURE) if pid else None
        if fd is None:
            return []
        try:
            captures = self._captures(pid, fd)
            for capture in captures:
                if (capture.pid, capture.number) not in self._copied:
                    self._copied[(capture.pid, capture.number)] = self._copy(capture, fd)
            return captures
        finally:
            os.close(fd)

    def _captures(self, pid: int, fd: int) -> list[Capture]:
        """The capture records of process `pid` in the folder open as `fd`, in the order they
        were made."""
        with os.scandir(fd) as entries:   # lazily: the student may have filled the folder
            names = [e.name for _, e in zip(range(SCANNED), entries)]
        numbers = []
        for entry in names:   # the records' numbers, from their names alone
            head, _, rest = entry.partition("-")
            number, dot, kind = rest.partition(".")
            if kind == "txt" and dot and head == str(pid) and number.isdigit() and len(number) < 20:
                numbers.append(int(number))
        found = []
        for number in sorted(numbers)[:self.limits.loaded_libraries]:   # read only those kept
            key = (pid, number)
            if key not in self._records:   # a record is written once, whole (loaded_audit.c)
                data, _ = read_regular(f"{pid}-{number}.txt", RECORD_BYTES, dir_fd=fd, owner=self.uid)
                base, _, name = (data or b"").partition(b"\n")
                try:
                    self._records[key] = Capture(pid, number, name, int(base, 16))
                except ValueError:
                    self._records[key] = None
            if self._records[key] is not None:
                found.append(self._records[key])
        return found

    def _copy(self, capture: Capture, folder_fd: int) -> str:
        left = self.limits.loaded_libraries_bytes - self._bytes
        data, problem = read_regular(f"{capture.pid}-{capture.number}.so", min(self.limits.loaded_library_bytes,
                                     max(left, 0)), dir_fd=folder_fd, owner=self.uid)
        if data is None:
            self.problems.append(f"{os.path.basename(os.fsdecode(capture.name))}: {problem}")
            return ""
        self._bytes += len(data)
        digest = hashlib.sha256(data).hexdigest()
        # The folder is root's alone (made in __init__): nothing in it is anyone else's.
        path = self.target / f"{digest}.so"
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o440), "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        for key in (f"n-{fnv1a64(capture.name):016x}", f"b-{fnv1a64(os.path.basename(capture.name)):016x}"):
            link = self.target / key
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(path.name)
        return digest

