"""silu_ffi's variants: the forward function's layouts that keep x whole (inside the
custom_vjp; the task's words: the forward kernel takes x as its only operand, reshaped if you
like, so no loop, pad or split around it), each vmap_method, the backward rule's layouts and
loops (its kernel's operands are the answer's to choose), and the two combined."""
from autograder.authoring.variants import generate as g

SOURCE = "reference.py"
FORWARD_LAYOUTS = ["flipped", "transposed", "fortran_order", "rows", "column", "rolled", "gathered_and_scattered"]
LAYOUTS = FORWARD_LAYOUTS + ["padded_to_8", "padded_to_1024"]
LOOPS = ["lax_map", "lax_map_batch_size_4", "fori_loop_at_set", "fori_loop_dynamic_update", "while_loop", "scan",
         "scan_unroll_2", "blocks_of_1024_lax_map", "vmap_leading_axis", "vmap_every_axis", "split_in_three"]

# Variants the grader refuses today, each with why (docs/variants.md): reported, not failed.
STATED: dict[str, str] = {}


def variants(code: str) -> list[g.Variant]:
    found = g.traced(code, "silu_ffi", FORWARD_LAYOUTS, "layout")
    # not expand_dims: the backward kernel would read an unbatched x beside a batched cotangent
    for method in ("sequential", "sequential_unrolled"):
        found.append(g.make("edit", f"vmap_method_{method}", g.edited(code, ('"broadcast_all"', repr(method))),
                            f"both ffi_calls declare vmap_method={method!r}"))
    found += g.traced(code, "_silu_bwd", LAYOUTS, "layout") + g.traced(code, "_silu_bwd", LOOPS, "loop")
    for forward, backward in zip(FORWARD_LAYOUTS, LOOPS):
        both = g.decorated(g.decorated(code, "silu_ffi", f"_v_traced({forward!r})"), "_silu_bwd",
                           f"_v_traced({backward!r})")
        found.append(g.make("combined", f"{forward}/{backward}", both,
                            f"x {forward.replace('_', ' ')} around the forward kernel, the backward one in a "
                            f"{backward.replace('_', ' ')}"))
    sequential = g.edited(code, ('"broadcast_all"', "'sequential'"))
    for forward in FORWARD_LAYOUTS[:4]:
        found.append(g.make("combined", f"{forward}/sequential", g.decorated(sequential, "silu_ffi",
                            f"_v_traced({forward!r})"), f"x {forward.replace('_', ' ')}, vmap_method='sequential'"))
    return found
