"""gammaln_callback's variants: the traced function's layouts and loops (inside the
custom_jvp), each host function's forms, each vmap_method, inf and NaN guards (the values
SciPy gives there too) and the tangent's product written other ways. The source names its
host functions (a lambda cannot be decorated)."""
from autograder.authoring.variants import generate as g

SOURCE = "alt_named_host_functions.py"
LAYOUTS = ["flipped", "transposed", "fortran_order", "rows", "column", "rolled", "padded_to_8", "padded_to_1024",
           "gathered_and_scattered"]
LOOPS = ["lax_map", "lax_map_batch_size_4", "fori_loop_at_set", "fori_loop_dynamic_update", "while_loop", "scan",
         "scan_unroll_2", "blocks_of_1024_lax_map", "vmap_leading_axis", "vmap_every_axis", "split_in_three"]
HOSTS = ["chunked", "threaded_chunks", "private_copy", "out_buffer", "fortran_order", "flattened", "flipped"]
GUARDS = ["isinf_guard", "isnan_guard", "isfinite_guard"]
TANGENTS = {"x_dot_times_psi": "x_dot * psi", "jnp_multiply": "jnp.multiply(psi, x_dot)"}

# Variants the grader refuses today, each with why (docs/variants.md): reported, not failed.
STATED: dict[str, str] = {}


def variants(code: str) -> list[g.Variant]:
    found = g.traced(code, "gammaln_cb", LAYOUTS, "layout") + g.traced(code, "gammaln_cb", LOOPS, "loop")
    found += g.host(code, "host_gammaln", HOSTS) + g.host(code, "host_digamma", HOSTS)
    for method in ("sequential", "sequential_unrolled", "broadcast_all"):
        found.append(g.make("edit", f"vmap_method_{method}", g.edited(code, ('"expand_dims"', repr(method))),
                            f"both callbacks declare vmap_method={method!r}"))
    found += g.traced(code, "gammaln_cb", GUARDS, "guard")
    for label, tangent in TANGENTS.items():
        found.append(g.make("edit", f"tangent/{label}", g.edited(code, ("psi * x_dot", tangent)),
                            f"the tangent written {tangent}"))
    return found
