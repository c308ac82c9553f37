"""ffi_lowering's structure at every shape (docs/architecture.md, "Structure at every shape"):
the paths the tests grade lowered at abstract shapes (probe.Ask.structures; nothing runs)
and read on their graphs, so that a lowering or a batching rule that picks JAX math, or
another eps, for some shape, rank, row width or eps is found wherever its threshold sits.

    JIT        jax.jit of bind: ranks 1 to 8 (shapes.ranked), one row of every width of
               shapes.SIZES, 2 to 2^31 - 1 rows of width 1 (no empty input)
    positions  jax.vmap with the batch dimension at every position 0 to 7 of inputs of
               rank 2 to 8, out_axes at the mirrored position
    EPS        every eps of the ladder from 1e-30 to 1e30 (the float32 ends of the range
               included), under jit and vmap

Each program: every custom_call is to rms_norm, each output is its output moved (layout
operations only), and every call to rms_norm carries eps as an f32 attribute equal to the
bound one. Runs in the grader's process; the rules are autograder/shared/proofs.py's.
"""
from __future__ import annotations

import re

import numpy as np

from autograder.shared import checks, placement, proofs, shapes
from autograder.shared.references import rms_norm_np64
from autograder.shared.positions import canon, strides
from autograder.shared.evidence import Structure

F32 = np.float32
_LOW, _HIGH = F32(1e-30), F32(1e30)
# eps over the stated range: 1e-30 and 1e30 as np.float32 gives them, the float32 values
# just inside the range, and the decades between
EPS = tuple(dict.fromkeys(float(e) for e in (
    _LOW, np.nextafter(_LOW, F32(1)) if float(_LOW) < 1e-30 else _LOW, F32(1e-20), F32(1e-10), F32(1e-5),
    F32(0.5), F32(1), F32(1e5), F32(1e10), F32(1e20), np.nextafter(_HIGH, F32(0)) if float(_HIGH) > 1e30 else _HIGH,
    _HIGH)))

# ranks 1 to 8: ones, small distinct dims, the largest. Empty inputs have no values to take from
# anywhere, and a valid lowering may not even lower them (alt_lower_fun_flatten): left out.
RANKED = [s for s in shapes.ranked(8, 1) if 0 not in s]
# A branch "above some size" is crossed by the largest shape and "below" by the smallest; the
# powers of two and the odd sizes between stand for the rest. Row width is the task's named
# risk, so one row takes every size of shapes.SIZES; row counts and batches take a few.
FEW = (1, 2, 3, 2**10, 2**10 + 1, 2**20, 2**20 + 1, shapes.MAX_ELEMENTS)
ROWS = [(1, n) for n in shapes.SIZES if n] + [(n, 1) for n in FEW if n > 1]
JIT = list(dict.fromkeys(RANKED + ROWS))
# under vmap(in_axes=0, out_axes=1), a batch of 3: rows of every width of FEW, and as many rows
VMAP_ROWS = [(3, n) for n in FEW] + [(3, n, 1) for n in FEW if n > 1]


def specs(shape_list) -> list:
    return [[(tuple(s), "float32")] for s in shape_list]


def bind(eps: float = 1e-5) -> str:
    """The student's primitive as a one-argument function with eps fixed (expression text)."""
    return f"(lambda v: checks.bind(rms_norm_prim_p, v, eps=np.float32({float(eps)!r})))"


def kernel(c) -> bool:
    return c.target == "rms_norm"


def _only_rms_norm(s: Structure) -> str:
    others = sorted({c.target for c in s.calls if not kernel(c)})
    return f"the program also calls {', '.join(others)}; only rms_norm counts" if others else ""


def _outputs_from_kernel(s: Structure) -> str:
    allowed = {i for i, c in enumerate(s.calls) if kernel(c)}
    for k, origin in enumerate(s.outputs):
        if not origin.moved_from(allowed):
            return (f"{proofs.which(s, k)} is not the output of a custom_call to rms_norm: it is "
                    f"{proofs.sources_phrase(origin, s.calls)}")
    return ""


# Every custom_call is to rms_norm and every output is its output, moved.
FROM_KERNEL = proofs.all_of(_outputs_from_kernel, _only_rms_norm)


def _layout(rank: int, batch) -> tuple[list[int], int]:
    """(perm, row) of jax.vmap nested as `batch` ((in_axes, out_axes) pairs, outermost first)
    over an input of `rank`: output dimension d is the input's perm[d]; the rows the kernel
    normalizes run along the input's axis `row` (an example's last)."""
    left, batched = list(range(rank)), []
    for a, _ in batch:
        batched.append(left.pop(a % len(left)))
    out = list(left)
    for (_, b), axis in zip(reversed(batch), reversed(batched)):
        out.insert(b % (len(out) + 1), axis)
    return out, left[-1]


def in_rows(batch=()) -> proofs.Rule:
    """Each output element sits where its input element was (`batch`: the vmap nest, _layout),
    and every call to rms_norm normalizes rows of the input: its operand's last axis runs over
    the whole of the input's row axis (in any order: a row's mean square does not depend on it)."""
    def rule(s: Structure) -> str:
        shape = proofs.dims(s.inputs[0]) if s.inputs else ()
        if not shape:
            return ""
        perm, row = _layout(len(shape), batch)
        stride = strides(shape)
        for i, c in enumerate(s.calls):
            if not kernel(c) or i >= len(s.operands) or not s.operands[i]:
                continue
            for box, m, why in proofs.pieces(s.operands[i][0], "input:0"):
                if m is None:   # not a counterexample: the program runs there (by_running)
                    return placement.Unfollowed(
                        f"where the rows rms_norm normalizes come from in your input cannot be followed (through {why})")
                width = box[-1][1] - box[-1][0] if box else 1
                run = canon(tuple(sorted(((a, abs(x)) for a, x in m[1][-1]), key=lambda d: -d[1]))) \
                    if box else ()
                if width != shape[row] or run != canon(((shape[row], stride[row]),)):
                    axes = sorted({stride.index(abs(x)) for _, x in m[1][-1] if abs(x) in stride}) if box else []
                    along = f"along your input's axis {', '.join(map(str, axes))}" if axes else "across your input's axes"
                    return (f"rms_norm normalizes rows {along} of {width} elements, where each row runs along its "
                            f"axis {row} ({shape[row]} elements)")
        return proofs.in_place(perm=lambda s, k: perm)(s)
    return rule


def structures(ask, fn: str, sp: list, *, what: str, hint: str) -> list[Structure]:
    """ask.structures, every path having one output (asked once per grading: the jit programs
    serve several tests; the shapes of one question lowered as one program and read apart)."""
    return ask.structures(fn, sp, what=what, hint=hint, outputs=[1] * len(sp))


def eps_is(eps: float) -> proofs.Rule:
    """Every custom_call to rms_norm carries eps as an f32 attribute equal (in float32) to `eps`."""
    want = F32(eps)

    def rule(s: Structure) -> str:
        for c in s.calls:
            if not kernel(c):
                continue
            attr = c.attributes.get("eps")   # the FFI attribute as the answer's lowering named it
            if attr is None:
                return f"the custom_call to rms_norm carries no eps attribute (attributes: {sorted(c.attributes)})"
            if attr.type != "f32":
                return f"the eps attribute of the custom_call to rms_norm has type {attr.type}, not f32"
            if not isinstance(attr.value, float) or F32(attr.value) != want:
                shown = f"{attr.value:g}" if isinstance(attr.value, float) else repr(attr.value)
                return f"the custom_call to rms_norm carries eps={shown} where eps={want:g} was bound"
        return ""
    return rule


# The eps every path of expect_kernel is lowered at: the float32 ends of the range (EPS's), not one usual
# eps, so that an eps passed wrong only past some size, rank, row width or batch (floored, capped, a
# constant such as 1e-5) shows at the shapes where it is wrong (the eps ladder binds every eps on small
# inputs only); found by `make mutants`.
KERNEL_EPS = (EPS[0], EPS[-1])
_EPS_LITERAL = re.compile(r"eps=np\.float32\([^()]*\)")


def at_eps(fn: str, eps: float) -> str:
    """`fn` (an expression binding rms_norm_prim_p with a literal eps=np.float32(...), as
    bind() and grader.BIND write it) binding `eps` instead."""
    out, n = _EPS_LITERAL.subn(f"eps=np.float32({float(eps)!r})", fn)
    if not n:
        raise ValueError(f"no literal eps=np.float32(...) in {fn}")
    return out


def expect_kernel(ask, fn: str, shape_list, *, what: str, hint: str, excusable: bool = False, batch=()) -> None:
    """`fn` lowered by jax.jit at each shape of `shape_list`, at each eps of KERNEL_EPS (its
    literal eps replaced): FROM_KERNEL, eps_is(that eps) and in_rows(batch) on every program
    (`batch`: fn's vmap nest, (in_axes, out_axes) outermost first). `excusable` (a vmap
    path): a shape where it fails is left out when plain jax.jit of bind at that eps fails
    there too (asked only then): the lowering is at fault there, which
    test_shapes_and_eval_shape says."""
    for eps in KERNEL_EPS:
        sp = specs(shape_list)
        got = structures(ask, at_eps(fn, eps), sp, what=what, hint=hint)
        rule = proofs.all_of(FROM_KERNEL, eps_is(eps), in_rows(batch))
        failing = [i for i, s in enumerate(got) if s.refused or _fails(rule(s))]
        if excusable and failing:
            jit = jit_structures(ask, [shape_list[i] for i in failing], hint=hint, eps=eps)
            plain = proofs.all_of(FROM_KERNEL, eps_is(eps), in_rows())
            excused = {i for i, j in zip(failing, jit) if j.refused or _fails(plain(j))}
            got, sp = [s for i, s in enumerate(got) if i not in excused], [s for i, s in enumerate(sp) if i not in excused]
        proofs.expect_every(got, sp, rule, what=what, hint=hint,
                            run=by_running(ask, at_eps(fn, eps), eps, batch, what=what, hint=hint))


def _fails(problem: str) -> bool:
    """A counterexample, not a reading that stopped (placement.Unfollowed: the program runs)."""
    return bool(problem) and not isinstance(problem, placement.Unfollowed)


def by_running(ask, fn: str, eps: float, batch, *, what: str, hint: str):
    """The judge of a shape whose program the reading could not follow (proofs.expect_every):
    the grader runs jax.jit(`fn`) there on normal values it draws, through grader.kernel_output
    (the result is the rms_norm kernel's, depending on it everywhere, nothing but moves after
    it, no division or transcendental op beside it) and compares it with RMSNorm in float64
    over each example's rows at `eps`, laid out as the vmap nest `batch` lays it out."""
    def run(spec):
        from autograder.assignments.ffi_lowering import grader as kit
        ((shape, _),) = spec
        shape = tuple(shape)
        x = ask.normal(331, shape, scale=3.0)
        perm, row = _layout(len(shape), batch)
        want = np.transpose(np.moveaxis(rms_norm_np64(np.moveaxis(x, row, -1), eps), -1, row), perm)
        named = f"{what} at eps={eps:g} on shape {shapes.label(shape)} (run: its program could not be read)"
        got = kit.kernel_output(ask, fn, what=named, hint=hint, x=x)
        # relative only (at eps=1e30 every value is ~1e-15); 1e-4: the course's float32 kernel
        # sums a whole row, and rows here are up to 2^21 wide
        checks.expect_close(got, want, what=named, hint=hint, rtol=1e-4, atol=0.0)
    return run


def jit_structures(ask, shape_list, *, hint: str, eps: float = 1e-5) -> list[Structure]:
    """jax.jit of bind at `eps` at every shape of `shape_list` (the same question in every
    test, answered once per grading)."""
    return structures(ask, bind(eps), specs(shape_list), what="jax.jit of rms_norm_prim_p.bind", hint=hint)


def positions() -> list[tuple[int, int, list]]:
    """(in_axes, out_axes, shapes): the batch dimension at every position 0 to 7 of inputs of
    rank 2 to 8 (small distinct dims; at the first and the last position also the largest
    shape of the rank with a batch of 3, and batches of BATCHES; at position 1 also rows of
    every width of FEW), out_axes the mirrored position, -(in_axes + 1)."""
    def of_rank(r, a, large):
        ranked = shapes.ranked(r, r)   # all ones, small distinct dims, one dim 0, the largest
        big = list(ranked[3])
        big[a] = 3
        return [ranked[1], tuple(big)] if large else [ranked[1]]
    out = [(0, -1, [s for r in range(2, 9) for s in of_rank(r, 0, True)] + [(b, 3, 5) for b in BATCHES])]
    out += [(a, -(a + 1), [s for r in range(max(a + 1, 2), 9) for s in of_rank(r, a, False)]) for a in range(1, 8)]
    # the batch in the middle of rows of every width of FEW: a rule that leaves the batch where
    # it is past some row width (found by `make mutants`)
    out[1][2].extend((2, 3, n) for n in FEW if n > 3 and 6 * n <= shapes.MAX_ELEMENTS)
    out.append((-1, 0, [s for r in range(2, 9) for s in of_rank(r, -1, True)] + [(3, 5, b) for b in BATCHES]))
    return out


# Batches past the thresholds the value tests leave open (they check up to 6 examples). A rule
# may bind once per example (alt_batch_loop_stack): its lowering grows with the batch (1025
# examples: 0.15 s to lower, 0.4 s to read, linear) and each example is one piece of the
# positions (positions.MAX_PIECES, 4096), so the ladder stops at 2**10 + 1;
# docs/verdicts.md states the limit.
BATCHES = (65, 2**10 + 1)


def expect_eps_ladder(ask, *, hint: str) -> None:
    """Every eps of EPS reaches the custom_calls to rms_norm as the bound f32 value, under
    jax.jit and under jax.vmap with the batch dimension first and last. One lowering per path:
    the input's first dimension picks the eps (input k + 1 rows binds EPS[k]); a path that
    holds no call to rms_norm is the other tests' business."""
    ladder = f"np.float32({list(EPS)!r}[v.shape[0] - 1])"
    fn = f"(lambda v: checks.bind(rms_norm_prim_p, v, eps={ladder}))"
    n = len(EPS)
    for path, name, shape_of in (
            (fn, "jax.jit of rms_norm_prim_p.bind", lambda k: (k + 1, 5)),
            (f"jax.vmap({fn}, in_axes=1, out_axes=0)", "jax.jit(jax.vmap(in_axes=1, out_axes=0))", lambda k: (k + 1, 3, 5)),
            (f"jax.vmap({fn}, in_axes=-1, out_axes=-1)", "jax.jit(jax.vmap(in_axes=-1, out_axes=-1))", lambda k: (k + 1, 5, 3))):
        sp = specs([shape_of(k) for k in range(n)])
        got = structures(ask, path, sp, what=name, hint=hint)
        for k, eps in enumerate(EPS):
            proofs.expect_every(got[k:k + 1], sp[k:k + 1], eps_is(eps), what=f"{name} with eps={F32(eps):g}", hint=hint)


# The nested paths test_nested_vmap_and_jit grades, each at ranks 4 to 8 (the smallest it takes)
# (its vmap nest for expect_kernel's `batch` last: (in_axes, out_axes), outermost first)
NESTED = (
    ("jax.jit(vmap(vmap(in_axes=1), in_axes=3))", "jax.vmap(jax.vmap({b}, in_axes=1), in_axes=3)", ((3, 0), (1, 0))),
    ("jax.jit(vmap(in_axes=2))", "jax.vmap({b}, in_axes=2)", ((2, 0),)),
    ("jax.jit(vmap(jit, in_axes=3))", "jax.vmap(jax.jit({b}), in_axes=3)", ((3, 0),)),
    ("jax.jit(vmap(vmap(vmap(in_axes=0), in_axes=2), in_axes=1))",
     "jax.vmap(jax.vmap(jax.vmap({b}, in_axes=0), in_axes=2), in_axes=1)", ((1, 0), (2, 0), (0, 0))),
)
NESTED_SHAPES = [shapes.ranked(r, r)[1] for r in range(4, 9)]   # small distinct dims
