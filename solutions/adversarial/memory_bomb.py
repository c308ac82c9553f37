"""A host function that allocates without end each time it runs: the tests that run it
fail, and the next test starts a fresh process. (3 before every test was gated on the
grader's own run of the compiled program, whose host callback runs this function too: now
no test passes, and every one still gets its sentence.)

assignment: pure_callback_doubler
score: 0
messages:
  - raised MemoryError
"""
def host_double(arr):
    hog = []
    while True:
        hog.append(np.ones(2**26))    # 512 MB at a time, written, so really resident


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
