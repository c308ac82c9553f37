"""Valid: the chapter's appendix solution of Exercise 4 pasted verbatim, with the
self-check asserts the chapter writes after it and its prints.

score: 10
"""
# Reference solution: Exercise 4 — an FFI target as a custom primitive's lowering
from jax.interpreters import xla as _xla

rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")   # params become FFI attributes
rms_norm_prim_p.def_impl(partial(_xla.apply_primitive, rms_norm_prim_p))                   # eager: jit this one primitive on the fly

def _rms_prim_batch(args, dims, *, eps):
    x, = args; bd, = dims
    # The kernel treats every dim except the last as "rows": the batch dim just must not be last, so move it to 0
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0
batching.primitive_batchers[rms_norm_prim_p] = _rms_prim_batch

rms_prim = lambda v: rms_norm_prim_p.bind(v, eps=np.float32(1e-5))
xq = jax.random.normal(jax.random.key(7), (4, 32))
np.testing.assert_allclose(rms_prim(xq), rms_norm_np64(xq), rtol=1e-5, atol=1e-6)          # eager
np.testing.assert_allclose(jax.jit(rms_prim)(xq), rms_norm_np64(xq), rtol=1e-5, atol=1e-6)  # jit
xq3 = jax.random.normal(jax.random.key(8), (32, 3, 4))
np.testing.assert_allclose(jax.vmap(rms_prim, in_axes=2)(xq3),
                           rms_norm_np64(np.moveaxis(np.asarray(xq3), 2, 0)), rtol=1e-5, atol=1e-6)
print(jax.make_jaxpr(rms_prim)(xq))
print("Exercise 4 passed")
