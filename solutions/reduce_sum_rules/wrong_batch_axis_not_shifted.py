"""Wrong: the batch dimension is moved to the front but axis is not shifted, so the rule
sums over the batch dimension instead.

score: 7
messages:
  - axis must shift with the batch dimension, and the rule must return where the output batch dimension is
  - "raised an XLA error: the compiled program's input 0 is f32[3,4], but it was given f32[2,4]"
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
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=axis), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
