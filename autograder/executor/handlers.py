"""Which C function runs each FFI target of a program in the executor.

The executor holds only handlers the grader chose:
- the course's kernels (kernels.rms_norm: rms_norm, rms_norm_fwd, rms_norm_bwd;
  kernels.reduce_sum: __grader_reduce_sum__, what reduce_sum_rules' primitive lowers to
  while it is graded) and the grader's poison, registered before the first program;
- for an assignment whose answer writes C++ (silu_ffi: its record's answer_kernels,
  autograder.assignments), **the library the notebook loaded**: its bytes as the dynamic
  loader mapped them in the student's process (copied then by kernels/loaded_audit.c), which
  the runner hands over into this process's folder named by their sha256
  (autograder/runner/libraries.py: for other tasks it hands over none, and says so) and
  which is loaded here as it is. Whatever flags, tools, temporary files or build system made
  it, it is the machine code the notebook ran.

Which function a target name stands for is the witness's word: per target, the name its
library was loaded by, that library's load address and the handler's offset from it
(autograder/witness/registry.py). So it decides only which function of the answer's own (or
the course's) libraries runs under a name, at the same offset in the copy loaded here: a
library whose bytes are the course's (or the poison's) is the course's (or refused), an
offset outside the library, a name bound twice or a course or poison name taken for another
function are refused. A handler is identified by its address here, so two names for one
function are one handler, and two copies of one library are one library.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
from pathlib import Path

import jax

from autograder.executor import allocations
from autograder.shared import linkmap, poison
from kernels.build import address_of


def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


class Handlers:
    """The handlers of one executor process (or of the notebook's own process, see InProcess)."""

    def __init__(self) -> None:
        self._course: dict[str, int] = {}                 # course target -> handler address
        self._course_libraries: dict[str, ctypes.CDLL] = {}   # sha256 and real path -> a course library
        self._poison: set[str] = set()                    # the poison library's sha256 and real path
        self._bound: dict[str, tuple[str, int]] = {}      # answer target -> (what it is, address)
        self._loaded: dict[str, ctypes.CDLL | str] = {}   # sha256 -> the library loaded here, or why not

    # ------------------------------------------------------------ set-up ---
    def course(self) -> set[str]:
        """Register the course's kernels and the poison handler (once); their target names."""
        if not self._course:
            import kernels
            from kernels import reduce_sum, rms_norm  # register their targets (TARGETS)
            from kernels.build import load_and_register
            venom = load_and_register(os.path.join(os.path.dirname(kernels.__file__), "poison.cc"),
                                      poison.TARGETS)
            self._poison = {_digest(str(venom.path)), os.path.realpath(venom.path)}
            for module in (rms_norm, reduce_sum):
                path = str(module.library.path)
                for key in (_digest(path), os.path.realpath(path)):
                    self._course_libraries[key] = module.library.cdll
            self._course = {t: address_of(m.library.cdll, s) for m in (rms_norm, reduce_sum)
                            for t, s in m.TARGETS.items()}
        return set(self._course)

    # ----------------------------------------------------------- targets ---
    def resolve(self, targets: list[str], bindings: dict) -> str:
        """Make every FFI target of a program runnable here; "" or why not. `bindings` is the
        witness's {target: {"symbol", "course", "library": {"name", "base", "path", and the
        runner's "sha256" or "missing"}, "offset"}}."""
        course = self.course()
        for target in targets:
            if target in course:
                continue
            claim = bindings.get(target)
            if target in self._bound:
                if isinstance(claim, dict) and self._address(claim, self._library_of(claim)) not in (
                        None, self._bound[target][1]):
                    return f"the FFI target {target} was bound to two different functions"
                continue
            if target in poison.TARGETS:
                return f"it calls the grader's own FFI target {target}"
            problem = self._bind(target, claim if isinstance(claim, dict) else {})
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

    @staticmethod
    def _address(claim: dict, library) -> int | None:
        """The address here of the function `claim` names in `library` (its _library_of)."""
        offset = claim.get("offset")
        if not isinstance(library, ctypes.CDLL) or not isinstance(offset, int):
            return None
        return linkmap.base_of(library) + offset

    def _library_of(self, claim: dict) -> ctypes.CDLL | str | None:
        """The library loaded here that `claim`'s handler lives in: a course library (by its
        bytes, or by its path in the image), the answer's copy, or why there is none."""
        library = claim.get("library") if isinstance(claim.get("library"), dict) else {}
        digest, path = str(library.get("sha256") or ""), str(library.get("path") or "")
        course = self._course_libraries.get(digest) or (self._course_libraries.get(path) if claim.get("course")
                                                        else None)
        if course is not None:
            return course
        if digest in self._poison or path in self._poison:
            return "the grader's own poison kernel"
        if not library:
            return ""
        name = os.path.basename(str(library.get("name") or path)) or "its library"
        if not digest:
            return str(library.get("missing") or f"{name}, of which the grader has no copy as your notebook loaded it")
        return self._load(digest, name)

    def _load(self, digest: str, name: str) -> ctypes.CDLL | str:
        """The copy named `digest` in this process's folder of the notebook's libraries, loaded
        (once), or why it does not load."""
        if digest not in self._loaded:
            folder = Path(os.environ.get("JAX_INTEROP_LOADED_LIBRARIES") or ".")
            path = str(folder / f"{digest}.so")
            try:
                self._loaded[digest] = ctypes.CDLL(path)
                allocations.dirty()   # its constructors ran: they may have turned the pattern off
            except OSError as exc:
                self._loaded[digest] = f"{name}, which {unloadable(str(exc).replace(path + ': ', ''))}"
        return self._loaded[digest]

    def _bind(self, target: str, claim: dict) -> str:
        """Register `target` here as the function `claim` names; "" or why not."""
        symbol = str(claim.get("symbol") or "") or "a function"
        library = self._library_of(claim)
        if not library:
            return (f"it calls the FFI target {target}, which your notebook did not register from a function of a "
                    "library it loaded")
        if not isinstance(library, ctypes.CDLL):
            return f"the FFI target {target} is registered from {symbol} in {library}"
        address = self._address(claim, library)
        inside = linkmap.object_of(address)[0] if address else ""
        if not address or os.path.realpath(inside or "/") != os.path.realpath(library._name):
            return (f"the FFI target {target} is registered from an address outside the library it names "
                    f"({os.path.basename(library._name)})")
        if library in self._course_libraries.values() and address not in self._course.values():
            return f"the FFI target {target} is registered from {symbol}, which is not one of the course's kernels"
        jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(ctypes.c_void_p(address)), platform="cpu")
        self._bound[target] = (symbol, address)
        return ""


def unloadable(error: str) -> str:
    """Why a library did not load here, from the dynamic loader's message, as the end of a
    sentence ("... which <this>")."""
    if any(sign in error for sign in ("wrong ELF class", "invalid ELF header", "ELF file", "file too short")):
        return f"was built for another architecture or is not a shared library ({error})"
    if "cannot open shared object file" in error:
        needed = error.split(":")[0].strip()
        return (f"needs {needed}, which neither your notebook loaded nor the grading image has; load it in your "
                "notebook too, or link it statically")
    if "undefined symbol" in error:
        return f"uses a symbol defined nowhere ({error.split('undefined symbol: ')[-1]})"
    return f"did not load ({error})"
