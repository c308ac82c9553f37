"""The grader's own compiles of an answer's C++, never the library the student's process loaded:
- `compile_unit` and `link`: a preprocessed translation unit the notebook compiled, with the
  flags of its compiler run, and the library of such objects (recorded.py decides what);
- `build_all`, for a library no recorded compiler run made: every source the runner read
  (autograder/runner/executor_client.py read_answer_cpp) compiled on its own into a library,
  as follows.

- The files are written into a fresh folder in the notebook's layout (sources and headers
  by their paths relative to the notebook's folder), and each source is compiled from its
  own folder with that folder's root on the include path, so `#include "my.h"` beside it
  and `#include "cpp/x.h"` from the notebook's folder resolve as they did there.
- One library per source: a broken or unrelated file the notebook left around only matters
  when a registered function is looked for and found nowhere (handlers.py says so then).
- The language standard is not taken from the student's process (its compile may have
  asked for -std=c++20, but nothing it says is trusted): a source is compiled as C++17, the
  course's standard, and only when that fails as C++20, then C++23 (-std=c++2b); one that
  compiles under none is reported with the diagnostics of the try with the fewest errors.
- Libraries, and failures, are cached in the executor's kernel cache under a hash of every
  file, the source's path, the flags, the compiler and jaxlib, so an executor restarted
  after a kernel's crash does not compile again.
"""
from __future__ import annotations

import base64
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import jax
import jaxlib

from autograder.executor import prefix

from kernels.build import FLAGS, compiler, compiler_version, writable_cache_dir
from kernels.build import _precompiled_header  # the image's precompiled ffi.h, for C++17 only

STANDARDS = ("c++17", "c++20", "c++2b")
COMPILE_TIMEOUT_S = 60      # one compile; a template bomb must not take the question's whole time
MAX_WORKERS = 4             # compiles at once (each is one clang process)
SHOWN_LINES = 6             # of the compiler's diagnostics, in a student's message


@dataclass(frozen=True)
class Built:
    source: str                   # its path relative to the notebook's folder
    library: ctypes.CDLL | None   # None when it did not compile or load: see error
    digest: str                   # sha256 of the library's bytes: equal bytes, equal functions
    error: str = ""


def build_all(sources: dict[str, str], headers: dict[str, str]) -> list[Built]:
    """Every source of `sources` ({path: text}) built on its own, with `headers` beside them;
    in the order of their paths."""
    folder = Path(tempfile.mkdtemp(prefix="answer-"))
    files = {path: text for path, text in {**headers, **sources}.items() if _relative(path)}
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    common = hashlib.sha256(repr(sorted(files.items())).encode())
    common.update(f"{compiler_version(compiler())}\0{jaxlib.__version__}".encode())
    paths = sorted(p for p in sources if p in files)
    with ThreadPoolExecutor(max_workers=max(1, min(len(paths), MAX_WORKERS, os.cpu_count() or 1))) as pool:
        return list(pool.map(lambda path: _build(folder, path, common.copy()), paths))


def _relative(path: str) -> bool:
    """A path that stays inside the build folder (the runner's walk gives no other)."""
    parts = PurePosixPath(path).parts
    return bool(parts) and not PurePosixPath(path).is_absolute() and ".." not in parts


def _build(folder: Path, path: str, key: "hashlib._Hash") -> Built:
    cxx = compiler()
    key.update(path.encode())
    failures = []
    for std in STANDARDS:
        flags = (f"-std={std}", *(f for f in FLAGS if not f.startswith("-std=")), "-I", jax.ffi.include_dir())
        attempt = key.copy()
        attempt.update("\0".join(flags).encode())
        library = writable_cache_dir() / f"answer-{attempt.hexdigest()[:24]}.so"
        failed = library.with_suffix(".err")
        if not library.is_file() and not failed.is_file():
            _compile(cxx, flags, folder, path, library, failed)
        if library.is_file():
            return _loaded(path, library)
        failures.append(failed.read_text())
    return Built(path, None, "", _failure(path, failures))


def _compile(cxx: str, flags: tuple[str, ...], folder: Path, path: str, library: Path, failed: Path) -> None:
    """Compile `path` (in `folder`) into `library`, or write the diagnostics to `failed`.
    Run from the source's own folder on its bare name, so the diagnostics name the files as
    the student wrote them and two copies of one source compile to the same bytes."""
    library.parent.mkdir(parents=True, exist_ok=True)
    source = folder / path
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=library.parent)
    os.close(fd)
    header = _precompiled_header(flags, cxx)
    try:
        diagnostics = _run([cxx, *flags, *header, "-I", str(folder), "-o", tmp, source.name], source.parent)
        if diagnostics and header and ("PCH" in diagnostics or "precompiled" in diagnostics):
            diagnostics = _run([cxx, *flags, "-I", str(folder), "-o", tmp, source.name], source.parent)
        if diagnostics is None:
            os.replace(tmp, library)
        else:
            failed.write_text(diagnostics.replace(f"{folder}{os.sep}", ""))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _run(argv: list[str], cwd: Path) -> str | None:
    """None when the compile succeeded, else its diagnostics."""
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"error: it did not compile within {COMPILE_TIMEOUT_S} s"
    return None if proc.returncode == 0 else (proc.stderr or proc.stdout or "error: the compiler failed")


# -x for a preprocessed unit of each language (autograder/shared/compile_line.py).
PREPROCESSED = {"c": "cpp-output", "c++": "c++-cpp-output"}


MAX_UNIT_BYTES = 64 << 20   # one preprocessed unit, decompressed


def unit_text(unit: dict) -> bytes:
    """A recorded unit's preprocessed text (autograder/witness/compile_record.py stores it
    zlib-compressed, in base64), at most MAX_UNIT_BYTES of it."""
    return zlib.decompressobj().decompress(base64.b64decode(unit["text"]), MAX_UNIT_BYTES)


def unit_argv(language: str, flags: list[str]) -> list[str]:
    """The grader's compile of one preprocessed unit with the honoured `flags` of its run."""
    return ["-x", PREPROCESSED[language], "-c", "-fPIC", *flags]


def compile_unit(language: str, text: bytes, flags: list[str]) -> tuple[Path | None, str]:
    """One preprocessed translation unit compiled, as the notebook's compiler run did, into
    an object (cached under a hash of the unit, the flags, the compiler and jaxlib); (its
    path, "") or (None, the compiler's diagnostics). A unit that starts with headers the
    image has precompiled (executor/prefix.py) is compiled as that PCH and the rest."""
    cxx = compiler()
    argv = unit_argv(language, flags)
    key = hashlib.sha256(b"\0".join([text, "\0".join(argv).encode(), compiler_version(cxx).encode(),
                                      jaxlib.__version__.encode()])).hexdigest()[:24]
    name = "unit.i" if language == "c" else "unit.ii"

    def make(tmp: str, folder: Path) -> str | None:
        head, rest = prefix.split(text)
        pch = prefix.prebuilt(head, argv, compiler_version(cxx))
        if pch is not None and _run([cxx, *argv, "-Xclang", "-include-pch", "-Xclang", str(pch), "-o", tmp,
                                     _written(folder, name, rest)], folder) is None:
            return None
        return _run([cxx, *argv, "-o", tmp, _written(folder, name, text)], folder)
    return _cached(writable_cache_dir() / f"unit-{key}.o", make)


def link(objects: list[Path], flags: list[str]) -> tuple[Path | None, str]:
    """A shared library of `objects` with the notebook's link flags (cached likewise)."""
    cxx = compiler()
    argv = ["-shared", *flags, *map(str, objects)]
    key = hashlib.sha256("\0".join([*argv, compiler_version(cxx)]).encode()).hexdigest()[:24]
    return _cached(writable_cache_dir() / f"recorded-{key}.so",
                   lambda tmp, folder: _run([cxx, *argv, "-o", tmp], folder))


def _cached(target: Path, make) -> tuple[Path | None, str]:
    """`target` when it is cached, else made by `make(tmp, folder)` (None or diagnostics)."""
    failed = target.with_suffix(".err")
    if not target.is_file() and not failed.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="unit-"))
        tmp = folder / f"out{target.suffix}"
        diagnostics = make(str(tmp), folder)
        if diagnostics is None:
            os.replace(tmp, target)
        else:
            failed.write_text(diagnostics)
        shutil.rmtree(folder, ignore_errors=True)
    return (target, "") if target.is_file() else (None, failed.read_text())


def _written(folder: Path, name: str, data: bytes) -> str:
    (folder / name).write_bytes(data)
    return name


def _loaded(path: str, library: Path) -> Built:
    digest = hashlib.sha256(library.read_bytes()).hexdigest()
    try:
        return Built(path, ctypes.cdll.LoadLibrary(str(library)), digest)
    except OSError as exc:   # an undefined symbol: something it uses is defined in another file
        return Built(path, None, digest, f"your {path}, compiled on its own by the grader, could not be "
                                         f"loaded ({exc}); define what it uses in it or in a header it includes")


def _failure(path: str, failures: list[str]) -> str:
    """Why `path` compiled under no standard: the first lines of the try with the fewest errors."""
    fewest = min(failures, key=lambda text: text.count("error:"))
    first = "\n".join(fewest.strip().splitlines()[:SHOWN_LINES])
    return f"your {path} did not compile for the grader (as C++17, C++20 or C++23): {first}"
