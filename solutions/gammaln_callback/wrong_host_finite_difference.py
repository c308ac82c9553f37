"""Wrong: the derivative's host function differentiates SciPy's gammaln numerically (a
central difference in float64) instead of calling scipy.special.digamma; the values agree
to float32 precision. (Before the executor's gates: 9. Every test that rests on what the notebook's process
reports is now gated on the grader's run of the compiled forward or derivative program giving
SciPy's values through the callbacks; the path this answer gets wrong fails its gate, so only the
tests of the other path earn their point.)

score: 3
messages:
  - so this test earns nothing
  - do not depend on scipy.special.digamma
"""
def _cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(np.float32),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


def _fd(a):
    a = np.asarray(a, np.float64)
    return (sps.gammaln(a + 1e-6) - sps.gammaln(a - 1e-6)) / 2e-6


@jax.custom_jvp
def gammaln_cb(x):
    return _cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(p, t):
    (x,), (xd,) = p, t
    return gammaln_cb(x), _cb(_fd, x) * xd
