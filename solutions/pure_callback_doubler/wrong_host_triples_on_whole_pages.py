"""Wrong: the host function triples the values of inputs whose length is a whole number of
4096-value pages, and doubles otherwise. Every program is the reference's at every length (the
branch is inside the host function), and no values test runs such a length; the grader calls
the host function itself on 1-d inputs of lengths each side of a page and of 2^16, and on whole
pages (shapes.HOST_LENGTHS).

score: 9
messages:
  - The host function
  - of shape (4096,) given to it directly
"""
def host_double(arr):
    arr = np.asarray(arr)
    if arr.size and arr.size % 4096 == 0:
        return arr * 3
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
