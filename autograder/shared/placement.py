"""Whether each element of a value sits where the task says: the graders' reading of the
pieces shared/positions.py describes (proofs.in_place, ffi_lowering's in_rows,
reduce_sum_rules' sums), with the first element that does not, named in words.

Pure Python, no JAX.
"""
from __future__ import annotations

from autograder.shared.positions import canon, strides, value


def _unravel(flat: int, shape) -> tuple:
    return tuple((flat // s) % n for n, s in zip(shape, strides(shape)))


def _sum_key(digits) -> tuple:
    """Summed digits as a set of positions: order and direction left out."""
    return canon(sorted(((a, abs(x)) for a, x in digits if a > 1), key=lambda d: -d[1]))


class Unfollowed(str):
    """A phrase saying where the reading of positions stopped: not a counterexample, so a test
    may judge that shape by running it (proofs.expect_every's `run`)."""


# Steps of the search for an element no piece holds (boxes cut along each dimension in turn):
# far more than thousands of pieces side by side need; past it, the coverage is not followed.
COVER_STEPS = 200_000


def misplaced(pieces, shape, source_shape, source: str, perm=None, which: str = "the value", summed=()) -> str:
    """"" when every piece puts each element of a value of `shape` where the task says and
    every element of the value is in some piece, else where one lands otherwise (or that it
    comes from no element of the source), in words; an Unfollowed phrase where the positions
    could not be followed. The task: the value's dimension d is the source's dimension perm[d]
    (None in perm: d is a broadcast, every element along it the same; perm None: the same
    element in row-major order), and each element is the sum over the source's axes `summed`
    (none: one element)."""
    if 0 in shape or 0 in source_shape:   # no element to place, or none to take one from
        return ""
    src = strides(source_shape)
    st = strides(shape) if perm is None else tuple(0 if p is None else src[p] for p in perm)
    want_sum = _sum_key(tuple((source_shape[a], src[a]) for a in summed))
    for box, m, why in pieces:
        if m is None:
            return Unfollowed(f"where the elements of {which} come from in {source} cannot be followed (through {why})")
        offset, dims, got_sum, loops = m
        if loops:
            return Unfollowed(f"where the elements of {which} come from in {source} depends on a loop's counter")
        lo = tuple(b[0] for b in box)
        first = sum(x * s for x, s in zip(lo, st))
        bad = None
        if offset != first:
            bad = tuple(0 for _ in box)
        else:
            for d, dim in enumerate(dims):
                if canon(dim) != canon(((box[d][1] - box[d][0], st[d]),)):
                    local = [0] * len(box)
                    local[d] = _first_difference(canon(dim), st[d], box[d][1] - box[d][0])
                    bad = tuple(local)
                    break
        if bad is not None:
            at = tuple(l + x for l, x in zip(lo, bad))
            got = offset + sum(value(dim, x) for dim, x in zip(dims, bad))
            want = first + sum(x * s for x, s in zip(bad, st))
            return (f"element {_index(at)} of {which} comes from element {_index(_unravel(got, source_shape))} of "
                    f"{source}, not from element {_index(_unravel(want, source_shape))}")
        if _sum_key(got_sum) != want_sum:
            if not summed:
                return f"each element of {which} is a sum over {source}'s elements, not one of them"
            axes = sorted({src.index(abs(x)) for a, x in got_sum if a > 1 and abs(x) in src})
            return (f"each element of {which} sums {source} over axes {tuple(axes)}, where the task's sum is over "
                    f"axes {tuple(summed)}")
    try:
        hole = uncovered([box for box, _, _ in pieces], tuple(shape))
    except OverflowError:
        return Unfollowed(f"whether every element of {which} comes from {source} cannot be followed "
                          f"(more than {COVER_STEPS:,} steps over {len(pieces)} pieces)")
    if hole is not None:   # a loop's initial buffer or a constant, where the task says an element of the source
        return f"element {_index(hole)} of {which} comes from no element of {source}"
    return ""


def uncovered(boxes, shape) -> tuple | None:
    """The first element (in row-major order) of a value of `shape` that none of `boxes`
    ((lo, hi) per dimension) holds, or None when they hold every one. The boxes are cut along
    each dimension in turn at their edges; the boxes that hold a whole stretch between two
    cuts decide it for the dimensions after. OverflowError past COVER_STEPS steps."""
    steps = [0]
    memo: dict = {}

    def hole(active: frozenset, d: int):
        if d == len(shape):
            return None if active else ()
        if (active, d) in memo:
            return memo[active, d]
        steps[0] += len(active) + 1
        if steps[0] > COVER_STEPS:
            raise OverflowError
        cuts = sorted({0, shape[d], *(min(max(b[d][k], 0), shape[d]) for b in active for k in (0, 1))})
        found = None
        for a, b in zip(cuts, cuts[1:]):
            rest = hole(frozenset(x for x in active if x[d][0] <= a and x[d][1] >= b), d + 1)
            if rest is not None:
                found = (a, *rest)
                break
        memo[active, d] = found
        return found

    return hole(frozenset(tuple(map(tuple, b)) for b in boxes if all(lo < hi for lo, hi in b)), 0)


def _first_difference(digits, stride, extent) -> int:
    """A local index where `digits` do not count `extent` elements by `stride`."""
    for x in (1, extent - 1):
        if value(digits, x) != x * stride:
            return x
    for k in range(len(digits)):
        x = 1
        for a, _ in digits[k + 1:]:
            x *= a
        if value(digits, x) != x * stride:
            return x
    return 0


def _index(t) -> str:
    return "(" + ", ".join(str(i) for i in t) + ("," if len(t) == 1 else "") + ")"
