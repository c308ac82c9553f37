"""Valid: the host function names the result's dtype as jnp.float32. NumPy looks the type up
(which runs a line of JAX's Python), but nothing is computed with JAX: the doubling is
NumPy's.

score: 10
"""
def host_double(arr):
    return (np.asarray(arr) * 2).astype(jnp.float32)


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, jnp.float32), x)
