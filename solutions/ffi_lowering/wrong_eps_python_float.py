"""Wrong: the lowering rule turns eps into a Python float, so the custom_call carries an
f64 attribute while the kernel declares Attr<float>; every execution fails with XLA's
"Failed to decode all FFI handler operands" (read by the student as "the FFI handler could
not decode the call's operands at 0"). Only the jaxpr equation (its eps param is
still the bound np.float32) passes: the lowering test runs the compiled program too.

score: 1
messages:
  - The eps attribute of the custom_call has type f64, but the kernel declares Attr<float>
  - an FFI handler that could not decode the call's operands means eps did not reach the kernel as a float32 attribute
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))


def _lowering(ctx, x, *, eps):
    return jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=float(eps))


mlir.register_lowering(rms_norm_prim_p, _lowering, platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
