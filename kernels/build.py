"""Compile a C++ XLA FFI (or plain C) source into a shared library, cache it, load it,
and register its handlers as FFI targets.

The cache key is a hash of the source text, the flags, the compiler and its version and
the jaxlib version, so a changed header or compiler never reuses a stale library.
Libraries are looked up first in a read-only prebuilt cache (filled when the image is
built, $JAX_INTEROP_PREBUILT_KERNELS) and then in a writable per-user cache
($JAX_INTEROP_KERNEL_CACHE, default ~/.cache/jax-interop/kernels).

The prebuilt cache also holds clang's precompiled xla/ffi/api/ffi.h for these flags
(`precompile_header`): parsing that header is most of a kernel's compile time (measured
3.0 -> 1.8 s for silu.cc), which a student's notebook pays at every run. A compile that fails with it is retried without it, so the header never
changes what compiles or which diagnostics a student sees.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jax
import jaxlib

FLAGS = ("-std=c++17", "-O2", "-shared", "-fPIC")
MAX_DIAGNOSTIC_LINES = 40


class KernelBuildError(RuntimeError):
    """A kernel did not compile; the message carries the compiler's diagnostics."""


@dataclass(frozen=True)
class Library:
    path: Path          # the cached shared library
    cached: bool        # True when no compiler ran for this call
    cdll: ctypes.CDLL


def compiler() -> str:
    """clang++ when present, else g++ (the chapter's choice, in the same order)."""
    for name in ("clang++", "g++"):
        if path := shutil.which(name):
            return path
    raise KernelBuildError("No C++ compiler found: neither clang++ nor g++ is on PATH.")


@functools.cache
def compiler_version(cxx: str) -> str:
    out = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[0]


def cache_key(source_text: str, flags: tuple[str, ...], cxx: str) -> str:
    h = hashlib.sha256()
    for part in (source_text, "\0".join(flags), cxx, compiler_version(cxx), jaxlib.__version__):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def writable_cache_dir() -> Path:
    default = Path.home() / ".cache" / "jax-interop" / "kernels"
    return Path(os.environ.get("JAX_INTEROP_KERNEL_CACHE") or default)


def _lookup_dirs() -> list[Path]:
    prebuilt = os.environ.get("JAX_INTEROP_PREBUILT_KERNELS")
    return ([Path(prebuilt)] if prebuilt else []) + [writable_cache_dir()]


def _header_key(flags: tuple[str, ...], cxx: str) -> str:
    return cache_key("xla/ffi/api/ffi.h", flags, cxx)


def precompile_header(out_dir: Path) -> Path | None:
    """clang's precompiled ffi.h for FLAGS, written into `out_dir` (the prebuilt cache, at
    image build); None with another compiler."""
    cxx = compiler()
    if "clang" not in Path(cxx).name:
        return None
    flags = FLAGS + ("-I", jax.ffi.include_dir())
    path = out_dir / f"ffi-{_header_key(flags, cxx)}.pch"
    header = Path(jax.ffi.include_dir()) / "xla" / "ffi" / "api" / "ffi.h"
    compile_flags = tuple(f for f in flags if f != "-shared")
    subprocess.run([cxx, *compile_flags, "-x", "c++-header", str(header), "-o", str(path)], check=True)
    return path


def _precompiled_header(flags: tuple[str, ...], cxx: str) -> list[str]:
    prebuilt = os.environ.get("JAX_INTEROP_PREBUILT_KERNELS")
    path = Path(prebuilt) / f"ffi-{_header_key(flags, cxx)}.pch" if prebuilt else None
    return ["-include-pch", str(path)] if path is not None and path.is_file() else []


def build(source: str | os.PathLike, extra_flags: tuple[str, ...] = ()) -> tuple[Path, bool]:
    """Compile `source` (a .cc/.cpp file) unless a cached library exists.

    Returns (library path, whether it came from the cache). Raises KernelBuildError with
    the compiler's diagnostics when compilation fails.
    """
    source = Path(source)
    text = source.read_text()
    cxx = compiler()
    flags = FLAGS + ("-I", jax.ffi.include_dir()) + tuple(extra_flags)
    name = f"lib{source.stem}-{cache_key(text, flags, cxx)}.so"
    for d in _lookup_dirs():
        if (d / name).is_file():
            return d / name, True
    out_dir = writable_cache_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    # Compile to a temporary name and rename, so a concurrent build never loads half a file.
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_dir)
    os.close(fd)
    try:
        header = _precompiled_header(flags, cxx)
        proc = subprocess.run([cxx, *flags, *header, "-o", tmp, str(source)], capture_output=True, text=True)
        if proc.returncode != 0 and header:
            proc = subprocess.run([cxx, *flags, "-o", tmp, str(source)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise KernelBuildError(_describe_failure(source, cxx, proc.stderr or proc.stdout))
        os.replace(tmp, out_dir / name)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out_dir / name, False


def _describe_failure(source: Path, cxx: str, diagnostics: str) -> str:
    lines = diagnostics.strip().splitlines()
    shown = lines[:MAX_DIAGNOSTIC_LINES]
    if len(lines) > len(shown):
        shown.append(f"... ({len(lines) - len(shown)} more lines)")
    return (f"{source.name} did not compile with {Path(cxx).name}; "
            f"fix the first error the compiler reports:\n" + "\n".join(shown))


def load(source: str | os.PathLike, extra_flags: tuple[str, ...] = ()) -> Library:
    """Build (or reuse) the library for `source` and load it with ctypes."""
    path, cached = build(source, extra_flags)
    return Library(path=path, cached=cached, cdll=ctypes.cdll.LoadLibrary(str(path)))


def address_of(cdll: ctypes.CDLL, symbol: str) -> int:
    """The address of `symbol` as `cdll` resolves it (AttributeError when it does not)."""
    return ctypes.cast(getattr(cdll, symbol), ctypes.c_void_p).value


# (target name, platform) -> (library path, symbol) registered through this module.
_registered: dict[tuple[str, str], tuple[str, str]] = {}


def register(lib: Library, targets: dict[str, str], platform: str = "cpu") -> None:
    """Register each `symbol` of `lib` as the FFI target `name` ({name: symbol}).

    Measured with jaxlib 0.12.0.1: a second handler under a taken name is accepted
    silently before the CPU backend starts, then the first JAX operation fails
    ("Duplicate FFI handler registration") and the first handler stays; after the
    backend has started it raises INVALID_ARGUMENT. So this
    refuses a name already bound to another handler, up front and with a clear message.
    Registering the same symbol again is a no-op.
    """
    for name, symbol in targets.items():
        key, value = (name, platform), (str(lib.path), symbol)
        if key in _registered:
            if _registered[key] != value:
                raise ValueError(f"FFI target {name!r} is already registered on {platform} "
                                 f"to {_registered[key][1]} in {Path(_registered[key][0]).name}; "
                                 f"choose another target name.")
            continue
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(getattr(lib.cdll, symbol)),
                                    platform=platform)
        _registered[key] = value


def load_and_register(source: str | os.PathLike, targets: dict[str, str],
                      platform: str = "cpu") -> Library:
    """Compile (or reuse), load and register in one call; returns the Library."""
    lib = load(source)
    register(lib, targets, platform)
    return lib
