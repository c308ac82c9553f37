"""Where each element of a value sits in its source: the positions half of the dataflow proof.

A value's elements are described, per source ("input:<i>", main's argument i), by pieces:

    Piece = (box, map, why)
    box   per dimension of the value, the (lo, hi) range the piece covers
    map   (offset, dims, summed, loops): the flat index (row-major) in the source of the
          element at local position x of the box is
              offset + sum over dims d, over the digits (size, stride) of dims[d] of digit * stride
          where dims[d] writes x[d] in mixed radix (the digits' sizes multiply to hi - lo);
          `summed` digits are taken at every value (a reduction: the element is a sum over
          them; a row a kernel reads whole); `loops` (loop id, digits) are the counters of
          the enclosing while loops (a dynamic slice at the counter), gone once the loop's
          writes sweep the buffer (shared/dataflow.py)
          None: the positions cannot be followed (`why` names the operation)

Reversing an axis negates its digits' strides, a transpose permutes dims, a reshape regroups
the digits (splitting one where a new dimension's boundary falls inside it), a broadcast adds
digits of stride 0, a slice restricts a digit, concatenate and pad shift boxes. This is exact:
an element whose source position is not what the task requires is found by arithmetic on the
digits, whatever the shape (2^31 - 1 elements cost what 8 do).

Pure Python, no JAX: the executor builds pieces (shared/moves.py), the graders read them
(shared/placement.py).
"""
from __future__ import annotations

MAX_PIECES = 4096   # pieces per value; past it the value's positions are not followed


def strides(shape) -> tuple[int, ...]:
    out, n = [], 1
    for d in reversed(shape):
        out.append(n)
        n *= d
    return tuple(reversed(out))


def canon(digits) -> tuple:
    """The same digits, size-1 ones dropped and neighbours that count on as one merged."""
    out = []
    for a, s in digits:
        if a == 1:
            continue
        if out and out[-1][1] == s * a:
            out[-1] = (out[-1][0] * a, s)
        else:
            out.append((a, s))
    return tuple(out)


def identity(shape) -> tuple:
    """The piece of a source itself: every element where it is."""
    return (tuple((0, n) for n in shape), (0, tuple(((n, s),) for n, s in zip(shape, strides(shape))), (), ()), "")


def unknown(shape, why: str) -> tuple:
    return (tuple((0, n) for n in shape), None, why)


def value(digits, x: int) -> int:
    """Where local index x (written in `digits`' mixed radix) lands: sum of digit * stride."""
    total = 0
    for a, s in reversed(digits):
        total += (x % a) * s
        x //= a
    return total


def _reversed(digits) -> tuple[int, tuple]:
    """(offset, digits) of `digits` counted backwards: each digit i read as size - 1 - i."""
    return sum((a - 1) * s for a, s in digits), tuple((a, -s) for a, s in digits)


def clamped(firsts, shape, sizes) -> list[int]:
    """A dynamic slice's constant starts as XLA clamps them: the slice stays inside."""
    return [min(max(f, 0), n - k) for f, n, k in zip(firsts, shape, sizes)]


def _restrict(digits, x0: int, count: int, step: int = 1):
    """(delta, digits) of the indices x0 + k * step, k < count, within `digits`; None when they
    are not one affine run of digits."""
    digits = canon(digits)
    if count == 1:
        return value(digits, x0), ()
    if len(digits) == 1:
        return x0 * digits[0][1], ((count, step * digits[0][1]),)
    if not digits or step != 1:
        return None
    *rest, (a, s) = digits
    if x0 % a == 0 and count % a == 0:
        inner = _restrict(tuple(rest), x0 // a, count // a)
        return None if inner is None else (inner[0], inner[1] + ((a, s),))
    if x0 % a + count <= a:
        return value(tuple(rest), x0 // a) + (x0 % a) * s, ((count, s),)
    return None


def _regroup(digits, sizes):
    """`digits` (a flat run, row-major) cut into dimensions of `sizes`; None when a boundary
    falls where no digit can be split."""
    todo = list(canon(digits))
    out = []
    for n in reversed(sizes):
        dim = []
        while n > 1:
            if not todo:
                return None
            a, s = todo.pop()
            if a <= n and n % a == 0:
                dim.append((a, s))
                n //= a
            elif a % n == 0:
                dim.append((n, s))
                todo.append((a // n, s * n))
                n = 1
            else:
                return None
        out.append(tuple(reversed(dim)))
    if any(a > 1 for a, _ in todo):
        return None
    return tuple(reversed(out))


# ---------------------------------------------------------------- operations on one piece
# Each takes a piece (box, map, why) and returns the list of pieces it becomes.

def _with(piece, box, map_):
    return [(tuple(box), map_, piece[2])]


def transpose(piece, perm):
    box, m, _ = piece
    new_box = [box[p] for p in perm]
    return _with(piece, new_box, None if m is None else (m[0], tuple(m[1][p] for p in perm), m[2], m[3]))


def squeeze(piece, drop):
    """The piece without the dimensions `drop` (each of one element: no digit is lost)."""
    box, m, why = piece
    keep = [d for d in range(len(box)) if d not in drop]
    return _with(piece, [box[d] for d in keep], None if m is None else (m[0], tuple(m[1][d] for d in keep), m[2], m[3]))


def broadcast_in_dim(piece, in_shape, out_shape, bdims):
    box, m, _ = piece
    new_box, dims = [], []
    for d, n in enumerate(out_shape):
        if d in bdims and in_shape[bdims.index(d)] == n:
            od = bdims.index(d)
            new_box.append(box[od])
            dims.append(None if m is None else m[1][od])
        else:
            new_box.append((0, n))
            dims.append(((n, 0),))
    return _with(piece, new_box, None if m is None else (m[0], tuple(dims), m[2], m[3]))


def reverse(piece, shape, rdims):
    box, m, _ = piece
    new_box = [(shape[d] - hi, shape[d] - lo) if d in rdims else (lo, hi) for d, (lo, hi) in enumerate(box)]
    if m is None:
        return _with(piece, new_box, None)
    offset, dims = m[0], list(m[1])
    for d in rdims:
        delta, dims[d] = _reversed(dims[d])
        offset += delta
    return _with(piece, new_box, (offset, tuple(dims), m[2], m[3]))


def slice_(piece, starts, limits, steps):
    box, m, why = piece
    # the slice's indices k (start + k * step) that fall inside the piece's box, per dimension
    new_box = tuple((-(-(max(lo, start) - start) // step), -(-(min(hi, limit) - start) // step))
                    for (lo, hi), start, limit, step in zip(box, starts, limits, steps))
    if any(hi <= lo for lo, hi in new_box):
        return []
    if m is None:
        return [(new_box, None, why)]
    offset, dims = m[0], list(m[1])
    for d, ((lo, _), (k_lo, k_hi), start, step) in enumerate(zip(box, new_box, starts, steps)):
        got = _restrict(dims[d], start + k_lo * step - lo, k_hi - k_lo, step)
        if got is None:
            return [(new_box, None, "stablehlo.slice")]
        offset += got[0]
        dims[d] = got[1]
    return [(new_box, (offset, tuple(dims), m[2], m[3]), why)]


def _contiguous(box, shape):
    """(first flat index, count) when the box is one run of the row-major order, else None."""
    k = 0
    while k < len(shape) and box[k][1] - box[k][0] == 1:
        k += 1
    if any(box[j] != (0, shape[j]) for j in range(k + 1, len(shape))):
        return None
    st = strides(shape)
    first = sum(lo * s for (lo, _), s in zip(box, st))
    count = 1
    for lo, hi in box:
        count *= hi - lo
    return first, count


def _box_of_run(first, count, shape):
    """The box of the flat run [first, first + count) in `shape`, None when it is not one."""
    st = strides(shape)
    for k in range(len(shape) - 1, -1, -1):
        p = st[k]
        if first % p or count % p:
            continue
        lo = (first // p) % shape[k]
        if lo + count // p > shape[k]:
            continue
        box = []
        for j in range(len(shape)):
            if j < k:
                i = (first // st[j]) % shape[j]
                box.append((i, i + 1))
            elif j == k:
                box.append((lo, lo + count // p))
            else:
                box.append((0, shape[j]))
        return tuple(box)
    return () if not shape and count == 1 else None


def _runs(first, count, shape):
    """The flat run [first, first + count) cut into runs that are each one box of `shape` (at
    most two per dimension): the part in the first row, whole rows, the part in the last row."""
    if count <= 0:
        return []
    if not shape or _box_of_run(first, count, shape) is not None:
        return [(first, count)]
    n, end = shape[-1], first + count
    a = min(end, -(-first // n) * n)
    b = max(a, end // n * n)
    rows = [(r * n, c * n) for r, c in _runs(a // n, (b - a) // n, shape[:-1])] if a < b else []
    return [(first, a - first)] * (first < a) + rows + [(b, end - b)] * (b < end)


def reshape(piece, in_shape, out_shape):
    box, m, why = piece
    run = _contiguous(box, in_shape)
    if run is None:
        return [(tuple((0, n) for n in out_shape), None, "stablehlo.reshape")]
    first, count = run
    flat = None if m is None else tuple(d for dim in m[1] for d in dim)
    out = []
    for lo, n in _runs(first, count, out_shape):
        new_box = _box_of_run(lo, n, out_shape)
        if new_box is None:
            return [(tuple((0, n) for n in out_shape), None, "stablehlo.reshape")]
        if m is None:
            out.append((new_box, None, why))
            continue
        part = _restrict(flat, lo - first, n)
        dims = None if part is None else _regroup(part[1], [hi - l for l, hi in new_box])
        out.append((new_box, None, "stablehlo.reshape") if dims is None else
                   (new_box, (m[0] + part[0], dims, m[2], m[3]), why))
    return out


def reduce(piece, shape, rdims):
    box, m, why = piece
    if any(box[d] != (0, shape[d]) for d in rdims):
        return [(tuple(b for d, b in enumerate(box) if d not in rdims), None, "stablehlo.reduce")]
    new_box = tuple(b for d, b in enumerate(box) if d not in rdims)
    if m is None:
        return [(new_box, None, why)]
    added = [x for d in rdims for x in m[1][d]]
    # a sum does not care which way it runs: a digit counting down is the same set counted up
    offset = m[0] + sum((a - 1) * x for a, x in added if x < 0)
    summed = m[2] + tuple((a, abs(x)) for a, x in added)
    return [(new_box, (offset, tuple(x for d, x in enumerate(m[1]) if d not in rdims), summed, m[3]), why)]


def subtract(piece, cut):
    """The parts of `piece` outside the box `cut`, in the same coordinates (at most two per
    dimension)."""
    box = piece[0]
    if any(hi <= clo or chi <= lo for (lo, hi), (clo, chi) in zip(box, cut)):
        return [piece]
    out, rest = [], list(box)
    for d, ((lo, hi), (clo, chi)) in enumerate(zip(box, cut)):
        for part in ((lo, min(hi, clo)), (max(lo, chi), hi)):
            if part[0] < part[1]:
                sub = list(rest)
                sub[d] = part
                out.append(restrict(piece, tuple(sub)))
        rest[d] = (max(lo, clo), min(hi, chi))
    return out


def restrict(piece, sub):
    """`piece` on the box `sub` (inside its own box), in the same coordinates."""
    box, m, why = piece
    if m is None:
        return (tuple(sub), None, why)
    offset, dims = m[0], list(m[1])
    for d, ((lo, _), (slo, shi)) in enumerate(zip(box, sub)):
        got = _restrict(dims[d], slo - lo, shi - slo)
        if got is None:
            return (tuple(sub), None, "a partial overwrite")
        offset += got[0]
        dims[d] = got[1]
    return (tuple(sub), (offset, tuple(dims), m[2], m[3]), why)


def shift_all(piece, by):
    return [(tuple((lo + x, hi + x) for (lo, hi), x in zip(piece[0], by)), piece[1], piece[2])]


def dynamic_slice(piece, shape, firsts, terms, sizes, trips):
    """A dynamic slice whose starts are constants or affine in loop counters (`terms` per
    dimension: ((loop, coefficient), ...); `trips`: loop -> how many values its counter takes).
    The piece then carries each counter as (loop, digits): the counter's value written in
    those digits adds to the source position (a sweep turns them into the dimension's own)."""
    # a start whose counters take one value (a loop run once) is a constant
    terms = [t if any(c * (trips.get(k, 1) - 1) for k, c in t) else () for t in terms]
    starts = [0 if t else s for s, t in zip(clamped(firsts, shape, sizes), terms)]
    limits = [n if t else s + k for s, n, k, t in zip(starts, shape, sizes, terms)]
    out = []
    for p in slice_(piece, starts, limits, [1] * len(shape)):
        box, m, why = p
        if m is None:
            out.append((tuple((0, k) if t else b for b, t, k in zip(box, terms, sizes)), None, why))
            continue
        offset, dims, loops = m[0], list(m[1]), list(m[3])
        for d, t in enumerate(terms):
            if not t:
                continue
            got = _at_counter(dims[d], box[d] == (0, shape[d]), shape[d], firsts[d], t, sizes[d], trips)
            if got is None:
                return [(tuple((0, k) for k in sizes), None, "stablehlo.dynamic_slice")]
            delta, counters, dims[d] = got
            offset += delta
            loops += counters
        out.append((tuple((0, k) if t else b for b, t, k in zip(box, terms, sizes)),
                    (offset, tuple(dims), m[2], tuple(loops)), why))
    return out


def _at_counter(digits, whole, extent, first, terms, size, trips):
    """(offset, counters, digits) of `size` entries from `first` + terms' counters in a
    dimension of `digits`; None when that is not exact. One counter stepping by `size` over
    the whole dimension takes its outer digits, however many (a loop over merged axes)."""
    if not whole:
        return None
    if len(terms) == 1 and abs(terms[0][1]) == size and trips.get(terms[0][0], 0) * size == extent \
            and first == (0 if terms[0][1] > 0 else extent - size):
        split = _regroup(digits, [extent // size, size])
        if split is not None and terms[0][1] > 0:
            return 0, [(terms[0][0], split[0])], split[1]
        if split is not None:   # counting down from the last block (a reversed scan)
            delta, counter = _reversed(split[0])
            return delta, [(terms[0][0], counter)], split[1]
    digits = canon(digits)
    lo = first + sum(min(0, c * (trips.get(k, 1) - 1)) for k, c in terms)
    hi = first + sum(max(0, c * (trips.get(k, 1) - 1)) for k, c in terms)
    if lo < 0 or hi + size > extent or len(digits) != 1:
        return None
    (_, stride), = digits
    return first * stride, [(k, ((trips.get(k, 1), c * stride),)) for k, c in terms], canon(((size, stride),))


def sweep(piece, d, loop, n, starts, sizes, down=False):
    """An update written at `starts` (dimension d at the counter of `loop` times the update's
    size, `down`: times minus it, starts[d] the lowest) on each of the loop's n iterations:
    after the loop, the n updates side by side."""
    box, m, why = piece
    new_box = [(lo + s, hi + s) for (lo, hi), s in zip(box, starts)]
    new_box[d] = (starts[d], starts[d] + n * sizes[d])
    if box[d] != (0, sizes[d]):
        return [(tuple(new_box), None, "a partial write per iteration")]
    if m is None:
        return [(tuple(new_box), None, why)]
    mine = [digits for k, digits in m[3] if k == loop]
    if len(mine) > 1:
        return [(tuple(new_box), None, "a loop's counter read twice")]
    counter = mine[0] if mine else ((n, 0),)   # not read: every iteration writes the same
    offset = m[0]
    if down:   # the lowest rows are the last iteration's: the counter runs backwards along d
        delta, counter = _reversed(counter)
        offset += delta
    dims = list(m[1])
    dims[d] = canon(tuple(counter) + tuple(dims[d]))
    return [(tuple(new_box), (offset, tuple(dims), m[2], tuple((k, c) for k, c in m[3] if k != loop)), why)]
