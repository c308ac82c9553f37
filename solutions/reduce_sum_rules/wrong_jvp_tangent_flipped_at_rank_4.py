"""Wrong: from rank 4 on, the JVP rule's tangent comes back flipped along its first kept axis:
each tangent entry is the sum of another row of the tangent. Values are checked at ranks up to
3; the grader follows where each element of every output comes from at every rank.

score: 9
messages:
  - "For inputs of shape (2, 3, 5, 7), jax.jit of jax.jvp of custom_reduce_sum: element (0, 0, 0) of the tangent of jax.jvp over axis (0,) comes from element (0, 2, 0, 0) of the tangent, not from element (0, 0, 0, 0)"
"""
def _flip_first(y):
    return jnp.flip(y, 0) if y.ndim else y


def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    dy = custom_reduce_sum_p.bind(t, axis=axis)
    return y, _flip_first(dy) if x.ndim >= 4 else dy


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
