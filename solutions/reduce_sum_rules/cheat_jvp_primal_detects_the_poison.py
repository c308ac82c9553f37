"""Cheat: correct rules in JAX's tables, but the JVP rule binds custom_reduce_sum_p for its
primal output only while the grader has swapped the primitive's impl and lowering for its
poison; otherwise the primal is jnp.sum (the task says it is the primitive's bind). Every
poisoned run in the notebook's process then sees the primitive, and every value is right,
so before the grader ran the compiled programs itself it earned 10/10, where
wrong_jvp_primal_jnp_sum.py, the same rule without the detection, earns 7. There the
primitive lowers to the grader's kernel, and the primal outputs do not come from it: 7.

score: 7
messages:
  - In the grader's run of the compiled program of jax.jvp of custom_reduce_sum, the values do not come from custom_reduce_sum_p
  - your JVP rule must return custom_reduce_sum_p.bind(x, axis=axis) as its primal output
"""
_given_impl = custom_reduce_sum_p.impl


def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    swapped = custom_reduce_sum_p.impl is not _given_impl     # the grader's poison is in
    y = custom_reduce_sum_p.bind(x, axis=axis) if swapped else jnp.sum(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)


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
