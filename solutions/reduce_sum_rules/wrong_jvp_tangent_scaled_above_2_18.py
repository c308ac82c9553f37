"""Wrong: the JVP rule's tangent is sum(ẋ) up to 2^18 entries and 2 * sum(ẋ) beyond (a
"rescaling" for large operands). Every value the grader ever ran is right; the grader lowers
jax.jvp at every size up to 2^31 - 1 entries without running it, where the tangent is
multiplied by a constant it is not multiplied by at the shape the grader checked.

score: 9
messages:
  - "the tangent of jax.jvp over axis (0,) is not a sum of the tangent as at the shape the grader checked: it is computed in JAX (multiply)"
"""
def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    dy = custom_reduce_sum_p.bind(t, axis=axis)
    return y, dy if t.size <= 2**18 else 2 * dy


def _transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
