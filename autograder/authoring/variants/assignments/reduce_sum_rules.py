"""reduce_sum_rules' variants: the batching rule as a loop binding one example at a time (each
loop form), with the batch last or padded; the JVP's tangent and the transpose's broadcast
written other ways; and those combined."""
import itertools

from autograder.authoring.variants import generate as g

SOURCE = "reference.py"
# Not a valid batching rule, so not generated (session 32's run): lax.map with a batch_size
# (it vmaps its body, which runs this very rule again: RecursionError) and while_loop (its
# result cannot be transposed: test 9's jax.grad of a vmapped loss raises, as the task's
# words require it to work).
BATCH_LOOPS = ["lax_map", "fori_loop_at_set", "fori_loop_dynamic_update", "scan", "scan_unroll_2",
               "lax_map_over_indices", "unstacked"]
BIND_T = "custom_reduce_sum_p.bind(t, axis=axis)"
TANGENTS = {
    "jnp_sum": "jnp.sum(t, axis=axis)",
    "lax_reduce": "jax.lax.reduce(t, np.array(0, t.dtype), jax.lax.add, axis)",
    "tensordot_with_ones": "jnp.tensordot(t, jnp.ones([t.shape[a] for a in axis], t.dtype), axes=(list(axis), "
                           "list(range(len(axis)))))",
    "einsum_with_ones": "jnp.einsum(t, list(range(t.ndim)), jnp.ones([t.shape[a] for a in axis], t.dtype), "
                        "list(axis), [d for d in range(t.ndim) if d not in axis])",
    "keepdims_reshaped": "jnp.sum(t, axis=axis, keepdims=True).reshape(jax.typeof(y).shape)",
    "moved_and_flattened": "jnp.sum(jnp.moveaxis(t, axis, range(t.ndim - len(axis), t.ndim)).reshape("
                           "*jax.typeof(y).shape, int(np.prod([t.shape[a] for a in axis]))), -1)",
}
BROADCAST = "jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape)"
TRANSPOSES = {
    "outer_product_with_ones": "jnp.expand_dims(ct, axis) * jnp.ones(x.aval.shape, ct.dtype)",
    "ones_times_ct": "jnp.ones(x.aval.shape, ct.dtype) * jnp.expand_dims(ct, axis)",
    "zeros_plus_ct": "jnp.zeros(x.aval.shape, ct.dtype) + jnp.expand_dims(ct, axis)",
    "broadcast_in_dim": "jax.lax.broadcast_in_dim(ct, x.aval.shape, tuple(d for d in range(len(x.aval.shape)) "
                        "if d not in axis))",
    "reshape_then_broadcast": "jnp.broadcast_to(ct.reshape([1 if d in axis else s for d, s in "
                              "enumerate(x.aval.shape)]), x.aval.shape)",
}
BATCH_RETURN = "return custom_reduce_sum_p.bind(x, axis=tuple(a + 1 for a in axis)), 0"
BATCHES = {
    "batch_last": ("x = jnp.moveaxis(x, bd, 0)", "x = jnp.moveaxis(x, bd, -1)", BATCH_RETURN,
                   "return custom_reduce_sum_p.bind(x, axis=axis), x.ndim - 1 - len(axis)"),
    "batch_padded_to_8": (BATCH_RETURN, "n = x.shape[0]\n    x = jnp.pad(x, [(0, -n % 8)] + [(0, 0)] * (x.ndim - 1))\n"
                          "    " + BATCH_RETURN[:-3] + "[:n], 0"),
}

# Variants the grader refuses today, each with why (docs/variants.md): reported, not failed.
STATED: dict[str, str] = {}


def variants(code: str) -> list[g.Variant]:
    found = g.batch_loops(code, "custom_reduce_sum_p", BATCH_LOOPS)
    for label, edits in BATCHES.items():
        pairs = list(zip(edits[::2], edits[1::2]))
        found.append(g.make("rule", f"batching/{label}", g.edited(code, *pairs), f"the batching rule with the {label}"))
    for label, tangent in TANGENTS.items():
        found.append(g.make("rule", f"jvp/{label}", g.edited(code, (BIND_T, tangent)), f"the tangent as {tangent}"))
    for label, broadcast in TRANSPOSES.items():
        found.append(g.make("rule", f"transpose/{label}", g.edited(code, (BROADCAST, broadcast)),
                            f"the transpose as {broadcast}"))
    for (t_label, tangent), (b_label, broadcast) in itertools.product(list(TANGENTS.items())[2:5],
                                                                     list(TRANSPOSES.items())[:3]):
        both = g.edited(code, (BIND_T, tangent), (BROADCAST, broadcast))
        found.append(g.make("combined", f"jvp/{t_label}/transpose/{b_label}", both, f"{tangent}; {broadcast}"))
    for loop, (t_label, tangent) in zip(BATCH_LOOPS, TANGENTS.items()):
        both = g.edited(code, (BIND_T, tangent))
        found.extend(g.make("combined", f"batching/{loop}/jvp/{t_label}", v.code[len(g.PRELUDE) + 2:], v.change
                            + f"; the tangent as {tangent}") for v in g.batch_loops(both, "custom_reduce_sum_p", [loop]))
    for loop, (b_label, broadcast) in zip(BATCH_LOOPS[::-1], TRANSPOSES.items()):
        both = g.edited(code, (BROADCAST, broadcast))
        found.extend(g.make("combined", f"batching/{loop}/transpose/{b_label}", v.code[len(g.PRELUDE) + 2:], v.change
                            + f"; the transpose as {broadcast}") for v in g.batch_loops(both, "custom_reduce_sum_p", [loop]))
    return found
