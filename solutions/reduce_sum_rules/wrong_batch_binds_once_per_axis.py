"""Wrong: the batching rule sums the example's axes with one bind per axis, each over a
single shifted axis, where the task asks for one bind with the shifted axis. Every value is
right and comes from the primitive; only the compiled program shows it: a bind that adds
fewer entries than the sum it stands for (the grader reads each custom_call's axis and
operand shape). One axis at a time is fine, so only the test that sums two axes under vmap
sees it. Before the grader's kernel it earned 10/10.

score: 9
messages:
  - binds custom_reduce_sum_p over axis (3,) of an operand of shape
  - where the sum adds
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
    x = jnp.moveaxis(x, bd, 0)
    for a in sorted(axis, reverse=True):            # the last axis first, so the others keep their numbers
        x = custom_reduce_sum_p.bind(x, axis=(a + 1,))
    return x, 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
