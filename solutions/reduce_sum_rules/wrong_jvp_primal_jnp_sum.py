"""Wrong: the JVP rule computes its primal output with jnp.sum instead of binding
custom_reduce_sum_p, so under jax.jvp the value of the sum no longer comes from the
primitive (the task says the primal output is custom_reduce_sum_p.bind(x, axis=axis)).
Every value is right.

score: 7
messages:
  - The values of the primal output of jax.jvp of custom_reduce_sum do not come from custom_reduce_sum_p (its given implementation)
  - your JVP rule must return custom_reduce_sum_p.bind(x, axis=axis) as its primal output
"""
def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = jnp.sum(x, axis=axis)
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
