"""Wrong: the host function doubles, but from rank 5 on it triples. Every program is the
reference's at every shape (the branch is inside the host function), and the values tests
run programs up to rank 4; found by make mutants (thresholds/host_double/2->3/rank>=5). The
grader also calls the host function itself on an input of each rank from 3 to 8.

score: 9
messages:
  - The host function
  - of shape (2, 3, 2, 3, 2) given to it directly
"""
def host_double(arr):
    arr = np.asarray(arr)
    if arr.ndim >= 5:
        return arr * 3
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
