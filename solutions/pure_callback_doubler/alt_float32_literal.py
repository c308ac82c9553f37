"""Valid: multiplies by np.float32(2.0) and declares the result with jnp.float32 directly.

score: 10
"""
def host_double(arr):
    return np.asarray(arr, dtype=np.float32) * np.float32(2.0)


def pure_callback_doubler(x):
    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)
    return jax.pure_callback(host_double, out, x, vmap_method="expand_dims")
