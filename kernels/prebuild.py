"""Compiles every kernel of this package into the cache, the precompiled ffi.h header
(kernels.build.precompile_header) and the dynamic loader's audit module the grading
processes run with (loaded_audit.c: a copy of every library a notebook loads); run when the
image is built.

    python -m kernels.prebuild
"""
import shutil
import subprocess
from pathlib import Path

from kernels.build import build, precompile_header, writable_cache_dir

from autograder.shared.linkmap import AUDIT_MODULE

if __name__ == "__main__":
    here = Path(__file__).parent
    for source in sorted([*here.glob("*.cc"), *here.glob("*.cpp")]):
        path, cached = build(source)
        print(f"{source.name}: {'cached' if cached else 'built'} {path}")
    print(f"ffi.h precompiled: {precompile_header(writable_cache_dir())}")
    audit = writable_cache_dir() / AUDIT_MODULE
    cc = shutil.which("clang") or shutil.which("cc") or "cc"
    subprocess.run([cc, "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o", str(audit), str(here / "loaded_audit.c")],
                   check=True)
    print(f"audit module: {audit}")
