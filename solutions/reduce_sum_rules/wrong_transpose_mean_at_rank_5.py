"""Wrong: for operands of rank 5 and beyond the transpose rule divides the broadcast cotangent
by the number of entries each sum adds (the transpose of a mean, not of a sum). Every value
is right at the ranks the tests run; the grader lowers jax.linear_transpose at every rank from
1 to 8 without running it, where the transpose of a rank-5 sum does math that it does not do
at the shape the grader checked.

score: 9
messages:
  - "jax.jit of jax.linear_transpose of custom_reduce_sum: jax.linear_transpose over axis (0,) applied to its cotangent is not the cotangent broadcast back over the summed axes as at the shape the grader checked: it is computed in JAX (divide)"
"""
import math


def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)


def _transpose(ct, x, *, axis):
    shape = x.aval.shape
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    back = jnp.broadcast_to(jnp.expand_dims(ct, axis), shape)
    if len(shape) >= 5:
        back = back / math.prod(shape[a] for a in axis)
    return (back,)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
