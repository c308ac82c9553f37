"""Wrong: the batching rule ignores the primitive and sums the batched operand with jnp.sum
(axis shifted correctly), so under jax.vmap the value of the sum no longer comes from
custom_reduce_sum_p, and jax.grad of a vmapped function differentiates jnp.sum instead of
going through the JVP rule. Every value is right.

score: 7
messages:
  - the batching rule must bind custom_reduce_sum_p on the batched operand, not compute the sum another way
  - "under jax.grad of a vmapped function your batching rule runs first: it must bind custom_reduce_sum_p"
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
    return jnp.sum(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
