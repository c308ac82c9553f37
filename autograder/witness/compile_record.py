"""Every compiler run of the notebook, recorded as it happens, for the grader to build again.

    python -I -m autograder.witness.compile_record REAL_COMPILER ARG...

In the grading image the compiler's names (clang++, g++, c++, clang, cc, by name or by
/usr/bin path) are a small script (autograder/authoring/compiler_wrapper.py) that runs the real compiler
directly unless $JAX_INTEROP_COMPILE_LOG names a folder, which the grader's witness sets
(autograder/runner/sandbox.py). So a compile from `subprocess`, `!clang++`, `%%bash`,
`os.system`, the course's load_and_register or a build tool (make, CMake) comes here. This
runs the real command unchanged (same arguments, output and exit status) and, beside it,
the preprocessor on each source with the same options, then writes one record into the
folder: the command's options, each translation unit as the compiler saw it (preprocessed:
headers of any name and any include folder are inside it), and the sha256 of each file the
command wrote and of each object it linked. The executor builds those units with those
options (autograder/executor/recorded.py) into the library that the notebook's registration
names by the same sha256 (autograder/witness/registry.py).

Runs as the student, so a record is the student's word, like the C++ it holds: the grader
compiles it in its own process, with the options it honours, and runs what that makes.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib

from autograder.shared import compile_line

def main(argv: list[str]) -> int:
    real, args = argv[0], argv[1:]
    folder = os.environ.get(compile_line.LOG_ENV)
    line = compile_line.parse(args, cxx_driver=os.path.basename(real).endswith("++"))
    outputs = line.outputs()
    if not all(s.path == "-" or os.path.isfile(s.path) for s in line.sources):
        outputs = []   # a source that is a pipe (`<(...)`) can be read once only: the compile's
    try:
        if folder and outputs:
            os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        folder = None
    if not folder or not outputs:
        os.execv(real, [real, *args])
    # A source read from standard input (`-x c++ -`) is read once and given to both.
    stdin = sys.stdin.buffer.read() if any(s.path == "-" for s in line.sources) else None
    try:
        preprocessing = [_preprocess(real, line, source, stdin is not None, folder) for source in line.sources]
    except OSError:   # no room to record: the compile alone
        preprocessing, outputs = [], []
    status = subprocess.run([real, *args], input=stdin).returncode
    if not outputs:
        return status
    try:
        units = [_unit(source, proc, stdin if source.path == "-" else None)
                 for source, proc in zip(line.sources, preprocessing)]
        if status == 0:
            _write(folder, {"cwd": os.getcwd(), "compiler": os.path.basename(real), "flags": line.flags,
                            "units": units, "outputs": [_output(path, sources, line) for path, sources in outputs],
                            "inputs": [_input(arg) for arg in line.inputs]})
    except Exception:  # recording must never change what the notebook's compile did
        pass
    return status


def _preprocess(real: str, line: compile_line.CompileLine, source: compile_line.Source,
                piped: bool, folder: str) -> subprocess.Popen:
    """The preprocessor on `source` with the command's own options, started beside the real
    compile (it takes a tenth of its time), into a file of `folder` (`proc.unit`)."""
    fd, unit = tempfile.mkstemp(suffix=".ii", dir=folder)
    os.close(fd)
    proc = subprocess.Popen([real, *line.preprocess, "-E", "-x", source.language, source.path, "-o", unit],
                            stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    proc.unit = unit
    return proc


def _unit(source: compile_line.Source, proc: subprocess.Popen, stdin: bytes | None) -> dict:
    _, errors = proc.communicate(stdin)
    with open(proc.unit, "rb") as f:
        text = f.read()
    os.unlink(proc.unit)
    unit = {"source": source.path, "language": source.language}
    if proc.returncode != 0:
        return {**unit, "error": errors.decode(errors="replace")[-2000:] or "the preprocessor failed"}
    return {**unit, "sha256": hashlib.sha256(text).hexdigest(),
            "text": base64.b64encode(zlib.compress(text, 1)).decode()}


def _output(path: str, sources: list, line: compile_line.CompileLine) -> dict:
    return {"path": os.path.realpath(path), "sha256": compile_line.digest(path), "shared": line.shared,
            "object": line.compile_only, "units": [line.sources.index(s) for s in sources]}


def _input(arg: str) -> dict:
    if arg.startswith("-l"):
        return {"arg": arg}
    found = {"arg": arg, "path": os.path.realpath(arg), "sha256": compile_line.digest(arg)}
    if arg.endswith(".a"):   # a static library: its objects, each made by an earlier recorded run
        found["members"] = _members(arg)
    return found


def _members(path: str) -> list[str] | None:
    """The sha256 of each object in the ar archive `path` (GNU's and BSD's formats), None
    when it is not one. Written by hand: Python has no ar reader, and a member is stored
    as its bytes, so the digests are those of the objects the archive was made from."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if not data.startswith(b"!<arch>\n"):
        return None
    members, at = [], 8
    while at + 60 <= len(data):
        name, size = data[at:at + 16].rstrip(), int(data[at + 48:at + 58])
        body = data[at + 60:at + 60 + size]
        at += 60 + size + size % 2
        if name.startswith(b"#1/"):   # BSD: the name is the start of the body
            body = body[int(name[3:]):]
        elif name in (b"/", b"//", b"/SYM64/", b"__.SYMDEF", b"__.SYMDEF SORTED"):   # symbol and name tables
            continue
        members.append(hashlib.sha256(body).hexdigest())
    return members


def _write(folder: str, record: dict) -> None:
    """One record per run, written whole under a temporary name and renamed into place."""
    name = os.path.join(folder, f"{time.time_ns()}-{os.getpid()}")
    with open(name + ".tmp", "w") as f:
        json.dump(record, f)
    os.replace(name + ".tmp", name + ".json")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
