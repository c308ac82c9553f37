"""Pieces side by side made one (shared/positions.py's pieces): a loop that writes two rows per
iteration leaves the rows of even and of odd positions as two pieces, which a reshape merging
those axes could not follow apart; joined, they are one run of memory again. Exact: two pieces
are joined only when one map continues the other along one dimension.

Pure Python, no JAX (shared/moves.py joins before each reshape).
"""
from __future__ import annotations

from autograder.shared.positions import canon


def _joined(a, b, d):
    """The one piece that pieces `a` and `b` are side by side along dimension d (a's box just
    below b's, the same elsewhere, one map: b's elements continue a's digits along d), or None."""
    (box_a, m_a, why_a), (box_b, m_b, why_b) = a, b
    if m_a is None or m_b is None or why_a or why_b or box_a[d][1] != box_b[d][0] \
            or any(x != y for j, (x, y) in enumerate(zip(box_a, box_b)) if j != d) \
            or m_a[2] != m_b[2] or m_a[3] != m_b[3] \
            or any(canon(x) != canon(y) for j, (x, y) in enumerate(zip(m_a[1], m_b[1])) if j != d):
        return None
    ea, eb = box_a[d][1] - box_a[d][0], box_b[d][1] - box_b[d][0]
    da, db, delta = canon(m_a[1][d]), canon(m_b[1][d]), m_b[0] - m_a[0]
    digits = None
    if len(da) <= 1 and len(db) <= 1 and delta % ea == 0:   # one run each, of one stride
        step = delta // ea
        if all(x[0][1] == step for x in (da, db) if x):
            digits = ((ea + eb, step),)
    elif da == db or (da and da[1:] == db):   # b one more copy of a's inner digits
        n, t = (1, delta) if da == db else (da[0][0], da[0][1])
        if delta == n * t:
            digits = ((n + 1, t),) + db
    if digits is None:
        return None
    dims = list(m_a[1])
    dims[d] = canon(digits)
    box = list(box_a)
    box[d] = (box_a[d][0], box_b[d][1])
    return (tuple(box), (m_a[0], tuple(dims), m_a[2], m_a[3]), "")


def coalesce(pieces, limit: int = 64) -> list:
    """The same pieces with those side by side along one dimension, continuing one map, made
    one (a loop that writes two rows per iteration leaves the rows of even and odd positions
    as two pieces, which a reshape merging those axes could not follow apart). Up to `limit`
    pieces; more are left as they are."""
    pieces = list(pieces)
    if len(pieces) > limit:
        return pieces
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(pieces):
            for j, b in enumerate(pieces):
                joined = None if i == j else next((x for d in range(len(a[0])) if (x := _joined(a, b, d))), None)
                if joined is not None:
                    pieces = [p for k, p in enumerate(pieces) if k not in (i, j)] + [joined]
                    merged = True
                    break
            if merged:
                break
    return pieces
