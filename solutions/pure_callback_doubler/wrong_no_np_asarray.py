"""Wrong: the host function skips np.asarray; at run time it receives a CPU jax.Array, so
arr * 2 is JAX arithmetic returning a jax.Array (only a NumPy input hides it).

score: 9
messages:
  - called on a CPU jax.Array, returned a jaxlib
"""
def host_double(arr):
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
