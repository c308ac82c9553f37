"""Which C++ function runs each FFI target of a program in the executor.

The executor holds only handlers the grader chose:
- the course's kernels (kernels.rms_norm: rms_norm, rms_norm_fwd, rms_norm_bwd) and the
  grader's poison, registered before the first program;
- for an assignment whose answer writes a kernel source (silu_ffi's silu.cc: the testkit's
  ANSWER_KERNEL_SOURCE), that source compiled here by the grader, never the library the
  student's process built: the runner reads the file and hands over its text.

Which of the answer's functions a target name stands for is known only where the answer
registered it: the witness reports, per target, the exported symbol its handler is (dladdr),
and whether it lives in the course's library. That report is the student's claim, so it
decides only which of the answer's own (or the course's) functions runs under a name; a
symbol that this library does not export, a name bound twice or a course or poison name
taken for another function are refused. A handler is identified by the function's address
here, so two names for one function are one handler.
"""
from __future__ import annotations

import ctypes
import os
import tempfile
from pathlib import Path

import jax

from autograder.shared import poison
from kernels.build import address_of, locate


class Handlers:
    """The handlers of one executor process (or of the notebook's own process, see InProcess)."""

    def __init__(self) -> None:
        self._course: dict[str, int] = {}          # course target -> handler address
        self._bound: dict[str, tuple[str, int]] = {}   # answer target -> (symbol, address)
        self._source: str | None = None
        self._source_name = "kernel source"
        self._problem = "the notebook wrote no kernel source the grader could read"
        self._library: ctypes.CDLL | None = None
        self._build_error = ""

    # ------------------------------------------------------------ set-up ---
    def course(self) -> set[str]:
        """Register the course's kernels and the poison handler (once); their target names."""
        if not self._course:
            import kernels
            from kernels import rms_norm  # registers rms_norm, rms_norm_fwd, rms_norm_bwd
            from kernels.build import load_and_register
            load_and_register(os.path.join(os.path.dirname(kernels.__file__), "poison.cc"),
                              {poison.TARGET: poison.SYMBOL})
            self._course = {t: address_of(rms_norm.library.cdll, s) for t, s in rms_norm.TARGETS.items()}
        return set(self._course)

    def answer_source(self, name: str, text: str | None, problem: str = "") -> None:
        """The answer's kernel source `name` (silu.cc), as the runner read it (None, with the
        reason, when it could not); compiled on the first program that names one of its
        functions."""
        self._source_name, self._source, self._problem = name, text, problem or self._problem

    # ----------------------------------------------------------- targets ---
    def resolve(self, targets: list[str], bindings: dict) -> str:
        """Make every FFI target of a program runnable here; "" or why not. `bindings` is the
        witness's {target: {"symbol", "course"}}."""
        course = self.course()
        for target in targets:
            if target in course or target in self._bound:
                claim = bindings.get(target) or {}
                if target in self._bound and claim.get("symbol") not in (None, self._bound[target][0]):
                    return f"the FFI target {target} was bound to two different functions"
                continue
            if target == poison.TARGET:
                return f"it calls the grader's own FFI target {target}"
            claim = bindings.get(target)
            if not isinstance(claim, dict) or not claim.get("symbol"):
                return (f"it calls the FFI target {target}, which was not registered from a function that "
                        "a kernel library exports")
            problem = self._bind(target, str(claim["symbol"]), bool(claim.get("course")))
            if problem:
                return problem
        return ""

    def describe(self, target: str) -> dict:
        """{"handler": an id shared by every name bound to one function, "course": bool}."""
        if target in self._course:
            return {"handler": f"0x{self._course[target]:x}", "course": True}
        if target in self._bound:
            address = self._bound[target][1]
            return {"handler": f"0x{address:x}", "course": address in self._course.values()}
        return {"handler": f"name:{target}", "course": False}

    def _bind(self, target: str, symbol: str, course: bool) -> str:
        if course:
            from kernels import rms_norm
            library = rms_norm.library.cdll
        else:
            library = self._answer_library()
            if library is None:
                return self._build_error
        address = _exported(library, symbol)
        if address is None:
            where = "the course's kernels" if course else f"your {self._source_name} as the grader compiled it"
            return f"the FFI target {target} is registered from {symbol}, which {where} does not export"
        jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(getattr(library, symbol)), platform="cpu")
        self._bound[target] = (symbol, address)
        return ""

    def _answer_library(self) -> ctypes.CDLL | None:
        """The answer's source compiled here (once), or None with _build_error set."""
        if self._library is None and not self._build_error:
            if self._source is None:
                self._build_error = f"the grader could not compile your kernels: {self._problem}"
                return None
            from kernels.build import KernelBuildError, load
            folder = Path(tempfile.mkdtemp(prefix="answer-"))
            path = folder / self._source_name
            path.write_text(self._source)
            try:
                self._library = load(path).cdll
            except KernelBuildError as exc:
                first = "\n".join(str(exc).splitlines()[:6])
                self._build_error = f"your {path.name} did not compile for the grader: {first}"
            except OSError as exc:
                self._build_error = f"your {path.name}, compiled by the grader, could not be loaded: {exc}"
        return self._library


def _exported(library: ctypes.CDLL, symbol: str) -> int | None:
    """The address of `symbol` when `library` itself defines it (dlsym also finds its
    dependencies' symbols, libc's `system` included: those are not the answer's)."""
    try:
        address = address_of(library, symbol)
    except AttributeError:
        return None
    return address if locate(address)[0] == os.path.realpath(library._name) else None
