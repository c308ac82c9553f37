"""gammaln_cb's programs at every shape the task covers, read on their graphs without running
(probe.Ask.structures; shared/proofs.py): ranks 0 to 8, 0 to 2^31 - 1 elements
(shared/shapes.py), each path lowered by jax.jit at abstract shapes. A branch on the shape,
decided in Python while tracing, shows at the first shape past it, wherever it sits.

- the forward paths (test 5): jax.jit(gammaln_cb), jax.vmap (first, middle, last axis,
  nested) and the primal of jax.jvp are the output of a pure_callback, only moved (or guarded:
  GUARDS), and, shapes aside, what they are where the tests checked values and dependence;
- the derivative paths (test 6): jax.jit(jax.grad(...)), jax.vmap(jax.grad(...)) and the
  tangent of jax.jvp come from a pure_callback (times the cotangent: arithmetic
  is allowed there) and are, shapes aside, what they are at the shape whose values and
  dependence the tests checked;
- the math (test 7): around the callbacks of jax.jit(gammaln_cb) and jax.jit(jax.grad(...)),
  only what the task allows (ALLOWED_MATH, the StableHLO names of hostfns.ALLOWED_OPS).

The same spec lists serve every test (AT, JVP_AT, BATCHED_AT): a grading lowers each path
once (probe.Ask.structures keeps them).
"""
import numpy as np

from autograder.shared import evidence, proofs, shapes
from autograder.assignments.gammaln_callback import paths
from autograder.assignments.gammaln_callback.questions import FORWARD_HINT, GRAD, JVP_HINT
from autograder.assignments.gammaln_callback.references import domain_values, f32, scipy32

# The shapes whose values and dependence the tests check (references.forward_input, and the
# (6, 5) of test 6's wide_inputs): the bases the other shapes are compared with.
FORWARD_SHAPE, DERIVATIVE_SHAPE = (3, 4, 5), (6, 5)
# jit: 1-d inputs of every size of shapes.SIZES (a branch on the size shows at the size
# just past its threshold; one on divisibility at a power of two or three times one), 0-d, and
# ranks 1 to 8 with small distinct dims and with the largest (shapes.ranked; an empty output
# has no values to prove). jvp: 0-d and the ranks; vmap: the ranks. About 5 to 15 ms a
# program, each path lowered once a grading (probe.Ask.structures keeps them).
RANKS = [s for s in shapes.ranked(8, 1) if 0 not in s and max(s) > 1]
AT = list(dict.fromkeys([*shapes.flat(), (), *RANKS, FORWARD_SHAPE, DERIVATIVE_SHAPE]))
JVP_AT = [(), *RANKS, FORWARD_SHAPE, DERIVATIVE_SHAPE]
# vmap: small batches only (vmap_method="sequential_unrolled" unrolls one call per example).
BATCHED_AT = [*(s for s in RANKS if max(s) < 20), FORWARD_SHAPE, DERIVATIVE_SHAPE]

JIT, JIT_GRAD = "jax.jit(gammaln_cb)", "jax.jit(jax.grad(gammaln_cb))"
JVP = "lambda v: jax.jvp(gammaln_cb, (v,), (v,))"   # one input: the tangent is the primal itself
# The batch at the first, middle and last axis (output k: the k-th of them, _vmap_name), then, from rank
# 2 on, a nested vmap. The answer's Python sees one example's shape whichever axis is batched
# (test 9 checks the values at every axis).
VMAP = ("lambda x: [jax.vmap(gammaln_cb, in_axes=k)(x) for k in sorted({0, x.ndim // 2, x.ndim - 1})]"
        " + ([jax.vmap(jax.vmap(gammaln_cb), in_axes=x.ndim - 1)(x)] if x.ndim > 1 else [])")
# The batch at the middle axis (in_axes=1 at DERIVATIVE_SHAPE, as the tests run it): the
# derivative's callback is batched the same way whichever axis is moved to the front.
VMAP_GRAD = f"lambda x: jax.vmap({GRAD}, in_axes=x.ndim // 2)(x)"

# What the task allows around the callbacks (hostfns.ALLOWED_OPS, as StableHLO names them;
# moving data is no math on the graph).
ALLOWED_MATH = frozenset({"add", "subtract", "multiply", "negate", "abs", "maximum", "minimum", "compare",
                          "select", "and", "or", "not", "convert", "is_finite"})
# What a forward output may hold besides the callback's result: a guard of the answer's own
# (jnp.where(x > 0, y, jnp.nan); jnp.isinf(x) lowers to abs and compare), which the task
# allows; the values where it picks the callback are the callback's own (paths.FORWARD_COMPILED
# checks them at the base shape, and same_as holds every other shape to the base's math).
GUARDS = frozenset({"compare", "select", "and", "or", "not", "is_finite", "abs"})

SAME_HINT = "call SciPy through jax.pure_callback the same way for every shape: no shape may take a plain JAX path"
MATH_HINT = ("log-gamma and digamma must be computed by SciPy on the host, and around the callbacks only +, -, *, "
             "comparisons, selects, dtype conversions and moves of data are allowed, for every shape")


def is_pure(call) -> bool:
    """A host callback without side effects: jax.pure_callback's."""
    return call.kind == evidence.HOST_CALLBACK and not call.side_effect


# How many outputs each path has at a shape (the shapes of a path are lowered as one program
# and read apart: probe.Ask.structures).
OUTPUTS = {"gammaln_cb": lambda s: 1, GRAD: lambda s: 1, VMAP_GRAD: lambda s: 1, JVP: lambda s: 2,
           VMAP: lambda s: len({0, len(s) // 2, len(s) - 1}) + (len(s) > 1)}


def lowered(ask, fn, at, *, what, hint):
    """(structures, specs, {shape: structure}) of `fn` (an expression of one argument, a key
    of OUTPUTS) lowered at each shape of `at`, float32."""
    specs = [[(tuple(s), "float32")] for s in at]
    found = ask.structures(fn, specs, what=what, hint=hint, outputs=[OUTPUTS[fn](tuple(s)) for s in at])
    return found, specs, {tuple(s): f for s, f in zip(at, found)}


# ---- the rules (each: a Structure -> "" or what is wrong) ----

def _rank(s):
    """The rank of the program's first input ("tensor<2x3xf32>": 2)."""
    return len(evidence.dims(s.inputs[0])) if s.inputs else 0


def _vmap_name(s, k):
    """Output k of VMAP, in words."""
    r = _rank(s)
    axes = sorted({0, r // 2, r - 1})
    return f"with in_axes={axes[k]}, the output" if k < len(axes) else "nested, the output"


def _it(s, k):
    return "it"


def _vmap_output(s, k):
    """Output k of VMAP, as proofs.in_place names it."""
    r = _rank(s)
    axes = sorted({0, r // 2, r - 1})
    return f"the output with in_axes={axes[k]}" if k < len(axes) else "the output of the nested vmap"


def _the_output(s, k):
    return "the output"


def _front(r, axis):
    return (axis, *(d for d in range(r) if d != axis))


def _vmap_axes(s, k):
    """proofs.in_place's perm of VMAP's output k: its batch axis moved to the front (nested:
    the last axis, then the others in order)."""
    r = _rank(s)
    axes = sorted({0, r // 2, r - 1})
    return _front(r, axes[k] if k < len(axes) else r - 1)


def _middle_first(s, k):
    """proofs.in_place's perm of VMAP_GRAD: the middle axis moved to the front."""
    return _front(_rank(s), _rank(s) // 2)


def output_of_pure(outputs=None, names=None):
    """Each output (or those of `outputs`) is a pure_callback's output, only moved, or guarded
    (GUARDS: jnp.where(x > 0, y, jnp.nan))."""
    def rule(s):
        for k, origin in enumerate(s.outputs):
            if (outputs is None or k in outputs) and not proofs.empty(s, k) and (
                    not _has_pure(s, origin) or not set(origin.math) <= GUARDS):
                return (f"{proofs.which(s, k, names)} is not the output of a pure_callback: it is "
                        f"{proofs.sources_phrase(origin, s.calls)}")
        return ""
    return rule


def _has_pure(s, origin):
    return any(i < len(s.calls) and is_pure(s.calls[i]) for i in origin.calls())


def from_pure(outputs=None, names=None):
    """Each output (or those of `outputs`) has a pure_callback among its sources."""
    def rule(s):
        for k, origin in enumerate(s.outputs):
            if (outputs is None or k in outputs) and not proofs.empty(s, k) and not _has_pure(s, origin):
                return (f"{proofs.which(s, k, names)} does not come from a pure_callback: it is "
                        f"{proofs.sources_phrase(origin, s.calls)}")
        return ""
    return rule


def math_within(s):
    """Around the callbacks (every output, every operand of a custom_call the outputs reach),
    only ALLOWED_MATH (a program without elements computes nothing)."""
    if all(proofs.empty(s, k) for k in range(len(s.outputs))):
        return ""
    found = {m for o in s.outputs for m in o.math}
    found |= {m for ops in s.operands for o in ops for m in o.math}
    outside = sorted(found - ALLOWED_MATH)
    return f"it computes math outside the callbacks ({', '.join(outside)})" if outside else ""


# ---- the proofs the tests ask for ----

def _label(shape):
    return f"shape {shapes.label(tuple(shape))}"


def expect_forward_everywhere(ask):
    """Test 5: at every shape of AT (ranks 0-8, 0 to 2^31 - 1 elements) jax.jit(gammaln_cb) is a
    pure_callback's output, only moved (or guarded), and the program checked at FORWARD_SHAPE;
    so are jax.vmap (first, middle, last axis, nested; each as in_axes=1 at FORWARD_SHAPE) at
    every shape of BATCHED_AT, and jax.jvp's primal output at every shape of JVP_AT. A vmap or
    jvp that does not lower at FORWARD_SHAPE is skipped (other tests' business)."""
    found, specs, by = lowered(ask, "gammaln_cb", AT, what=JIT, hint=FORWARD_HINT)
    base = _label(FORWARD_SHAPE)
    proofs.expect_every(found, specs, proofs.all_of(output_of_pure(), proofs.same_as(by[FORWARD_SHAPE], base),
                                                    proofs.in_place()), what=JIT, hint=SAME_HINT,
                        run=by_running(ask, paths.FORWARD, _jit_paths))
    what = "jax.vmap(gammaln_cb)"
    found, specs, by = lowered(ask, VMAP, BATCHED_AT, what=what, hint=FORWARD_HINT)
    if not by[FORWARD_SHAPE].refused:   # its output 1: in_axes=1, as test 5 runs it there
        proofs.expect_every(found, specs, proofs.all_of(output_of_pure(names=_vmap_name), proofs.same_as(
            by[FORWARD_SHAPE], f"{base} with in_axes=1", base_output=1, names=_vmap_name),
            proofs.in_place(names=_vmap_output, perm=_vmap_axes)), what=what, hint=SAME_HINT,
            run=by_running(ask, paths.FORWARD, _vmap_paths))
    what = "the primal output of jax.jvp(gammaln_cb)"
    found, specs, by = lowered(ask, JVP, JVP_AT, what=what, hint=JVP_HINT)
    if not by[FORWARD_SHAPE].refused:
        proofs.expect_every(found, specs, proofs.all_of(output_of_pure(outputs=(0,), names=_it), proofs.same_as(
            by[FORWARD_SHAPE], base, base_output=0, outputs=(0,), names=_it), proofs.in_place(outputs=(0,), names=_the_output)),
            what=what, hint=SAME_HINT, run=by_running(ask, paths.FORWARD, _primal_paths))


def expect_derivative_everywhere(ask):
    """Test 6: at every shape of AT jax.jit(jax.grad(...)), of BATCHED_AT jax.vmap(jax.grad(...))
    over the middle axis and of JVP_AT jax.jvp's tangent come from a pure_callback and are
    what they are at DERIVATIVE_SHAPE (jit(grad), vmap with in_axes=1, the tangent: the
    programs whose values and dependence were checked). A vmap or jvp that does not lower at
    DERIVATIVE_SHAPE is skipped (other tests' business)."""
    base = _label(DERIVATIVE_SHAPE)
    found, specs, by = lowered(ask, GRAD, AT, what=JIT_GRAD, hint=JVP_HINT)
    proofs.expect_every(found, specs, proofs.all_of(from_pure(), proofs.same_as(by[DERIVATIVE_SHAPE], base, base_output=0),
                                                    proofs.in_place()), what=JIT_GRAD, hint=SAME_HINT,
                        run=by_running(ask, paths.DERIVATIVE, _grad_paths))
    what = "jax.vmap(jax.grad(gammaln_cb), in_axes=x.ndim // 2)"
    found, specs, by = lowered(ask, VMAP_GRAD, BATCHED_AT, what=what, hint=JVP_HINT)
    if not by[DERIVATIVE_SHAPE].refused:
        proofs.expect_every(found, specs, proofs.all_of(from_pure(), proofs.same_as(by[DERIVATIVE_SHAPE], base, base_output=0),
                                                        proofs.in_place(perm=_middle_first)), what=what, hint=SAME_HINT,
                            run=by_running(ask, paths.DERIVATIVE, _vmap_grad_paths))
    what = "the tangent output of jax.jvp(gammaln_cb)"
    found, specs, by = lowered(ask, JVP, JVP_AT, what=what, hint=JVP_HINT)
    if not by[DERIVATIVE_SHAPE].refused:
        proofs.expect_every(found, specs, proofs.all_of(
            from_pure(outputs=(1,), names=_it),
            proofs.same_as(by[DERIVATIVE_SHAPE], base, base_output=1, outputs=(1,), names=_it),
            proofs.in_place(outputs=(1,), names=_the_output)), what=what, hint=SAME_HINT,
            run=by_running(ask, paths.DERIVATIVE, _tangent_paths))


def expect_no_math_everywhere(ask):
    """Test 7: at every shape of AT, jax.jit(gammaln_cb) and jax.jit(jax.grad(...)) compute
    nothing around their callbacks but ALLOWED_MATH."""
    for fn, what, hint in (("gammaln_cb", JIT, FORWARD_HINT), (GRAD, JIT_GRAD, JVP_HINT)):
        found, specs, _ = lowered(ask, fn, AT, what=what, hint=hint)
        proofs.expect_every(found, specs, math_within, what=what, hint=MATH_HINT)


# ---- where the reading stops, the program runs (proofs.expect_every's `run`) ----

def by_running(ask, side, paths_at):
    """The judge of a shape whose program the reading could not follow: each path of
    `paths_at(shape, x)` compiled and run by the grader on values it draws over the domain,
    as it is, with the callbacks' output poisoned and with SciPy's function poisoned
    (paths.check_path: the values, then every gate of `side`)."""
    def run(spec):
        ((shape, _),) = spec
        shape = tuple(shape)
        x = domain_values(ask.rng(701), int(np.prod(shape))).reshape(shape)
        for path in paths_at(shape, x):
            paths.check_path(ask, side, path)
    return run


def _on(what, shape):
    return f"{what} on {_label(shape)} (run: its program could not be read)"


def _gammaln(x):
    import scipy.special as sps
    return scipy32(sps.gammaln, x)


def _psi(x):
    import scipy.special as sps
    return scipy32(sps.digamma, x)


def _jit_paths(shape, x):
    return [paths.Path(_on(JIT, shape), "gammaln_cb", (x,), _gammaln(x))]


def _vmap_paths(shape, x):
    r, want = len(shape), _gammaln(x)
    found = [paths.Path(_on(f"jax.vmap(gammaln_cb, in_axes={k})", shape), f"jax.vmap(gammaln_cb, in_axes={k})",
                        (x,), np.moveaxis(want, k, 0)) for k in sorted({0, r // 2, r - 1})]
    if r > 1:
        nested = f"jax.vmap(jax.vmap(gammaln_cb), in_axes={r - 1})"
        found.append(paths.Path(_on(nested, shape), nested, (x,), np.moveaxis(want, r - 1, 0)))
    return found


def _primal_paths(shape, x):
    return [paths.Path(_on("the primal output of jax.jvp(gammaln_cb)", shape),
                       "lambda v, t: jax.jvp(gammaln_cb, (v,), (t,))[0]", (x, x), _gammaln(x))]


def _grad_paths(shape, x):
    return [paths.Path(_on(JIT_GRAD, shape), GRAD, (x,), _psi(x))]


def _vmap_grad_paths(shape, x):
    k = len(shape) // 2
    fn = f"jax.vmap({GRAD}, in_axes={k})"
    return [paths.Path(_on(fn, shape), fn, (x,), np.moveaxis(_psi(x), k, 0))]


def _tangent_paths(shape, x):
    return [paths.Path(_on("the tangent of jax.jvp(gammaln_cb)", shape),
                       "lambda v, t: jax.jvp(gammaln_cb, (v,), (t,))[1]", (x, x), f32(_psi(x) * x))]
