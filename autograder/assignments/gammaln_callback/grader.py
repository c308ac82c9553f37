"""What the tests of gammaln_callback share: `gammaln_cb`, a `jax.custom_jvp` whose forward
values come from `scipy.special.gammaln` and whose derivative from `scipy.special.digamma`,
both through `jax.pure_callback`.

Here: the "is it defined, is it a custom_jvp" preambles, and every name the test cells use
(`from autograder.assignments.gammaln_callback import grader as kit`), from the modules of
this package by job:
- `questions`: the hints and the questions the tests ask again and again (the forward
  values, the gradient, equation counts, the compiled program);
- `references`: the inputs the tests draw and the float32 references;
- `paths`: every path traced back to its host callback and to SciPy, against the gates
  declared there once (FORWARD_COMPILED, DERIVATIVE_SCIPY, FROM_SCIPY, ...);
- `every_shape`: every path's program at every shape (ranks 0 to 8, 0 to 2^31 - 1 elements),
  read on its graph without running: from the callbacks, the same as where values were checked;
- `hostfns`: the ops of the compiled programs and the host functions called directly, on
  small inputs and on a huge one (2^20 + 3 values: the values and their dependence on SciPy,
  element by element, where a branch inside a host function would hide from a lowering);
- `values`: dtypes and shapes, vmap at every axis, the gradient, the jvp and the chain rule.

This package runs in the grader's process and may not import SciPy: the float64
references `scipy.special.gammaln` and `scipy.special.digamma` are passed in by the test
cells (`gammaln=sps.gammaln`, `digamma=sps.digamma`) and always called on float64 input.

Where the verdict is computed: every compiled program (`compiled_program`) is run by the
grader's executor, its host callbacks served by the witness's host functions, as it is,
with the callbacks' output poisoned and with SciPy's function poisoned where the witness
serves them; so are the ops of the optimized programs. What only the student's process can
observe (eager calls, jaxpr equations, the host functions called directly, isinstance) is
asked through `ask.run`, and every test that rests on it also passes a gate computed by the
executor (`expect_program_from_scipy`): the compiled forward (or derivative) program's
values are SciPy's, through the host callbacks.
"""
from autograder.shared import checks
from autograder.assignments.gammaln_callback import EXERCISE
from autograder.assignments.gammaln_callback.every_shape import (  # noqa: F401  (the test cells' names)
    expect_derivative_everywhere, expect_forward_everywhere, expect_no_math_everywhere)
from autograder.assignments.gammaln_callback.hostfns import (  # noqa: F401
    ALLOWED_OPS, NO_MATH, check_derivative_hosts_at_scale, check_forward_hosts_at_scale,
    check_host_functions_declared, expect_host_functions_pure, expect_host_functions_run_no_jax,
    expect_no_math_outside_callbacks)
from autograder.assignments.gammaln_callback.paths import (  # noqa: F401
    DERIVATIVE_COMPILED, DERIVATIVE_EAGER, DERIVATIVE_SCIPY, FORWARD_COMPILED, FORWARD_COMPILED_SCIPY,
    FORWARD_EAGER, FORWARD_EAGER_SCIPY, FROM_SCIPY, check_derivative_paths, check_forward_eager,
    check_forward_paths, check_forward_special, expect_gradient_not_io, expect_program_from_scipy,
    expect_pure_callback_not_io)
from autograder.assignments.gammaln_callback.questions import (  # noqa: F401
    DIGAMMA, FORWARD_HINT, GAMMALN, GRAD, JVP_HINT, TANGENT_HINT, compiled_program, count_eqns, run_forward,
    run_grad)
from autograder.assignments.gammaln_callback.references import (  # noqa: F401
    DOMAIN, EDGES, HUGE, f32, flat_input, forward_input, gradient_input, huge_input, large_input, public_input,
    random_tangent, scipy32, special_input, wide_inputs)
from autograder.assignments.gammaln_callback.values import (  # noqa: F401
    VMAP_HINT, check_chain_rule, check_gradients, check_jvp, check_shapes, check_vmap_every_axis, values_on_flat)


def expect_defined(ask):
    """The notebook defined gammaln_cb."""
    checks.expect(ask.defined("gammaln_cb"), "gammaln_cb is not defined; define it with @jax.custom_jvp.")


def case(env, *, concept):
    """The test cells' ritual (EXERCISE.case): every test first needs gammaln_cb defined."""
    return EXERCISE.case(env, concept=concept, before=expect_defined)


def expect_custom_jvp(ask, advice):
    """Fail with 'gammaln_cb is not a jax.custom_jvp; <advice>' unless it is one."""
    checks.expect(ask.run("isinstance(gammaln_cb, jax.custom_jvp)", what="The type of gammaln_cb"),
                  "gammaln_cb is not a jax.custom_jvp; " + advice)
