"""ffi_lowering's variants: the batching rule as a loop binding one example at a time (each
loop form), padded, or on the rows flattened; the lowering, the eager impl and the abstract
evaluation written other valid ways; batching loops combined with each lowering."""
from autograder.authoring.variants import generate as g

SOURCE = "reference.py"
BATCH_LOOPS = ["lax_map", "lax_map_batch_size_4", "fori_loop_at_set", "fori_loop_dynamic_update", "while_loop",
               "scan", "scan_unroll_2", "lax_map_over_indices", "unstacked"]
REGISTER = 'mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")'
LOWERINGS = {
    "lowering_def_float32_eps": "def _lowering(ctx, x, *, eps):\n    return jax.ffi.ffi_lowering(\"rms_norm\")"
                                "(ctx, x, eps=np.float32(eps))\n\n\nmlir.register_lowering(rms_norm_prim_p, "
                                "_lowering, platform=\"cpu\")",
    "every_platform": 'mlir.register_lowering(rms_norm_prim_p, jax.ffi.ffi_lowering("rms_norm"))',
    "lowering_by_keyword": 'mlir.register_lowering(prim=rms_norm_prim_p, rule=jax.ffi.ffi_lowering("rms_norm"), '
                           'platform="cpu")',
}
IMPL = "rms_norm_prim_p.def_impl(partial(xla.apply_primitive, rms_norm_prim_p))"
IMPLS = {
    "impl_jit_bind": "rms_norm_prim_p.def_impl(lambda x, *, eps: jax.jit(lambda v: rms_norm_prim_p.bind(v, eps=eps))(x))",
    "impl_apply_primitive_lambda": "rms_norm_prim_p.def_impl(lambda x, *, eps: xla.apply_primitive(rms_norm_prim_p, x, eps=eps))",
}
ABSTRACT = "return ShapedArray(x.shape, x.dtype)"
ABSTRACTS = {"abstract_update": "return x.update(shape=x.shape, dtype=x.dtype)",
             "abstract_float32": "return ShapedArray(tuple(x.shape), jnp.float32)"}
BATCH_MOVE = "return rms_norm_prim_p.bind(jnp.moveaxis(x, bd, 0), eps=eps), 0"
BATCHES = {
    "batch_padded_to_8": "x = jnp.moveaxis(x, bd, 0)\n    n = x.shape[0]\n    x = jnp.pad(x, [(0, -n % 8)] + "
                         "[(0, 0)] * (x.ndim - 1), constant_values=1.0)\n    return rms_norm_prim_p.bind(x, eps=eps)[:n], 0",
    "batch_rows_flattened": "x = jnp.moveaxis(x, bd, 0)\n    rows = x.reshape(-1, x.shape[-1]) if x.ndim >= 2 else x\n"
                            "    return rms_norm_prim_p.bind(rows, eps=eps).reshape(x.shape), 0",
    "batch_at_its_place": "if bd < x.ndim - 1:\n        return rms_norm_prim_p.bind(x, eps=eps), bd\n    " + BATCH_MOVE,
}

# Variants the grader refuses today, each with why (docs/variants.md): reported, not failed.
STATED: dict[str, str] = {}


def variants(code: str) -> list[g.Variant]:
    found = g.batch_loops(code, "rms_norm_prim_p", BATCH_LOOPS)
    for label, batch in BATCHES.items():
        found.append(g.make("rule", f"batching/{label}", g.edited(code, (BATCH_MOVE, batch)), f"the batching rule: {label}"))
    for label, lowering in LOWERINGS.items():
        found.append(g.make("rule", f"lowering/{label}", g.edited(code, (REGISTER, lowering)), f"the lowering: {label}"))
    for label, impl in IMPLS.items():
        found.append(g.make("rule", f"impl/{label}", g.edited(code, (IMPL, impl)), f"the eager impl: {label}"))
    for label, abstract in ABSTRACTS.items():
        found.append(g.make("rule", f"abstract/{label}", g.edited(code, (ABSTRACT, abstract)), f"abstract evaluation: {label}"))
    for label, lowering in LOWERINGS.items():
        for loop in BATCH_LOOPS[:7]:
            v = g.batch_loops(g.edited(code, (REGISTER, lowering)), "rms_norm_prim_p", [loop])[0]
            found.append(g.make("combined", f"batching/{loop}/lowering/{label}", v.code[len(g.PRELUDE) + 2:],
                                f"{v.change}; the lowering: {label}"))
    return found
