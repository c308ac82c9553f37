"""Valid: the JVP rule's tangent is jnp.tensordot of the tangent with ones over the summed axes:
a sum by another name (dot_general against a constant of ones), linear in the tangent.

score: 10
"""
def _reduce_sum_jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    kept = [a for a in range(t.ndim) if a not in axis]
    moved = jnp.transpose(t, (*kept, *axis))
    ones = jnp.ones(tuple(t.shape[a] for a in axis), t.dtype)
    return y, jnp.tensordot(moved, ones, axes=len(axis))

def _reduce_sum_transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _reduce_sum_batch(batched_args, batch_dims, *, axis):
    (x,), (bd,) = batched_args, batch_dims
    x = jnp.moveaxis(x, bd, 0)                               # batch dimension first
    return custom_reduce_sum_p.bind(x, axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _reduce_sum_jvp


ad.primitive_transposes[custom_reduce_sum_p] = _reduce_sum_transpose
batching.primitive_batchers[custom_reduce_sum_p] = _reduce_sum_batch
