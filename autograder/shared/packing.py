"""Many shapes of one path read from one lowering (probe.Ask.structures with `outputs`).

Lowering a path at a hundred abstract shapes one by one costs a hundred traces, lowerings
and texts; lowering one function that applies the path to each shape's inputs side by side
costs about a fifth of that (gammaln's jax.grad path: 0.49 s alone, 0.11 s packed). The
program of the pack is then read as one Structure per shape (`split`): its own inputs
(renumbered from 0), its own outputs (the grader says how many each shape has: nothing the
answer hands over decides where one shape's outputs end), and its own custom_calls: those its
outputs come from, those its inputs reach, and what those are computed from, renumbered in
program order. A pack with a call that neither reaches an output nor reads an input (an
io_callback of constants whose result nothing uses: whose is it?) or that two shapes share
is not split: its shapes are lowered one by one. The split is linear in the program's calls
and their operands, per shape.
"""
from __future__ import annotations

from autograder.shared.evidence import Origin, Structure


def expression(fns: list[str], specs: list) -> str:
    """An expression of one function of every spec's inputs, in order, returning the leaves
    of fns[k] applied to spec k's own inputs, in order."""
    distinct = list(dict.fromkeys(fns))
    spans, first = [], 0
    for fn, spec in zip(fns, specs):
        spans.append((distinct.index(fn), first, first + len(spec)))
        first += len(spec)
    return (f"(lambda fs: lambda *v: [o for f, lo, hi in {spans!r} for o in jax.tree.leaves(fs[f](*v[lo:hi]))])"
            f"(({', '.join(distinct)},))")


def split(whole: Structure, specs: list, counts: list[int]) -> list[Structure] | None:
    """The Structure of the pack `whole` (of `expression(fn, specs)`) as one per spec, spec k
    with counts[k] outputs; None when the pack does not have those outputs."""
    if whole.refused or len(whole.outputs) != sum(counts) or len(whole.inputs) != sum(len(s) for s in specs):
        return None
    feeders = [set(_calls_in(whole.operands[g] if g < len(whole.operands) else [])) for g in range(len(whole.calls))]
    consumers: list[set[int]] = [set() for _ in whole.calls]
    for g, fed_by in enumerate(feeders):
        for h in fed_by:
            if 0 <= h < len(consumers):
                consumers[h].add(g)
    direct = [_inputs_in(whole.operands[g] if g < len(whole.operands) else []) for g in range(len(whole.calls))]
    owned, first_in, first_out = [], 0, 0
    for spec, n in zip(specs, counts):
        lo, hi = first_in, first_in + len(spec)
        # the calls its inputs reach (through other calls too), and all their operands come from
        fed = _reach({g for g, r in enumerate(direct) if any(lo <= j < hi for j in r)}, consumers)
        upstream = _calls_in(whole.outputs[first_out:first_out + n]) | fed
        owned.append(sorted(_reach(upstream, feeders)))
        first_in, first_out = hi, first_out + n
    if sorted(g for mine in owned for g in mine) != list(range(len(whole.calls))):
        return None   # a call of nobody's, or of two shapes
    parts, first_in, first_out = [], 0, 0
    for spec, n, mine in zip(specs, counts, owned):
        lo, hi, outputs = first_in, first_in + len(spec), whole.outputs[first_out:first_out + n]
        local = {g: k for k, g in enumerate(mine)}

        def renumber(o: Origin, lo=lo, hi=hi, local=local) -> Origin:
            def source(x: str) -> str:
                if x.startswith("input:"):
                    j = int(x.removeprefix("input:"))
                    return f"input:{j - lo}" if lo <= j < hi else "input:?"
                if x.startswith("call:"):
                    return f"call:{local[int(x.removeprefix('call:'))]}"
                return x
            places = [[source(p[0]), *p[1:]] for p in o.places if source(p[0]) != "input:?"]
            return Origin(sorted(source(x) for x in o.sources), list(o.math), places)   # as dataflow.py sorts them
        parts.append(Structure([whole.calls[g] for g in mine], [renumber(o) for o in outputs],
                               [[renumber(o) for o in whole.operands[g]] if g < len(whole.operands) else []
                                for g in mine],
                               whole.inputs[lo:hi], whole.results[first_out:first_out + n]))
        first_in, first_out = hi, first_out + n
    return parts


def _calls_in(origins) -> set[int]:
    return {g for o in origins for g in o.calls()}


def _inputs_in(origins) -> set[int]:
    return {int(x.removeprefix("input:")) for o in origins for x in o.sources if x.startswith("input:")}


def _reach(start: set[int], edges: list[set[int]]) -> set[int]:
    """`start` and every call reached from it along `edges` (linear in the edges: a pack of
    thousands of calls costs no more than reading them)."""
    seen, todo = set(), list(start)
    while todo:
        g = todo.pop()
        if g in seen or not 0 <= g < len(edges):
            continue
        seen.add(g)
        todo += edges[g]
    return seen
