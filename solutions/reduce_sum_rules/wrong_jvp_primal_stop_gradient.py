"""Wrong: the JVP rule returns its primal output through lax.stop_gradient. Every value and
every first-order derivative is right; only a second derivative, which differentiates the
JVP's primal output again, sees that it was detached.

score: 9
messages:
  - The outer tangent of the primal output of jax.jvp of jax.jvp of custom_reduce_sum(x * x) over axis (0,) differs from the reference
"""
def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = jax.lax.stop_gradient(custom_reduce_sum_p.bind(x, axis=axis))
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
