"""The headers at the top of a recorded translation unit, precompiled once in the image.

A preprocessed unit of the notebook's (executor/recorded.py) is mostly the text its
leading `#include` lines expanded to (2.4 MB for <cmath>, <cstdint> and ffi.h, 1.7 s of a
1-CPU compile); parsing it again for every grading is most of what the grader's build of a
kernel costs. So the image holds clang precompiled headers of that prefix, as the silu_ffi
notebook's given code writes it (built by `python -m autograder.executor.prefix` at image
build, through the same recorded compiler runs a notebook makes), and the executor compiles
a unit whose prefix is byte for byte one of them, with the same flags, as that PCH plus the
rest: clang's PCH is the parsed text itself, so the object is the same (tests/
test_compile_record.py compares the machine code). Any other unit, or a failed compile
this way, is compiled whole.

The prefix ends where the main file's own code starts: after the last return to the main
file from the includes at its top. Its line markers name the main file, whose name differs
between notebooks (silu.cc, a temporary file), so that name is replaced in the prefix
before it is looked up; the rest keeps it, so diagnostics name the student's file.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

_MARKER = re.compile(rb'# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)$')
MAIN = b"<main>"   # the main file's name in a prefix, whatever the notebook called it

# The silu_ffi notebook's given C++ head (assignments/silu_ffi: SILU_CC), which most answers
# keep, exactly: a line more or less changes the prefix's line markers.
TEMPLATE = '\n#include <cmath>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\n\nnamespace ffi = xla::ffi;\n'


def split(text: bytes) -> tuple[bytes, bytes]:
    """(the prefix with the main file's name replaced, the rest), or (b"", text) when the
    unit has no includes before its own code."""
    lines = text.split(b"\n")
    main, depth, end = None, 0, None
    for i, line in enumerate(lines):
        marker = _MARKER.match(line) if line.startswith(b"# ") else None
        if marker is not None:
            main = marker.group(2) if main is None else main
            flags = marker.group(3).split()
            depth += (b"1" in flags) - (b"2" in flags)
            if depth == 0 and b"2" in flags and marker.group(2) == main:
                end = i
            continue
        if depth == 0 and line.strip():
            break
    if end is None or main is None:
        return b"", text
    quoted = b'"' + main + b'"'
    prefix = b"\n".join(l.replace(quoted, b'"' + MAIN + b'"') if l.startswith(b"# ") else l
                        for l in lines[:end]) + b"\n"
    number = _MARKER.match(lines[end]).group(1)
    return prefix, b"\n".join([b"# " + number + b" " + quoted, *lines[end + 1:]])


def key(prefix: bytes, argv: list[str], version: str) -> str:
    """The name of the PCH of `prefix` compiled with `argv` by the compiler of `version`."""
    h = hashlib.sha256(prefix)
    h.update("\0".join([*argv, version]).encode())
    return h.hexdigest()[:24]


def prebuilt(prefix: bytes, argv: list[str], version: str) -> Path | None:
    """The image's PCH for `prefix` under `argv`, if it has one."""
    folder = os.environ.get("JAX_INTEROP_PREBUILT_KERNELS")
    path = Path(folder) / f"prefix-{key(prefix, argv, version)}.pch" if folder and prefix else None
    return path if path is not None and path.is_file() else None


def emit(cxx: str, language: str, prefix: bytes, argv: list[str], out: Path) -> None:
    """Precompile `prefix` as `argv` would compile it into `out` (its text kept beside it:
    clang checks that a PCH's input is still there)."""
    source = out.with_suffix(".ii" if language == "c++" else ".i")
    source.write_bytes(prefix)
    subprocess.run([cxx, *argv, "-Xclang", "-emit-pch", source.name, "-o", out.name], cwd=out.parent, check=True)


def main() -> None:
    """At image build: the TEMPLATE's prefix, as load_and_register and as a plain clang++
    line compile it, precompiled into the prebuilt cache."""
    import jax
    from autograder.executor import cpp
    from autograder.shared import compile_line
    from kernels.build import compiler, compiler_version, load

    out_dir = Path(os.environ["JAX_INTEROP_PREBUILT_KERNELS"])
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log"
        os.environ[compile_line.LOG_ENV] = str(log)
        os.environ["JAX_INTEROP_KERNEL_CACHE"] = str(Path(tmp) / "cache")
        source = Path(tmp) / "silu.cc"
        source.write_text(TEMPLATE + "extern \"C\" int Unused() { return 0; }\n")
        load(source)
        subprocess.run([compiler(), "-std=c++17", "-O2", "-shared", "-fPIC", "-I", jax.ffi.include_dir(),
                        "-o", str(Path(tmp) / "libplain.so"), str(source)], check=True)
        for record in sorted(log.glob("*.json")):
            data = json.loads(record.read_text())
            flags, _, _ = compile_line.judged(data["flags"])
            for unit in data["units"]:
                text = cpp.unit_text(unit)
                argv = cpp.unit_argv(unit["language"], flags)
                prefix, _ = split(text)
                target = out_dir / f"prefix-{key(prefix, argv, compiler_version(compiler()))}.pch"
                emit(compiler(), unit["language"], prefix, argv, target)
                print(f"prefix PCH {target.name} ({len(prefix) >> 10} KB of text)", file=sys.stderr)


if __name__ == "__main__":
    main()
