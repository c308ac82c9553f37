"""Wrong: the lowering ignores the primitive's eps and always sends the default 1e-5
(bound with functools.partial into a rule that drops its eps parameter), so a
different eps changes nothing (the structure at every shape is lowered at eps 1e-30 and 1e30).

score: 5
messages:
  - The eps attribute of the custom_call is 1e-05, but 0.25 was bound
  - a different eps should change the result
  - 'jax.jit of rms_norm_prim_p.bind: the custom_call to rms_norm carries eps=1e-05 where eps=1e-30 was bound'
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))


def _fixed_eps_lowering(ctx, x, *, eps, fixed):
    return jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=fixed)


mlir.register_lowering(rms_norm_prim_p, partial(_fixed_eps_lowering, fixed=np.float32(1e-5)), platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
