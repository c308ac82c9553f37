"""Wrong: the host function appends a log line to a file in /tmp, outside the working folder
whose listing the grader compares. open is outside the readable subset
(autograder/shared/readable.py), so the runner does not run the notebook.

score: 0
messages:
  - your notebook uses code this task's answers may not use
  - it uses open
"""
def host_double(arr):
    arr = np.asarray(arr)
    with open("/tmp/doubler.log", "a") as log:
        log.write(f"{arr.shape}\n")
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
