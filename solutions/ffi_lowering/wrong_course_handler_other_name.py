"""Wrong: registers the course's own RmsNorm handler (from the library kernels.rms_norm
loaded) under a second target name, my_rms_norm, and lowers to that. The kernel and the
values are the course's, but the task requires the given target rms_norm and forbids
registering FFI targets: the compiled programs call another target.

score: 2
messages:
  - calls the FFI target my_rms_norm; only the given target rms_norm counts
"""
jax.ffi.register_ffi_target("my_rms_norm", jax.ffi.pycapsule(kernels.rms_norm.library.cdll.RmsNorm), platform="cpu")

rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("my_rms_norm"), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
