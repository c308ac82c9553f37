"""Compile to bytecode, once, when the image is built, the modules a grading imports.

    python -I -m autograder.authoring.bytecode

The image keeps no __pycache__ (PYTHONDONTWRITEBYTECODE, and the venv's is deleted: all of it
is ~200 MB), so every grading compiled JAX, NumPy, Otter and the rest from source, in the
runner and again in the witness: ~2.8 s of each grading (runner start 1.1 -> 0.5 s, witness
start 3.2 -> 1.1 s, measured in the image). This imports what a grading imports and runs a
small JAX workload (jit, grad, vmap, a host callback, lowering, export) so that the modules
JAX loads on first use are compiled too: ~20 MB of .pyc. `python -I` ignores
PYTHONDONTWRITEBYTECODE. The files are root's and read-only for the student.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys

MODULES = ("jax", "jax.numpy", "jax.test_util", "jax.ffi", "jax.export", "scipy.special",
           "IPython.core.interactiveshell", "traitlets.config", "nbformat", "kernels.build")


def workload() -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    def host(v):
        return np.asarray(v) * 2

    def f(v):
        y = jax.pure_callback(host, jax.ShapeDtypeStruct(v.shape, v.dtype), v, vmap_method="sequential")
        return jnp.sum(jnp.sin(v) * y)

    x = jnp.linspace(0.1, 1.0, 6, dtype=jnp.float32).reshape(2, 3)
    jax.jit(f)(x).block_until_ready()
    jax.vmap(jax.grad(lambda v: jnp.sum(jnp.sin(v))))(x).block_until_ready()
    jax.jit(jax.grad(lambda v: jnp.sum(v * v))).lower(x).compile().as_text()
    jax.export.export(jax.jit(jnp.sin))(x).mlir_module()
    jax.make_jaxpr(jax.vmap(f))(x)


def main() -> int:
    if sys.flags.dont_write_bytecode:
        print("run with python -I: bytecode writing is off", file=sys.stderr)
        return 1
    import autograder
    for info in pkgutil.walk_packages(autograder.__path__, "autograder."):
        if not info.name.startswith(("autograder.host", "autograder.authoring", "autograder.student")):
            importlib.import_module(info.name)
    for name in MODULES:
        importlib.import_module(name)
    workload()
    print(f"{len(sys.modules)} modules imported and compiled to bytecode")
    return 0


if __name__ == "__main__":
    sys.exit(main())
