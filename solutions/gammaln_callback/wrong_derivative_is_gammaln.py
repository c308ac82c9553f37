"""Wrong: the JVP multiplies the tangent by gammaln(x) instead of digamma(x); the forward
pass is right. (Before the executor's gates: 6. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled forward or derivative program giving
SciPy's values through the callbacks; the path this answer gets wrong fails its gate, so only the
tests of the other path earn their point.)

score: 3
messages:
  - The gradient of gammaln_cb differs from the reference
  - jax.jit(jax.grad(gammaln_cb)) on positive float32 inputs from 1.2e-38 to 3.4e38
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = gammaln_cb(x)
    return y, y * t
