"""Index arrays known element by element (autograder/shared/indices.py) and the gathers and
scatters they drive (autograder/shared/gathers.py), each StableHLO operation of that closed
world read against XLA's own run: the reading's source element for every output element is
the one the compiled program takes (inputs that encode their positions)."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.shared import dataflow, positions, proofs

S = jax.ShapeDtypeStruct


def _read(fn, shape):
    return dataflow.structure(jax.jit(fn).lower(S(shape, np.float32)).as_text())


def _where_from(s, shape, out_shape):
    """Per output element, the flat index of the input element the reading says it is (-1: no
    element; None when a piece is not followed)."""
    found = np.full(out_shape, -1, np.int64)
    for box, m, _ in proofs.pieces(s.outputs[0], "input:0"):
        if m is None:
            return None
        offset, dims, summed, _ = m
        assert not summed
        for x in itertools.product(*(range(lo, hi) for lo, hi in box)):
            found[x] = offset + sum(positions.value(d, xi - lo) for d, xi, (lo, _) in zip(dims, x, box))
    return found


FOLLOWED = {   # each: (fn, input shape); the reading must say exactly what XLA computes
    "take reversed (iota, reverse, gather)": (lambda x: jnp.take(x, jnp.arange(x.shape[0])[::-1], axis=0), (7,)),
    "take reversed rows": (lambda x: jnp.take(x, jnp.arange(x.shape[0])[::-1], axis=0), (5, 3)),
    "take reversed along axis 1": (lambda x: jnp.take(x, jnp.arange(x.shape[1])[::-1], axis=1), (3, 5)),
    "every second (iota, multiply)": (lambda x: x[jnp.arange(x.shape[0] // 2) * 2], (9,)),
    "a strided arange": (lambda x: x[jnp.arange(1, x.shape[0], 3)], (10,)),
    "offset (add)": (lambda x: x[jnp.arange(3) + 2], (8, 2)),
    "negative indices wrapped (compare, select)": (lambda x: x[jnp.arange(-3, 0)], (6,)),
    "clipped in bounds (clamp)": (lambda x: jnp.take(x, jnp.arange(4)[::-1], mode="clip"), (6,)),
    "sliced index (slice)": (lambda x: x[jnp.arange(x.shape[0])[::-1][2:]], (7,)),
    "2-d index (broadcast_in_dim)": (lambda x: x[jnp.arange(4)[::-1, None]], (4, 3)),
    "negated (negate)": (lambda x: x[-jnp.arange(-4, 0)], (5,)),
    "scattered back reversed": (lambda x: jnp.zeros_like(x).at[jnp.arange(x.shape[0])[::-1]].set(x[::-1]), (6, 2)),
    "scattered into part": (lambda x: jnp.ones((9,), x.dtype).at[jnp.arange(x.size) + 2].set(x), (5,)),
    "scattered along axis 1": (lambda x: jnp.zeros_like(x).at[:, jnp.arange(x.shape[1])[::-1]].set(x), (2, 5)),
    "decided where (compare, and, reduce)": (lambda x: jnp.where(jnp.all(jnp.arange(x.size) >= 0), x, 0.0), (4,)),
}


@pytest.mark.parametrize("name", FOLLOWED)
def test_the_reading_takes_the_element_xla_takes(name):
    fn, shape = FOLLOWED[name]
    s = _read(fn, shape)
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 100   # the buffers' constants are 0 and 1
    ran = np.asarray(jax.jit(fn)(x))
    found = _where_from(s, shape, ran.shape)
    assert found is not None, s.outputs[0]
    assert not s.outputs[0].math, s.outputs[0].math   # no select left where the predicate is decided
    placed = found >= 0
    np.testing.assert_array_equal(found[placed], ran[placed].astype(np.int64) - 100)
    assert np.all(ran[~placed] < 100)   # what the reading places nowhere is a buffer's constant


NOT_FOLLOWED = {   # read as not followed (the program runs), never as a wrong place
    "remainder": (lambda x: x[(jnp.arange(8) + 1) % 8], (8,)),
    "two batch dimensions in one start": (lambda x: x[jnp.arange(3)[:, None] + jnp.arange(2)[None, :]], (5,)),
    "a reshaped iota (one start from two dimensions)": (lambda x: x.reshape(-1)[jnp.arange(12)[::-1].reshape(3, 4)],
                                                        (2, 6)),
    "a transposed iota (the same)": (lambda x: x[jnp.arange(6).reshape(2, 3).T], (6,)),
    "clipped out of bounds": (lambda x: jnp.take(x, jnp.arange(8), mode="clip"), (6,)),
    "every index the same (a broadcast write)": (lambda x: jnp.zeros((4,), x.dtype).at[jnp.zeros(3, int)].set(x), (3,)),
}


@pytest.mark.parametrize("name", NOT_FOLLOWED)
def test_what_the_reading_cannot_decide_is_not_followed(name):
    fn, shape = NOT_FOLLOWED[name]
    assert _where_from(_read(fn, shape), shape, jax.eval_shape(fn, S(shape, np.float32)).shape) is None


def test_an_undecided_predicate_keeps_its_select():
    s = _read(lambda x: jnp.where(jnp.arange(x.size) >= 2, x, 0.0), (4,))
    assert "select" in s.outputs[0].math


def test_a_huge_reversed_gather_is_read_without_enumerating():
    s = _read(lambda x: jnp.take(x, jnp.arange(x.shape[0])[::-1], axis=0), (2**31 - 1,))
    assert "element (0,) of the output comes from element (2147483646,)" in proofs.in_place()(s)


def test_an_index_array_reshaped_or_transposed_stays_known():
    """reshape and transpose of a known index array (read, even where the gather it feeds is not)."""
    from autograder.shared import indices
    text = jax.jit(lambda: (jnp.arange(12)[::-1].reshape(3, 4), jnp.arange(6).reshape(2, 3).T)).lower().as_text()
    assert _known(text) == [indices.Affine((3, 4), 11, (-4, -1)), indices.Affine((3, 2), 0, (1, 3))]


def test_a_bitwise_and_of_integers_decides_nothing():
    """`and` of i32 values is bitwise (5 & 2 == 0): only i1 predicates are decided, so this
    select (false everywhere: the zeros) is not read as the input."""
    text = """
    func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
      %c5 = stablehlo.constant dense<5> : tensor<4xi32>
      %c2 = stablehlo.constant dense<2> : tensor<4xi32>
      %a = stablehlo.and %c5, %c2 : tensor<4xi32>
      %p = stablehlo.convert %a : (tensor<4xi32>) -> tensor<4xi1>
      %z = stablehlo.constant dense<0.0> : tensor<4xf32>
      %r = stablehlo.select %p, %arg0, %z : tensor<4xi1>, tensor<4xf32>
      return %r : tensor<4xf32>
    }"""
    (out,) = dataflow.structure(text).outputs
    assert "select" in out.math and "constant" in out.sources


def _known(text):
    """What shared/indices.py knows of each value main returns (a StableHLO text)."""
    from jax._src.interpreters import mlir as jax_mlir
    from jax.extend.mlir import ir
    from autograder.shared import indices, stablehlo
    with jax_mlir.make_ir_context():
        known = {}
        for op in stablehlo.walk(ir.Module.parse(text).operation):
            if op.name.startswith("stablehlo.") and op.results:
                known[op.results[0]] = indices.leaf(op) or indices.of(op, [known.get(v) for v in op.operands])
            if op.name == "func.return":
                return [known.get(v) for v in op.operands]


def test_an_index_that_wraps_its_type_is_not_known():
    """i32 arithmetic wraps: an index array whose exact values leave int32 is not known (a
    gather at it is not followed, never placed where exact arithmetic would put it)."""
    from autograder.shared import indices
    text = """
    func.func public @main() -> (tensor<4xi32>, tensor<4xi32>) {
      %i = stablehlo.iota dim = 0 : tensor<4xi32>
      %k = stablehlo.constant dense<1073741824> : tensor<4xi32>
      %two = stablehlo.constant dense<2> : tensor<4xi32>
      %m = stablehlo.multiply %i, %k : tensor<4xi32>
      %s = stablehlo.multiply %i, %two : tensor<4xi32>
      return %m, %s : tensor<4xi32>, tensor<4xi32>
    }"""
    assert _known(text) == [None, indices.Affine((4,), 0, (2,))]
