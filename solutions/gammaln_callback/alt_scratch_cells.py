"""Valid: the reference, then the scratch cells a student keeps: a benchmark against JAX's own
with %timeit, `import time`, a matplotlib plot, help(...), a print; a %%timeit cell; and a cell
tagged otter_ignore that would break the answer if it ran (Otter's convention: such a cell
is not run when grading).

score: 10
"""
def _scipy_cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="expand_dims")       # SciPy ufuncs handle any shape


@jax.custom_jvp
def gammaln_cb(x):
    return _scipy_cb(sps.gammaln, x)


@gammaln_cb.defjvp
def _gammaln_cb_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return gammaln_cb(x), _scipy_cb(sps.digamma, x) * x_dot

# %%
import time
import matplotlib
import matplotlib.pyplot as plt

help(jax.custom_jvp)
xs = jnp.linspace(0.5, 9.0, 10_000, dtype=jnp.float32)
%timeit jax.block_until_ready(gammaln_cb(xs))
%timeit jax.block_until_ready(jax.jit(jax.scipy.special.gammaln)(xs))
t0 = time.perf_counter()
ys = jax.block_until_ready(gammaln_cb(xs))
print(f"one call: {(time.perf_counter() - t0) * 1e3:.2f} ms")
fig, ax = plt.subplots()
ax.plot(np.asarray(xs).ravel(), np.asarray(ys).ravel())
fig.savefig("scratch.png")

# %%
%%timeit -n 2 -r 1
jax.block_until_ready(jax.jit(gammaln_cb)(xs))

# %% tags=["otter_ignore"]
gammaln_cb = jax.scipy.special.gammaln   # an experiment, kept out of grading
