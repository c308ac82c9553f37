"""Valid: the batching rule takes the examples through a reversed index array (a gather) and
scatters the sums back through it into zeros (every example written): the reading follows
both at every shape (shared/gathers.py; the vmapped programs were run instead before).

score: 10
"""
def _reduce_sum_jvp(primals, tangents, *, axis):
    # BEGIN SOLUTION
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)       # linear: same primitive on ẋ
    # END SOLUTION


def _reduce_sum_transpose(ct, x, *, axis):
    # BEGIN SOLUTION
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)
    # END SOLUTION


def _reduce_sum_batch(batched_args, batch_dims, *, axis):
    # BEGIN SOLUTION
    (x,), (bd,) = batched_args, batch_dims
    x = jnp.moveaxis(x, bd, 0)                               # batch dimension first
    back = jnp.arange(x.shape[0])[::-1]                      # the examples in reverse, and back
    y = custom_reduce_sum_p.bind(jnp.take(x, back, axis=0), axis=tuple(a + 1 for a in axis))
    return jnp.zeros_like(y).at[back].set(y), 0
    # END SOLUTION


# BEGIN SOLUTION
ad.primitive_jvps[custom_reduce_sum_p] = _reduce_sum_jvp
ad.primitive_transposes[custom_reduce_sum_p] = _reduce_sum_transpose
batching.primitive_batchers[custom_reduce_sum_p] = _reduce_sum_batch
# END SOLUTION
