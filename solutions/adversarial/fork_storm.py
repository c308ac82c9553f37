"""A correct answer, then a bounded fork storm: 200 children that sleep for ten minutes.
The answer keeps its marks and no child outlives the grading.

assignment: pure_callback_doubler
score: 10
"""
import os, time


def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


for _ in range(200):
    try:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
    except OSError:
        break
