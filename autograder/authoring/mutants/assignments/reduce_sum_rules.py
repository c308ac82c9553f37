"""reduce_sum_rules' mutants: the three rules of custom_reduce_sum_p (JVP, transpose, batching).

The task requires the primitive where it says so: the JVP's primal output is the primitive's
bind, the batching rule binds the primitive on the batched operand (each bind adding one
example's entries); the tangent may be jnp.sum's; the transpose broadcasts the cotangent
(with jnp or lax); no value computed by a host callback. The oracle checks exactly that:
values (exact: integer-valued float32 inputs, whose sums float32 holds exactly) of jax.jvp,
jax.linear_transpose, jax.vjp/grad and jax.vmap at every batch position against float64
NumPy over every axis combination of ranks 1 to 4 and a spread of them at ranks 5 and 6,
large shapes (above 2^20 elements) and batch sizes 1 to 70, eagerly and under jit, with
every host callback poisoned; then provenance with the primitive itself poisoned (impl and
lowering answering, for each result, minus the number of entries it adds, minus a half): the
JVP's primal and every vmapped sum must be that value, element by element.
"""
import itertools

import numpy as np

from autograder.authoring.mutants.generate import Piece
from autograder.authoring.mutants.oracle import poisoned_callbacks

SOURCE = "reference.py"


def _axis_conditions(rank: str) -> tuple[tuple[str, str], ...]:
    return (("len(axis)>1", "len(axis) > 1"), ("0 in axis", "0 in axis"),
            ("the last axis in axis", f"{rank} - 1 in axis"), ("axis is every axis", f"len(axis) == {rank}"))


_X = "np.ndim(primals[0])"
_XT = "len(x.aval.shape)"
_EXAMPLE = "(np.ndim(batched_args[0]) - 1)"
_B = "np.shape(batched_args[0])[batch_dims[0]]"

PIECES = [
    Piece("_reduce_sum_jvp", "jnp", element=1,
          same_math="(jnp.sum(primals[0], axis=axis), jnp.sum(tangents[0], axis=axis))",
          size="np.size({arg}[0])", rank="np.ndim({arg}[0])", conditions=_axis_conditions(_X)[::2],
          edits=(("the primal plus one", "y = custom_reduce_sum_p.bind(x, axis=axis)",
                  "y = custom_reduce_sum_p.bind(x, axis=axis) + 1"),
                 ("the primal from jnp.sum", "y = custom_reduce_sum_p.bind(x, axis=axis)",
                  "y = jnp.sum(x, axis=axis)"),
                 ("the tangent from jnp.sum", "custom_reduce_sum_p.bind(t, axis=axis))",
                  "jnp.sum(t, axis=axis))"))),
    Piece("_reduce_sum_transpose", "jnp", element=0,
          same_math=("(jax.pure_callback(lambda c: np.broadcast_to(np.expand_dims(c, axis), x.aval.shape)"
                     ".astype(c.dtype), jax.ShapeDtypeStruct(x.aval.shape, ct.dtype), ct),)"),
          size="int(np.prod(x.aval.shape))", rank=_XT, conditions=_axis_conditions(_XT)[2:],
          edits=(("a mean, not a sum", "jnp.expand_dims(ct, axis)",
                  "jnp.expand_dims(ct, axis) / np.prod([x.aval.shape[a] for a in axis])"),)),
    Piece("_reduce_sum_batch", "jnp", element=0,
          same_math=("(jnp.sum(jnp.moveaxis(batched_args[0], batch_dims[0], 0), "
                     "axis=tuple((a + 1 for a in axis))), 0)"),
          size="np.size({arg}[0])", rank="np.ndim({arg}[0])",
          conditions=(("bd>0", "batch_dims[0] > 0"), ("bd is the last", f"batch_dims[0] == {_EXAMPLE}"),
                      ("batch size>3", f"{_B} > 3"), ("batch size>5", f"{_B} > 5"),
                      ("batch size>64", f"{_B} > 64")),
          edits=(("the batch dimension moved back", "jnp.moveaxis(x, bd, 0)", "jnp.moveaxis(x, 0, bd)"),)),
]
CXX_PIECES = []

# The ladder: (shape, axis combinations). Every combination up to rank 4, a spread of them at
# ranks 5 and 6; large shapes (above 2^20 elements, above every size threshold) at every rank.


def _spread(rank: int) -> list[tuple[int, ...]]:
    picked = [(a,) for a in range(rank)] + [(0, rank - 1), tuple(range(0, rank, 2)), tuple(range(1, rank, 2)),
                                           tuple(range(1, rank)), tuple(range(rank - 1)), (1, 2), tuple(range(rank))]
    return list(dict.fromkeys(picked))


def _every(rank: int) -> list[tuple[int, ...]]:
    return [c for k in range(1, rank + 1) for c in itertools.combinations(range(rank), k)]


SMALL = [((7,), _every(1)), ((3, 4), _every(2)), ((2, 3, 4), _every(3)), ((2, 3, 2, 3), _every(4)),
         ((2, 1, 3, 2, 2), _spread(5)), ((2, 1, 2, 3, 1, 2), _spread(6))]
BIG = [(((1 << 20) + 3,), [(0,)]), ((1025, 1025), _every(2)), ((64, 129, 128), [(0,), (2,), (0, 2), (0, 1, 2)]),
       ((16, 17, 64, 64), [(0,), (3,), (1, 2), (0, 3)]), ((16, 9, 8, 32, 32), [(0,), (4,), (0, 2, 4), (1, 2)]),
       ((8, 8, 8, 8, 8, 33), [(0,), (5,), (0, 5), (1, 3, 5), tuple(range(6))])]


def _ints(shape, rng) -> np.ndarray:
    """Integer-valued float32 in [-7, 7]: every partial sum of up to 2^21 of them is exact in
    float32, so a sum is right element by element, whatever its order."""
    return rng.integers(-7, 8, size=shape).astype(np.float32)


def _kept(shape, axis) -> tuple[int, ...]:
    return tuple(d for i, d in enumerate(shape) if i not in axis)


def _back(ct, axis, shape) -> np.ndarray:
    return np.broadcast_to(np.expand_dims(np.asarray(ct, np.float64), axis), shape)


def _same(got, want) -> bool:
    got = np.asarray(got)
    return got.shape == np.shape(want) and got.dtype == np.float32 and np.array_equal(got, want)


def _batch_sizes(shape) -> list[int]:
    small = int(np.prod(shape)) <= 100
    return [3, 70, 1] if small and len(shape) <= 3 else [3] if small else [2]


def _positions(shape) -> list[int]:
    """Every batch position for small examples; first, second and last for large ones."""
    rank = len(shape)
    return list(range(rank + 1)) if np.prod(shape) <= 100 else sorted({0, 1, rank})


def _values(jax, rs, cases, rng, jit: bool) -> str:
    """jvp, linear_transpose and vmap at every batch position, each case one program (jit) or
    eagerly; every output element exactly the float64 reference."""
    run = jax.jit if jit else (lambda f: f)
    how = "under jit" if jit else "eagerly"
    for shape, axes in cases:
        x, t = _ints(shape, rng), _ints(shape, rng)
        x64, t64 = x.astype(np.float64), t.astype(np.float64)
        cts = [_ints(_kept(shape, a), rng) for a in axes]

        def f(x, t, cts):
            out = []
            for a, ct in zip(axes, cts):
                fn = lambda v, a=a: rs(v, a)
                out.append(jax.jvp(fn, (x,), (t,)))
                out.append(jax.linear_transpose(fn, x)(ct)[0])
            return out
        got = run(f)(x, t, cts)
        for k, (a, ct) in enumerate(zip(axes, cts)):
            (y, ty), gx = got[2 * k], got[2 * k + 1]
            if not _same(y, x64.sum(a)):
                return f"jax.jvp {how}, shape {shape}, axis {a}: the primal output is not the sum"
            if not _same(ty, t64.sum(a)):
                return f"jax.jvp {how}, shape {shape}, axis {a}: the tangent is not the sum of the tangent"
            if not _same(gx, _back(ct, a, shape)):
                return f"jax.linear_transpose {how}, shape {shape}, axis {a}: not the cotangent broadcast back"
        for size in _batch_sizes(shape)[:1 if jit else None]:
            for bd in _positions(shape):
                xb = _ints((*shape[:bd], size, *shape[bd:]), rng)
                moved = np.moveaxis(xb.astype(np.float64), bd, 0)

                def g(xb, bd=bd):
                    return [jax.vmap(lambda v, a=a: rs(v, a), in_axes=bd)(xb) for a in axes]
                for a, y in zip(axes, run(g)(xb)):
                    if not _same(y, moved.sum(tuple(d + 1 for d in a))):
                        return (f"jax.vmap {how}, examples of shape {shape}, a batch of {size} at {bd}, "
                                f"axis {a}: not each example's sum")
    return ""


def _derivatives(jax, jnp, rs, rng) -> str:
    """jax.grad, jax.vjp, vmap of grad and second order, on a rank-3 input over two axes."""
    x, s, t = (_ints((2, 3, 4), rng) for _ in range(3))
    x64, s64, t64 = (a.astype(np.float64) for a in (x, s, t))
    for a in ((1,), (0, 2)):
        w = _ints(_kept(x.shape, a), rng)
        grad = jax.grad(lambda v: jnp.sum(rs(v, a) * w))
        checks = [("jax.grad", grad(x), _back(w, a, x.shape)),
                  ("jax.vjp", jax.vjp(lambda v: rs(v, a), x)[1](w)[0], _back(w, a, x.shape)),
                  ("jax.vmap of jax.grad", jax.vmap(grad)(np.stack([x, s])), np.stack([_back(w, a, x.shape)] * 2)),
                  ("jax.jvp of jax.grad of the sum of squares",
                   jax.jvp(jax.grad(lambda v: jnp.sum(rs(v * v, a) * w)), (x,), (s,))[1], 2 * s64 * _back(w, a, x.shape)),
                  ("jax.jvp of jax.jvp of the sum of squares",
                   jax.jvp(lambda v: jax.jvp(lambda u: rs(u * u, a), (v,), (t,))[1], (x,), (s,))[1],
                   (2 * s64 * t64).sum(a)),
                  ("jax.hessian-vector product",
                   jax.jvp(jax.grad(lambda v: jnp.sum(rs(v * v, a) ** 2)), (x,), (s,))[1],
                   8 * x64 * _back((x64 * s64).sum(a), a, x.shape) + 4 * s64 * _back((x64 * x64).sum(a), a, x.shape))]
        for what, got, want in checks:
            got = np.asarray(got, np.float64)
            if got.shape != np.shape(want) or not np.allclose(got, want, rtol=1e-5, atol=1e-3):
                return f"{what} through custom_reduce_sum over axis {a}: wrong values"
    return ""


def _poisoned(p, jax, jnp):
    """custom_reduce_sum_p answering minus (the number of entries each result adds) minus a
    half, eagerly and compiled; a context manager restoring its impl and lowering."""
    from contextlib import contextmanager

    from jax.interpreters import mlir

    def poison(x, *, axis):
        return jnp.full(_kept(x.shape, axis), -float(np.prod([x.shape[a] for a in axis])) - 0.5, x.dtype)

    @contextmanager
    def poisoned():
        impl, lowering = p.impl, mlir._lowerings.get(p)
        p.impl = poison
        mlir.register_lowering(p, mlir.lower_fun(poison, multiple_results=False))
        try:
            yield
        finally:
            p.impl = impl
            if lowering is None:
                mlir._lowerings.pop(p, None)
            else:
                mlir._lowerings[p] = lowering
    return poisoned()


def _provenance(jax, jnp, p, rs, cases, rng, jit: bool) -> str:
    """The primitive poisoned: the JVP's primal output and each vmapped sum (the batch first
    and last) are its bind's output over the entries one example's sum adds, each case one
    program (jit) or eagerly."""
    run = jax.jit if jit else (lambda f: f)
    how = "under jit" if jit else "eagerly"
    with _poisoned(p, jax, jnp):
        for shape, axes in cases:
            x = _ints(shape, rng)
            got = run(lambda v: [jax.jvp(lambda u, a=a: rs(u, a), (v,), (v,))[0] for a in axes])(x)
            for a, y in zip(axes, got):
                if not _same(y, np.full(_kept(shape, a), -float(np.prod([shape[d] for d in a])) - 0.5)):
                    return (f"jax.jvp {how}, shape {shape}, axis {a}: with the primitive poisoned, the primal "
                            f"output is not its bind's")
            for bd in (0, len(shape)):
                xb = _ints((*shape[:bd], 3, *shape[bd:]), rng)
                got = run(lambda v, bd=bd: [jax.vmap(lambda u, a=a: rs(u, a), in_axes=bd)(v) for a in axes])(xb)
                for a, y in zip(axes, got):
                    want = np.full((3, *_kept(shape, a)), -float(np.prod([shape[d] for d in a])) - 0.5)
                    if not _same(y, want):
                        return (f"jax.vmap {how}, a batch at {bd}, examples of shape {shape}, axis {a}: with "
                                f"the primitive poisoned, not its bind's output over one example's entries")
    return ""


def oracle(env: dict) -> str:
    """Values (every callback poisoned: no value from a host) then provenance (the primitive
    poisoned), over the ladder eagerly, and under jit at a rank-3 shape and the largest
    vector (the thresholds are Python's: they read static shapes, the same under jit)."""
    import jax
    import jax.numpy as jnp
    p, rs = env["custom_reduce_sum_p"], env["custom_reduce_sum"]
    rng = np.random.default_rng(49)
    with poisoned_callbacks():
        for cases, jit in ((SMALL, False), (BIG, False), (SMALL[2:3] + BIG[:1], True)):
            why = _values(jax, rs, cases, rng, jit)
            if why:
                return why
        why = _derivatives(jax, jnp, rs, rng)
        if why:
            return why
    for cases, jit in ((SMALL + BIG, False), (SMALL[2:3] + BIG[:1], True)):
        why = _provenance(jax, jnp, p, rs, cases, rng, jit)
        if why:   # an answer's own jax.jit may answer from its cache, compiled unpoisoned: again without
            jax.clear_caches()
            why = _provenance(jax, jnp, p, rs, cases, rng, jit)
        if why:
            return why
    return ""


# Mutants the oracle must find wrong (tests/test_mutants.py).
KNOWN_WRONG = ("positions/_reduce_sum_batch/reversed/size>65536",
               "thresholds/_reduce_sum_jvp/sign of return 0/the last axis in axis",
               "provenance/_reduce_sum_jvp/size>1048576",
               "thresholds/_reduce_sum_batch/sign/batch size>64",
               "provenance/_reduce_sum_transpose/size>0")
