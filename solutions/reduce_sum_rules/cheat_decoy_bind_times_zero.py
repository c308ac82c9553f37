"""Cheat: custom_reduce_sum binds custom_reduce_sum_p, but only as a decoy multiplied by zero
beside jnp.sum, which computes every value (and its derivatives and batching). The
primitive is in every jaxpr and correct rules are registered.

score: 0
messages:
  - "The values of custom_reduce_sum(x, (0, 2)) do not come from custom_reduce_sum_p (its given implementation)"
  - do not come from your JVP rule
"""
_given_custom_reduce_sum = custom_reduce_sum


def custom_reduce_sum(x, axis):
    return jnp.sum(x, axis=axis) + 0 * _given_custom_reduce_sum(x, axis)


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
