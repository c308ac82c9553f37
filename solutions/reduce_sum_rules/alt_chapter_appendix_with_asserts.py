"""Valid: the chapter's appendix solution of Exercise 1 pasted verbatim, with the
self-check asserts the chapter writes after it (np.testing.assert_allclose, check_grads) and its print.

score: 10
"""
# Reference solution: Exercise 1 — JVP / transpose / batching for custom_reduce_sum
def _reduce_sum_jvp(primals, tangents, *, axis):
    x, = primals; t, = tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)          # linear: the tangent uses this primitive too

def _reduce_sum_transpose(ct, x, *, axis):
    assert ad.is_undefined_primal(x)
    shape = x.aval.shape
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), shape),)   # broadcast back to the input shape

def _reduce_sum_batch(args, dims, *, axis):
    x, = args; bd, = dims
    x = jnp.moveaxis(x, bd, 0)                                  # move the batch dim to 0
    new_axis = tuple(a + 1 for a in axis)                       # all original axes shift right by 1
    return custom_reduce_sum_p.bind(x, axis=new_axis), 0

ad.primitive_jvps[custom_reduce_sum_p] = _reduce_sum_jvp
ad.primitive_transposes[custom_reduce_sum_p] = _reduce_sum_transpose
batching.primitive_batchers[custom_reduce_sum_p] = _reduce_sum_batch

a = jax.random.normal(jax.random.key(0), (2, 3, 4))
wt = jax.random.normal(jax.random.key(1), (3,))
L1 = lambda a, wt: jnp.sum(custom_reduce_sum(a, (0, 2)) * wt)
L1_ref = lambda a, wt: jnp.sum(jnp.sum(a, (0, 2)) * wt)
np.testing.assert_allclose(jax.jit(jax.grad(L1))(a, wt), jax.grad(L1_ref)(a, wt), rtol=1e-6)
np.testing.assert_allclose(jax.vmap(lambda v: custom_reduce_sum(v, (1,)), in_axes=2)(a), jnp.moveaxis(a.sum(1), 1, 0), rtol=1e-6)
np.testing.assert_allclose(jax.vmap(jax.grad(L1), in_axes=(0, None))(a[None].repeat(3, 0), wt),
                           jax.vmap(jax.grad(L1_ref), in_axes=(0, None))(a[None].repeat(3, 0), wt), rtol=1e-6)
check_grads(lambda v: custom_reduce_sum(v, (1,)), (a,), order=2, modes=["fwd", "rev"], eps=1e-2)
print("Exercise 1 passed")
