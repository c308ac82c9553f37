"""Wrong: the batching rule negates the vmapped sum when the batch holds more than 5
examples. Every value is right at the batch sizes the tests run (2 to 5); the grader lowers
jax.vmap at batch sizes from 1 to 65 without running it, where a batch of 6 negates each
example's sum.

score: 9
messages:
  - "For inputs of shape (6, 1), jax.jit of jax.vmap of custom_reduce_sum: jax.vmap with the batch dimension at 0, summing axis (0,), is not the output of custom_reduce_sum_p (a custom_call to the grader's kernel): it is computed in JAX (negate) from the output of __grader_reduce_sum__"
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
    out = custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis))
    return (-out if x.shape[bd] > 5 else out), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
