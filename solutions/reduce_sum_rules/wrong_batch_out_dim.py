"""Wrong: the rule moves the batch dimension to 0 but reports the input's position as the
output's batch dimension.

score: 8
messages:
  - axis must shift with the batch dimension, and the rule must return where the output batch dimension is
  - has shape (4, 3, 5), expected (3, 4, 5)
"""
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
    out = custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis))
    return out, min(bd, out.ndim - 1)


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
