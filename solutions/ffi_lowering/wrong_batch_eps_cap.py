"""Wrong: the batching rule caps eps at 1e10 before binding ("nobody normalizes with a
larger one"), while the lowering passes eps on as it is. Plain jax.jit and eager calls get
every eps right; under jax.vmap every eps above 1e10 reaches the kernel as 1e10, which the
eps test finds by lowering jax.vmap at every eps of the range, and the vmap tests by
lowering every batch position at both ends of the range.

score: 7
messages:
  - 'jax.jit(jax.vmap(in_axes=1, out_axes=0)) with eps=1e+20: the custom_call to rms_norm carries eps=1e+10 where eps=1e+20 was bound'
  - 'jax.jit(vmap(vmap(in_axes=1), in_axes=3)): the custom_call to rms_norm carries eps=1e+10 where eps=1e+30 was bound'
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=np.minimum(eps, np.float32(1e10))), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
