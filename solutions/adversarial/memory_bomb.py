"""A host function that allocates without end each time it runs: the tests that run it
fail, the structural tests still pass, and the next test starts a fresh process.

assignment: pure_callback_doubler
score: 3
"""
def host_double(arr):
    hog = []
    while True:
        hog.append(np.ones(2**26))    # 512 MB at a time, written, so really resident


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
