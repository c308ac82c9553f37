"""Wrong: a cache decorator keeps one output buffer per shape in functools.lru_cache's C
store, and the host function doubles into it: every call hands back the same array, so an
earlier result changes at the next call. The store's contents are C's, but the cache says
its state through its public API (cache_info: hits, misses, size), which every call
changes; a store no API shows is wrong_shared_output_buffer.

score: 9
messages:
  - changed state that outlives the call (_buffer)
"""
import functools


@functools.lru_cache(maxsize=None)
def _buffer(shape):
    return np.empty(shape, np.float32)


def reuse_output(host):
    def wrapped(arr):
        arr = np.asarray(arr)
        out = _buffer(arr.shape)
        return host(arr, out)
    return wrapped


@reuse_output
def host_double(arr, out):
    return np.multiply(arr, np.float32(2), out=out)


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
