"""Valid: the wrapper (not the host function) keeps a list of the shapes it was traced
with, for the student's own curiosity. The purity rules are about the host function's own
calls: each is observed on its own, so what the wrapper keeps between calls is not judged.

score: 10
"""
TRACED_SHAPES = []


def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    TRACED_SHAPES.append(tuple(x.shape))
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
