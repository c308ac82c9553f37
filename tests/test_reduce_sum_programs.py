"""reduce_sum_rules' programs run by the executor: the given cell and an answer's rules
executed here as the witness would, the programs the tests hand over (jit, jvp, vmap,
linear_transpose, second order) read and run through autograder.executor.program with
handlers of its own (the course's kernels, __grader_reduce_sum__ among them), and the kit's
verdicts on them (autograder/assignments/reduce_sum_rules/programs.py): a correct answer passes,
and each answer that computes a sum without the primitive's kernel is caught."""
import json

import numpy as np
import pytest

from autograder.executor import program
from autograder.executor.handlers import Handlers
from autograder.shared import paths, poison, probe
from autograder.assignments.reduce_sum_rules import grader as kit
from autograder.witness.evaluate import evaluate

REFERENCE = (paths.solutions("reduce_sum_rules") / "reference.py").read_text()
HANDLERS = Handlers()


def given_cell() -> str:
    nb = json.loads(paths.master("reduce_sum_rules").read_text())
    (cell,) = [c for c in nb["cells"] if c["cell_type"] == "code" and "= Primitive(" in "".join(c["source"])]
    return "".join(cell["source"])


def ask_for(answer: str) -> probe.Ask:
    """An Ask whose questions are answered among the given cell's and `answer`'s globals and
    whose programs run with the executor's own handlers; the primitive lowered to the kernel."""
    env: dict = {}
    exec(given_cell(), env)
    exec(answer, env)
    ask = probe.Ask(lambda expr, inputs, serving=False: evaluate(env, expr, inputs, "reduce_sum_rules"), seed=0,
                    execute=lambda request, serve=None: program.handle(request, HANDLERS, serve))
    kit.given_primitive(ask, ask.normal(1, (3, 4, 5)), (0, 2))
    return ask


def rule(batch_body: str = "", jvp_primal: str = "custom_reduce_sum_p.bind(x, axis=axis)") -> str:
    """The reference answer with its batching rule's return line (or its JVP primal) replaced."""
    code = REFERENCE.replace("y = custom_reduce_sum_p.bind(x, axis=axis)", f"y = {jvp_primal}")
    if batch_body:
        code = code.replace("    return custom_reduce_sum_p.bind(x, axis=tuple(a + 1 for a in axis)), 0\n",
                            f"    shifted = tuple(a + 1 for a in axis)\n    return {batch_body}\n")
    return code


@pytest.fixture(scope="module")
def ask():
    return ask_for(REFERENCE)


def test_the_course_handlers_hold_the_kernel_as_a_course_kernel():
    """Does the executor register __grader_reduce_sum__ with the course's kernels, run it without the witness's word?"""
    assert kit.TARGET in HANDLERS.course()
    assert HANDLERS.describe(kit.TARGET)["course"] and HANDLERS.resolve([kit.TARGET], {}) == ""


def test_each_bind_is_a_kernel_call_with_its_axes_and_every_value_depends_on_it(ask):
    """In the programs of jit, jvp and vmap, is each bind a call to the kernel with the axes it sums, and do the values change everywhere when it is poisoned?"""
    x, t = ask.normal(2, (2, 3, 4)), ask.normal(3, (2, 3, 4))
    report = ask.program("(lambda v, r: (custom_reduce_sum(v, (0, 2)), jax.jvp(lambda u: custom_reduce_sum(u, (1,)), "
                         "(v,), (r,)), jax.vmap(lambda u: custom_reduce_sum(u, (0,)), in_axes=2)(v)))", "x", "t",
                         x=x, t=t, what="three paths", each=True)
    calls = [(c.target, list(c.attribute("axis")), c.operand_types[0]) for c in report.calls]
    assert calls == [(kit.TARGET, [0, 2], "tensor<2x3x4xf32>"), (kit.TARGET, [1], "tensor<2x3x4xf32>"),
                     (kit.TARGET, [1], "tensor<2x3x4xf32>"), (kit.TARGET, [1], "tensor<4x2x3xf32>")]
    x64, t64 = x.astype(np.float64), t.astype(np.float64)
    for got, want in zip(report.value, [x64.sum((0, 2)), x64.sum(1), t64.sum(1), np.moveaxis(x64, 2, 0).sum(1)]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for clean, poisoned in zip(report.value, report.run("ffi").outputs):
        assert np.all(poison.changed(clean, poisoned))
    alone = [[bool(np.any(poison.changed(c, p))) for c, p in zip(report.value, report.run(f"call:{k}").outputs)]
             for k in range(4)]
    assert alone == [[k == i for i in range(4)] for k in range(4)]   # call k feeds output k alone


def test_the_kit_passes_a_correct_answer_on_every_kind_of_program(ask):
    """Do the kit's program verdicts pass the reference on plain, jvp, vmap, transpose and second-order programs?"""
    x, t = ask.normal(4, (2, 3, 4)), ask.normal(5, (2, 3, 4))
    x64 = x.astype(np.float64)
    kit.sums_program(ask, "(lambda v: custom_reduce_sum(v, (1, 2)))", ["x"],
                     [(0, "the sum", kit.sum64(x, (1, 2)), 12)], x=x, what="jit", hint="")
    kit.sums_program(ask, kit.jvp_expr((0,)), ["x", "t"], [(0, "the primal", kit.sum64(x, (0,)), 2)],
                     x=x, t=t, what="jvp", hint="", each=True)
    kit.sums_by_count(ask, ["x"], [(f"vmap at {bd}", f"jax.vmap(lambda v: custom_reduce_sum(v, (0,)), in_axes={bd})(x)",
                                    kit.batched_sum64(x, bd, (0,)), kit.summed(np.delete(x.shape, bd), (0,)))
                                   for bd in range(3)], x=x, what="vmap", hint="")
    f = "(lambda v: custom_reduce_sum(v, (1,)))"
    rep = kit.program(ask, f"(lambda v: jax.linear_transpose({f}, v)({f}(v)))", ["x"], x=x, what="transpose", hint="")
    kit.expect_values(rep, [(0, "the transposed sum", kit.back64(kit.sum64(x, (1,)), (1,), x.shape))], hint="")
    kit.expect_from_kernel(rep, [0], what="transpose", hint="")
    hvp = "(lambda v, s: jax.jvp(jax.grad(lambda r: jnp.sum(custom_reduce_sum(r * r, (0,))) ** 2), (v,), (s,))[1])"
    rep = kit.program(ask, hvp, ["x", "t"], x=x, t=t, what="a Hessian-vector product", hint="")
    q = np.sum(x64 * x64)
    kit.expect_values(rep, [(0, "the HVP", 4 * q * t + 8 * x64 * np.sum(x64 * t))], hint="", rtol=1e-4, atol=1e-4)
    kit.expect_from_kernel(rep, [0], what="a Hessian-vector product", hint="")


VMAP = "jax.vmap(lambda v: custom_reduce_sum(v, (0, 1)), in_axes=1)(x)"   # x: (3, 4, 5), 15 entries a sum


@pytest.mark.parametrize("answer, message", [
    (rule("jnp.sum(x, axis=shifted), 0"), "the values do not come from custom_reduce_sum_p"),
    (rule("jnp.sum(x, axis=shifted) + 0 * custom_reduce_sum_p.bind(x, axis=shifted), 0"),
     "the values do not come from custom_reduce_sum_p"),
    (rule("0.5 * jnp.sum(x, axis=shifted) + 0.5 * custom_reduce_sum_p.bind(x, axis=shifted), 0"),
     "the values are not custom_reduce_sum_p's own sums"),
    (rule("custom_reduce_sum_p.bind(custom_reduce_sum_p.bind(x, axis=shifted[1:]), axis=shifted[:1]), 0"),
     r"binds custom_reduce_sum_p over axis \(2,\) of an operand of shape \(4, 3, 5\), adding 5 entries for each "
     "result where the sum adds 15"),
    (rule("jax.pure_callback(lambda v: np.sum(v, axis=shifted), jax.ShapeDtypeStruct(x.shape[:1], x.dtype), x, "
          "vmap_method='sequential'), 0"), "come from a host callback"),
])
def test_a_vmapped_sum_the_kernel_does_not_compute_fails_the_kit(answer, message):
    """Is a batching rule caught that sums with jnp.sum, binds only a decoy, blends the bind into jnp.sum, binds once per axis or sums in a host callback?"""
    ask = ask_for(answer)
    x = ask.normal(6, (3, 4, 5))
    with pytest.raises(AssertionError, match=message):
        kit.sums_program(ask, f"(lambda x: {VMAP})", ["x"], [(0, "vmap", kit.batched_sum64(x, 1, (0, 1)), 15)],
                         x=x, what="jax.vmap of custom_reduce_sum", hint="")


def test_a_jvp_primal_that_binds_only_under_the_poison_fails_the_kit():
    """Is a JVP rule caught whose primal binds the primitive only while the grader's poison is in (cheat_jvp_primal_detects_the_poison)?"""
    answer = (paths.solutions("reduce_sum_rules") / "cheat_jvp_primal_detects_the_poison.py").read_text()
    ask = ask_for(answer)
    x, t = ask.normal(7, (2, 3, 4)), ask.normal(8, (2, 3, 4))
    with pytest.raises(AssertionError, match="the values do not come from custom_reduce_sum_p"):
        kit.sums_program(ask, kit.jvp_expr((1,)), ["x", "t"], [(0, "the primal", kit.sum64(x, (1,)), 3)],
                         x=x, t=t, what="jax.jvp of custom_reduce_sum", hint="", each=True)
