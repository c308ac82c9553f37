"""Valid: each callback sits in a jax.jit of its own (static in SciPy's function), receives
the input flattened and is batched one example at a time (vmap_method="sequential", a while
loop under vmap); its result is reshaped back. Nested jit, reshapes and the loop are
control flow and moves of data, at every shape.

score: 10
"""
import functools


def _host(fn):
    return lambda a: fn(np.asarray(a)).astype(np.float32)


@functools.partial(jax.jit, static_argnums=0)
def _call(fn, x):
    flat = x.reshape(-1)
    out = jax.pure_callback(_host(fn), jax.ShapeDtypeStruct(flat.shape, jnp.float32), flat,
                            vmap_method="sequential")
    return out.reshape(x.shape)


@jax.custom_jvp
def gammaln_cb(x):
    return _call(sps.gammaln, x)


@gammaln_cb.defjvp
def _jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return gammaln_cb(x), _call(sps.digamma, x) * t
