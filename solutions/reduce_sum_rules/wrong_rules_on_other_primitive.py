"""Wrong: correct rules, registered on a primitive of the answer's own (same name, same
implementation and lowering) that a redefined custom_reduce_sum binds; the given
custom_reduce_sum_p is left untouched, without rules. Every value is right.

score: 0
messages:
  - custom_reduce_sum no longer binds custom_reduce_sum_p
"""
my_reduce_sum_p = Primitive("custom_reduce_sum")
my_reduce_sum_p.def_impl(lambda x, *, axis: jnp.sum(x, axis=axis))
my_reduce_sum_p.def_abstract_eval(_custom_reduce_sum_abstract_eval)
mlir.register_lowering(my_reduce_sum_p,
                       mlir.lower_fun(lambda x, *, axis: jnp.sum(x, axis=axis), multiple_results=False))


def custom_reduce_sum(x, axis):
    axis = tuple(sorted(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,))))
    return my_reduce_sum_p.bind(x, axis=axis)


def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = my_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, my_reduce_sum_p.bind(t, axis=axis)


def _transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return my_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[my_reduce_sum_p] = _jvp
ad.primitive_transposes[my_reduce_sum_p] = _transpose
batching.primitive_batchers[my_reduce_sum_p] = _batch
