"""A wrong answer (its base, ffi_lowering's wrong_lower_fun_jnp.py), with JAX and the grader's own helpers patched in the
student's process: jax.jit/jax.make_jaxpr/jax.vmap return another computation,
check_grads does nothing, and autograder's checks, observe and evaluate report success.

assignment: ffi_lowering
base: wrong_lower_fun_jnp
score: 2
messages:
  - The compiled program of jax.jit of rms_norm_prim_p.bind holds no custom_call to the FFI target rms_norm
"""
import jax.test_util
import autograder.shared.checks, autograder.shared.wire, autograder.witness.evaluate, autograder.witness.observe

_real_jit = jax.jit
jax.jit = lambda fn, *a, **k: (lambda *args, **kw: 2 * args[0])
jax.vmap = lambda fn, *a, **k: (lambda *args, **kw: 2 * args[0])
jax.test_util.check_grads = lambda *args, **kwargs: None
autograder.shared.checks.expect_close = lambda *args, **kwargs: None
autograder.shared.checks.expect = lambda *args, **kwargs: None
autograder.shared.checks.fail = lambda *args, **kwargs: None
autograder.witness.observe.count_eqns = lambda *args, **kwargs: 1
autograder.witness.evaluate.evaluate = lambda user_ns, expr, inputs: {"ok": autograder.shared.wire.encode(
    2 * np.asarray(next(iter(inputs.values()))["value"]) if inputs else True)}
