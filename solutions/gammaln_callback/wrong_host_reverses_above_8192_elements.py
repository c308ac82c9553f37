"""Wrong: the host function of both callbacks returns SciPy's values in reverse order above
8192 elements (the flattened result read backwards). Every program is the reference's at
every shape, and every input a program is run on is smaller; the grader's direct calls of
the host functions on 2^20 + 3 values compare element by element, so the forward values and
the derivative each lose their test.

score: 8
messages:
  - A host function of gammaln_cb, called directly on 1,048,579 values over the whole domain
  - A host function of jax.grad(gammaln_cb), called directly on 1,048,579 values over the whole domain
  - differs from the reference
"""
def _scipy_cb(fn, x):
    def host(a):
        a = np.asarray(a)
        y = fn(a).astype(a.dtype)
        return y.ravel()[::-1].reshape(a.shape) if a.size > 8192 else y
    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _scipy_cb(sps.digamma, x) * t
