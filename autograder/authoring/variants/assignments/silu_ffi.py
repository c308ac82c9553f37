"""silu_ffi's variants: the forward function's layouts and loops (inside the custom_vjp), the
same forms around the backward rule's kernel call, each vmap_method."""
from autograder.authoring.variants import generate as g

SOURCE = "reference.py"
LAYOUTS = ["flipped", "transposed", "fortran_order", "rows", "column", "rolled", "padded_to_8", "padded_to_1024",
           "gathered_and_scattered"]
LOOPS = ["lax_map", "lax_map_batch_size_4", "fori_loop_at_set", "fori_loop_dynamic_update", "while_loop", "scan",
         "scan_unroll_2", "blocks_of_1024_lax_map", "vmap_leading_axis", "vmap_every_axis", "split_in_three"]

# Variants the grader refuses today, each with why (docs/variants.md): reported, not failed.
STATED: dict[str, str] = {
    "layout/silu_ffi/padded_to_8": "the task's scoring cell: the forward kernel takes x itself as its only operand "
                                   "(reshaped if you like); a padded x is another operand",
    "layout/silu_ffi/padded_to_1024": "as padded_to_8",
    "edit/vmap_method_sequential_unrolled": "issue 55 item 7: vmap lowers one kernel call per example and the "
                                            "grader's large batches take past the 90 s a question has",
}


def variants(code: str) -> list[g.Variant]:
    found = g.traced(code, "silu_ffi", LAYOUTS, "layout") + g.traced(code, "silu_ffi", LOOPS, "loop")
    found += g.traced(code, "_silu_bwd", LAYOUTS, "layout") + g.traced(code, "_silu_bwd", LOOPS, "loop")
    # not expand_dims: the backward kernel would read an unbatched x beside a batched cotangent
    for method in ("sequential", "sequential_unrolled"):
        found.append(g.make("edit", f"vmap_method_{method}", g.edited(code, ('"broadcast_all"', repr(method))),
                            f"both ffi_calls declare vmap_method={method!r}"))
    return found
