"""Valid: a lambda host function with an explicit .astype(arr.dtype), and a vmap_method
given although vmap is not required.

score: 10
"""
def pure_callback_doubler(x):
    return jax.pure_callback(lambda a: (np.asarray(a) * 2).astype(np.asarray(a).dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="sequential")
