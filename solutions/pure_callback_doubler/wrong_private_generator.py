"""Wrong: the host function draws from its own NumPy Generator (a C object, its state seen
through its public bit_generator.state): the result is right, but each call advances it.

score: 9
messages:
  - changed state that outlives the call (_RNG)
"""
_RNG = np.random.default_rng(0)


def host_double(arr):
    _RNG.random()
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
