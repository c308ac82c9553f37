"""Wrong: turns on jax_enable_x64 so that float64 results can be declared, keeping SciPy's
double precision; every value is right, but float32 input now gives float64 values and
gradients. jax.config is outside the readable
subset (autograder/shared/readable.py: it can point JAX's caches at any path), so the runner
does not run the notebook.

score: 0
messages:
  - your notebook uses code this task's answers may not use
  - it uses the attribute config
"""
jax.config.update("jax_enable_x64", True)


def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a, np.float64)),
                             jax.ShapeDtypeStruct(x.shape, np.float64), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _cb(sps.digamma, x) * t
