"""Wrong: the host function doubles, but above 4096 elements it returns the doubled values in
reverse order. Every program is the reference's at every shape (the branch is inside the host
function, where a lowering cannot see), and every input a program is run on is smaller; the
grader also calls the host function itself on 2^20 + 3 values, element by element.

score: 9
messages:
  - The host function
  - of 8,388,611 values given to it directly
  - differs from the reference arr * 2 at
"""
def host_double(arr):
    arr = np.asarray(arr)
    if arr.size > 4096:
        return (arr * 2)[::-1]
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
