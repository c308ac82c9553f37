"""Wrong: for operands of rank 5 and more, the batching rule returns the batch in reverse
order: each example's sum lands at another example's place.

score: 9
messages:
  - "For inputs of shape (3, 1, 1, 1, 1), jax.jit of jax.vmap of custom_reduce_sum: element (0, 0, 0, 0) of jax.vmap with the batch dimension at 0, summing axis (0,), comes from element (2, 0, 0, 0, 0) of its input, not from element (0, 0, 0, 0, 0)"
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
    return (jnp.flip(out, 0) if x.ndim >= 5 else out), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
