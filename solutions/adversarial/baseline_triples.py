"""Control, not an attack: the wrong answer (triples instead of doubling) that the attacks
below dress up. Every attack built on it must get exactly this score.

assignment: pure_callback_doubler
score: 7
messages:
  - differs from the reference
"""
def host_double(arr):
    return np.asarray(arr) * 3


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
