"""Valid: a batching rule that leaves the batch dimension where it is and shifts the axes
around it; the output's batch dimension is reported where it ends up.

score: 10
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
    shifted = tuple(a if a < bd else a + 1 for a in axis)       # skip over the batch dimension
    out_bd = bd - sum(1 for a in shifted if a < bd)             # summed axes before it disappear
    return custom_reduce_sum_p.bind(x, axis=shifted), out_bd


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
