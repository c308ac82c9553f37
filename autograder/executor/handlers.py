"""Which C++ function runs each FFI target of a program in the executor.

The executor holds only handlers the grader chose:
- the course's kernels (kernels.rms_norm: rms_norm, rms_norm_fwd, rms_norm_bwd;
  kernels.reduce_sum: __grader_reduce_sum__, what reduce_sum_rules' primitive lowers to
  while it is graded) and the grader's poison, registered before the first program;
- for an assignment whose answer writes C++ (silu_ffi: its record's answer_cpp,
  autograder.assignments), the library each target was registered from, built here by the
  grader from the records of the notebook's compiler runs (recorded.py: the C++ the notebook
  compiled, as it compiled it), never the library the student's process loaded; for a
  library no recorded run made, every C++ source the notebook wrote, each compiled here
  into its own library (cpp.py). The runner reads the records and files and hands them over.

Which of the answer's functions a target name stands for is known only where the answer
registered it: the witness reports, per target, the exported symbol its handler is (dladdr),
and whether it lives in the course's library. That report (with the sha256 of the library
file) is the student's claim, so it decides only which of the answer's own (or the course's)
functions runs under a name: the symbol must be defined (dladdr again, here) by the grader's
build of that library or, without a record of it, by exactly one of the grader's builds of
the files, or by several that compiled to the same bytes (one source copied); a symbol no library defines,
one that two different sources define, a name bound twice or a course or poison name taken
for another function are refused. A handler is identified by the function's address here,
so two names for one function are one handler.
"""
from __future__ import annotations

import ctypes
import os

import jax

from autograder.executor import cpp
from autograder.executor.recorded import Recorded
from autograder.shared import poison
from kernels.build import address_of, locate


class Handlers:
    """The handlers of one executor process (or of the notebook's own process, see InProcess)."""

    def __init__(self) -> None:
        self._course: dict[str, int] = {}          # course target -> handler address
        self._bound: dict[str, tuple[str, int]] = {}   # answer target -> (symbol, address)
        self._sources: dict[str, str] = {}           # the answer's C++ sources, headers: {path: text}
        self._headers: dict[str, str] = {}
        self._skipped: list[str] = []                # why a file the notebook wrote was not read
        self._built: list[cpp.Built] | None = None
        self._recorded = Recorded([])                # the notebook's compiler runs (answer_cpp)
        self._compiles_cpp = False                   # whether this task's answers write C++ (answer_cpp)
        self.notes: list[str] = []                   # what the student should know of how their C++ was built

    # ------------------------------------------------------------ set-up ---
    def course(self) -> set[str]:
        """Register the course's kernels and the poison handler (once); their target names."""
        if not self._course:
            import kernels
            from kernels import reduce_sum, rms_norm  # register their targets (TARGETS)
            from kernels.build import load_and_register
            load_and_register(os.path.join(os.path.dirname(kernels.__file__), "poison.cc"),
                              {poison.TARGET: poison.SYMBOL})
            self._course = {t: address_of(m.library.cdll, s) for m in (rms_norm, reduce_sum)
                            for t, s in m.TARGETS.items()}
        return set(self._course)

    def answer_cpp(self, sources: dict, headers: dict | None = None, skipped: list | None = None,
                   compiles: list | None = None) -> None:
        """The records of the notebook's compiler runs (`compiles`, recorded.Recorded), and the
        C++ files it wrote, as the runner read them ({path relative to its folder: text};
        `skipped`: why others were not read); built on the first program that names one of
        the answer's functions."""
        self._recorded = Recorded([str(c) for c in compiles or []])
        self._sources = {str(k): str(v) for k, v in sources.items()}
        self._headers = {str(k): str(v) for k, v in (headers or {}).items()}
        self._skipped = [str(s) for s in skipped or []]
        self._built, self._compiles_cpp = None, True

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
            problem = self._bind(target, str(claim["symbol"]), bool(claim.get("course")), claim.get("library"))
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

    def _bind(self, target: str, symbol: str, course: bool, loaded) -> str:
        """Register `target` here as `symbol` of the course's library, of the grader's build of
        the library the notebook loaded (`loaded`: {"sha256", "path"}, made by one of its
        compiler runs), or, for a library no compiler run of the notebook made, of the
        grader's build of the C++ files it wrote; "" or why not."""
        if course:
            from kernels import rms_norm
            library = rms_norm.library.cdll
            if _exported(library, symbol) is None:
                return f"the FFI target {target} is registered from {symbol}, which the course's kernels do not export"
        elif (made := self._recorded.find(loaded)) is not None:
            built = self._recorded.build(made)
            if built.library is None:
                return f"the FFI target {target} is registered from {symbol} in {built.source}, but {built.error}"
            if _exported(built.library, symbol) is None:
                return (f"the FFI target {target} is registered from {symbol}, which {built.source}, as the grader "
                        "built it from the C++ your notebook compiled, does not define")
            library = built.library
        else:
            self._unrecorded(loaded)
            library, problem = self._found_in_files(target, symbol)
            if problem:
                return problem
        jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(getattr(library, symbol)), platform="cpu")
        self._bound[target] = (symbol, _exported(library, symbol))
        return ""

    def _unrecorded(self, loaded) -> None:
        """Note that the notebook loaded a library no recorded compiler run of it made."""
        name = os.path.basename(str(loaded.get("path") or "")) if isinstance(loaded, dict) else ""
        note = (f"Your notebook loaded {name}, which none of its compiler runs made (the grading image records "
                "clang++, g++, c++, clang and cc unless their environment is cleared), so the grader compiled "
                "the C++ files it found in your notebook's folders instead.")
        if name and self._compiles_cpp and note not in self.notes:
            self.notes.append(note)

    def _found_in_files(self, target: str, symbol: str) -> tuple[ctypes.CDLL | None, str]:
        """`symbol` in the grader's build of every C++ file the notebook wrote: (the library
        that defines it, "") or (None, why not)."""
        defining = [b for b in self._answer_libraries() if b.library is not None
                    and _exported(b.library, symbol) is not None]
        if not defining:
            return None, self._found_nowhere(target, symbol)
        if len({b.digest for b in defining}) > 1:
            return None, (f"the FFI target {target} is registered from {symbol}, which your C++ files "
                          f"{', '.join(b.source for b in defining)} each define differently, so the grader cannot "
                          "tell which one you registered; define it in one file only")
        return defining[0].library, ""

    def _answer_libraries(self) -> list[cpp.Built]:
        """The grader's build of every source the notebook wrote (once)."""
        if self._built is None:
            self._built = cpp.build_all(self._sources, self._headers) if self._sources else []
        return self._built

    def _found_nowhere(self, target: str, symbol: str) -> str:
        """Why no library of the answer's defines `symbol`: with what the grader compiled, and
        the file that did not compile (the one that names the symbol first) or was not read."""
        built = self._answer_libraries()
        if not self._compiles_cpp:
            return (f"the FFI target {target} is registered from {symbol}, which is not one of the course's "
                    "kernels, and the grader compiles no C++ of yours for this task")
        if not built:
            why = f" ({self._skipped[0]})" if self._skipped else ""
            return (f"the FFI target {target} is registered from {symbol}, but the grader found no C++ source "
                    f"that your notebook wrote in its folder, its subfolders or its temporary folder{why}")
        compiled = [b.source for b in built if b.library is not None]
        failed = sorted((b for b in built if b.library is None), key=lambda b: symbol not in self._sources[b.source])
        reason = (f"the FFI target {target} is registered from {symbol}, which none of your C++ files defines "
                  f"as the grader compiled them" + (f" ({', '.join(compiled)})" if compiled else ""))
        if failed:
            return f"{reason}; {failed[0].error}"
        return f"{reason}; {self._skipped[0]}" if self._skipped else reason


def _exported(library: ctypes.CDLL, symbol: str) -> int | None:
    """The address of `symbol` when `library` itself defines it (dlsym also finds its
    dependencies' symbols, libc's `system` included: those are not the answer's)."""
    try:
        address = address_of(library, symbol)
    except AttributeError:
        return None
    return address if locate(address)[0] == os.path.realpath(library._name) else None
