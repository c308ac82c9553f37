"""reduce_sum_rules at every shape: the paths the hidden tests grade, lowered at abstract shapes
(probe.Ask.structures: nothing is allocated or run) and read on their graphs, with the
grader's kernel as the primitive's lowering (a custom_call to TARGET whose `axis` attribute
is the axes it sums). Re-exported by the kit (grader.py).

Each path is one program per shape holding every axis combination of that rank (all of them
up to rank 3, a few beyond) and, under jax.vmap, every batch position (and, for a few
examples, every batch size to MAX_BATCH: a threshold on the batch size); the programs of a
path are lowered side by side, as one. `expect_paths` states, for each output, what it must be:

    SUM         moved from the kernel's calls only (no jnp.sum, nothing blended in), and every
                call it comes from, directly or through another call's operand, adds the
                entries the task's sum adds for each result (never a batch dimension)
    BROADCAST   the transpose of the sum: computed from the cotangent (or from the sum it
                transposes) and constants alone, without a reduction or a custom_call of
                its own, with no operation that the same transpose does not use at the shape
                whose values the test checked (the path's first)
    LINEAR      the tangent: computed without the primal input, with no operation but a
                reduction that it does not use at the shape the test checked (jnp.sum and
                the primitive are both the task's; where it binds the primitive, each
                bind adds the entries of the sum)

Values and poisoned runs stay on the small inputs of each test; what is proven here holds at
every shape the specs cover: 0 to 2^31 - 1 elements, ranks 1 to 8.
"""
from __future__ import annotations

import itertools
import math
from collections import namedtuple
from types import SimpleNamespace

import numpy as np

from autograder.shared import packing, placement, proofs, shapes
from autograder.shared.evidence import Structure
from autograder.shared.evidence import dims as _dims
from autograder.assignments.reduce_sum_rules import programs
from autograder.assignments.reduce_sum_rules.programs import TARGET, summed

KERNEL = "custom_reduce_sum_p (a custom_call to the grader's kernel)"
BATCH = 3          # the batch size of the vmapped paths (never 0: an empty batch is not part of the task)
SUM, BROADCAST, LINEAR = "sum", "broadcast", "linear"


def combos(rank: int) -> list[tuple[int, ...]]:
    """The axis combinations tried at `rank`: all of them up to rank 3, then each single axis,
    the first and last, every other one, all but the first, all but the last, and all."""
    if rank <= 3:
        return [c for k in range(1, rank + 1) for c in itertools.combinations(range(rank), k)]
    picked = [(a,) for a in range(rank)] + [(0, rank - 1), tuple(range(0, rank, 2)), tuple(range(1, rank)),
                                           tuple(range(rank - 1)), tuple(range(rank))]
    return list(dict.fromkeys(picked))


def few(rank: int) -> list[tuple[int, ...]]:
    """Fewer combinations, for each batch position of a vmapped path: all of them up to rank 2,
    then the first axis, the last, both, every other one and all."""
    if rank <= 2:
        return combos(rank)
    return list(dict.fromkeys([(0,), (rank - 1,), (0, rank - 1), tuple(range(0, rank, 2)), tuple(range(rank))]))


def _table(ranks, pick=combos) -> str:
    return "{" + ", ".join(f"{r}: {pick(r)!r}" for r in ranks) + "}"


def _kept(shape, axis) -> tuple[int, ...]:
    return tuple(d for i, d in enumerate(shape) if i not in axis)


def _batched(example, position, size=BATCH) -> tuple[int, ...]:
    return (*example[:position], size, *example[position:])


def _largest(rank: int, budget: int) -> tuple[int, ...]:
    side = max(1, int(budget ** (1 / rank)))
    dims = [side] * rank
    rest = 1
    for d in dims[:-1]:
        rest *= d
    dims[-1] = budget // rest
    return tuple(dims)


def examples(max_rank: int = 7) -> list[tuple[int, ...]]:
    """Example shapes for the vmapped paths: shapes.every() of rank 1 to max_rank whose batch
    of BATCH fits in 2^31 - 1 elements, and the largest of each rank that does; not the empty
    ones (an answer may read an example's first entry, as a jax.debug.print does)."""
    budget = shapes.MAX_ELEMENTS // BATCH
    out = [s for s in shapes.every(max_rank, 1) if 0 < math.prod(s) <= budget]
    return list(dict.fromkeys(out + [_largest(r, budget) for r in range(1, max_rank + 1)]))


# ------------------------------------------------------------ the paths ----------
# Each: (expression text, specs, outputs); outputs(*shapes of a spec) lists per output (kind,
# name, what its kind needs). A path's first spec is the shape whose values the test checked:
# the math the transposes and tangents use at every shape must be math they use there.

def primitive_path(first):
    expr = f"lambda x: [custom_reduce_sum(x, a) for a in {_table(range(1, 9))}[x.ndim]]"
    specs = [[(s, "float32")] for s in _shapes(first, shapes.every(8, 1))]
    return expr, specs, lambda x: [(SUM, f"custom_reduce_sum(x, {a})", summed(x, a), _summing(len(x), a))
                                   for a in combos(len(x))]


def jvp_path(first):
    expr = (f"lambda x, t: [jax.jvp(lambda u, a=a: custom_reduce_sum(u, a), (x,), (t,)) "
            f"for a in {_table(range(1, 9))}[x.ndim]]")
    specs = [[(s, "float32"), (s, "float32")] for s in _shapes(first, shapes.every(8, 1))]

    def outputs(x, _):
        return [o for a in combos(len(x)) for o in (
            (SUM, f"the primal output of jax.jvp over axis {a}", summed(x, a), _summing(len(x), a)),
            (LINEAR, f"the tangent of jax.jvp over axis {a}", summed(x, a), _summing(len(x), a, source=1)))]
    return expr, specs, outputs


def transpose_path(first):
    lt = "jax.linear_transpose(lambda u, a=a: custom_reduce_sum(u, a), x)"
    table = _table(range(1, 9))
    expr = (f"lambda x, *c: [{lt}(ca) for a, ca in zip({table}[x.ndim], c)] "
            f"+ [{lt}(custom_reduce_sum(x, a)) for a in {table}[x.ndim]]")
    specs = [[(s, "float32")] + [(_kept(s, a), "float32") for a in combos(len(s))]
             for s in _shapes(first, shapes.every(8, 1))]

    def outputs(x, *_):
        axes = combos(len(x))
        return ([(BROADCAST, f"jax.linear_transpose over axis {a} applied to its cotangent", ("input", 1 + k),
                  _spread(len(x), a, 1 + k)) for k, a in enumerate(axes)]
                + [(BROADCAST, f"jax.linear_transpose over axis {a} applied to the sum", ("sum", summed(x, a)),
                    _spread(len(x), a, 0, a)) for a in axes])
    return expr, specs, outputs


MAX_BATCH = 65   # a valid rule may unstack the batch (one bind per example): its trace grows with it


def batch_sizes(example) -> list[int]:
    """Every batch size of shapes.SIZES from 1 to MAX_BATCH whose batch of `example` fits in
    2^31 - 1 elements: a rule that branches on the batch size changes the program at one of
    them (a branch above MAX_BATCH is a limit stated in docs/verdicts.md)."""
    return [n for n in shapes.SIZES if 0 < n <= MAX_BATCH and n * math.prod(example) <= shapes.MAX_ELEMENTS]


LADDERED = ((1,), (2, 3))   # examples vmapped at every batch size (the others at BATCH)


def vmap_path(first):
    """One program per example shape (`first` first) and batch size: an input per batch
    position (the example with the batch inserted there), a few axis combinations vmapped
    over each. Every example has a batch of BATCH; those of LADDERED also every other batch
    size (batch_sizes)."""
    table = _table(range(1, 8), few)
    expr = (f"lambda *xs: [jax.vmap(lambda u, a=a: custom_reduce_sum(u, a), in_axes=b)(x) "
            f"for b, x in enumerate(xs) for a in {table}[x.ndim - 1]]")
    batches = [(e, BATCH) for e in _shapes(first, examples())]
    batches += [(e, n) for e in LADDERED for n in batch_sizes(e) if n != BATCH]
    specs = [[(_batched(e, b, n), "float32") for b in range(len(e) + 1)] for e, n in batches]

    def outputs(*xs):
        example = xs[0][1:]
        return [(SUM, f"jax.vmap with the batch dimension at {b}"
                      + (f" (an input of shape {shapes.label(xs[b])})" if b else "") + f", summing axis {a},",
                 summed(example, a), _summing(len(example), a, source=b, batch=b))
                for b in range(len(xs)) for a in few(len(example))]
    return expr, specs, outputs


# Where each output element comes from (placement.misplaced's terms): (input, perm, summed axes).

def _summing(rank, axis, source=0, batch=None):
    """The sum over `axis` of input `source` (of `rank`; `batch`: a vmap's batch dimension
    there, moved to the output's front): the kept axes in order, the summed ones added."""
    example = [d for d in range(rank + (batch is not None)) if d != batch]
    kept = [example[i] for i in range(rank) if i not in axis]
    return source, ([batch] if batch is not None else []) + kept, tuple(example[i] for i in axis)


def _spread(rank, axis, source, summed_axes=()):
    """The transpose of the sum over `axis`, applied to input `source` (the cotangent, of the
    kept axes' shape; or x itself summed over `summed_axes`): each kept axis from the source's,
    the summed ones broadcast."""
    kept = [d for d in range(rank) if d not in axis]
    own = [d if summed_axes else kept.index(d) for d in kept]
    return source, [None if d in axis else own[kept.index(d)] for d in range(rank)], tuple(summed_axes)


def _shapes(first, rest) -> list[tuple[int, ...]]:
    return list(dict.fromkeys([tuple(first), *rest]))


# ------------------------------------------------------------ the verdict ----------

def _axis(call) -> tuple[int, ...]:
    value = call.attribute("axis")
    return tuple(int(a) for a in value.ravel()) if hasattr(value, "ravel") else ()


def _feeding(s: Structure, origin) -> list[int]:
    """The custom_calls an output comes from, directly or through their operands, in order."""
    return sorted(proofs.upstream(s, origin.calls())[0])


def _counts(s: Structure, name: str, origin, n: int) -> str:
    for k in _feeding(s, origin):
        call = s.calls[k]
        if call.target != TARGET:
            continue
        shape, axis = _dims(call.operand_types[0]), _axis(call)
        if summed(shape, axis) != n:
            return (f"{name} comes from a bind of custom_reduce_sum_p over axis {axis} of an operand of shape "
                    f"{shapes.label(shape)}, adding {summed(shape, axis)} entries for each result where the sum adds {n}")
    return ""


_WORDS = {SUM: "its input", LINEAR: "the tangent", BROADCAST: "the cotangent"}


def _placed(s: Structure, k: int, kind: str, name: str, place) -> str:
    """Where output k's elements come from is `place` (_summing, _spread), element by element."""
    source, perm, axes = place
    word = "its input" if kind == BROADCAST and source == 0 else _WORDS[kind]
    return placement.misplaced(proofs.pieces(s.outputs[k], f"input:{source}"), _dims(s.results[k]),
                               _dims(s.inputs[source]), word, perm, name, axes)


def _problem(s: Structure, k: int, kind: str, name: str, arg, base: dict, place=None) -> str:
    problem = _judged(s, k, kind, name, arg, base)
    return problem or (_placed(s, k, kind, name, place) if place is not None else "")


def _judged(s: Structure, k: int, kind: str, name: str, arg, base: dict) -> str:
    origin = s.outputs[k]
    kernel = {i for i, c in enumerate(s.calls) if c.target == TARGET}
    fed = [i for i in _feeding(s, origin) if i in kernel]
    if kind == SUM:
        if not origin.moved_from(kernel):
            return f"{name} is not the output of {KERNEL}: it is {proofs.sources_phrase(origin, s.calls)}"
        return _counts(s, name, origin, arg)
    extra = sorted(set(origin.math) - base.get(_group(kind, arg), set()))
    if kind == BROADCAST:
        source, value = arg
        if source == "sum":   # applied to the sum: the sum's own call, moved or broadcast with constants
            wrong = not fed or set(origin.sources) - {f"call:{i}" for i in fed} - {"constant"}
        else:
            wrong = (f"input:{value}" not in origin.sources or origin.calls()
                     or set(origin.sources) - {f"input:{value}", "constant"})
        if wrong or extra or "reduce" in origin.math:
            return (f"{name} is not the cotangent broadcast back over the summed axes as at the shape the grader "
                    f"checked: it is {proofs.sources_phrase(origin, s.calls)}")
        return _counts(s, name, origin, value) if source == "sum" else ""
    if kind == LINEAR:
        if "input:0" in origin.sources or set(extra) - {"reduce"}:
            return (f"{name} is not a sum of the tangent as at the shape the grader checked: it is "
                    f"{proofs.sources_phrase(origin, s.calls)}")
        return _counts(s, name, origin, arg)
    return ""


def _group(kind: str, arg) -> tuple:
    return (kind, arg[0]) if isinstance(arg, tuple) else (kind,)


def _case(place) -> tuple[int, ...]:
    """The axes an output's sum (or the sum it transposes) runs over."""
    _, perm, axes = place
    return tuple(axes) or tuple(d for d, p in enumerate(perm) if p is None)


def rule(outputs, base: Structure | None = None, checked=None):
    """The proofs rule of a path: every output what `outputs` (of the spec's shapes) says; the
    math of a transpose or tangent one that its kind of output uses in `base` (the program at
    the shape whose values the test checked) in the cases (axes) whose values it checked
    (`checked`; None: all of them): a case no value test sums over lends no math to the others."""
    allowed: dict = {}
    if base is not None and len(base.outputs) >= 1:
        expected = outputs(*[_dims(t) for t in base.inputs])
        for (kind, _, arg, place), origin in zip(expected, base.outputs):
            if checked is None or _case(place) in {tuple(c) for c in checked}:
                allowed.setdefault(_group(kind, arg), set()).update(origin.math)

    def check(s: Structure) -> str:
        expected = outputs(*[_dims(t) for t in s.inputs])
        if len(s.outputs) < len(expected):
            return f"the program has {len(s.outputs)} outputs where {len(expected)} were asked for"
        for k, (kind, name, arg, place) in enumerate(expected):
            if proofs.empty(s, k):   # no element: nothing to take from anywhere
                continue
            problem = _problem(s, k, kind, name, arg, allowed, place)
            if problem:
                return problem
        return ""
    return check


def expect_paths(ask, path, *, what, hint, checked=None):
    """`path` (expression, specs, outputs) lowered at every shape of its specs and each
    program checked; the sentence names the smallest shape where one is not what it must be.
    `checked`: the axes whose values the test checked at the path's first shape (rule).
    The specs are lowered side by side in one program (lowering many small programs costs
    more than one large one); if that one cannot be read, each is lowered alone."""
    expr, specs, outputs = path
    counts = [len(outputs(*[shape for shape, _ in spec])) for spec in specs]
    structures = ask.structures(expr, specs, what=what, hint=hint, outputs=counts)
    named = [spec[:1] for spec in specs]   # the sentence names the operand's shape (the first input)
    proofs.expect_every(structures, named, rule(outputs, structures[0], checked), what=what, hint=hint,
                        run=by_running(ask, path, structures, what=what, hint=hint))


def by_running(ask, path, structures, *, what, hint):
    """The judge of a shape whose program the reading could not follow (proofs.expect_every;
    the spec it names is the first input's, so the path's specs are looked up by it): the
    grader runs the path's program there on integers it draws from -4 to 4 (every sum of them
    exact in float32), each output exactly what `outputs` says it is (the sum over its axes,
    or the cotangent broadcast back). Which calls the sums come from, and how many entries
    each adds, the reading has proven (`rule`): only the positions are judged here."""
    expr, specs, outputs = path
    by_first = {}
    for spec, s in zip(specs, structures):
        by_first.setdefault(tuple(tuple(shape) for shape, _ in spec[:1]), (spec, s))

    def shape_run(named) -> _Run | None:
        """What running the spec named by `named` needs; None past RUN_ELEMENTS."""
        spec, s = by_first[tuple(tuple(shape) for shape, _ in named)]
        shapes_ = [tuple(shape) for shape, _ in spec]
        if sum(math.prod(shape) for shape in shapes_) > proofs.RUN_ELEMENTS:
            return None   # every input counts here (a vmapped path takes one per batch position)
        arrays = [ask.rng(809 + i).integers(-4, 5, shape).astype("float32") for i, shape in enumerate(shapes_)]
        label = f"{what} on shape {shapes.label(shapes_[0])} (run: its program could not be read)"
        wants = [(f"{name} of {label}", _reference(arrays, place, _dims(s.results[k])))
                 for k, (_, name, _, place) in enumerate(outputs(*shapes_))]
        return _Run(named, spec, label, arrays, wants)

    def judge(report, wants):
        programs.expect_values(report, [(k, name, want) for k, (name, want) in enumerate(wants)],
                               hint=hint, rtol=0.0, atol=0.0)

    def run(named):
        one = shape_run(named)
        if one is not None:
            inputs = {f"a{i}": a for i, a in enumerate(one.arrays)}
            judge(programs.program(ask, f"({expr})", list(inputs), what=one.label, hint=hint, kernels=False,
                                   **inputs), one.wants)

    def together(named_specs):
        """The specs' programs side by side in one (shared/packing.py), up to RUN_ELEMENTS input
        elements a pack: one compile and run instead of one per shape (never poisoned: only
        values are judged). A pack the grader cannot run whole (a gate, an error, another number
        of outputs) is run shape by shape, so that the sentence names the shape."""
        for pack in _packs([f for f in map(shape_run, named_specs) if f is not None]):
            arrays = [a for one in pack for a in one.arrays]
            inputs = {f"a{i}": a for i, a in enumerate(arrays)}
            fn = packing.expression([f"({expr})"] * len(pack), [one.spec for one in pack])
            try:
                report = programs.program(ask, fn, list(inputs), what=f"{what} (run at {len(pack)} shapes at once)",
                                          hint=hint, kernels=False, **inputs)
            except AssertionError:
                report = None
            if report is None or len(report.value) != sum(len(one.wants) for one in pack) + len(arrays):
                for one in pack:
                    run(one.named)
                continue
            first = 0
            for one in pack:
                judge(SimpleNamespace(value=report.value[first:first + len(one.wants)]), one.wants)
                first += len(one.wants)
    run.together = together
    return run


# A shape by_running runs: its spec as named, the spec, label, inputs, [(name, float64 reference)].
_Run = namedtuple("_Run", "named spec label arrays wants")


def _packs(found: list[_Run]) -> list[list[_Run]]:
    """`found` (smallest first) in packs of at most RUN_ELEMENTS input elements."""
    packs, size = [], proofs.RUN_ELEMENTS + 1
    for f in found:
        n = sum(a.size for a in f.arrays)
        if size + n > proofs.RUN_ELEMENTS:
            packs.append([])
            size = 0
        packs[-1].append(f)
        size += n
    return packs


def _reference(arrays, place, shape):
    """What `place` (_summing, _spread: source, perm, summed axes) says an output of `shape` is,
    in float64: the source summed over the axes, its kept axes laid out by perm, None broadcast."""
    source, perm, axes = place
    x = np.asarray(arrays[source], np.float64)
    y = x.sum(axis=tuple(axes)) if axes else x
    kept = [d for d in range(x.ndim) if d not in axes]
    y = np.transpose(y, [kept.index(p) for p in perm if p is not None])
    for d, p in enumerate(perm):
        if p is None:
            y = np.expand_dims(y, d)
    return np.broadcast_to(y, shape)
