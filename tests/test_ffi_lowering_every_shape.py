"""ffi_lowering's structure at every shape (autograder/assignments/ffi_lowering/every_shape.py):
the eps ladder and the shapes it lowers at, the rules on a program's graph, the excuse of a
vmap program whose plain jit program fails too, and the eps ladder's verdict."""
import re

import numpy as np
import pytest

from autograder.assignments.ffi_lowering import every_shape as st
from autograder.shared import positions, shapes
from autograder.shared.evidence import Attribute, Call, Origin, Structure


def _call(target="rms_norm", eps=1e-5, typ="f32"):
    attrs = {} if eps is None else {"eps": Attribute(float(np.float32(eps)) if typ == "f32" else eps, typ)}
    return Call(target, "ffi", attrs, ["tensor<3x5xf32>"], ["tensor<3x5xf32>"], False)


def _program(*calls, math=(), sources=("call:0",)):
    """A canned program: every element of its output and of each call's operand where it was
    in the input (positions.identity), from `sources` through `math`."""
    whole = [["input:0", *positions.identity((3, 5))]]
    return Structure(list(calls), [Origin(list(sources), list(math), whole)],
                     [[Origin(["input:0"], [], whole)] for _ in calls], ["tensor<3x5xf32>"], ["tensor<3x5xf32>"])


def test_the_eps_ladder_spans_the_range_with_its_float32_ends():
    f32 = [np.float32(e) for e in st.EPS]
    assert f32 == sorted(f32) and len(set(f32)) == len(f32)
    assert np.float32(1e-30) in f32 and np.float32(1e30) in f32
    assert max(e for e in st.EPS if e <= 1e30) == float(np.nextafter(np.float32(1e30), np.float32(0)))
    assert all(e >= 1e-30 for e in st.EPS) and {np.float32(1e-5), np.float32(0.5)} <= set(f32)


def test_the_shapes_cover_ranks_rows_batch_positions_and_batches_past_the_checked_ones():
    assert {len(s) for s in st.JIT} == set(range(1, 9)) and not any(0 in s for s in st.JIT)
    assert {s[1] for s in st.ROWS if s[0] == 1} == {n for n in shapes.SIZES if n}
    assert (shapes.MAX_ELEMENTS, 1) in st.ROWS
    covered, batches = set(), {}
    for ax, out_ax, shape_list in st.positions():
        for s in shape_list:
            a = ax % len(s)
            covered.add((len(s), a))
            batches.setdefault(ax, set()).add(s[a])
            assert out_ax % len(s) == len(s) - 1 - a   # out_axes mirrored
            assert s[a] <= 19 or s[a] in st.BATCHES and ax in (0, -1)   # large batches first and last only
    assert covered == {(r, a) for r in range(2, 9) for a in range(r)}
    assert set(st.BATCHES) <= batches[0] and set(st.BATCHES) <= batches[-1] and max(st.BATCHES) > 1000
    assert all(s[0] == 3 for s in st.VMAP_ROWS) and max(max(s) for s in st.VMAP_ROWS) == shapes.MAX_ELEMENTS


def test_the_rules_name_math_other_targets_and_eps():
    assert st.FROM_KERNEL(_program(_call())) == "" and st.eps_is(1e-5)(_program(_call())) == ""
    assert "computed in JAX (divide, sqrt) from your input" in st.FROM_KERNEL(
        _program(math=("divide", "sqrt"), sources=("input:0",)))
    assert "computed in JAX (multiply)" in st.FROM_KERNEL(_program(_call(), math=("multiply",)))
    assert "also calls my_rms_norm" in st.FROM_KERNEL(
        Structure([_call(), _call("my_rms_norm")], [Origin(["call:0"], [])], [[], []], [], []))
    assert st.eps_is(1e-30)(_program(_call(eps=1e-5))) == \
        "the custom_call to rms_norm carries eps=1e-05 where eps=1e-30 was bound"
    assert "type f64" in st.eps_is(1e-5)(_program(_call(eps=1e-5, typ="f64")))
    assert "no eps attribute" in st.eps_is(1e-5)(_program(_call(eps=None)))
    assert st.eps_is(1e-30)(_program(math=("divide",), sources=("input:0",))) == ""   # no call: other rules' business


class _Ask:
    """Answers ask.structures with canned programs: `bad(fn, shape)` says which are JAX math."""
    def __init__(self, bad, eps=None):
        self._programs, self.bad, self.eps, self.asked = {}, bad, eps, []

    def structures(self, fn, specs, *, what, hint="", outputs=None):
        self.asked.append((fn, len(specs)))
        out = []
        for k, spec in enumerate(specs):
            shape = spec[0][0]
            if self.bad(fn, shape):
                out.append(_program(math=("divide",), sources=("input:0",)))
            else:   # the eps the path binds (its literal), unless the fake says otherwise
                found = re.search(r"eps=np\.float32\(([-+.e\d]+)\)", fn)
                bound = float(found.group(1)) if found else 1e-5
                out.append(_program(_call(eps=self.eps(k, shape, bound) if self.eps else bound)))
        return out


def test_a_vmap_program_is_excused_only_where_plain_jit_fails_too():
    jit, vmap = st.bind(), f"jax.vmap({st.bind()})"
    lowering_at_rank_5 = _Ask(lambda fn, shape: len(shape) >= 5)
    st.expect_kernel(lowering_at_rank_5, vmap, [(2, 3), (2, 3, 5, 7, 11)], what="v", hint="h", excusable=True)
    # at each eps of KERNEL_EPS; plain jit asked at the failing shape only
    assert lowering_at_rank_5.asked == [(st.at_eps(f, e), n) for e in st.KERNEL_EPS for f, n in ((vmap, 2), (jit, 1))]
    rule_at_rank_5 = _Ask(lambda fn, shape: fn.startswith("jax.vmap") and len(shape) >= 5)
    with pytest.raises(AssertionError, match=r"For inputs of shape \(2, 3, 5, 7, 11\), v: the output is not the output"):
        st.expect_kernel(rule_at_rank_5, vmap, [(2, 3), (2, 3, 5, 7, 11)], what="v", hint="h", excusable=True)
    with pytest.raises(AssertionError, match=r"\(2, 3, 5, 7, 11\), j: .*computed in JAX \(divide\)"):
        st.expect_kernel(lowering_at_rank_5, jit, [(2, 3), (2, 3, 5, 7, 11)], what="j", hint="h")


def test_every_shape_is_lowered_at_both_ends_of_the_eps_range():
    """An eps floored at 1e-5 only past 4096 elements (a mutant the eps ladder's small
    inputs missed) shows at the large shape, at eps 1e-30."""
    floored = _Ask(lambda fn, shape: False, eps=lambda k, shape, bound: max(bound, 1e-5) if np.prod(shape) > 4096 else bound)
    with pytest.raises(AssertionError, match=r"\(1, 5000\), j: the custom_call to rms_norm carries eps=1e-05 where eps=1e-30"):
        st.expect_kernel(floored, st.bind(), [(2, 3), (1, 5000)], what="j", hint="h")


def test_the_eps_ladder_names_the_path_and_the_eps_that_changed():
    st.expect_eps_ladder(_Ask(lambda fn, shape: False, eps=lambda k, shape, bound: st.EPS[k]), hint="h")
    floored = _Ask(lambda fn, shape: False, eps=lambda k, shape, bound: max(st.EPS[k], 1e-5))
    with pytest.raises(AssertionError, match=r"jax.jit of rms_norm_prim_p.bind with eps=1e-30: the custom_call to "
                                             r"rms_norm carries eps=1e-05 where eps=1e-30 was bound"):
        st.expect_eps_ladder(floored, hint="h")
