"""Valid: the reference, then the scratch cells a student keeps: a benchmark against native JAX
with %timeit (the task says to benchmark), `import time`, a matplotlib plot, help(...), a
print; a %%timeit cell; and a cell tagged otter_ignore that would break the answer if it ran
(Otter's convention: such a cell is not run when grading).

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
import matplotlib
import matplotlib.pyplot as plt

help(jax.pure_callback)
xs = jnp.linspace(-3.0, 3.0, 10_000, dtype=jnp.float32)
%timeit pure_callback_doubler(xs).block_until_ready()
%timeit jax.jit(lambda v: 2 * v)(xs).block_until_ready()
t0 = time.perf_counter()
ys = jax.block_until_ready(pure_callback_doubler(xs))
print(f"one call: {(time.perf_counter() - t0) * 1e3:.2f} ms")
fig, ax = plt.subplots()
ax.plot(np.asarray(xs), np.asarray(ys))
fig.savefig("doubled.png")

# %%
%%timeit -n 2 -r 1
jax.jit(pure_callback_doubler)(xs).block_until_ready()

# %% tags=["otter_ignore"]
pure_callback_doubler = lambda x: 3 * x   # an experiment, kept out of grading
