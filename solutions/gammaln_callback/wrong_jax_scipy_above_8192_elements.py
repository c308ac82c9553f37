"""Wrong: calls SciPy through pure_callback up to 8192 elements, a little more than the
largest input the grader drew before (72 x 72 = 5184), and computes with jax.scipy above,
in the forward pass and in the derivative. Every value is right at every size; the grader
now also compiles the paths for 16384 elements.

score: 7
messages:
  - The values of jax.jit(gammaln_cb) on 16384 elements do not come from its pure_callback
  - The values of jax.jit(jax.grad(gammaln_cb)) on 16384 elements do not come from its pure_callback calls
  - The compiled program of jax.jit(gammaln_cb) on a float32 input of shape (128, 128) computes math outside the callbacks
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    if x.size <= 8192:
        return _cb(sps.gammaln, x)
    return jax.scipy.special.gammaln(x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = _cb(sps.digamma, x) if x.size <= 8192 else jax.scipy.special.digamma(x)
    return gammaln_cb(x), psi * t
