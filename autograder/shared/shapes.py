"""The abstract shapes a structure test lowers an answer at (probe.Ask.structures): the whole
range the tasks state, never allocated. A branch on the shape, decided in Python at trace
time, changes the program at one of them wherever its threshold sits.

    SIZES     0, 1, every power of two up to 2^30, the odd size just above each, three times
              each up to 3 * 2^29, 2^31 - 1: a test of the size against a threshold is
              decided both ways, and one of divisibility by 2^k or 3 * 2^k is true somewhere
    RANKED    ranks 0 to 8: all dims 1, small distinct dims, an empty one, dims whose
              product comes near 2^31 - 1, and powers of two whose product is 2^30
    rows(...) 2-d inputs whose last dimension (a row) is 1 to 2^31 - 1 wide

and the concrete shapes host functions are called on directly (HOST_RANKED; for a
1-d domain, HOST_LENGTHS).
"""
from __future__ import annotations

import math

import numpy as np

MAX_ELEMENTS = 2**31 - 1
SIZES = tuple(sorted({0, 1, MAX_ELEMENTS, *(2**k for k in range(1, 31)), *(2**k + 1 for k in range(1, 31)),
                     *(3 * 2**k for k in range(30))}))
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19)


def _largest(rank: int) -> tuple[int, ...]:
    """`rank` dims, near-equal, whose product is as large as fits in 2^31 - 1 elements."""
    side = int(MAX_ELEMENTS ** (1 / rank))
    dims = [side] * rank
    dims[-1] = MAX_ELEMENTS // math.prod(dims[:-1])
    return tuple(dims)


def _powers(rank: int) -> tuple[int, ...]:
    """`rank` dims, each a power of two (2^3 at least), whose product is 2^30: a test of a
    dim's divisibility by a power of two is true there."""
    each = 30 // rank
    return (2**each,) * (rank - 1) + (2**(30 - each * (rank - 1)),)


def ranked(max_rank: int = 8, min_rank: int = 0) -> list[tuple[int, ...]]:
    """Shapes of every rank from `min_rank` to `max_rank`: all ones, small distinct dims, one
    dim 0 (empty), the largest, powers of two (for rank 0: the one shape, ())."""
    out: list[tuple[int, ...]] = []
    for rank in range(min_rank, max_rank + 1):
        if rank == 0:
            out.append(())
            continue
        small = _PRIMES[:rank]
        out += [(1,) * rank, small, (*small[:-1], 0), _largest(rank), _powers(rank)]
    return list(dict.fromkeys(out))


def flat() -> list[tuple[int, ...]]:
    """Every size of SIZES as a 1-d shape."""
    return [(n,) for n in SIZES]


def every(max_rank: int = 8, min_rank: int = 0) -> list[tuple[int, ...]]:
    """flat() and ranked(): the shapes a path is lowered at."""
    return list(dict.fromkeys([*(flat() if min_rank <= 1 else []), *ranked(max_rank, min_rank)]))


def rows(leading: int = 1) -> list[tuple[int, ...]]:
    """2-d shapes: `leading` rows of every width of SIZES but 0, then 1 to 2^31 - 1 rows of width 1."""
    return [*((leading, n) for n in SIZES if n), *((n, 1) for n in SIZES if n)]


def label(shape: tuple[int, ...]) -> str:
    """A shape as the student reads it, sizes above 2^16 as powers of two: (2^31 - 1,), (3, 2^20)."""
    def dim(d: int) -> str:
        if d > 65536 and (d & (d - 1)) == 0:
            return f"2^{d.bit_length() - 1}"
        if d > 65536 and ((d - 1) & (d - 2)) == 0:
            return f"2^{(d - 1).bit_length() - 1} + 1"
        if d > 65536 and d % 3 == 0 and ((d // 3) & (d // 3 - 1)) == 0:
            return f"3 * 2^{(d // 3).bit_length() - 1}"
        if d == MAX_ELEMENTS:
            return "2^31 - 1"
        return str(d)
    return "(" + ", ".join(dim(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


# The ranks a branch inside a host function could test (no lowering sees inside one): an
# input of each rank from 2 to 8 that gammaln_callback's host functions are called on
# directly, for their values and in the two worlds, and silu_ffi's programs run on (its
# kernels: ranks.py); each past 2^18 elements (a branch on the
# rank and the size together), rank 2's rows 4099 wide (past a tile of 4096), 2.2 million
# values in all (past 2^20 each, the two worlds' calls took a grading to 744 MB of its 768).
HOST_RANKED = [(64, 4099), (61, 67, 71), (21, 23, 25, 27), (11, 12, 13, 14, 15), (6, 7, 8, 9, 10, 11),
               (4, 5, 5, 6, 7, 8, 9), (3, 4, 4, 5, 5, 6, 6, 7)]


def host_ranked_inputs(a) -> list[np.ndarray]:
    """An input of each shape of HOST_RANKED, its values the 1-d `a`'s in order (from its
    start again where `a` is shorter)."""
    a = np.asarray(a)
    return [np.resize(a, math.prod(s)).reshape(s) for s in HOST_RANKED]


# A host function whose task's domain is 1-d (pure_callback_doubler's; no lowering sees inside
# it) is run on HOST_LARGE values, past 2^23 with an odd tail, and on a dense ladder of lengths:
# each side of every power of two up to 2^20 and three times each (whole pages of 4096 values
# from 3 * 2^12 on), where a test of the length inside it could sit. About 12.6 million values
# in all; the doubler makes them where its host function runs, slices of its large input.
HOST_LARGE = 2**23 + 3
HOST_LENGTHS = tuple(sorted({n for k in range(1, 21) for n in (2**k - 1, 2**k, 2**k + 1, 3 * 2**k)}))
