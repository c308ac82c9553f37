"""Valid: the reference, then a benchmark cell that leaves tens of millions of numbers as
globals (Python lists of floats and a large NumPy array). The purity check fingerprints what
the host function can reach, so they neither cost it time nor change its verdict.

score: 10
"""
def host_double(arr):
    arr = np.asarray(arr)
    return arr * 2


def pure_callback_doubler(x):
    result_shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.pure_callback(host_double, result_shape, x)

# %%
import time

sizes = [10 ** k for k in range(1, 7)]
inputs_py = [float(i) for i in range(3_000_000)]
doubled_py = [2.0 * v for v in inputs_py]
halves_py = [v / 2 for v in inputs_py]
big = np.arange(20_000_000, dtype=np.float32)
timings = {}
for n in sizes:
    x = jnp.asarray(big[:n])
    t0 = time.perf_counter()
    jax.block_until_ready(pure_callback_doubler(x))
    timings[n] = time.perf_counter() - t0
print(timings)
