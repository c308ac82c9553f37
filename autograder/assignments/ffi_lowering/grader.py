"""What the ffi_lowering tests share: the primitive check every test opens and closes with,
the kernel check on every compiled path, the eager-and-jit value comparison, and the
single checks (eps as an equation parameter, eps as an FFI attribute, eval_shape) kept here
so that each test cell reads as a few calls and a comparison.

Runs in the grader's process: it asks only through `ask.run` (the expressions are evaluated
in the student's process) and judges with `checks`; the float64 reference is
`autograder.shared.references.rms_norm_np64`.
"""
import numpy as np

from autograder.shared import checks, gates
from autograder.assignments.ffi_lowering.records import PrimitiveIdentity
from autograder.shared.references import rms_norm_np64
from autograder.assignments.ffi_lowering import EXERCISE

__all__ = ["case", "rms_norm_np64", "BIND", "BIND_EPS", "expect_plain_primitive", "kernel_output",
           "expect_eager_and_jit", "expect_eps_params", "expect_eps_attributes", "expect_eval_shape"]

# The student's primitive as a one-argument function (expression text, student's side):
# with eps fixed at 1e-5, and with eps read from the question's `eps` input.
BIND = "(lambda v: checks.bind(rms_norm_prim_p, v, eps=np.float32(1e-5)))"
BIND_EPS = "(lambda v: checks.bind(rms_norm_prim_p, v, eps=np.float32(eps)))"

LOWER = "lower rms_norm_prim_p with jax.ffi.ffi_lowering(\"rms_norm\")"
# The kernel check on every compiled path (kernel_output): the result IS the rms_norm kernel's.
KERNEL = (
    gates.NoHostCallback("The compiled program of {what} runs a host callback (pure_callback or io_callback); "
                         "lower rms_norm_prim_p to the FFI target rms_norm with jax.ffi.ffi_lowering(\"rms_norm\")."),
    gates.OnlyTargets("The compiled program of {what} calls the FFI target {others}; only the given target rms_norm "
                      "counts (a target of your own, even one bound to the course's kernel, does not), so " + LOWER + ".",
                      allowed=frozenset({"rms_norm"})),
    gates.CallsFfi("The compiled program of {what} holds no custom_call to the FFI target rms_norm; register "
                   "jax.ffi.ffi_lowering(\"rms_norm\") as the CPU lowering of rms_norm_prim_p."),
    gates.Ran("The compiled program of {what} could not be run on the grader's input: {refused}."),
    gates.DependsOn("The result of {what} does not come from the rms_norm kernel: with the kernel's output replaced, "
                    "it did not change everywhere; it must be the output of a live custom_call to rms_norm, not of a "
                    "computation beside it"),
    gates.StraightFrom("The result of {what} is not the rms_norm kernel's output as it leaves the kernel: something "
                       "is computed after the custom_call (only moving data, such as moveaxis or reshape, may follow it)"),
    gates.NoOps("The compiled program of {what} computes part of RMSNorm outside the rms_norm kernel: no division and "
                "no square root or other transcendental operation may appear outside the custom_call",
                forbidden=checks.TRANSCENDENTAL | {"divide"}),
)


def expect_plain_primitive(ask):
    """rms_norm_prim_p is exactly a jax.extend.core.Primitive whose instance holds only what
    Primitive(name), def_impl and def_abstract_eval set, so it has one behaviour under
    every trace."""
    identity = ask.run("witness.primitive_identity(__notebook__.get('rms_norm_prim_p'))", what="Inspecting rms_norm_prim_p")
    checks.expect(isinstance(identity, PrimitiveIdentity), "Inspecting rms_norm_prim_p gave no answer.")
    kind, detail = identity.kind, identity.detail
    checks.expect(kind != "missing", (
        "rms_norm_prim_p is not an untouched jax.extend.core.Primitive (or the answer cell stopped before defining it); "
        "create it with Primitive(\"rms_norm_prim\")."))
    checks.expect(kind != "class", (
        f"rms_norm_prim_p is not an untouched jax.extend.core.Primitive but a {detail}; create it with "
        "Primitive(\"rms_norm_prim\") itself, no subclass and no stand-in object, so that it behaves the same under every transformation."))
    checks.expect(kind != "dict", (
        f"rms_norm_prim_p is not an untouched jax.extend.core.Primitive: its attribute dictionary was replaced by a {detail}; "
        "configure it only with def_impl and def_abstract_eval."))
    checks.expect(not detail, (
        f"rms_norm_prim_p is not an untouched jax.extend.core.Primitive: its instance sets {', '.join(detail)}; configure it "
        "only with def_impl, def_abstract_eval and the rule tables, so that it behaves the same under every transformation."))


def case(env, *, concept):
    """The test cells' ritual (EXERCISE.case): rms_norm_prim_p is an untouched Primitive
    before the test's questions and still one after them."""
    return EXERCISE.case(env, concept=concept, before=expect_plain_primitive, after=expect_plain_primitive)


def kernel_output(ask, fn, *, what, hint, **inputs):
    """The result of the compiled program of jax.jit(fn) on the input x, after the kernel check.

    The program is the StableHLO that jax.jit(fn) lowers to in the student's process, read
    and run by the grader's executor (probe.Ask.program: no student Python, the course's
    kernels only) on the grader's x, as it is and with the kernel's output replaced by
    marker values: no host callback, no FFI target but rms_norm (XLA refuses a second
    registration of that name, so it is always the course's kernel); the result must BE
    that kernel's output (depending on it everywhere, nothing computed after it but data
    movement), with no division or transcendental op outside it, and be one array. `fn` is
    an expression naming a function; `inputs` (x first) are the question's."""
    report = gates.check(ask.program(fn, "x", what=what, hint=hint, each=False, **inputs), KERNEL, what=what)
    checks.expect(len(report.value) == 1, f"{what} returned {len(report.value)} arrays instead of one.")
    return report.value[0]


def expect_eager_and_jit(ask, fn, want, *, asked, compared, ask_hint, hint, dtype=None, **inputs):
    """`fn` (an expression naming a function) on x gives `want`, called as it is and compiled.

    First `fn(x)` is asked (failing as '<asked[0]> raised ...; <ask_hint>') and compared
    with `want` as `compared[0]`; then jax.jit(fn) goes through `kernel_output` (named
    `asked[1]`) and its result is compared as `compared[1]`. With `dtype`, each result's
    dtype is checked before its values. `inputs` (x first) are the questions' inputs."""
    got = ask.run(f"{fn}(x)", what=asked[0], hint=ask_hint, **inputs)
    if dtype is not None:
        checks.expect_dtype(got, dtype, what=compared[0])
    checks.expect_close(got, want, what=compared[0], hint=hint)
    got = kernel_output(ask, fn, what=asked[1], hint=ask_hint, **inputs)
    if dtype is not None:
        checks.expect_dtype(got, dtype, what=compared[1])
    checks.expect_close(got, want, what=compared[1], hint=hint)


def expect_eps_params(ask, x, eps):
    """Tracing BIND_EPS, plain and under jax.jit, records rms_norm_prim equations whose eps
    param is a 0-d float equal (in float32) to the bound `eps`."""
    for name, fn in (("rms_norm_prim_p.bind", BIND_EPS), ("jax.jit of rms_norm_prim_p.bind", f"jax.jit({BIND_EPS})")):
        params = ask.run(f"[e.params.get('eps') for e in inspection.find_eqns(inspection.make_jaxpr({fn}, x), rms_norm_prim_p)]",
                         x=x, eps=eps, what=f"Tracing {name}", hint="register the abstract evaluation")
        checks.expect(isinstance(params, list) and len(params) >= 1, (
            f"Tracing {name} records no rms_norm_prim equation; bind the primitive itself."))
        bad = [p for p in params if not (isinstance(p, (float, np.ndarray)) and np.shape(p) == ()
                                         and np.float32(p) == np.float32(eps))]
        checks.expect(not bad, (
            f"The rms_norm_prim equation carries params {{'eps': {bad[0] if bad else None!r}}}, expected eps={eps}; "
            "eps must stay the primitive's parameter, unchanged."))


def expect_eps_attributes(ask, x, eps, *, hint):
    """Every custom_call to rms_norm in the lowering of jax.jit(BIND_EPS) on x carries an
    f32 eps attribute equal (in float32) to the bound `eps` (read by the executor from the
    program the witness handed over)."""
    calls = ask.program(BIND_EPS, "x", x=x, eps=eps, what="Lowering jax.jit of rms_norm_prim_p.bind", hint=hint).calls
    for c in [c for c in calls if c.target == "rms_norm"]:
        attr = c.attributes.get("eps")   # the attribute as the answer's lowering named it
        checks.expect(attr is not None, (
            f"The custom_call to rms_norm carries no eps attribute (attributes: {sorted(c.attributes)}); "
            "pass eps through as the primitive's parameter."))
        checks.expect(attr.type == "f32", (
            f"The eps attribute of the custom_call has type {attr.type}, but the kernel declares Attr<float>; "
            "keep eps a np.float32 (a Python float becomes f64)."))
        value = attr.value
        shown = f"{value:g}" if isinstance(value, float) else repr(value)
        checks.expect(isinstance(value, float) and np.float32(value) == np.float32(eps), (
            f"The eps attribute of the custom_call is {shown}, but {eps:g} was bound; pass the "
            "primitive's eps parameter through instead of a fixed value."))


def expect_eval_shape(ask, shape):
    """jax.eval_shape of BIND on a float32 ShapeDtypeStruct of `shape` gives that shape, float32."""
    out = ask.run(f"(lambda o: [list(o.shape), str(o.dtype)])(jax.eval_shape({BIND}, jax.ShapeDtypeStruct(tuple(shape), jnp.float32)))",
                  shape=list(shape), what=f"jax.eval_shape on shape {shape}",
                  hint="register the abstract evaluation with def_abstract_eval")
    out_shape, out_dtype = (tuple(out[0]), out[1]) if isinstance(out, list) and len(out) == 2 else (out, "?")
    checks.expect(out_shape == shape and out_dtype == "float32", (
        f"jax.eval_shape gives {out_shape} {out_dtype} for a float32 input of shape {shape}; the "
        "abstract evaluation should return a ShapedArray of the input's shape and dtype."))
