"""Cheat: correct rules in JAX's tables, but the batching rule binds custom_reduce_sum_p only
while the grader has swapped a piece of the primitive for its poison (the primitive's impl
or its JVP rule is not what this cell gave it); otherwise it sums with jnp.sum.
Every poisoned run in the notebook's process then sees the primitive, and every value is
right, so before the grader ran the compiled programs itself it earned 10/10. There the
primitive lowers to the grader's kernel, and no vmapped sum comes from it.

score: 7
messages:
  - In the grader's run of the compiled program of jax.vmap of custom_reduce_sum, the values do not come from custom_reduce_sum_p
  - In the grader's run of the compiled program of vmap of a loss through custom_reduce_sum, the values do not come from custom_reduce_sum_p
"""
_given_impl = custom_reduce_sum_p.impl


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


def _poisoned():
    """Whether the grader swapped the primitive's impl or its JVP rule for its poison."""
    return custom_reduce_sum_p.impl is not _given_impl or ad.primitive_jvps.get(custom_reduce_sum_p) is not _jvp


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    x, shifted = jnp.moveaxis(x, bd, 0), tuple(a + 1 for a in axis)
    if _poisoned():
        return custom_reduce_sum_p.bind(x, axis=shifted), 0
    return jnp.sum(x, axis=shifted), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
