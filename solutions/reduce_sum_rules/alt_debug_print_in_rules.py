"""Valid: the reference with the jax.debug.print calls a student leaves in while debugging
(one in the JVP rule, one in the batching rule): under jax.jit they are host callbacks in the
compiled program, which the grader's run serves and which change no value.

score: 10
"""
def _reduce_sum_jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    jax.debug.print("jvp over axis {a}: x has shape {s}", a=axis, s=x.shape)
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)


def _reduce_sum_transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _reduce_sum_batch(batched_args, batch_dims, *, axis):
    (x,), (bd,) = batched_args, batch_dims
    jax.debug.print("batch dimension {bd}, first entry {v}", bd=bd, v=x.ravel()[0])
    x = jnp.moveaxis(x, bd, 0)
    return custom_reduce_sum_p.bind(x, axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _reduce_sum_jvp
ad.primitive_transposes[custom_reduce_sum_p] = _reduce_sum_transpose
batching.primitive_batchers[custom_reduce_sum_p] = _reduce_sum_batch
