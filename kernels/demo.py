"""A short tour of the chapter's kernels inside the image: what each lowers to, and
whether it matches its NumPy float64 reference under jit, grad and vmap.

    make demo
"""
import time

import jax
import jax.numpy as jnp
import numpy as np

from autograder.shared import stablehlo
from kernels import custom_op, rms_norm


def _row(name, ok, detail):
    print(f"  {'ok ' if ok else 'BAD'} {name:34s} {detail}")
    return ok


def main() -> int:
    print(f"JAX {jax.__version__} on {jax.default_backend()}; "
          f"rms_norm library {'from the prebuilt cache' if rms_norm.library.cached else 'compiled now'}")
    x = jax.random.normal(jax.random.key(0), (8, 64))
    ref = rms_norm.rms_norm_np64(x)
    results = []
    calls = stablehlo.custom_calls(jax.jit(rms_norm.rms_norm).lower(x))
    results.append(_row("rms_norm lowering", [c.target for c in calls] == ["rms_norm"],
                        ", ".join(f"{c.target} ({c.kind}, eps={c.attributes['eps'].value:.0e}:"
                                  f"{c.attributes['eps'].type})" for c in calls)))
    err = float(np.max(np.abs(np.asarray(jax.jit(rms_norm.rms_norm)(x)) - ref)))
    results.append(_row("rms_norm under jit", err < 1e-5, f"max error vs float64 {err:.1e}"))
    g = jax.jit(jax.grad(lambda v: rms_norm.rms_norm(v).sum()))(x)
    results.append(_row("rms_norm grad is finite", bool(jnp.all(jnp.isfinite(g))), f"shape {g.shape}"))
    xb = jax.random.normal(jax.random.key(1), (5, 8, 64))
    err = float(np.max(np.abs(np.asarray(jax.vmap(rms_norm.rms_norm)(xb)) - rms_norm.rms_norm_np64(xb))))
    results.append(_row("rms_norm under vmap", err < 1e-5, f"max error vs float64 {err:.1e}"))
    v = jnp.arange(1.0, 5.0)
    y = jax.jit(custom_op.custom_op_jax)(v)
    results.append(_row("custom_op (ctypes + pure_callback)", np.array_equal(y, [11, 14, 19, 26]),
                        f"{np.asarray(y).tolist()}"))
    f = jax.jit(rms_norm.rms_norm)
    f(x).block_until_ready()
    t0 = time.perf_counter()
    for _ in range(100):
        out = f(x)
    out.block_until_ready()
    print(f"  rms_norm (8, 64) under jit: {(time.perf_counter() - t0) * 1e4:.1f} us per call")
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
