"""Compiles every kernel of this package into the cache, and the precompiled ffi.h header
(kernels.build.precompile_header); run when the image is built.

    python -m kernels.prebuild
"""
from pathlib import Path

from kernels.build import build, precompile_header, writable_cache_dir

if __name__ == "__main__":
    here = Path(__file__).parent
    for source in sorted([*here.glob("*.cc"), *here.glob("*.cpp")]):
        path, cached = build(source)
        print(f"{source.name}: {'cached' if cached else 'built'} {path}")
    print(f"ffi.h precompiled: {precompile_header(writable_cache_dir())}")
