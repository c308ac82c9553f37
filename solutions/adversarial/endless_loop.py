"""A correct answer followed by an endless loop in the same cell: the cell never
finishes, so it is skipped and nothing it defined counts.

assignment: pure_callback_doubler
score: 0
messages:
  - did not finish within 60 s
"""
def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


while True:
    pass
