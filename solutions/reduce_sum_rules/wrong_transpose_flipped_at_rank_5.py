"""Wrong: from rank 5 on, the transpose rule's broadcast comes back reversed along the last
axis: each entry of the cotangent lands at another position.

score: 9
messages:
  - "For inputs of shape (2, 3, 5, 7, 11), jax.jit of jax.linear_transpose of custom_reduce_sum: element (0, 0, 0, 0, 0) of jax.linear_transpose over axis (0,) applied to its cotangent comes from element (0, 0, 0, 10) of the cotangent, not from element (0, 0, 0, 0)"
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
    out = jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape)
    return (jnp.flip(out, -1) if out.ndim >= 5 else out,)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
