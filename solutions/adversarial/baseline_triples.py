"""Control, not an attack: a wrong answer (triples instead of doubling). Every attack built
on it must get exactly this score. (7 before every test was gated on the grader's own run
of the compiled program: that run is not x doubled, so nothing is earned.)

assignment: pure_callback_doubler
score: 0
messages:
  - differs from the reference
"""
def host_double(arr):
    return np.asarray(arr) * 3


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
