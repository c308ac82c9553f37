"""Valid: a lowering rule written by hand with the StableHLO dialect: one
stablehlo.custom_call to rms_norm (API version 4, the typed FFI) whose backend_config
dictionary carries eps as an f32 attribute; impl through apply_primitive, batching rule
that moves the batch dimension to the front.

score: 10
"""
from jax.extend.mlir import ir
from jax.extend.mlir.dialects import stablehlo

rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))


def _lowering(ctx, x, *, eps):
    f32 = ir.F32Type.get()
    call = stablehlo.CustomCallOp(
        [x.type], [x], ir.StringAttr.get("rms_norm"),      # same shape and dtype as the input
        has_side_effect=ir.BoolAttr.get(False),
        backend_config=ir.DictAttr.get({"eps": ir.FloatAttr.get(f32, float(eps))}),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4))
    return call.results


mlir.register_lowering(rms_norm_prim_p, _lowering, platform="cpu")
rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))


def _batch(args, dims, *, eps):
    (x,), (bd,) = args, dims
    return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0


batching.primitive_batchers[rms_norm_prim_p] = _batch
