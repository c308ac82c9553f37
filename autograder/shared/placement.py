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


def misplaced(pieces, shape, source_shape, source: str, perm=None, which: str = "the value", summed=()) -> str:
    """"" when every piece puts each element of a value of `shape` where the task says, else
    where one lands otherwise, in words. The task: the value's dimension d is the source's
    dimension perm[d] (None in perm: d is a broadcast, every element along it the same; perm
    None: the same element in row-major order), and each element is the sum over the source's
    axes `summed` (none: one element)."""
    if 0 in shape:   # no element to place
        return ""
    src = strides(source_shape)
    st = strides(shape) if perm is None else tuple(0 if p is None else src[p] for p in perm)
    want_sum = _sum_key(tuple((source_shape[a], src[a]) for a in summed))
    for box, m, why in pieces:
        if m is None:
            return f"where the elements of {which} come from in {source} cannot be followed (through {why})"
        offset, dims, got_sum, loops = m
        if loops:
            return f"where the elements of {which} come from in {source} depends on a loop's counter"
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
    return ""


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
