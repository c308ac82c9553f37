"""Wrong: the lowering floors eps at 1e-5 ("a smaller eps is never useful"), so every eps
below it reaches the kernel as 1e-5. Every eps the public tests bind is 1e-5 or more; the
hidden tests bind tiny ones too, on rows of tiny entries, where the floor changes every
result, and read the attribute, also at every shape (lowered at both ends of the range).

score: 7
messages:
  - The eps attribute of the custom_call is 1e-05, but
  - differs from the reference
  - for every eps from 1e-30 to 1e30
  - 'jax.jit of rms_norm_prim_p.bind: the custom_call to rms_norm carries eps=1e-05 where eps=1e-30 was bound'
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))

_rms_rule = jax.ffi.ffi_lowering("rms_norm")


def _lowering(ctx, x, *, eps):
    return _rms_rule(ctx, x, eps=np.float32(max(eps, 1e-5)))


mlir.register_lowering(rms_norm_prim_p, _lowering, platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
