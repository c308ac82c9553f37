"""Where each operation puts its operands' elements: the places half of reading a program
(shared/dataflow.py walks the graph; this says, per operation, what becomes of each piece of
shared/positions.py).

A value's places are a frozenset of (root, piece), root "input:<i>". Layout operations move
pieces (positions.py does the arithmetic); an elementwise operation keeps each operand's; a
reduction adds summed digits; a custom_call hands each operand element k to result element k;
a dynamic slice at a loop's counter keeps the counter, and the loop's dynamic_update_slice at
the counter sweeps it into a digit. What is not followed becomes one piece per root that says
which operation stopped it. Past positions.MAX_PIECES pieces, a value's positions are not
followed either.
"""
from __future__ import annotations

import re

import numpy as np

from autograder.shared import coalesce, gathers, indices, positions, scalars, stablehlo
from autograder.shared.scalars import shape_of
from autograder.shared.stablehlo import ints

# The course's kernels that sum their operand over the axes an attribute names (reduce_sum_rules'
# lowering of custom_reduce_sum_p, kernels/reduce_sum.py): positions pass through them as
# through stablehlo.reduce.
REDUCTIONS = {"__grader_reduce_sum__": "axis"}


def map_places(places, shape, step):
    """Each (root, piece) of `places` through `step` (piece -> pieces); past MAX_PIECES, one
    piece per root that cannot be followed."""
    if shape is not None and 0 in shape:   # an empty value: no element to place
        return frozenset()
    out = set()
    for root, piece in places:
        for p in step(piece):
            out.add((root, p))
    return capped(out, shape)


def capped(places, shape):
    if len(places) <= positions.MAX_PIECES or shape is None:
        return frozenset(places)
    return frozenset((root, positions.unknown(shape, "more pieces than the grader follows"))
                     for root in {r for r, _ in places})


def unfollowed(places, shape, why):
    """Every root of `places`, its positions not followed past the operation `why`."""
    if shape is None:
        return frozenset()
    return frozenset((root, positions.unknown(shape, why)) for root in {r for r, _ in places})


def settled(origin, loop, shape):
    """A carried value as the loop leaves it: pieces still at its counter are not followed."""
    if loop is None:
        return origin
    places = frozenset((r, p) if p[1] is None or not any(k == loop for k, _ in p[1][3]) else
                       (r, positions.unknown(shape, "a write at a place that depends on the iteration"))
                       for r, p in origin[2]) if shape is not None else origin[2]
    return origin[0], origin[1], places, None


def through_call(places, operand, result, target):
    """The places of a custom_call's result from one operand's, as if element k of the result
    were computed from element k of the operand (flat order; a 0-d operand broadcast). What a
    kernel reads besides (rms_norm: the whole row) is its operands' places to judge."""
    if result is None or operand is None:
        return frozenset()
    n_in, n_out = 1, 1
    for d in operand:
        n_in *= d
    for d in result:
        n_out *= d
    if operand == ():
        return map_places(places, result, lambda p: positions.broadcast_in_dim(p, (), result, []))
    if n_in != n_out:
        return unfollowed(places, result, f"{target}, whose result is shaped otherwise than its operand")
    return map_places(places, result, lambda p: positions.reshape(p, operand, result))


def _numbers(op, attribute) -> dict[str, list[int]]:
    """A gather's or scatter's dimension numbers: {"offset_dims": [0], ...}."""
    return {k: [int(x) for x in re.findall(r"-?\d+", v)] for k, v in
            re.findall(r"(\w+) = (\[[^\]]*\]|-?\d+)", str(op.attributes[attribute]))}


def overwrites(op) -> bool:
    """A stablehlo.scatter of one operand whose update computation returns the update: it
    moves elements, computing nothing."""
    if len(op.operands) != 3 or len(op.regions) != 1:
        return False
    block = op.regions[0].blocks[0]
    last = list(block.operations)[-1]
    return len(block.arguments) == 2 and len(last.operands) == 1 and last.operands[0] == block.arguments[1]


def own_places(root, value):
    shape = shape_of(value)
    return frozenset() if shape is None else frozenset({(root, positions.identity(shape))})


def unnumbered(piece):
    """A piece as recorded: its loop counters' strides kept, their ids (this reading's own
    numbering) dropped."""
    box, m, why = piece
    return piece if m is None or not m[3] else (box, (m[0], m[1], m[2], tuple((-1, c) for _, c in m[3])), why)


class Moves:
    """The places of each operation's results; `trips` (loop id -> how many values its
    counter takes) is the reading's, filled as it enters loops."""
    trips: dict[int, int]

    def summed(self, op, places, attribute, shape):
        """The places of a course kernel's sum (REDUCTIONS) over the axes of its `attribute`."""
        operand = shape_of(op.operands[0])
        found = stablehlo.custom_call(op).attributes.get(attribute)
        axes = [int(a) for a in np.ravel(found.value)] if found is not None else None
        if operand is None or shape is None or axes is None or any(not 0 <= a < len(operand) for a in axes):
            return unfollowed(places, shape, op.attributes["call_target_name"].value)
        kept = tuple(n for d, n in enumerate(operand) if d not in axes)
        return map_places(places, shape, lambda p: [q for r in positions.reduce(p, operand, axes)
                                                     for q in positions.reshape(r, kept, shape)])

    def broadcast(self, places, value, shape):
        """An elementwise operand's places at the result's shape (a 0-d operand broadcast)."""
        own = shape_of(value)
        if own == shape or shape is None:
            return places
        if own == ():
            return map_places(places, shape, lambda p: positions.broadcast_in_dim(p, (), shape, []))
        return unfollowed(places, shape, "an elementwise operation on another shape")

    def layout(self, op, operands):
        """The places of a layout operation's result."""
        name, shape = op.name, shape_of(op.results[0]) if op.results else None
        ins = [shape_of(v) for v in op.operands]
        first = operands[0][2] if operands else frozenset()
        if shape is None or any(s is None for s in ins[:1]):
            return unfollowed(frozenset().union(*(o[2] for o in operands)), shape, name)
        if name in ("stablehlo.copy", "stablehlo.convert"):
            return first
        if name == "stablehlo.reshape":   # pieces side by side made one first: a merge of axes may need it
            joined = frozenset((root, p) for root in {r for r, _ in first}
                               for p in coalesce.coalesce(q for r, q in first if r == root))
            return map_places(joined, shape, lambda p: positions.reshape(p, ins[0], shape))
        if name == "stablehlo.transpose":
            perm = ints(op, "permutation")
            return map_places(first, shape, lambda p: positions.transpose(p, perm))
        if name == "stablehlo.broadcast_in_dim":
            dims = ints(op, "broadcast_dimensions")
            return map_places(first, shape, lambda p: positions.broadcast_in_dim(p, ins[0], shape, dims))
        if name == "stablehlo.reverse":
            dims = ints(op, "dimensions")
            return map_places(first, shape, lambda p: positions.reverse(p, ins[0], dims))
        if name == "stablehlo.slice":
            a, b, c = ints(op, "start_indices"), ints(op, "limit_indices"), ints(op, "strides")
            return map_places(first, shape, lambda p: positions.slice_(p, a, b, c))
        if name == "stablehlo.concatenate":
            dim, at, places = ints(op, "dimension")[0], 0, set()
            for value, origin in zip(op.operands, operands):
                by = [at if d == dim else 0 for d in range(len(shape))]
                places |= map_places(origin[2], shape, lambda p, by=by: positions.shift_all(p, by))
                at += shape_of(value)[dim]
            return capped(places, shape)
        if name == "stablehlo.pad" and not any(ints(op, "interior_padding")):
            low, high = ints(op, "edge_padding_low"), ints(op, "edge_padding_high")
            starts = [max(0, -x) for x in low]
            limits = [n - max(0, -x) for n, x in zip(ins[0], high)]

            def pad(p):
                return [q for s in positions.slice_(p, starts, limits, [1] * len(shape))
                        for q in positions.shift_all(s, [max(0, x) for x in low])]
            return map_places(first, shape, pad) | unfollowed(operands[1][2], shape, "a padding value")
        if name == "stablehlo.dynamic_slice":
            return self.dynamic_slice(op, operands, ins[0], shape)
        if name == "stablehlo.gather":
            return self.gather(op, operands, ins[0], shape)
        if name == "stablehlo.dynamic_update_slice":
            return self.dynamic_update_slice(op, operands, ins, shape)
        return unfollowed(frozenset().union(*(o[2] for o in operands)), shape, name)

    def reduce(self, op, operands):
        shape = shape_of(op.results[0])
        half = len(operands) // 2
        if shape is None or len(op.results) != half:
            return unfollowed(frozenset().union(*(o[2] for o in operands)), shape, op.name)
        dims = ints(op, "dimensions")
        places = set()
        for value, origin in zip(op.operands[:half], operands[:half]):
            places |= map_places(origin[2], shape, lambda p, s=shape_of(value): positions.reduce(p, s, dims))
        return capped(places | unfollowed(frozenset().union(*(o[2] for o in operands[half:])), shape,
                                            "a reduction's initial value"), shape)

    def summed_by_ones(self, op, operands, shape):
        """The places of a dot_general of a value with a value of ones (scalars.ONES) and no
        batch dimensions: the value summed over its contracting dimensions, broadcast along the
        ones' free dimensions (the result's dimensions: the left operand's free ones, then the
        right's). Any other dot_general is not followed."""
        field = _numbers(op, "dot_dimension_numbers")
        data = 1 if operands[0][3] == scalars.ONES else 0
        contracting = field.get("lhs_contracting_dimensions" if data == 0 else "rhs_contracting_dimensions")
        own, other = shape_of(op.operands[data]), shape_of(op.operands[1 - data])
        everything = frozenset().union(*(o[2] for o in operands))
        if shape is None or own is None or other is None or contracting is None \
                or field.get("lhs_batching_dimensions") or field.get("rhs_batching_dimensions"):
            return unfollowed(everything, shape, op.name)
        kept = tuple(n for d, n in enumerate(own) if d not in contracting)
        free_ones = len(other) - len(contracting)
        at = list(range(len(kept))) if data == 0 else list(range(free_ones, free_ones + len(kept)))
        return map_places(operands[data][2], shape, lambda p: [
            q for r in positions.reduce(p, own, contracting) for q in positions.broadcast_in_dim(r, kept, shape, at)])

    def dynamic_slice(self, op, operands, source, shape):
        return self._sliced(operands[0][2], [o[3] for o in operands[1:]], source, shape, ints(op, "slice_sizes"),
                            op.name)

    def _sliced(self, places, starts, source, shape, sizes, why):
        """The places of a slice of `sizes` at `starts` (integer scalars: constants, clamped as
        XLA clamps them, or at loops' counters); not followed when a start is not known."""
        if any(type(s) is not tuple for s in starts):
            return unfollowed(places, shape, why)
        return map_places(places, shape, lambda p: positions.dynamic_slice(
            p, source, [s[0] for s in starts], [s[1] for s in starts], sizes, self.trips))

    def gather(self, op, operands, source, shape):
        """A gather of one slice (its indices one index vector: what jnp.take of one index
        lowers to) read as the dynamic slice it is; one of an index array known element by
        element (shared/gathers.py) as the slices it takes; any other is not followed."""
        field = _numbers(op, "dimension_numbers")
        sizes = ints(op, "slice_sizes")
        index = operands[1][3]
        mapped = field.get("start_index_map", [])
        if type(index) is not scalars.Vector or len(index) != len(mapped) or field.get("operand_batching_dims") \
                or shape_of(op.operands[1]) != (len(mapped),) or field.get("index_vector_dim", [0]) != [0] \
                or field.get("offset_dims", []) != list(range(len(shape))):
            known = indices.as_affine(index, shape_of(op.operands[1]))
            step = known and gathers.gather(field, sizes, source, known, shape)
            return map_places(operands[0][2], shape, step) if step else unfollowed(operands[0][2], shape, op.name)
        starts = [(0, ())] * len(source)
        for d, value in zip(mapped, index):
            starts[d] = value
        sliced = self._sliced(operands[0][2], starts, source, tuple(sizes), sizes, op.name)
        return map_places(sliced, shape, lambda p: positions.reshape(p, tuple(sizes), shape))

    def dynamic_update_slice(self, op, operands, ins, shape):
        return self._update(operands[0][2], operands[1][2], [o[3] for o in operands[2:]], ins[1], shape, op.name)

    def scatter(self, op, operands, shape):
        """A scatter of one window that overwrites (what x.at[i].set(v) lowers to: overwrites()
        holds), its index known and in bounds at every counter value (a scatter drops a window
        out of bounds where a dynamic update slice would clamp it), read as the dynamic update
        slice it is; any other is not followed."""
        field = _numbers(op, "scatter_dimension_numbers")
        everything = frozenset().union(*(o[2] for o in operands))
        index, update = operands[1][3], shape_of(op.operands[2])
        mapped, inserted = field.get("scatter_dims_to_operand_dims", []), field.get("inserted_window_dims", [])
        if shape is None or type(index) is not scalars.Vector or len(index) != len(mapped) or update is None \
                or shape_of(op.operands[1]) != (len(mapped),) or field.get("input_batching_dims") \
                or field.get("update_window_dims", []) != list(range(len(update))) \
                or len(update) + len(inserted) != len(shape) or not set(inserted) <= set(mapped):
            return self._scattered(op, operands, field, update, shape)
        window, rest = [], iter(update)
        for d in range(len(shape)):
            window.append(1 if d in inserted else next(rest))
        starts = [(0, ())] * len(shape)
        for d, value in zip(mapped, index):
            starts[d] = value
        for d, start in enumerate(starts):
            low, high = scalars.bounds(start, self.trips)
            if low < 0 or high + window[d] > shape[d]:
                return unfollowed(everything, shape, op.name)
        placed = map_places(operands[2][2], tuple(window), lambda p: positions.reshape(p, update, tuple(window)))
        return self._update(operands[0][2], placed, starts, tuple(window), shape, op.name)

    def _scattered(self, op, operands, field, update, shape):
        """A scatter at an index array known element by element (shared/gathers.py): the
        buffer less the box written, the updates placed; else not followed."""
        known = indices.as_affine(operands[1][3], shape_of(op.operands[1]))
        read = known and update is not None and shape is not None and gathers.scatter(field, known, update, shape)
        if not read:
            return unfollowed(frozenset().union(*(o[2] for o in operands)), shape, op.name)
        step, cut = read
        return capped(set(map_places(operands[0][2], shape, lambda p: positions.subtract(p, cut)))
                      | map_places(operands[2][2], shape, step), shape)

    def _update(self, buffer, update, starts, sizes, shape, why):
        """The places of `buffer` with `update` (of `sizes`) written at `starts` (integer
        scalars: constants, clamped as XLA clamps them, or at a loop's counter)."""
        everything = buffer | update
        if any(type(s) is not tuple for s in starts):
            return unfollowed(everything, shape, why)
        swept = [(d, s[1]) for d, s in enumerate(starts) if s[1]]
        if not swept:
            a = positions.clamped([s[0] for s in starts], shape, sizes)
            cut = tuple((x, x + k) for x, k in zip(a, sizes))
            return capped(set(map_places(buffer, shape, lambda p: positions.subtract(p, cut)))
                           | map_places(update, shape, lambda p: positions.shift_all(p, a)), shape)
        if len(swept) != 1 or len(swept[0][1]) != 1:
            return unfollowed(everything, shape, why)
        d, ((loop, coefficient),) = swept[0]
        n, first = self.trips.get(loop, 0), starts[d][0]
        low = first if coefficient > 0 else first + (n - 1) * coefficient   # a reversed scan counts down
        if abs(coefficient) != sizes[d] or low < 0 or low + n * sizes[d] > shape[d] or n == 0:
            return unfollowed(everything, shape, why)
        a = [s[0] for s in starts]
        a[d] = low
        cut = tuple((x, x + k) if j != d else (low, low + n * k) for j, (x, k) in enumerate(zip(a, sizes)))
        kept = map_places(buffer, shape, lambda p: positions.subtract(p, cut))
        return capped(set(kept) | map_places(update, shape, lambda p: positions.sweep(p, d, loop, n, a, sizes, coefficient < 0)), shape)
