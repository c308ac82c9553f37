"""reduce_sum_rules at every shape (autograder/assignments/reduce_sum_rules/every_shape.py): the
paths lowered side by side at abstract shapes through probe.Ask.structures (the executor reads
them), the verdict per output, the sentence naming the smallest shape where a rule branches."""
import math

import pytest

from autograder.assignments.reduce_sum_rules import every_shape as structure
from autograder.shared import shapes
from tests.test_reduce_sum_programs import REFERENCE, ask_for, rule

PATHS = {"jvp": (structure.jvp_path, (2, 3, 4)), "transpose": (structure.transpose_path, (2, 3, 4)),
         "vmap": (structure.vmap_path, (3, 4, 5)), "primitive": (structure.primitive_path, (3, 4, 5))}


def _expect(ask, name):
    path, first = PATHS[name]
    structure.expect_paths(ask, path(first), what=name, hint="h")


def test_the_shapes_cover_every_size_rank_and_batch_position():
    _, specs, outputs = structure.jvp_path((2, 3, 4))
    assert specs[0] == [((2, 3, 4), "float32")] * 2
    assert {len(spec[0][0]) for spec in specs} == set(range(1, 9))
    assert ((2**31 - 1,), "float32") in [spec[0] for spec in specs]
    assert len(outputs((2, 3, 5), (2, 3, 5))) == 2 * 7   # every combination of rank 3: primal and tangent
    _, specs, _ = structure.vmap_path((3, 4, 5))
    sizes = {shape[b] for spec in specs for b, (shape, _) in enumerate(spec)}   # the batch at each position
    assert sizes == {structure.BATCH, *structure.batch_sizes((1,)), *structure.batch_sizes((2, 3))}
    assert max(sizes) == structure.MAX_BATCH
    assert all(math.prod(s) <= shapes.MAX_ELEMENTS for spec in specs for s, _ in spec)
    assert structure.combos(3) == [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]
    assert (0, 7) in structure.combos(8) and tuple(range(8)) in structure.combos(8)


@pytest.mark.parametrize("name", sorted(PATHS))
def test_the_reference_holds_at_every_shape(name):
    _expect(ask_for(REFERENCE), name)


def test_a_jvp_primal_summed_in_jax_above_a_size_is_named_at_the_first_size_past_it():
    ask = ask_for(rule(jvp_primal="custom_reduce_sum_p.bind(x, axis=axis) if x.size <= 2**18 else jnp.sum(x, axis)"))
    with pytest.raises(AssertionError, match=r"For inputs of shape \(2\^18 \+ 1,\), jvp: the primal output of "
                                             r"jax.jvp over axis \(0,\) is not the output of custom_reduce_sum_p"):
        _expect(ask, "jvp")


def test_a_batching_rule_that_sums_in_jax_at_rank_5_or_sums_the_batch_is_caught():
    ask = ask_for(rule(batch_body="(jnp.sum(x, shifted) if x.ndim >= 5 else custom_reduce_sum_p.bind(x, axis=shifted)), 0"))
    with pytest.raises(AssertionError, match=r"\(3, 1, 1, 1, 1\), vmap: jax.vmap with the batch dimension at 0, "
                                             r"summing axis \(0,\), is not the output"):
        _expect(ask, "vmap")
    ask = ask_for(rule(batch_body="custom_reduce_sum_p.bind(x, axis=axis), 0"))   # the axes not shifted
    with pytest.raises(AssertionError, match=r"adding \d+ entries for each result where the sum adds 1"):
        _expect(ask, "vmap")


def test_a_transpose_with_math_it_does_not_do_at_the_checked_shape_is_caught():
    code = REFERENCE.replace("return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)",
                             "b = jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape)\n"
                             "    return (b * 2 if x.aval.ndim == 6 else b,)")
    with pytest.raises(AssertionError, match=r"\(1, 1, 1, 1, 1, 1\), transpose: jax.linear_transpose over axis "
                                             r"\(0,\) applied to its cotangent is not the cotangent broadcast back"):
        _expect(ask_for(code), "transpose")


_REV = "jnp.arange(x.shape[0])[::-1]"
_ROLL = "(jnp.arange(x.shape[0]) + 1) % x.shape[0]"   # a remainder: not an index array the reading knows


def _through(perm: str, back: str) -> str:
    """A batching rule that takes the examples in the order `perm` and scatters the sums to `back`."""
    return (f"(lambda y: jnp.zeros_like(y).at[{back}].set(y))(custom_reduce_sum_p.bind(jnp.take(x, {perm}, axis=0), "
            f"axis=shifted)), 0")


def test_a_batching_rule_the_reading_cannot_follow_is_run_shapes_packed_and_a_wrong_one_named(monkeypatch):
    """A batching rule through rolled index arrays (a remainder: gathers the reading does not
    follow) is run at those shapes, packed into few programs (every_shape.by_running's
    `together`), and passes; the same rule that leaves the batch rolled from 5 examples on is
    named at the first such shape, as the grader ran it. At fewer shapes than the grader's
    (ranks 1 to 3, sizes to 9: the mechanism is the same, and 138 shapes took 104 s of CI)."""
    every = shapes.every
    monkeypatch.setattr(shapes, "SIZES", (0, 1, 2, 3, 4, 5, 6, 8, 9))
    monkeypatch.setattr(shapes, "every", lambda max_rank=8, min_rank=0: every(min(max_rank, 3), min_rank))
    _expect(ask_for(rule(_through(_ROLL, _ROLL))), "vmap")
    wrong = _through(_ROLL, f"({_ROLL} if x.shape[0] < 5 else jnp.arange(x.shape[0]))")
    with pytest.raises(AssertionError, match=r"on shape \(5, .*\(run: its program could not be read\), as the grader "
                                             r"ran its compiled program"):
        _expect(ask_for(rule(wrong)), "vmap")


def test_a_batching_rule_through_reversed_index_arrays_is_read():
    """The same through reversed aranges (shared/indices.py knows them element by element):
    read at every shape, nothing run; the wrong one named by the reading, element by element."""
    _expect(ask_for(rule(_through(_REV, _REV))), "vmap")
    wrong = _through(_REV, f"({_REV} if x.shape[0] < 5 else jnp.arange(x.shape[0]))")
    with pytest.raises(AssertionError, match=r"For inputs of shape \(5, 1\), vmap: element \(0,\) of jax.vmap .* comes "
                                             r"from element \(4, 0\) of its input, not from element \(0, 0\)"):
        _expect(ask_for(rule(wrong)), "vmap")
