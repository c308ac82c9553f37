"""Structure proven at every shape: the graph reading (autograder/shared/dataflow.py), the
shapes it is read at (shapes.py), the verdicts (proofs.py) and the round trip witness ->
executor (probe.Ask.structures)."""
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.executor import program
from autograder.shared import dataflow, placement, proofs, shapes, wire
from autograder.shared.evidence import Origin, Structure
from autograder.shared.probe import Ask
from autograder.witness import handover
from tests.origins import bare

S = jax.ShapeDtypeStruct


def _host(a):
    return np.asarray(a) * 2


def doubler(x):
    return jax.pure_callback(_host, S(x.shape, x.dtype), x, vmap_method="sequential")


def _read(fn, *shapes_):
    return dataflow.structure(jax.jit(fn, keep_unused=True).lower(*(S(s, np.float32) for s in shapes_)).as_text())


def test_an_output_moved_from_a_callback_has_no_math():
    s = _read(lambda x: doubler(x).reshape(-1).T, (3, 4))
    assert bare(s.outputs) == [Origin(["call:0"], [])] and s.outputs[0].moved_from({0})
    assert bare(s.operands) == [[Origin(["input:0"], [])]]
    assert s.inputs == ["tensor<3x4xf32>"] and s.results == ["tensor<12xf32>"]


def test_math_beside_the_call_and_before_it_is_named():
    s = _read(lambda x: doubler(jnp.nan_to_num(x)) + 1.0, (5,))
    assert s.outputs[0].sources == ["call:0", "constant"] and s.outputs[0].math == ["add"]
    assert not s.outputs[0].moved_from({0})
    assert "select" in s.operands[0][0].math


def test_a_shape_branch_decided_at_trace_time_shows_at_the_shape_past_it():
    def f(x):
        return x * 2 if x.size > 2**18 else doubler(x)
    small, large = _read(f, (8,)), _read(f, (2**31 - 1,))
    assert small.outputs[0].moved_from({0})
    assert large.calls == [] and bare(large.outputs[0]) == Origin(["constant", "input:0"], ["multiply"])


def test_a_sequential_vmap_loop_and_private_functions_are_followed():
    s = _read(jax.vmap(doubler), (3, 5))
    # the while loop's buffer starts as zeros (LOOP_INIT) and is overwritten by the callback's
    # slices; the loop counter (a position) never reaches the values
    assert bare(s.outputs[0]) == Origin(["call:0", "loop-init"], [])
    assert s.outputs[0].moved_from({0})
    assert bare(s.operands[0]) == [Origin(["input:0"], [])]


def test_a_convert_to_another_type_is_math_and_to_the_same_is_not():
    assert _read(lambda x: doubler(x).astype(jnp.float32), (4,)).outputs[0].math == []
    assert _read(lambda x: doubler(x).astype(jnp.float16), (4,)).outputs[0].math == ["convert"]


def test_shapes_cover_every_size_and_rank():
    assert shapes.SIZES[0] == 0 and shapes.SIZES[-1] == 2**31 - 1 and 2**18 + 1 in shapes.SIZES
    ranks = {len(s) for s in shapes.every()}
    assert ranks == set(range(9))
    assert all(np.prod(s, dtype=np.int64) <= 2**31 - 1 for s in shapes.every())
    assert shapes.label((2**31 - 1,)) == "(2^31 - 1,)" and shapes.label((3, 2**20 + 1)) == "(3, 2^20 + 1)"
    assert shapes.label((3 * 2**20,)) == "(3 * 2^20,)"


def test_a_test_of_divisibility_is_true_at_some_size_and_rank():
    """Issue 55 item 4: a trace-time test of the size or a dim against 2^k or 3 * 2^k is true
    at some shape lowered, of every rank (odd sizes alone never make it true)."""
    sizes = [s[0] for s in shapes.flat()]
    for k in range(30):
        assert any(n and n % 2**k == 0 for n in sizes) and any(n and n % (3 * 2**k) == 0 for n in sizes)
    for rank in range(2, 9):
        assert any(len(s) == rank and all(d % 8 == 0 for d in s) for s in shapes.ranked())


def _structures(fn, specs):
    return [dataflow.structure(h.text) if h.text else Structure([], [], [], [], [], h.error)
            for h in handover.lowered(fn, specs)]


def test_the_verdict_names_the_smallest_shape_where_the_rule_fails():
    def f(x):
        return x * 2 if x.size > 1000 else doubler(x)
    specs = [[(s, "float32")] for s in shapes.flat()]
    rule = proofs.output_from(lambda c: c.kind == "host_callback", "the pure_callback")
    with pytest.raises(AssertionError, match=r"For inputs of shape \(1024,\), jax.jit\(f\): the pure_callback is "
                                             r"not in the program"):
        proofs.expect_every(_structures(f, specs), specs, rule, what="jax.jit(f)")
    proofs.expect_every(_structures(doubler, specs), specs, rule, what="jax.jit(doubler)")
    # reshaped around the callback, an empty input included: its output is still the callback's
    around = _structures(lambda x: doubler(x.reshape(-1, 1)).reshape(-1), specs)
    proofs.expect_every(around, specs, rule, what="jax.jit(doubler)")


def test_same_as_compares_with_the_program_whose_values_were_checked():
    def f(x):
        return doubler(x * 2 if x.ndim == 5 else x)
    specs = [[(s, "float32")] for s in shapes.ranked()]
    structures = _structures(f, specs)
    rule = proofs.same_as(structures[1], "(1,)")
    with pytest.raises(AssertionError, match="operands of its custom_calls"):
        proofs.expect_every(structures, specs, rule, what="jax.jit(f)")
    proofs.expect_every(structures[:10], specs[:10], rule, what="jax.jit(f)")


def test_where_the_reading_stops_the_test_runs_the_program_instead(monkeypatch):
    """A program the reading cannot follow (a gather of many indices, another loop than at the
    checked shape) is not refused: expect_every hands that shape to the test's `run`, up to
    RUN_ELEMENTS; a counterexample is the sentence, without running; math the checked program
    does not have is a difference of its own."""
    def f(x):   # the callback's output put back in place through a gather at large sizes
        return doubler(x)[(jnp.arange(x.size) + 1) % x.size][(jnp.arange(x.size) - 1) % x.size] if x.size > 64 \
            else doubler(x)
    monkeypatch.setattr(proofs, "RUN_ELEMENTS", 2**12)
    specs = [[(s, "float32")] for s in shapes.flat()]
    structures = _structures(f, specs)
    rule = proofs.all_of(proofs.output_from(lambda c: c.kind == "host_callback", "the pure_callback"), proofs.in_place())
    ran = []
    proofs.expect_every(structures, specs, rule, what="jax.jit(f)", run=lambda spec: ran.append(spec[0][0]))
    assert ran == [(n,) for n in shapes.SIZES if 64 < n <= 2**12]
    with pytest.raises(AssertionError, match=r"For inputs of shape \(65,\), jax.jit\(f\): where the elements"):
        proofs.expect_every(structures, specs, rule, what="jax.jit(f)")   # no run: refused, as before
    wrong = _structures(lambda x: doubler(x)[::-1] if x.size > 64 else doubler(x), specs)
    with pytest.raises(AssertionError, match=r"\(65,\), jax.jit\(f\): element \(0,\) of the output comes from element \(64,\)"):
        proofs.expect_every(wrong, specs, rule, what="jax.jit(f)", run=lambda spec: ran.append(spec))
    base = structures[specs.index([((5,), "float32")])]
    looped = _structures(lambda x: jax.lax.map(doubler, x.reshape(-1, 1)).reshape(-1) if x.size > 64 else doubler(x), specs)
    assert isinstance(proofs.same_as(base, "(5,)")(looped[specs.index([((65,), "float32")])]), placement.Unfollowed)
    doubled = _structures(lambda x: doubler(x * 2) if x.size > 64 else doubler(x), specs)[specs.index([((65,), "float32")])]
    assert not isinstance(proofs.same_as(base, "(5,)")(doubled), placement.Unfollowed)


def test_same_as_reads_a_deep_chain_of_calls_in_linear_time():
    """A chain of 300 callbacks, each feeding the next twice (a diamond at every step): what
    a value is, shapes aside, is numbered once per call, not unfolded (2^300 paths)."""
    def f(x):
        for _ in range(300):
            y = doubler(x)
            x = y + y
        return x
    specs = [[((3,), "float32")], [((4, 5), "float32")]]
    small, large = _structures(f, specs)
    assert proofs.same_as(small, "(3,)")(large) == ""
    assert "operands" in proofs.same_as(small, "(3,)")(_structures(lambda x: f(x * 2), specs[1:])[0])


def test_a_lowering_that_raises_is_named_with_its_shape():
    def f(x):
        if x.ndim == 3:
            raise ValueError("no rank 3")
        return doubler(x)
    specs = [[(s, "float32")] for s in shapes.ranked(4)]
    with pytest.raises(AssertionError, match=r"\(1, 1, 1\), jax.jit\(f\): lowering it fails \(ValueError: no rank 3\)"):
        proofs.expect_every(_structures(f, specs), specs, lambda s: "", what="jax.jit(f)")


def test_ask_structures_reads_in_the_executor_and_checks_the_inputs():
    """The witness hands over texts only; the executor reads them; a text that takes other
    inputs than asked is refused."""
    forged = []

    def answer(expr, inputs, serving):
        specs = wire.decode(inputs["specs"]["value"])
        lowered = handover.lowered(doubler, [[(forged[0] if forged else shape, d) for shape, d in spec] for spec in specs])
        return {"ok": wire.encode(lowered)}

    ask = Ask(answer, seed=0, execute=lambda request, serve=None: program.handle(request))
    specs = [[((4,), "float32")], [((2**31 - 1,), "float32")]]
    got = ask.structures("doubler", specs, what="jax.jit(doubler)")
    assert [s.refused for s in got] == ["", ""] and got[1].inputs == ["tensor<2147483647xf32>"]
    assert ask.structures("doubler", specs, what="jax.jit(doubler)") is got   # asked again: kept
    forged.append((8,))
    ask = Ask(answer, seed=0, execute=lambda request, serve=None: program.handle(request))
    assert "takes other inputs" in ask.structures("doubler", specs, what="jax.jit(doubler)")[1].refused
    bad = program.handle({"op": "structure", "texts": ["not a module"]})
    assert bad[0].refused.startswith("the program could not be read")


def test_a_call_whose_result_reaches_no_output_has_its_operands_read():
    from jax.experimental import io_callback

    def f(x):
        io_callback(lambda a: None, None, jnp.exp(x), ordered=False)
        return doubler(x)
    s = _read(f, (3,))
    assert [c.side_effect for c in s.calls] == [True, False]
    assert bare(s.operands[0]) == [Origin(["input:0"], ["exponential"])] and bare(s.outputs) == [Origin(["call:1"], [])]


# ---- bounded work: what a program controls never decides how deep or how long the reading goes ----

def test_a_long_chain_of_layout_operations_is_read_in_one_pass():
    """1,200 reshapes after the callback (a correct answer once refused with RecursionError)."""
    def f(x):
        y = doubler(x)
        for _ in range(600):
            y = y.reshape(-1).reshape(x.shape)
        return y
    s = _read(f, (3, 4))
    assert bare(s.outputs) == [Origin(["call:0"], [])]


def test_calls_nested_past_the_bound_are_refused_with_a_sentence():
    def nest(fn, depth):
        for _ in range(depth):
            fn = jax.jit(lambda v, g=fn: g(v) + 0)
        return fn
    shallow = _read(nest(doubler, 8), (4,))
    assert shallow.outputs[0].calls() == [0]
    text = jax.jit(nest(doubler, dataflow.MAX_DEPTH + 2)).lower(S((4,), np.float32)).as_text()
    (refused,) = program.handle({"op": "structure", "texts": [text]})
    assert refused.refused == (f"the program is too large for the grader to read (its calls and loops nest more "
                               f"than {dataflow.MAX_DEPTH} deep)")
    with pytest.raises(AssertionError, match=r"For inputs of shape \(4,\), jax.jit\(f\): the program is too large"):
        proofs.expect_every([refused], [[((4,), "float32")]], lambda s: "", what="jax.jit(f)")


def test_reading_stops_at_its_time_budget_with_a_sentence(monkeypatch):
    monkeypatch.setattr(program, "READ_S", 0.0)
    text = jax.jit(doubler).lower(S((4,), np.float32)).as_text()
    (refused,) = program.handle({"op": "structure", "texts": [text]})
    assert refused.refused == ("the program is too large for the grader to read (reading the program took more "
                               "than 0 s)")


def test_each_program_of_a_request_has_a_time_budget_of_its_own(monkeypatch):
    """A path's shapes read one by one come in one request: each text is read within READ_S of
    its own, so many small programs on a busy machine are all read (they shared one budget, and
    the last of 138 loop programs were refused); one slow text alone is refused."""
    text = jax.jit(doubler).lower(S((4,), np.float32)).as_text()
    read = dataflow.structure

    def slow(t, deadline=None):
        time.sleep(0.05)
        return read(t, deadline) if deadline else read(t)
    monkeypatch.setattr(dataflow, "structure", slow)
    monkeypatch.setattr(program, "READ_S", 0.2)
    found = program.handle({"op": "structure", "texts": [text] * 8})   # 0.4 s in all
    assert [s.refused for s in found] == [""] * 8
    monkeypatch.setattr(program, "READ_S", 0.01)
    assert all("took more than" in s.refused for s in program.handle({"op": "structure", "texts": [text] * 2}))


def test_a_constant_buffer_a_scatter_writes_over_is_not_a_source():
    """zeros.at[perm].set(callback): the zeros are the buffer written over (LOOP_INIT), not a
    source of the output; where they are left, coverage says so. A reversed arange is an index
    array known element by element (shared/indices.py): the gather and the scatter are followed,
    every element back in place; a permutation computed by a remainder is not, so the program
    runs (proofs.expect_every)."""
    def f(perm):
        return lambda x: jnp.zeros_like(x).at[perm(x)].set(doubler(jnp.take(x, perm(x))))
    s = _read(f(lambda x: jnp.arange(x.size)[::-1]), (7,))
    assert bare(s.outputs[0]).sources == ["call:0", "loop-init"] and s.outputs[0].moved_from({0})
    assert proofs.in_place()(s) == ""
    rolled = _read(f(lambda x: (jnp.arange(x.size) + 1) % x.size), (7,))
    assert rolled.outputs[0].moved_from({0}) and isinstance(proofs.in_place()(rolled), placement.Unfollowed)
    # part of the buffer written: the rest is the zeros, named; written reversed: misplaced, named
    half = _read(lambda x: jnp.zeros_like(x).at[jnp.arange(3)].set(doubler(x)[:3]), (7,))
    assert "element (3,) of the output comes from no element of your input" in proofs.in_place()(half)
    backwards = _read(lambda x: jnp.zeros_like(x).at[jnp.arange(x.size)[::-1]].set(doubler(x)), (7,))
    assert "element (0,) of the output comes from element (6,) of your input" in proofs.in_place()(backwards)
    part = _read(lambda x: jax.lax.dynamic_update_slice(jnp.zeros_like(x), doubler(x)[:3], (0,)), (7,))
    assert part.outputs[0].moved_from({0}) and "comes from no element" in proofs.in_place()(part)
