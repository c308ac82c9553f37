"""Valid: the reference, then the scratch cells a student keeps: a benchmark against JAX's own
with %timeit, `import time`, a matplotlib plot, help(...), a print; a %%timeit cell; and a cell
tagged otter_ignore that would break the answer if it ran (Otter's convention: such a cell
is not run when grading).

score: 10
"""
def _reduce_sum_jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)       # linear: same primitive on ẋ


def _reduce_sum_transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _reduce_sum_batch(batched_args, batch_dims, *, axis):
    (x,), (bd,) = batched_args, batch_dims
    x = jnp.moveaxis(x, bd, 0)                               # batch dimension first
    return custom_reduce_sum_p.bind(x, axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _reduce_sum_jvp
ad.primitive_transposes[custom_reduce_sum_p] = _reduce_sum_transpose
batching.primitive_batchers[custom_reduce_sum_p] = _reduce_sum_batch

# %%
import time
import matplotlib
import matplotlib.pyplot as plt

help(ad.primitive_jvps)
xs = jnp.ones((100, 100), jnp.float32)
%timeit jax.block_until_ready(jax.grad(lambda v: custom_reduce_sum(v, (0,)).sum())(xs))
%timeit jax.block_until_ready(jax.grad(lambda v: jnp.sum(v, (0,)).sum())(xs))
t0 = time.perf_counter()
ys = jax.block_until_ready(jax.grad(lambda v: custom_reduce_sum(v, (0,)).sum())(xs))
print(f"one call: {(time.perf_counter() - t0) * 1e3:.2f} ms")
fig, ax = plt.subplots()
ax.plot(np.asarray(xs).ravel(), np.asarray(ys).ravel())
fig.savefig("scratch.png")

# %%
%%timeit -n 2 -r 1
jax.block_until_ready(jax.jit(jax.vmap(lambda v: custom_reduce_sum(v, (0,))))(xs))

# %% tags=["otter_ignore"]
ad.primitive_jvps.pop(custom_reduce_sum_p)   # an experiment, kept out of grading
