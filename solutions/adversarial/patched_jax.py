"""The wrong answer (triples), with JAX and the grader's own helpers patched in the
student's process: jax.jit/jax.make_jaxpr/jax.vmap return the reference computation,
check_grads does nothing, and autograder's checks, facts and evaluate report success.

assignment: pure_callback_doubler
score: 7
messages:
  - differs from the reference
"""
import jax.test_util
import autograder.shared.checks, autograder.shared.wire, autograder.witness.evaluate, autograder.witness.facts

_real_jit = jax.jit
jax.jit = lambda fn, *a, **k: (lambda *args, **kw: 2 * args[0])
jax.vmap = lambda fn, *a, **k: (lambda *args, **kw: 2 * args[0])
jax.test_util.check_grads = lambda *args, **kwargs: None
autograder.shared.checks.expect_close = lambda *args, **kwargs: None
autograder.shared.checks.expect = lambda *args, **kwargs: None
autograder.shared.checks.fail = lambda *args, **kwargs: None
autograder.witness.facts.count_eqns = lambda *args, **kwargs: 1
autograder.witness.evaluate.evaluate = lambda user_ns, expr, inputs: {"ok": autograder.shared.wire.encode(
    2 * np.asarray(next(iter(inputs.values()))["value"]) if inputs else True)}


def host_double(arr):
    return np.asarray(arr) * 3


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
