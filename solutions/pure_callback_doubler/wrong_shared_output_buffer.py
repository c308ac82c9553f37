"""Wrong: the host function doubles into a preallocated buffer kept in an anonymous mmap (a
C object: no attribute, no file, nothing Python can fingerprint shows its bytes) and returns
a view of it: every call hands back the same storage, so an earlier result changes at the
next call. (Session 32: its buffer is smaller than the 2^23 + 3 values the host function is now called on: the values test's point too.)

score: 8
messages:
  - "Your host function changed the array an earlier call returned"
  - 'raised ValueError: buffer is smaller than requested size'
"""
import mmap

_STORE = mmap.mmap(-1, 1 << 23)   # room for every input the grader gives it (2^20 + 3 values at most)


def host_double(arr):
    arr = np.asarray(arr)
    out = np.frombuffer(_STORE, np.float32, count=arr.size).reshape(arr.shape)
    return np.multiply(arr, np.float32(2), out=out)


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
