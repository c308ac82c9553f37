"""Where each element lands (autograder/shared/positions.py through shared/dataflow.py, judged
by proofs.in_place): every element moved back where its input was passes, at any size; one
moved elsewhere is named with the element, however the program moves it."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.shared import coalesce, dataflow, placement, positions, proofs

S = jax.ShapeDtypeStruct


def _host(a):
    return np.asarray(a) * 2


def cb(x, method="sequential"):
    return jax.pure_callback(_host, S(x.shape, x.dtype), x, vmap_method=method)


def _verdict(fn, shape, perm=None):
    s = dataflow.structure(jax.jit(fn).lower(S(shape, np.float32)).as_text())
    return proofs.in_place(perm=None if perm is None else lambda s, k: perm)(s)


SAME = {   # every element where its input was: moved there and back, in pieces, in loops
    "plain": (cb, (1025,)),
    "reversed twice": (lambda x: cb(x[::-1])[::-1], (1025,)),
    "flattened": (lambda x: cb(x.reshape(-1)).reshape(x.shape), (3, 4, 5)),
    "transposed and back": (lambda x: cb(x.T).T, (3, 4, 5)),
    "halves": (lambda x: jnp.concatenate([cb(x[:3]), cb(x[3:])]), (6,)),
    "padded blocks": (lambda x: cb(jnp.pad(x, (0, 3)).reshape(-1, 4)).reshape(-1)[:x.size], (13,)),
    "guarded": (lambda x: jnp.where(x > 0, cb(x), jnp.nan), (6,)),
    "vmap sequential": (jax.vmap(cb), (4, 3)),
    "vmap at axis 1, out at 1": (jax.vmap(cb, in_axes=1, out_axes=1), (4, 3)),
    "vmap unrolled": (jax.vmap(lambda x: cb(x, "sequential_unrolled")), (4, 3)),
    "nested vmap": (jax.vmap(jax.vmap(cb)), (4, 3, 2)),
    "vmap of a batch of one": (jax.vmap(cb), (1, 1)),
    "lax.map over merged axes": (lambda x: jax.lax.map(cb, jnp.transpose(x, (1, 0, 2)).reshape(3, 10).T).T
                                 .reshape(3, 2, 5).transpose(1, 0, 2), (2, 3, 5)),
    "reverse scan over merged axes": (lambda x: jax.lax.scan(lambda c, r: (c, cb(r)), 0., x.transpose(1, 0, 2).reshape(
        3, 10).T, reverse=True)[1].T.reshape(3, 2, 5).transpose(1, 0, 2), (2, 3, 5)),
    "lax.map": (lambda x: jax.lax.map(cb, x), (4, 3)),
    "lax.map in batches": (lambda x: jax.lax.map(cb, x, batch_size=2), (4, 3)),
    "lax.map reversed twice": (lambda x: jax.lax.map(cb, x[::-1])[::-1], (4, 3)),
    "reverse scan": (lambda x: jax.lax.scan(lambda c, r: (c, cb(r)), 0., x, reverse=True)[1], (4, 3)),
    "taken one by one and stacked": (lambda x: jnp.stack([cb(jnp.take(x, i, axis=1)) for i in range(4)], 1), (3, 4, 2)),
    "padded to whole blocks at rank 5": (lambda x: cb(jnp.pad(x.reshape(-1), (0, -x.size % 1024)).reshape(-1, 1024))
                                          .reshape(-1)[:x.size].reshape(x.shape), (2, 3, 5, 7, 11)),
    "2^30 elements in pairs": (lambda x: cb(x.reshape(-1, 2)).reshape(-1), (2**30,)),
    # jax.lax.fori_loop: its index steps beside the trip counter the lowering compares
    "fori_loop over blocks": (lambda x: _blocks(x, x.size // 4, 4), (2**20,)),
    "fori_loop from 2 by blocks of 3": (lambda x: jnp.concatenate([cb(x[:6]), _blocks(x, 4, 3, first=2)[6:]]), (12,)),
    "fori_loop over rows": (lambda x: jax.lax.fori_loop(0, x.shape[0], lambda i, o: o.at[i].set(cb(x[i])),
                                                        jnp.zeros_like(x)), (5, 3)),
    # two rows per iteration: the even and odd rows two pieces side by side, made one (coalesce)
    "scan unrolled by 2": (lambda x: jax.lax.scan(lambda c, e: (c, cb(e)), 0., x, unroll=2)[1], (2**20, 3)),
    "scan unrolled by 3, a remainder": (lambda x: jax.lax.scan(lambda c, e: (c, cb(e)), 0., x, unroll=3)[1], (7, 2)),
    # jax.lax.map over jnp.arange: the index is the arange's element at the loop's counter
    "lax.map over indices": (lambda x: jax.lax.map(lambda i: cb(x[i]), jnp.arange(x.shape[0])), (2**20 + 1, 2)),
}


def _blocks(x, n, size, first=0):
    """The callback on blocks of `size` in a fori_loop from `first` to n, each written into a
    buffer of zeros where it was read."""
    def block(i, out):
        piece = jax.lax.dynamic_slice_in_dim(x, i * size, size)
        return jax.lax.dynamic_update_slice_in_dim(out, cb(piece), i * size, 0)
    return jax.lax.fori_loop(first, n, block, jnp.zeros_like(x))


@pytest.mark.parametrize("name", SAME)
def test_every_element_where_its_input_was_passes(name):
    fn, shape = SAME[name]
    assert _verdict(fn, shape) == ""


MOVED = {   # each: the element named, wherever the move happens
    "reversed": ((lambda x: cb(x)[::-1], (1025,)), "element (0,) of the output comes from element (1024,) of your input"),
    "rolled": ((lambda x: jnp.roll(cb(x), 1), (8,)), "element (0,) of the output comes from element (7,) of your input"),
    "halves swapped": ((lambda x: jnp.concatenate([cb(x)[3:], cb(x)[:3]]), (6,)),
                       "element (0,) of the output comes from element (3,) of your input"),
    "rows reversed at 2^30": ((lambda x: cb(x.reshape(-1, 2))[::-1].reshape(-1), (2**30,)),
                              "element (0,) of the output comes from element (1073741822,) of your input"),
    "lax.map of the reversed input": ((lambda x: jax.lax.map(cb, x[::-1]), (4, 3)),
                                      "element (0, 0) of the output comes from element (3, 0) of your input"),
    "transposed without moving back": ((lambda x: cb(x.T).reshape(x.shape), (3, 4, 5)), "cannot be followed"),
    "taken in another order": ((lambda x: jnp.stack([cb(jnp.take(x, 3 - i, axis=0)) for i in range(4)]), (4, 2)),
                               "element (0, 0) of the output comes from element (3, 0) of your input"),
    "lax.map over merged axes, reversed": ((lambda x: jnp.flip(jax.lax.map(cb, jnp.transpose(x, (1, 0, 2)).reshape(
        3, 10).T).T.reshape(3, 2, 5).transpose(1, 0, 2), 0), (2, 3, 5)),
        "element (0, 0, 0) of the output comes from element (1, 0, 0) of your input"),
    "gathered": ((lambda x: cb(x)[(jnp.arange(8) + 1) % 8], (8,)), "cannot be followed (through stablehlo.gather)"),
    "one sum broadcast": ((lambda x: jnp.broadcast_to(jnp.sum(cb(x)), x.shape), (4,)),
                          "element (1,) of the output comes from element (0,) of your input"),
    # elements no piece holds: a loop's initial zeros, a constant, where the task says the input
    "fori_loop leaving the tail": ((lambda x: _blocks(x, x.size // 1024, 1024), (2**20 + 1,)),
                                   "element (1048576,) of the output comes from no element of your input"),
    "fori_loop from 1": ((lambda x: _blocks(x, x.size // 4, 4, first=1), (16,)),
                         "element (0,) of the output comes from no element of your input"),
    "a constant row": ((lambda x: cb(x).at[1].set(0.0), (3, 4)),
                       "element (1, 0) of the output comes from no element of your input"),
    "scan unrolled by 2, reversed": ((lambda x: jax.lax.scan(lambda c, e: (c, cb(e)), 0., x, unroll=2)[1][::-1], (4, 4)),
                                     "element (0, 0) of the output comes from element (3, 0) of your input"),
    "lax.map over indices from the end": ((lambda x: jax.lax.map(lambda i: cb(x[x.shape[0] - 1 - i]),
                                                                 jnp.arange(x.shape[0])), (3, 4)),
                                          "element (0, 0) of the output comes from element (2, 0) of your input"),
}


@pytest.mark.parametrize("name", MOVED)
def test_an_element_moved_elsewhere_is_named(name):
    (fn, shape), words = MOVED[name]
    assert words in _verdict(fn, shape)


def test_a_vmap_moves_its_batch_axis_to_the_front_and_only_that():
    assert _verdict(jax.vmap(cb, in_axes=2), (4, 3, 5), perm=(2, 0, 1)) == ""
    assert "element (1, 0, 0) of the output comes from element (1, 0, 0) of your input, not from element (0, 0, 1)" in \
        _verdict(jax.vmap(cb, in_axes=2, out_axes=1), (4, 3, 3), perm=(2, 0, 1))


def test_a_sum_is_judged_by_the_axes_it_adds():
    shape = (2, 3, 4)
    s = dataflow.structure(jax.jit(lambda x: jnp.sum(x[:, ::-1], axis=1)).lower(S(shape, np.float32)).as_text())
    pieces = proofs.pieces(s.outputs[0], "input:0")
    assert placement.misplaced(pieces, (2, 4), shape, "x", perm=(0, 2), summed=(1,)) == ""   # reversed, still a sum
    assert "sums x over axes (1,), where the task's sum is over axes (2,)" in placement.misplaced(
        pieces, (2, 4), shape, "x", perm=(0, 2), summed=(2,))


def test_digits_split_and_merge_exactly():
    piece = positions.identity((6, 4))
    (reshaped,) = positions.reshape(piece, (6, 4), (3, 8))
    assert reshaped[1][1] == (((3, 8),), ((8, 1),))
    (reversed_,) = positions.reverse(reshaped, (3, 8), [1])
    assert placement.misplaced([reversed_], (3, 8), (6, 4), "x").startswith("element (0, 0) of the value")


def test_a_dot_with_ones_is_a_sum_and_with_other_values_is_math():
    """jnp.tensordot(t, ones) sums t over the contracted axes (a tangent written so), whichever
    side the ones are on; broadcast along the ones' other axes. A dot with twos is math."""
    shape = (3, 4, 5)

    def read(fn):
        s = dataflow.structure(jax.jit(fn).lower(S(shape, np.float32)).as_text())
        return s.outputs[0], tuple(int(d) for d in s.results[0].split("<")[1].split("x")[:-1])
    for fn in (lambda t: jnp.tensordot(jnp.transpose(t, (1, 0, 2)), jnp.ones((3, 5)), axes=2),
               lambda t: jnp.tensordot(jnp.ones((3, 5)), jnp.transpose(t, (0, 2, 1)), axes=2)):
        origin, out = read(fn)
        assert origin.math == ["reduce"] and out == (4,)
        assert placement.misplaced(proofs.pieces(origin, "input:0"), out, shape, "t", perm=(1,), summed=(0, 2)) == ""
    origin, out = read(lambda t: jnp.tensordot(t, jnp.ones((4, 7)), axes=([1], [0])))
    assert placement.misplaced(proofs.pieces(origin, "input:0"), out, shape, "t", perm=(0, 2, None), summed=(1,)) == ""
    assert "sums t over axes (1,), where the task's sum is over axes (2,)" in placement.misplaced(
        proofs.pieces(origin, "input:0"), out, shape, "t", perm=(0, 2, None), summed=(2,))
    assert "dot_general" in read(lambda t: jnp.tensordot(t, jnp.full((4,), 2.0), axes=([1], [0])))[0].math


def test_where_the_reading_stops_is_not_a_counterexample():
    """A move the reading cannot follow is placement.Unfollowed (a test may run that program
    instead); an element shown elsewhere or from nowhere is a plain sentence."""
    assert isinstance(_verdict(lambda x: cb(x)[(jnp.arange(8) + 1) % 8], (8,)), placement.Unfollowed)
    assert not isinstance(_verdict(lambda x: cb(x)[::-1], (8,)), placement.Unfollowed)
    assert not isinstance(_verdict(lambda x: cb(x).at[1].set(0.0), (3, 4)), placement.Unfollowed)


def test_the_first_element_no_box_holds_is_found_at_any_rank():
    assert placement.uncovered([((0, 2), (0, 3))], (2, 3)) is None
    assert placement.uncovered([((0, 2), (0, 1)), ((0, 1), (1, 3)), ((1, 2), (1, 3))], (2, 3)) is None
    assert placement.uncovered([((0, 2), (0, 1)), ((0, 1), (1, 3)), ((1, 2), (1, 2))], (2, 3)) == (1, 2)
    assert placement.uncovered([((0, 5),), ((3, 9),)], (10,)) == (9,)
    assert placement.uncovered([()], ()) is None and placement.uncovered([], ()) == ()
    rows = [((i, i + 1), (0, 2**31 - 1)) for i in range(4095)]   # 4095 row pieces: the last row is missing
    assert placement.uncovered(rows, (4096, 2**31 - 1)) == (4095, 0)


def test_pieces_side_by_side_are_joined_only_when_one_map_continues_the_other():
    """The even and odd rows of a scan unrolled by 2: two pieces that one map continues are one
    (coalesce); a piece whose elements sit elsewhere is left apart."""
    even = (((0, 2), (0, 1), (0, 4)), (0, (((2, 8),), (), ((4, 1),)), (), ()), "")
    odd = (((0, 2), (1, 2), (0, 4)), (4, (((2, 8),), (), ((4, 1),)), (), ()), "")
    assert coalesce.coalesce([odd, even]) == [(((0, 2), (0, 2), (0, 4)), (0, (((2, 8),), ((2, 4),), ((4, 1),)), (), ()), "")]
    strided = (odd[0], (4, (((2, 8),), (), ((4, 2),)), (), ()), "")   # its rows read every other element
    assert len(coalesce.coalesce([even, strided])) == 2
    wide = (((0, 2), (1, 3), (0, 4)), (4, (((2, 8),), ((2, 3),), ((4, 1),)), (), ()), "")   # rows 3 apart, not 4
    assert len(coalesce.coalesce([even, wide])) == 2
