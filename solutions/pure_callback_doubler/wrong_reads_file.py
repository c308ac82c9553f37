"""Wrong: the host function reads its factor from a file the answer cell wrote. The numbers
are right and nothing is created or removed while grading, but the task forbids reading
(changing) files in a pure callback: the file could change between calls.

score: 9
messages:
  - Your host function opened files (factor.txt)
"""
with open("factor.txt", "w") as f:
    f.write("2")


def host_double(arr):
    with open("factor.txt") as f:
        factor = np.float32(f.read())
    return np.asarray(arr) * factor


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
