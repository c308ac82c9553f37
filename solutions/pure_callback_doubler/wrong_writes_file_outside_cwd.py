"""Wrong: the host function appends a log line to a file in /tmp, outside the working folder
whose listing the grader compares.

score: 9
messages:
  - Your host function opened files (/tmp/
"""
def host_double(arr):
    arr = np.asarray(arr)
    with open("/tmp/doubler.log", "a") as log:
        log.write(f"{arr.shape}\n")
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
