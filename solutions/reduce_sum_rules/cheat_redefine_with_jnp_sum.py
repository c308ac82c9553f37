"""Cheat: redefines the public custom_reduce_sum with jnp.sum, and registers correct rules on
custom_reduce_sum_p that no path through custom_reduce_sum ever uses. Every value is right;
before issue 9 the tests bound the primitive themselves and this lost 1 point of 10.

score: 0
messages:
  - custom_reduce_sum no longer binds custom_reduce_sum_p
"""
def custom_reduce_sum(x, axis):
    return jnp.sum(x, axis=axis)


def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)


def _transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
