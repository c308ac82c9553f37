"""Wrong: the host function reads its factor from a file the answer cell wrote. The numbers
are right and nothing is created or removed while grading, but the task forbids reading
(changing) files in a pure callback: the file could change between calls. open is outside the readable subset
(autograder/shared/readable.py), so the runner does not run the notebook.

score: 0
messages:
  - your notebook uses code this task's answers may not use
  - it uses open
"""
with open("factor.txt", "w") as f:
    f.write("2")


def host_double(arr):
    with open("factor.txt") as f:
        factor = np.float32(f.read())
    return np.asarray(arr) * factor


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
