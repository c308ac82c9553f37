"""Put the compile recorder in front of the C and C++ compiler (the image build and the
autograder zip's setup.sh run this once, as root).

    python -m autograder.authoring.compiler_wrapper

Every name a notebook may call the compiler by (clang, clang++, their versioned names, g++;
c++ and cc reach clang++ and clang through Debian's alternatives) becomes a link to one small
script: outside a grading it is the compiler itself; in a grading, whose witness sets
$JAX_INTEROP_COMPILE_LOG (autograder.shared.compile_line.LOG_ENV), each run goes through
autograder/witness/compile_record.py, which runs it unchanged and records it for the grader.
The real compiler stays in LLVM's own folder, where the script calls it.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.shared import compile_line

WRAPPER = Path("/usr/local/lib/compiler-wrapper")
SCRIPT = """#!/bin/sh
# The C and C++ compiler under every name a notebook may call it by, put here by
# autograder/authoring/compiler_wrapper.py: the compiler itself, except in a grading (see there).
case "${{0##*/}}" in
  *++*) real={real}++ ;;
  *)    real={real} ;;
esac
[ -n "${env}" ] || exec "$real" "$@"
exec {python} -I -m autograder.witness.compile_record "$real" "$@"
"""


def names() -> list[str]:
    """The compiler's names to put the wrapper under."""
    found = ["/usr/bin/clang", "/usr/bin/clang++", *glob.glob("/usr/bin/clang-[0-9]*"),
             *glob.glob("/usr/bin/clang++-[0-9]*")]
    return [n for n in found if os.path.lexists(n)] + ["/usr/local/bin/g++"]


def main() -> None:
    clang = shutil.which("clang")
    real = os.path.realpath(clang) if clang else ""
    if os.path.realpath(clang or "") == str(WRAPPER):
        return   # in place already
    if not real or not os.path.exists(real + "++"):
        sys.exit("compiler_wrapper: no clang and clang++ found")
    WRAPPER.write_text(SCRIPT.format(real=real, env=compile_line.LOG_ENV, python=sys.executable))
    WRAPPER.chmod(0o755)
    for name in names():
        if os.path.lexists(name):
            os.unlink(name)
        os.symlink(WRAPPER, name)
    version = lambda cmd: subprocess.run([cmd, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    if version("c++") != version(real + "++"):
        sys.exit("compiler_wrapper: c++ does not reach the wrapped compiler")


if __name__ == "__main__":
    main()
