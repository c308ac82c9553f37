"""Gathers and scatters whose indices are an index array known element by element
(shared/indices.py: `jnp.take(x, jnp.arange(n)[::-1], axis=0)`, `zeros.at[perm].set(y)`),
read by StableHLO's semantics as the slices, reversals and broadcasts they amount to.

A gather's start along an operand dimension is, for each batch position b of its indices,
constant + a * b[k] for at most one batch dimension k (each k feeding at most one operand
dimension, with a slice of one element there) and never clamped: then the result is the
operand sliced from the least start with step |a|, reversed where a < 0, its dimensions
moved to the result's. A scatter that overwrites is read the same way from its updates to
its operand, when |a| = 1 (the region written is one box) and every window is in bounds
(StableHLO drops an update out of bounds). Anything else is None: shared/moves.py leaves
it unfollowed.
"""
from __future__ import annotations

from autograder.shared import positions
from autograder.shared.indices import Affine


def _starts(index: Affine, field: dict, mapped_key: str):
    """{operand dim: (constant, {index batch dim k: coefficient})} and the index's batch
    dimensions, or None when a start depends on two batch dimensions or two starts on one."""
    v = field.get("index_vector_dim", [len(index.shape)])[0]
    batch = [k for k in range(len(index.shape)) if k != v]
    mapped = field.get(mapped_key, [])
    if (index.shape[v] if v < len(index.shape) else 1) != len(mapped):
        return None
    starts = {}
    for j, d in enumerate(mapped):
        c = index.constant + (index.coefficients[v] * j if v < len(index.shape) else 0)
        terms = {k: index.coefficients[k] for k in batch if index.coefficients[k] and index.shape[k] > 1}
        if len(terms) > 1:
            return None
        starts[d] = (c, terms)
    used = [k for _, terms in starts.values() for k in terms]
    return (starts, batch) if len(used) == len(set(used)) else None


def _moving(c, terms, index: Affine, n: int, window: int):
    """(k, a, lo) of a start c + a * b[k] along an operand dimension of n elements, lo its least
    value; None when its window is wider than one element or a start leaves the dimension."""
    ((k, a),) = terms.items()
    lo, hi = min(c, c + a * (index.shape[k] - 1)), max(c, c + a * (index.shape[k] - 1))
    return (k, a, lo) if window == 1 and lo >= 0 and hi <= n - 1 else None


def gather(field: dict, sizes: list[int], source: tuple, index: Affine, shape: tuple):
    """piece -> pieces of a gather of `source` (dimension numbers `field`, `slice_sizes`)
    at the index array `index`, giving `shape`; None when not read."""
    found = _starts(index, field, "start_index_map")
    if found is None or field.get("operand_batching_dims"):
        return None
    starts, batch = found
    offset_dims, collapsed = field.get("offset_dims", []), field.get("collapsed_slice_dims", [])
    batch_out = [d for d in range(len(shape)) if d not in offset_dims]
    if len(batch_out) != len(batch):
        return None
    lows, limits, steps, flipped, extent, target = [], [], [], [], [], {}
    offsets = iter(offset_dims)
    for d, n in enumerate(source):
        c, terms = starts.get(d, (0, {}))
        offset = next(offsets) if d not in collapsed else None
        if terms:
            moving = _moving(c, terms, index, n, sizes[d])
            if moving is None:
                return None
            k, a, lo = moving
            count = index.shape[k]
            lows.append(lo)
            limits.append(lo + abs(a) * (count - 1) + 1)
            steps.append(abs(a))
            extent.append(count)
            flipped += [d] if a < 0 else []
            target[d] = batch_out[batch.index(k)]
        else:
            c = min(max(c, 0), n - sizes[d])   # XLA clamps a gather's start
            lows.append(c)
            limits.append(c + sizes[d])
            steps.append(1)
            extent.append(sizes[d])
            if offset is not None:
                target[d] = offset
    drop = [d for d in range(len(source)) if d not in target]
    kept = [extent[d] for d in range(len(source)) if d in target]
    dims = [target[d] for d in range(len(source)) if d in target]

    def step(p):
        out = []
        for q in positions.slice_(p, lows, limits, steps):
            for r in (positions.reverse(q, extent, flipped) if flipped else [q]):
                for s in positions.squeeze(r, drop):
                    out += positions.broadcast_in_dim(s, kept, shape, dims)
        return out
    return step


def scatter(field: dict, index: Affine, update: tuple, shape: tuple):
    """(piece -> pieces of the updates placed in the operand's coordinates, the box written)
    of an overwriting scatter into an operand of `shape`; None when not read."""
    found = _starts(index, field, "scatter_dims_to_operand_dims")
    if found is None or field.get("input_batching_dims"):
        return None
    starts, batch = found
    window_dims, inserted = field.get("update_window_dims", []), field.get("inserted_window_dims", [])
    scatter_dims = [u for u in range(len(update)) if u not in window_dims]
    own = [d for d in range(len(shape)) if d not in inserted]
    if len(scatter_dims) != len(batch) or len(own) != len(window_dims):
        return None
    window = {d: update[u] for d, u in zip(own, window_dims)}
    target, lows, extent, flipped = {}, [], [], []
    for d, n in enumerate(shape):
        c, terms = starts.get(d, (0, {}))
        if terms:
            moving = _moving(c, terms, index, n, window.get(d, 1))
            if moving is None or abs(moving[1]) != 1:   # a strided write is no box
                return None
            k, a, lo = moving
            target[scatter_dims[batch.index(k)]] = d
            lows.append(lo)
            extent.append(index.shape[k])
            flipped += [d] if a < 0 else []
        else:
            size = window.get(d, 1)
            if c < 0 or c + size > n:
                return None
            lows.append(c)
            extent.append(size)
    for d, u in zip(own, window_dims):
        if d not in target.values():
            target[u] = d
    loose = [u for u in range(len(update)) if u not in target]
    if any(update[u] != 1 for u in loose):   # a batch dimension feeding no operand dimension: writes collide
        return None
    kept = [update[u] for u in range(len(update)) if u in target]
    dims = [target[u] for u in range(len(update)) if u in target]

    def step(p):
        out = []
        for s in positions.squeeze(p, loose):
            for q in positions.broadcast_in_dim(s, kept, extent, dims):
                for r in (positions.reverse(q, extent, flipped) if flipped else [q]):
                    out += positions.shift_all(r, lows)
        return out
    return step, tuple((lo, lo + n) for lo, n in zip(lows, extent))
