"""Wrong: the derivative's host function calls SciPy's digamma up to 8192 elements and,
above, a short series of its own: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 6,
then the asymptotic expansion ln x - 1/(2x) - 1/(12x^2) + 1/(120x^4) - 1/(252x^6), in
float64. Its values pass the tolerance at every size, and every program is the reference's
at every shape: the branch is inside the host function, and every input a program is run
on (71 x 71 at most) is smaller. The grader's direct call of the host function on 2^20 + 3
values, with SciPy's digamma poisoned on those values, returns the same values: the
derivative's test loses its point, nothing else, and always with the message below.

score: 9
messages:
  - The derivative callback
  - A host function of jax.grad(gammaln_cb), called directly on 1,048,579 values over the whole domain, does not take its values from scipy.special.digamma
"""
def _psi_series(a):
    x = a.astype(np.float64)
    shift = np.zeros_like(x)
    for _ in range(6):
        small = x < 6.0
        shift = np.where(small, shift - 1.0 / x, shift)
        x = np.where(small, x + 1.0, x)
    f = 1.0 / (x * x)
    return shift + np.log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f / 252))


def _host_gammaln(a):
    a = np.asarray(a)
    return sps.gammaln(a).astype(a.dtype)


def _host_digamma(a):
    a = np.asarray(a)
    if a.size > 8192:
        with np.errstate(all="ignore"):
            return _psi_series(a).astype(a.dtype)
    return sps.digamma(a).astype(a.dtype)


@jax.custom_jvp
def gammaln_cb(x):
    return jax.pure_callback(_host_gammaln, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    psi = jax.pure_callback(_host_digamma, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                            vmap_method="expand_dims")
    return gammaln_cb(x), psi * t
