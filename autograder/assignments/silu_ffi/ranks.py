"""silu_ffi's programs on inputs of rank 2 to 8 (make mutants' survivors, issue 49; past 2^18
values each since issue 55, item 5): the kernels are called directly on 1-d inputs and the
value tests run ranks 0 to 3 on small inputs, while a C++ kernel may branch on the rank of its
buffer (x.dimensions()), on the rank and the size together, or on a row's width, and the fwd
rule's primal is read by the value tests on 200 values only. Called by
grader.expect_*_kernel_at_scale."""
from autograder.shared import checks, shapes
from autograder.assignments.silu_ffi import every_shape


def _grader():
    from autograder.assignments.silu_ffi import grader   # grader imports this module
    return grader


# Inputs of rank 2 to 8, each past 2^18 values, rank 2's rows 4099 wide (shapes.HOST_RANKED,
# 2.2 million values in one program).
RANKS = tuple(shapes.HOST_RANKED)
RANK_HINT = "{kernel} must compute {what} for inputs of any rank (the grader runs ranks 0 to 8)"


def _ranked(ask, seed: int, prefix: str) -> dict:
    """An input of each shape of RANKS, named by `prefix` and its rank."""
    return {f"{prefix}{len(s)}": ask.normal(seed + len(s), s, scale=3) for s in RANKS}


def expect_forward_at_every_rank(ask):
    """jax.jit(silu_ffi) on an input of each rank from 2 to 8 (RANKS; one program) returns
    silu(x) in every element, from the forward kernel (grader.kernel_values' gate)."""
    g = _grader()
    xs = _ranked(ask, 360, "x")
    fn = f"lambda {', '.join(xs)}: ({', '.join(f'silu_ffi({n})' for n in xs)},)"
    hint = RANK_HINT.format(kernel="the forward kernel", what="silu(x)")
    got = g.kernel_values(ask, fn, "jax.jit(silu_ffi) on inputs of rank 2 to 8", hint, **xs)
    for x, y in zip(xs.values(), got):
        checks.expect_close(y, g.silu_np64(x), what=f"jax.jit(silu_ffi) on shape {x.shape}", hint=hint, at=x)


VJP_PRIMAL = "lambda v: jax.vjp(silu_ffi, v)[0]"


def expect_vjp_at_every_rank(ask):
    """The VJP of silu_ffi (its primal, from the fwd rule, and its cotangent, from the bwd
    rule) on an input of each rank from 2 to 8 with a random cotangent (RANKS; one program)
    is silu(x) and ct·silu'(x) in every element, from the kernels (grader.kernel_values' gate); and
    the primal alone at every shape is, shapes aside, the program of rank 2 (every_shape): the
    value tests read the fwd rule's primal (value_and_grad) on 200 values only."""
    g = _grader()
    xs, cts = _ranked(ask, 370, "x"), _ranked(ask, 380, "c")
    pairs = ", ".join(f"({x}, {c})" for x, c in zip(xs, cts))
    fn = (f"lambda {', '.join([*xs, *cts])}: tuple(o for v, c in ({pairs},) "
          "for o in (lambda y, back: (y, back(c)[0]))(*jax.vjp(silu_ffi, v)))")
    hint = RANK_HINT.format(kernel="the fwd rule and the backward kernel", what="silu(x) and ȳ·silu'(x)")
    got = g.kernel_values(ask, fn, "jax.jit of the VJP of silu_ffi on inputs of rank 2 to 8", hint, **xs, **cts)
    for k, (x, ct) in enumerate(zip(xs.values(), cts.values())):
        checks.expect_close(got[2 * k], g.silu_np64(x), what=f"The primal of jax.vjp(silu_ffi) on shape {x.shape}",
                            hint="the fwd rule's first output must be silu(x), whatever the shape of x", at=x)
        g.expect_gradient_close(got[2 * k + 1], g.silu_grad_np64(x, ct), hint=hint, at=x,
                                what=f"The VJP of silu_ffi with a random cotangent on shape {x.shape}")
    base = RANKS[0]
    path = every_shape.Path(every_shape.Item(VJP_PRIMAL, ((base, "float32"),), f"jax.jit({VJP_PRIMAL})"),
                            [every_shape.Item(VJP_PRIMAL, ((s, "float32"),), f"jax.jit({VJP_PRIMAL})")
                             for s in every_shape.shapes.every()])
    every_shape.expect_within(ask, path, "your forward kernel",
                              hint=g.EVERY_SHAPE_HINT.format(path="the fwd rule of silu_ffi"))
