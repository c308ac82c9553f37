"""Wrong: io_callback (meant for side effects) instead of pure_callback for both SciPy calls.
The exercise's core is SciPy through jax.pure_callback: every test presupposes it, so the
right numbers earn nothing.

score: 0
messages:
  - (an io_callback is not a pure callback)
  - gammaln_cb holds no jax.pure_callback
  - gammaln_cb uses io_callback
"""
from jax.experimental import io_callback


def _io(fn, x):
    return io_callback(lambda a: fn(np.asarray(a)).astype(np.float32),
                       jax.ShapeDtypeStruct(x.shape, x.dtype), x)


@jax.custom_jvp
def gammaln_cb(x):
    return _io(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _io(sps.digamma, x) * t
