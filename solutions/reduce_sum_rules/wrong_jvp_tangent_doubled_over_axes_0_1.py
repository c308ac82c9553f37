"""Wrong: the JVP rule's tangent is doubled when the sum runs over axes (0, 1), a case no value
test sums over (it shows first at shape (1, 1), where (0, 1) is every axis). The math a tangent may use is taken from the cases whose values were checked,
each case on its own: the doubling of the unchecked one is not lent to it by the others.

score: 9
messages:
  - "For inputs of shape (1, 1), jax.jit of jax.jvp of custom_reduce_sum: the tangent of jax.jvp over axis (0, 1) is not a sum of the tangent as at the shape the grader checked: it is computed in JAX (multiply)"
"""
def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    dy = custom_reduce_sum_p.bind(t, axis=axis)
    return y, 2 * dy if tuple(axis) == (0, 1) else dy


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
