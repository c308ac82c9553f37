"""silu_ffi's paths proven at every shape (autograder/assignments/silu_ffi/every_shape.py) and
its eager calls read as the primitives they bind (autograder/assignments/silu_ffi/witness.py).
The course's rms_norm FFI target stands in for a student's kernel."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.assignments.silu_ffi import every_shape, witness
from autograder.executor import program
from autograder.shared import dataflow
from autograder.shared.evidence import Origin
from autograder.shared.probe import Ask
from autograder.witness.evaluate import evaluate
from tests.origins import bare
from kernels.rms_norm import rms_norm_ffi as kernel

X = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)


def _read(fn, *args):
    return dataflow.structure(jax.jit(fn, keep_unused=True).lower(*args).as_text())


def _ask(silu_ffi) -> Ask:
    """An Ask whose questions are evaluated here, with `silu_ffi` as the notebook's, and
    whose executor reads the structures."""
    names = {"silu_ffi": silu_ffi}
    return Ask(lambda expr, inputs, serving: evaluate(names, expr, inputs, "silu_ffi"), seed=0,
               execute=lambda request, serve=None: program.handle(request))


# ---- eager calls ----

def test_an_eager_call_is_replayed_as_the_primitives_it_binds():
    x = jnp.asarray(X)
    replay = witness.eager(lambda v: kernel(v.reshape(-1)).reshape(v.shape), x)
    s = _read(replay, x)
    assert [c.target for c in s.calls] == ["rms_norm"] and bare(s.outputs) == [Origin(["call:0"], [])]
    assert bare(s.operands) == [[Origin(["input:0"], [])]]
    np.testing.assert_allclose(jax.jit(replay)(x), kernel(X.reshape(-1)).reshape(3, 4), rtol=1e-6)


def test_an_eager_branch_that_traced_paths_never_take_shows():
    """The class the eager test catches: the kernel under every trace, jax.nn eagerly."""
    def f(v):
        return kernel(v) if isinstance(v, jax.core.Tracer) else jax.nn.silu(v)
    x = jnp.asarray(X)
    assert [c.target for c in _read(f, x).calls] == ["rms_norm"]
    s = _read(witness.eager(f, x), x)
    assert s.calls == [] and "exponential" in s.outputs[0].math


def test_jitted_helpers_are_seen_even_when_their_compiled_program_is_cached():
    flat = jax.jit(lambda v: v.reshape(-1))
    x = jnp.asarray(X)
    flat(x), flat(x)   # the C++ fast path holds it now
    s = _read(witness.eager(lambda v: kernel(flat(flat(v))), x), x)
    assert bare(s.outputs) == [Origin(["call:0"], [])] and bare(s.operands) == [[Origin(["input:0"], [])]]


def test_a_value_computed_outside_jax_is_a_constant_of_the_replay():
    x = jnp.asarray(X)
    s = _read(witness.eager(lambda v: jnp.asarray(np.asarray(kernel(v)) * 1), x), x)
    assert bare(s.outputs) == [Origin(["constant"], [])]


def test_an_eager_gradient_is_replayed_whole():
    x = jnp.asarray(X)
    grad = jax.vmap(jax.grad(lambda v: jnp.sum(_with_backward(lambda r, g: (kernel(g),))(v) * 2)))
    replay = witness.eager(grad, x)
    s = _read(replay, x)
    assert [c.target for c in s.calls] == ["rms_norm", "rms_norm"] and bare(s.outputs) == [Origin(["call:1"], [])]
    np.testing.assert_allclose(jax.jit(replay)(x), grad(x), rtol=1e-6)


def test_an_eager_call_is_judged_against_the_jitted_program_by_the_kit():
    from autograder.assignments.silu_ffi import grader as kit

    def cheat(v):
        return kernel(v) if isinstance(v, jax.core.Tracer) else jax.nn.silu(v)
    y = kit.expect_eager(_ask(kernel), "silu_ffi", "silu_ffi (eager)", "your forward kernel", hint="h", x=X)
    np.testing.assert_allclose(y, kernel(X), rtol=1e-6)   # the value of the very call that was read
    with pytest.raises(AssertionError, match=r"For inputs of shape \(3, 4\), silu_ffi \(eager\): the output is not "
                                             r"the output of your forward kernel \('rms_norm'\): it is computed in JAX"):
        kit.expect_eager(_ask(cheat), "silu_ffi", "silu_ffi (eager)", "your forward kernel", hint="h", x=X)


# ---- every shape ----

def _forward(branch):
    def silu_ffi(x):
        return branch(x) if branch is not None and branch(x) is not None else kernel(x)
    return silu_ffi


def test_every_shape_passes_a_program_that_never_changes():
    every_shape.expect_within(_ask(kernel), every_shape.forward((3, 4)), "your forward kernel", hint="h")
    every_shape.expect_within(_ask(kernel), every_shape.vmap((3, 4, 5)), "your forward kernel", hint="h")


def test_the_sentence_names_the_smallest_shape_past_a_rank_branch():
    silu_ffi = _forward(lambda x: x * 2 if x.ndim == 5 else None)
    with pytest.raises(AssertionError, match=r"For inputs of shape \(1, 1, 1, 1, 1\), jax.jit\(silu_ffi\): the output is "
                                             r"not the output of your forward kernel \('rms_norm'\): it is computed in "
                                             r"JAX \(multiply\) from your input and constants; h"):
        every_shape.expect_within(_ask(silu_ffi), every_shape.forward((3, 4)), "your forward kernel", hint="h")
    with pytest.raises(AssertionError, match=r"\(1, 1, 1, 1, 1, 1\), jax.jit\(jax.vmap\(silu_ffi, in_axes=0\)\)"):
        every_shape.expect_within(_ask(silu_ffi), every_shape.vmap((3, 4, 5)), "your forward kernel", hint="h")


def test_math_before_the_kernel_and_a_second_kernel_are_named():
    with pytest.raises(AssertionError, match=r"\(2\^18 \+ 1,\), .*operand 0 of your forward kernel \('rms_norm'\) "
                                             r"is computed in JAX \(.*select.*\) from your input"):
        every_shape.expect_within(_ask(lambda x: kernel(jnp.nan_to_num(x) if x.size > 2**18 else x)),
                                  every_shape.forward((3, 4)), "your forward kernel", hint="h")
    with pytest.raises(AssertionError, match=r"\(1,\), .*operand 0 of your forward kernel \('rms_norm'\) is the "
                                             r"output of rms_norm, only moved, where at \(3, 4\) it is your input, only moved"):
        every_shape.expect_within(_ask(lambda x: kernel(kernel(x)) if x.ndim == 1 else kernel(x)),
                                  every_shape.forward((3, 4)), "your forward kernel", hint="h")


def test_a_lowering_that_fails_at_one_shape_is_named_alone():
    def silu_ffi(x):
        if x.ndim == 3:
            raise ValueError("no rank 3")
        return kernel(x)
    with pytest.raises(AssertionError, match=r"For inputs of shape \(1, 1, 1\), jax.jit\(silu_ffi\): lowering it fails "
                                             r"\(lowering it raised ValueError: no rank 3\)"):
        every_shape.expect_within(_ask(silu_ffi), every_shape.forward((3, 4)), "your forward kernel", hint="h")


def test_an_output_of_no_element_is_not_judged():
    every_shape.expect_within(_ask(lambda x: x if x.size == 0 else kernel(x)), every_shape.forward((3, 4)),
                              "your forward kernel", hint="h")


def _with_backward(bwd):
    @jax.custom_vjp
    def silu_ffi(x):
        return kernel(x)
    silu_ffi.defvjp(lambda x: (kernel(x), x), bwd)
    return silu_ffi


def test_the_backward_paths_at_every_shape():
    right = _with_backward(lambda x, g: (kernel(g),))
    every_shape.expect_within(_ask(right), every_shape.backward((4, 6)), "your backward kernel", hint="h")
    every_shape.expect_within(_ask(right), every_shape.vmap_grad((3, 4, 5)), "your backward kernel", hint="h")
    wrong = _with_backward(lambda x, g: (g * jnp.exp(x),) if x.ndim == 4 else (kernel(g),))
    with pytest.raises(AssertionError, match=r"\(1, 1, 1, 1\), jax.jit\(lambda v: jax.vjp\(silu_ffi, v\)\[1\]\(v\)\[0\]\): "
                                             r"the output is not the output of your backward kernel"):
        every_shape.expect_within(_ask(wrong), every_shape.backward((4, 6)), "your backward kernel", hint="h")
    with pytest.raises(AssertionError, match=r"\(1, 1, 1, 1, 1\), jax.jit\(jax.vmap\(lambda v: jax.vjp"):
        every_shape.expect_within(_ask(wrong), every_shape.vmap_grad((3, 4, 5)), "your backward kernel", hint="h")


def test_the_paths_cover_every_rank_and_batch_position():
    assert {len(i.spec[0][0]) for i in every_shape.forward((3, 4)).items} == set(range(9))
    positions = {(len(i.spec[0][0]), i.fn) for i in every_shape.vmap((3, 4, 5)).items}
    assert all((r, f"jax.vmap(silu_ffi, in_axes={k})") in positions for r in range(1, 9) for k in range(r))
    grads = {(len(i.spec[0][0]), i.fn.rsplit("=", 1)[1]) for i in every_shape.vmap_grad((3, 4, 5)).items}
    assert all((r, f"{k})") in grads for r in range(1, 9) for k in range(r))


def test_a_loop_over_the_kernel_is_left_to_running_and_a_row_it_skips_is_named():
    """A loop calling the kernel per row brings only a loop's buffer and other call counts:
    placement.Unfollowed, judged by running. A loop that leaves a row at its initial zeros is a
    counterexample (proofs.in_place's coverage), which the loop's Unfollowed does not hide."""
    from autograder.shared import placement, proofs
    base = _read(kernel, X)
    within = every_shape.named_within(base, "at (3, 4)", "your forward kernel")
    looped = _read(lambda x: jax.lax.map(kernel, x), X)
    assert isinstance(within(looped), placement.Unfollowed) and within(looped)

    def skips_last(x):
        return jax.lax.fori_loop(0, x.shape[0] - 1, lambda i, out: out.at[i].set(kernel(x[i])), jnp.zeros_like(x))
    problem = proofs.all_of(within, proofs.in_place())(_read(skips_last, X))
    assert problem and not isinstance(problem, placement.Unfollowed), problem
    assert not isinstance(within(_read(lambda x: jax.lax.map(lambda r: kernel(r) * 2, x), X)), placement.Unfollowed)


def test_a_backward_kernel_fed_a_pad_is_left_to_running_a_forward_kernel_is_not():
    """Constants in a kernel's operands where the base has none (a 1-d input padded to whole
    rows of 64, sliced back after the call): the backward kernel's operands are the answer's to
    lay out, so `filler` makes that placement.Unfollowed (the run judges the values); the
    forward kernel takes x alone (the task's words), so without `filler` it is refused; math
    on the operands is refused either way."""
    from autograder.shared import placement
    base = _read(kernel, X)
    x1 = X.ravel()[:5]
    padded = _read(lambda x: kernel(jnp.pad(x, (0, -x.size % 64), constant_values=1.0).reshape(-1, 64)).ravel()[:x.size], x1)
    backward = every_shape.named_within(base, "at (3, 4)", "your backward kernel", filler=True)
    forward = every_shape.named_within(base, "at (3, 4)", "your forward kernel")
    assert isinstance(backward(padded), placement.Unfollowed) and "constants" in backward(padded)
    refused = forward(padded)
    assert refused and not isinstance(refused, placement.Unfollowed)
    assert "operand 0 of your forward kernel ('rms_norm') is your input and constants" in refused
    scaled = _read(lambda x: kernel(jnp.pad(x * 2, (0, 59), constant_values=1.0)), x1)
    assert not isinstance(backward(scaled), placement.Unfollowed) and backward(scaled)


def test_a_vmap_unrolled_per_example_is_lowered_within_the_call_budget():
    """A vmap that lowers one kernel call per example (vmap_method="sequential_unrolled"): the
    batches past CALL_BUDGET calls are not lowered (issue 55 item 7), the others are; a kernel
    batched whole keeps every item. (Their values are judged by running, on SiLU: the stand-in
    kernel here is not one, so the path itself is not run here.)"""
    @jax.custom_batching.custom_vmap
    def unrolled(x):
        return kernel(x)

    @unrolled.def_vmap
    def _(axis_size, in_batched, x):
        return (jnp.stack([kernel(x[i]) for i in range(axis_size)]) if axis_size else kernel(x)), True

    path = every_shape.vmap((3, 4, 5))
    assert every_shape.within_budget(_ask(kernel), path.items, hint="h") == path.items
    kept = every_shape.within_budget(_ask(unrolled), path.items, hint="h")
    assert kept and all(i.spec[0][0][i.axis] <= every_shape.CALL_BUDGET for i in kept)
    assert len(kept) < len(path.items) and any(i.spec[0][0][i.axis] == 2 for i in kept)


def test_a_run_judges_the_vjp_primal_as_silu_and_the_cotangent_as_its_gradient(monkeypatch):
    """by_running's reference follows the path: jax.vjp(silu_ffi, v)[0] is SiLU (a forward
    layout read nowhere else was judged against x·silu'(x) and lost a point), the VJP with x
    as the cotangent is x·silu'(x). The kernels' values stand in for the executor's run."""
    from autograder.assignments.silu_ffi import grader as kit, ranks
    right = {ranks.VJP_PRIMAL: kit.silu_np64, every_shape.VJP: lambda x: kit.silu_grad_np64(x, x)}
    items = [every_shape.Item(fn, every_shape._one((5,)), fn) for fn in right]
    ask = _ask(kernel)
    for values, passes in ((right, True), (dict(zip(right, reversed(list(right.values())))), False)):
        monkeypatch.setattr(kit, "kernel_values", lambda ask, fn, what, hint, x: (values[fn](x).astype(np.float32),))
        for item in items:   # one path a run (expect_within runs each path's items apart)
            run = every_shape.by_running(ask, [item], hint="h")
            if passes:
                run(list(item.spec))
            else:
                with pytest.raises(AssertionError, match=r"on shape \(5,\) \(run: its program could not be read\)"):
                    run(list(item.spec))
