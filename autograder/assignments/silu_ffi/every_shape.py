"""silu_ffi's paths proven at every shape, without running (issue 37; docs/architecture.md,
"Structure at every shape").

A test first checks a path's values and kernels by running it at a small shape (the base);
then it asks for the same path at every shape of shared/shapes.py (0 to 2^31 - 1 elements,
ranks 0 to 8; for vmap, every position of the batch dimension), lowered at abstract shapes
and read on the graph (probe.Ask.structures), and `expect_within` proves that at each the
program is, shapes aside, within the base's: every output moved (reshaped, transposed,
sliced) from as many calls of the same kernel, and the kernel's operands computed from the
same kinds of sources, by no kernel and no JAX operation the base program does not hold.
A branch on the shape, rank or batch position, decided in Python at trace time, shows at
the smallest shape past it. An output of no elements proves nothing either way: there the
program only has to lower (silu_ffi takes any size, 0 included).

So that a grading pays one lowering per path rather than one per shape, the shapes of a
path are lowered side by side as one program and read apart (shared/packing.py); if that
fails, each shape is lowered alone, so that the sentence names the smallest shape that fails.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograder.shared import checks, placement, proofs, shapes
from autograder.shared.evidence import FFI, LOOP_INIT, Origin, Structure

F32 = "float32"
LOSS = "lambda v, w: jnp.sum(silu_ffi(v) * w)"   # grader.LOSS: the loss of the paths checked by running
# The backward pass lowered at every shape: the VJP with x itself as the cotangent (what jax.grad
# computes, the same kernels; far cheaper to lower than a loss).
VJP = "lambda v: jax.vjp(silu_ffi, v)[1](v)[0]"


@dataclass(frozen=True)
class Item:
    """One program to lower: `fn` (an expression naming a function) at `spec` (per
    argument a (shape, dtype)); `what` names the path in the sentence."""
    fn: str
    spec: tuple
    what: str
    axis: int | None = None   # the batch axis jax.vmap moves to the output's front (None: no vmap)


@dataclass(frozen=True)
class Path:
    """A path checked by running at `base` and lowered at each of `items`."""
    base: Item
    items: list[Item]


def _one(shape) -> tuple:
    return ((tuple(shape), F32),)


def forward(base: tuple) -> Path:
    """jax.jit(silu_ffi), checked at `base`, at every shape."""
    what = "jax.jit(silu_ffi)"
    return Path(Item("silu_ffi", _one(base), what), [Item("silu_ffi", _one(s), what) for s in shapes.every()])


def backward(base: tuple) -> Path:
    """The gradient of sum(silu_ffi(x) * w), checked at `base`; at every shape, the VJP of
    silu_ffi with x as the cotangent."""
    what = f"jax.jit({VJP})"
    return Path(Item(f"jax.grad({LOSS})", ((tuple(base), F32), (tuple(base), F32)), f"jax.jit(jax.grad({LOSS}))"),
                [Item(VJP, _one(s), what) for s in shapes.every()])


def _axes(shape: tuple) -> range:
    return range(len(shape))


def vmap(base: tuple) -> Path:
    """jax.vmap(silu_ffi), checked at `base` with in_axes=0; then with the batch dimension at
    every position of the small and the largest shape of each rank 1 to 8 (shapes.ranked),
    and at position 0 of every other shape of rank 1 or more (shapes.every)."""
    def item(s, k):
        return Item(f"jax.vmap(silu_ffi, in_axes={k})", _one(s), f"jax.jit(jax.vmap(silu_ffi, in_axes={k}))", k)
    ranked = shapes.ranked(8, 1)
    anywhere = [s for s in ranked if len(set(s)) > 1 or len(s) == 1 or s[0] > 1]   # not all ones, not empty
    pairs = [*((s, k) for s in anywhere for k in _axes(s)), *((s, 0) for s in shapes.every(min_rank=1))]
    return Path(item(tuple(base), 0), [item(s, k) for s, k in dict.fromkeys(pairs)])


def vmap_grad(base: tuple) -> Path:
    """jax.vmap(jax.grad(LOSS), in_axes=(0, None)), checked at `base` (w: one example); then
    jax.vmap of the VJP with the batch dimension at every position of the largest shape of
    each rank 1 to 8, and at position 0 of every other shape of shapes.ranked."""
    def item(s, k):
        return Item(f"jax.vmap({VJP}, in_axes={k})", _one(s), f"jax.jit(jax.vmap({VJP}, in_axes={k}))", k)
    largest = {len(s): s for s in shapes.ranked(8, 1)}   # ranked lists each rank's largest shape last
    pairs = [*((s, k) for s in largest.values() for k in _axes(s)), *((s, 0) for s in shapes.ranked(8, 1))]
    base = tuple(base)
    return Path(Item(f"jax.vmap(jax.grad({LOSS}), in_axes=(0, None))", ((base, F32), (base[1:], F32)),
                     f"jax.jit(jax.vmap(jax.grad({LOSS}), in_axes=(0, None)))"),
                [item(s, k) for s, k in dict.fromkeys(pairs)])


def structures(ask, items: list[Item], *, hint: str) -> list[Structure]:
    """The Structure of each item, read from one lowering of them all (shared/packing.py)."""
    return ask.structures([i.fn for i in items], [list(i.spec) for i in items], what=items[0].what, hint=hint,
                          outputs=[1] * len(items))


# ---- the verdict ----

def _upstream(s: Structure, origin: Origin) -> tuple[list[int], set[int], set, set]:
    """The calls an output is moved from, and of everything upstream of them (through their
    operands): the calls, the JAX operations, the other sources."""
    first = sorted(set(origin.calls()))
    seen, operands = proofs.upstream(s, first)
    math = {m for o in operands for m in o.math}
    sources = {_kind(s, x) for o in operands for x in o.sources if not x.startswith("call:")}
    return first, seen, math, sources


def _kind(s: Structure, source: str) -> str:
    """A source, shapes and numbering aside: any input (the paths at every shape take x alone,
    where the base may take a cotangent too), a call by its target, a constant, a loop's buffer."""
    if source.startswith("input:"):
        return "input"
    return f"call {s.calls[int(source[5:])].target}" if source.startswith("call:") else source


def _named(s: Structure, i: int) -> str:
    c = s.calls[i]
    return repr(c.target) if c.kind == FFI else "a host callback (pure_callback or io_callback)"


def _targets(s: Structure, calls) -> str:
    return ", ".join(sorted({_named(s, i) for i in calls}))


def _moved(origin: Origin) -> bool:
    """Whether a value is the output of custom_calls, only moved."""
    return bool(origin.calls()) and not origin.math and all(x.startswith("call:") or x == LOOP_INIT for x in origin.sources)


def _count(n: int) -> str:
    return "one call" if n == 1 else f"{n} calls"


def _operands(s: Structure, calls: list[int]) -> list[tuple[Origin, set, set]]:
    """The operands of the calls an output is moved from, position by position (over all of
    them): an Origin to name it, and what it is shapes aside: its sources (a call by its
    target) and its JAX operations."""
    out = []
    for p in range(max((len(s.operands[i]) for i in calls if i < len(s.operands)), default=0)):
        here = [s.operands[i][p] for i in calls if i < len(s.operands) and p < len(s.operands[i])]
        sources = sorted({x for o in here for x in o.sources})
        math = sorted({m for o in here for m in o.math})
        kinds = {_kind(s, x) for x in sources}
        out.append((Origin(sources, math), kinds, set(math)))
    return out


def within(base: Structure, base_label: str, name: str, *, count: bool = True, filler: bool = False):
    """proofs' Rule: the program is, shapes aside, within `base` (the program at the shape
    whose values and kernels the test checked by running): each output comes from as many
    calls of the same targets, by no JAX operation and from no kind of source the base's does
    not (where the base's is their output only moved, so is this one); their operands come
    from the same kinds of sources by no other JAX operation; upstream of them there is no
    other kernel, no JAX operation and no kind of source the base program does not hold. An
    output of no element is not judged. `count`: the output comes from as many calls as the
    base's (False: from calls of the same targets, as many as may be: an eager vmap with
    vmap_method="sequential" calls the kernel once per example, where jax.jit loops over one).
    A difference that brings no JAX operation, kernel or kind of source the base lacks but a
    loop's buffer or another number of calls (a loop or an unrolled scan over the examples) is
    placement.Unfollowed: the program is judged by running it. `filler`: so is a kernel operand
    that holds constants the base's does not (the backward kernel's operands are the answer's to
    lay out: a pad to whole rows, sliced off after the call; the forward kernel takes x alone)."""
    extra = _filler_only if filler else _loop_only
    wanted = [(_upstream(base, o), _operands(base, sorted(set(o.calls())))) for o in base.outputs]

    def rule(s: Structure) -> str:
        if proofs.empty(s):
            return ""
        if len(s.outputs) != len(base.outputs):
            return f"the program returns {len(s.outputs)} arrays, where {base_label} it returns {len(base.outputs)}"
        for origin, base_origin, ((calls0, seen0, math0, sources0), operands0) in zip(s.outputs, base.outputs, wanted):
            calls, seen, math, sources = _upstream(s, origin)
            kinds = {_kind(s, x) for x in origin.sources}
            base_kinds = {_kind(base, x) for x in base_origin.sources}
            problem = ""   # a loop's difference (placement.Unfollowed), kept while the rest is judged
            if not (calls and kinds <= base_kinds and set(origin.math) <= set(base_origin.math)):
                phrase = (f"the output is {proofs.sources_phrase(origin, s.calls)}, where {base_label} it is "
                          f"{proofs.sources_phrase(base_origin, base.calls)}")
                if calls and _loop_only(kinds - base_kinds, set(origin.math) - set(base_origin.math)):
                    problem = placement.Unfollowed(phrase)
                elif _moved(base_origin):
                    return f"the output is not the output of {name}: it is {proofs.sources_phrase(origin, s.calls)}"
                else:
                    return phrase
            called = (f"the output is the output of {_count(len(calls))} of {_targets(s, calls)}, where "
                      f"{base_label} it is the output of {_count(len(calls0))} of {_targets(base, calls0)}")
            if {s.calls[i].target for i in calls} != {base.calls[i].target for i in calls0}:
                return called
            if count and len(calls) != len(calls0):
                problem = problem or placement.Unfollowed(called)
            operands = _operands(s, calls)
            if len(operands) != len(operands0):
                return f"{name} takes {len(operands)} operands, where {base_label} it takes {len(operands0)}"
            for p, ((o, kinds, m), (o0, kinds0, m0)) in enumerate(zip(operands, operands0)):
                if not (kinds <= kinds0 and m <= m0):
                    phrase = (f"operand {p} of {name} is {proofs.sources_phrase(o, s.calls)}, where {base_label} "
                              f"it is {proofs.sources_phrase(o0, base.calls)}")
                    if not extra(kinds - kinds0, m - m0):
                        return phrase
                    problem = problem or placement.Unfollowed(phrase)
            known = {base.calls[i].target for i in seen0}
            new = sorted({_named(s, i) for i in seen if s.calls[i].kind != FFI or s.calls[i].target not in known})
            if new:
                return (f"{name} takes values from {', '.join(new)}, which it does not {base_label} "
                        f"(there: {_targets(base, seen0)})")
            if not math <= math0:
                return (f"the operands of {name} are computed in JAX ({', '.join(sorted(math - math0))}), "
                        f"which they are not {base_label}")
            if not extra(sources - sources0, set()):
                return (f"the operands of {name} take values from {', '.join(sorted(sources - sources0))}, "
                        f"which they do not {base_label}")
            if problem or sources - sources0:
                extra_sources = proofs.sources_phrase(Origin(sorted(sources - sources0), []), s.calls)
                return problem or placement.Unfollowed(
                    f"the operands of {name} take values from {extra_sources}, which they do not {base_label}")
        return ""
    return rule


def _loop_only(kinds: set, math: set) -> bool:
    """Whether what a program holds beyond the base is at most a loop's buffer: no JAX
    operation, kernel or other kind of source."""
    return not math and kinds <= {LOOP_INIT}


def _filler_only(kinds: set, math: set) -> bool:
    """Whether what a kernel's operands hold beyond the base's is at most a loop's buffer and
    constants (a pad to whole rows or blocks, sliced off after the call): no JAX operation,
    kernel or input. Whether the filler reaches the output, the run says (placement.Unfollowed)."""
    return not math and kinds <= {LOOP_INIT, "constant"}


def named_within(base: Structure, base_label: str, name: str, *, count: bool = True, filler: bool = False):
    """`within`, with `name` completed by the targets of the calls the base's outputs come from."""
    calls = sorted({i for o in base.outputs for i in o.calls()})
    return within(base, base_label, f"{name} ({_targets(base, calls)})" if calls else name, count=count,
                  filler=filler)


def expect_within(ask, path: Path, name: str, *, hint: str, filler: bool = False) -> None:
    """The program of every item of `path` is within the base's (`within`, `filler` passed on);
    else the sentence names the smallest shape of the first path, in the items' order, where it is not."""
    (base,) = ask.structures(path.base.fn, [list(path.base.spec)], what=path.base.what, hint=hint)
    label = " and ".join(shapes.label(tuple(shape)) for shape, _ in path.base.spec)
    proofs.expect_every([base], [path.base.spec], lambda s: "" if s.outputs else "it returns nothing",
                        what=path.base.what, hint=hint)
    within_base = named_within(base, f"at {label}", name, filler=filler)
    items = within_budget(ask, path.items, hint=hint) if _repeats(base) else path.items
    found = structures(ask, items, hint=hint)
    for what in dict.fromkeys(i.what for i in items):
        mine = [k for k, i in enumerate(items) if i.what == what]
        rule = proofs.all_of(within_base, proofs.in_place(perm=_front(items[mine[0]].axis)))
        proofs.expect_every([found[k] for k in mine], [items[k].spec for k in mine], rule, what=what, hint=hint,
                            run=by_running(ask, [items[k] for k in mine], hint=hint))


# Kernel calls a vmapped program may lower when its calls grow with the batch (issue 55 item 7):
# vmap_method="sequential_unrolled" lowers one call per example, and a batch of 2^31 - 1 would
# never finish lowering (a small batch costs milliseconds a call).
CALL_BUDGET = 64
PROBE_BATCHES = (2, 3)


def _repeats(base: Structure) -> bool:
    """Whether the base program calls one target more than once (a vmap unrolled per example
    does; the answers that batch the kernel need no probe)."""
    targets = [c.target for c in base.calls]
    return len(set(targets)) < len(targets)


def within_budget(ask, items: list[Item], *, hint: str) -> list[Item]:
    """`items`, less the vmapped ones that would lower more than CALL_BUDGET kernel calls: the
    path's vmap (in_axes=0) is lowered first at two small batches (PROBE_BATCHES examples of 3
    elements); where the second holds more calls than the first, each example costs that
    difference, and an item of a larger batch than the budget allows is not lowered (nor
    judged: docs/verdicts.md). Items without vmap, and programs whose calls do not grow, all stay."""
    probe = next((i for i in items if i.axis == 0), None)
    if probe is None:
        return items
    small = [Item(probe.fn, _one((n, 3)), probe.what, 0) for n in PROBE_BATCHES]
    found = structures(ask, small, hint=hint)
    if any(s.refused for s in found):
        return items   # the lowering's own failure is named by the path's verdict
    (a, b), (n, m) = [len(s.calls) for s in found], PROBE_BATCHES
    if b <= a:
        return items
    per_example = -(-(b - a) // (m - n))
    return [i for i in items if i.axis is None or i.spec[0][0][i.axis] * per_example <= CALL_BUDGET]


def by_running(ask, items: list[Item], *, hint: str):
    """The judge of a shape whose program the reading could not follow (proofs.expect_every):
    the grader runs the item's program there on values it draws (grader.kernel_values: no
    host callback, every output element depending on the answer's FFI kernels, no math in
    JAX) and compares it with SiLU (or, for the VJP with x as the cotangent, x·silu'(x)) in
    float64, the batch axis moved to the front under vmap."""
    by_spec = {tuple(i.spec): i for i in items}

    def run(spec):
        from autograder.assignments.silu_ffi import grader as kit
        item = by_spec[tuple(spec)]
        ((shape, _),) = item.spec
        x = ask.normal(541, tuple(shape), scale=4.0)
        named = f"{item.what} on shape {shapes.label(tuple(shape))} (run: its program could not be read)"
        (got,) = kit.kernel_values(ask, item.fn, named, hint, x=x)
        backward = VJP in item.fn   # the cotangent (vmapped or not); the primal of jax.vjp is SiLU
        want = kit.silu_grad_np64(x, x) if backward else kit.silu_np64(x)
        if item.axis is not None:
            want = np.moveaxis(want, item.axis, 0)
        if backward:
            kit.expect_gradient_close(got, want, what=named, hint=hint)
        else:
            checks.expect_close(got, want, what=named, hint=hint)
    return run


def _front(axis: int | None):
    """proofs.in_place's perm: the input's batch axis first, the others in order (None: none moved)."""
    if axis is None:
        return None
    return lambda s, k: (axis, *(d for d in range(len(proofs.dims(s.inputs[0]))) if d != axis))
