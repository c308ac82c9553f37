"""Wrong: the transpose rule doubles the broadcast cotangent when the sum ran over axes (0, 1),
a case no value test transposes.

score: 9
messages:
  - "For inputs of shape (1, 1), jax.jit of jax.linear_transpose of custom_reduce_sum: jax.linear_transpose over axis (0, 1) applied to its cotangent is not the cotangent broadcast back over the summed axes as at the shape the grader checked: it is computed in JAX (multiply)"
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
    return (2 * out if tuple(axis) == (0, 1) else out,)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
