"""Wrong: the host function validates its input and raises for NaN or infinities. Every
finite input is doubled right; the task says intentional exceptions are side effects and
forbids using the callback for input validation. Its result on NaN is an error, not
NaN (the callback result test's large input holds NaN).

score: 8
messages:
  - must not validate its input
  - pure_callback_doubler on shape (1000,) raised
  - "raised ValueError: pure_callback_doubler needs finite values (raised in your host function host_double)"
"""
def host_double(arr):
    arr = np.asarray(arr)
    if not np.all(np.isfinite(arr)):
        raise ValueError("pure_callback_doubler needs finite values")
    return arr * 2


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
