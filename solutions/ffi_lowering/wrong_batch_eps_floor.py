"""Wrong: the batching rule floors eps at 1e-5 before binding ("a smaller eps is never
useful"), while the lowering passes eps on as it is. Plain jax.jit and eager calls get every
eps right; under jax.vmap every eps below 1e-5 reaches the kernel as 1e-5. The vmap tests
bind 1e-5 and 0.5 only; the eps test lowers jax.vmap at every eps of the range and reads the
attribute, and runs eager vmap at its ends; the vmap tests lower every batch position at both ends
of the range.

score: 7
messages:
  - 'jax.jit(jax.vmap(in_axes=1, out_axes=0)) with eps=1e-30: the custom_call to rms_norm carries eps=1e-05 where eps=1e-30 was bound'
  - 'jax.jit(vmap(vmap(in_axes=1), in_axes=3)): the custom_call to rms_norm carries eps=1e-05 where eps=1e-30 was bound'
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=np.maximum(eps, np.float32(1e-5))), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
