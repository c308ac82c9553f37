"""Valid: the transpose reshapes the cotangent to keepdims form and broadcasts with an
add; the zero tangent is instantiated instead of kept symbolic; the batching rule
moves the batch dimension last.

score: 10
"""
def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    t = ad.instantiate_zeros(t)
    return custom_reduce_sum_p.bind(x, axis=axis), custom_reduce_sum_p.bind(t, axis=axis)


def _transpose(ct, x, *, axis):
    shape = x.aval.shape
    ct = ad.instantiate_zeros(ct)
    keep = tuple(1 if i in axis else d for i, d in enumerate(shape))
    return (jnp.reshape(ct, keep) + jnp.zeros(shape, ct.dtype),)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    x = jnp.moveaxis(x, bd, -1)                                  # batch dimension last
    out = custom_reduce_sum_p.bind(x, axis=axis)                 # original axes keep their numbers
    return out, out.ndim - 1


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
