"""Cheat: replaces jax.pure_callback with a fake that doubles in jnp, so the answer reads
exactly like the task's three steps while no host callback ever runs.

score: 4
messages:
  - pure_callback_doubler holds no jax.pure_callback
"""
jax.pure_callback = lambda fn, result_shape_dtypes, x, **kwargs: 2 * x


def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
