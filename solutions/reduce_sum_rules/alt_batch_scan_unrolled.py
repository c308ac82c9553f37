"""Valid: the batching rule scans over the examples with jax.lax.scan(..., unroll=2), binding
the primitive on each.

score: 10
"""
def _reduce_sum_jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)       # linear: same primitive on ẋ


def _reduce_sum_transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _reduce_sum_batch(batched_args, batch_dims, *, axis):
    (x,), (bd,) = batched_args, batch_dims
    x = jnp.moveaxis(x, bd, 0)
    return jax.lax.scan(lambda c, e: (c, custom_reduce_sum_p.bind(e, axis=axis)), 0.0, x, unroll=2)[1], 0

ad.primitive_jvps[custom_reduce_sum_p] = _reduce_sum_jvp


ad.primitive_transposes[custom_reduce_sum_p] = _reduce_sum_transpose
batching.primitive_batchers[custom_reduce_sum_p] = _reduce_sum_batch
