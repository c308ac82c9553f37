"""Wrong: correct rules, but the given lowering is registered again with one that doubles the
sum (the given cell must stay as it is). While grading, the primitive lowers to the grader's
kernel whatever lowering the notebook registered, so that every compiled program shows
where the rules bind it; the notebook's own lowering is only measured, by the test of the
given primitive, which it fails. Before the grader's kernel the notebook's lowering computed
every jitted value, doubled, and the answer earned 4 points; now only that test is lost.

score: 9
messages:
  - "custom_reduce_sum_p's the lowering (under jax.jit) over axis (0, 2) differs from the reference"
"""
mlir.register_lowering(custom_reduce_sum_p,
                       mlir.lower_fun(lambda x, *, axis: 2 * jnp.sum(x, axis=axis), multiple_results=False))


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
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
