"""pure_callback_doubler's variants: the traced function's layouts and loops (x is 1-d; one
pure_callback in the program, so no form that calls it twice), each vmap_method declared,
the host function's forms, and the doubling written other ways."""
from autograder.authoring.variants import generate as g

SOURCE = "reference.py"
LAYOUTS = ["flipped", "transposed", "fortran_order", "column", "rolled", "padded_to_8", "padded_to_1024",
           "gathered_and_scattered"]
# Not here: a scan unrolled (two callbacks in the program, where the task's scoring cell asks
# for exactly one), lax.map with a batch_size and vmap (both vmap the callback, which
# declares no vmap_method in the task's three steps).
LOOPS = ["lax_map", "fori_loop_at_set", "fori_loop_dynamic_update", "while_loop", "scan", "blocks_of_1024_lax_map"]
HOSTS = ["chunked", "threaded_chunks", "private_copy", "out_buffer", "flattened", "flipped"]
CALL = "jax.pure_callback(host_double, result_shape, x)"
PRODUCTS = {"arr_plus_arr": "arr + arr", "two_times_arr": "2 * arr", "np_multiply": "np.multiply(arr, 2)",
            "np_add": "np.add(arr, arr)", "float32_two": "arr * np.float32(2)"}
COMBINED = [("fori_loop_at_set", "chunked"), ("padded_to_8", "threaded_chunks"), ("scan", "out_buffer"),
            ("gathered_and_scattered", "private_copy"), ("lax_map", "flipped"), ("while_loop", "fortran_order"),
            ("rolled", "chunked"), ("flipped", "out_buffer"), ("fortran_order", "threaded_chunks"),
            ("blocks_of_1024_lax_map", "private_copy"), ("padded_to_1024", "flattened"), ("column", "flipped")]


# Variants the grader refuses today, each with why (docs/variants.md): reported, not failed.
STATED: dict[str, str] = {}


def variants(code: str) -> list[g.Variant]:
    found = g.traced(code, "pure_callback_doubler", LAYOUTS, "layout")
    found += g.traced(code, "pure_callback_doubler", LOOPS, "loop")
    for method in ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all"):
        with_method = g.edited(code, (CALL, CALL[:-1] + f", vmap_method={method!r})"))
        found.append(g.make("edit", f"vmap_method_{method}", with_method, f"the callback declares vmap_method={method!r}"))
    found += g.host(code, "host_double", HOSTS)
    for label, product in PRODUCTS.items():
        found.append(g.make("edit", f"host_double/{label}", g.edited(code, ("return arr * 2", f"return {product}")),
                            f"the doubling written {product}"))
    found.append(g.make("edit", "result_shape_float32", g.edited(code, ("ShapeDtypeStruct(x.shape, x.dtype)",
                        "ShapeDtypeStruct(jnp.shape(x), jnp.float32)")), "the result described as float32 of jnp.shape(x)"))
    for layout, form in COMBINED:
        both = g.decorated(g.decorated(code, "pure_callback_doubler", f"_v_traced({layout!r})"), "host_double",
                           f"_v_host({form!r})")
        found.append(g.make("combined", f"{layout}/{form}", both, f"x {layout.replace('_', ' ')} around a host "
                            f"function {form.replace('_', ' ')}"))
    return found
