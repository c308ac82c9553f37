"""silu_ffi's kernels called directly at scale (autograder/assignments/silu_ffi/at_scale.py):
the inputs, which call is called
with which operands, and the whole check in this process. The course's rms_norm kernels
stand in for a student's: rms_norm_ffi (one operand, x) and rms_norm's VJP, whose backward
kernel takes a residual of the forward kernel's (its second output), x and the cotangent."""
import warnings

import jax
import numpy as np
import pytest

from autograder.assignments.silu_ffi import at_scale
from autograder.executor import program
from autograder.shared import dataflow
from autograder.shared.probe import Ask
from autograder.witness.evaluate import evaluate
from kernels.rms_norm import rms_norm, rms_norm_ffi

VJP = "lambda v, c: jax.vjp(f, v)[1](c)[0]"


def _structure(fn, *sizes):
    specs = [jax.ShapeDtypeStruct((n,), np.float32) for n in sizes]
    return dataflow.structure(jax.jit(fn, keep_unused=True).lower(*specs).as_text())


def _ask(f) -> Ask:
    """Questions evaluated here with `f` as the notebook's; the executor's requests too."""
    program.course_targets()
    return Ask(lambda expr, inputs, serving: evaluate({"f": f}, expr, inputs, "silu_ffi"), seed=0,
               execute=lambda request, serve=None: program.handle(request, serve=serve))


def _rms64(x):
    x = x.astype(np.float64)
    return x / np.sqrt(np.mean(x * x) + 1e-5)


def _rms_vjp64(x, c):
    x, c = x.astype(np.float64), c.astype(np.float64)
    r = 1 / np.sqrt(np.mean(x * x) + 1e-5)
    return r * c - x * r**3 * np.mean(c * x)


# ---- the inputs ----

def test_the_forward_inputs_cover_every_float32_magnitude_in_random_order():
    x = at_scale.forward_inputs(np.random.default_rng(1), 1 << 16)
    assert x.dtype == np.float32 and x.shape == (1 << 16,)
    assert not np.isinf(x).any() and np.isnan(x).any()
    finite = np.abs(x[np.isfinite(x)])
    assert finite.max() >= 3.4e38 and 0 < finite[finite > 0].min() < 1e-38   # subnormals
    assert {0.0} <= set(x[x == 0].tolist()) and np.signbit(x[x == 0]).any() and (~np.signbit(x[x == 0])).any()
    assert np.mean(np.abs(x[np.isfinite(x)]) <= 80) > 0.5 and (x < 0).mean() > 0.4
    edges = np.abs(np.concatenate([x[:at_scale.EDGE], x[-at_scale.EDGE:]]))
    assert edges.min() >= 0.5 and edges.max() <= 8    # a kernel that skips either end shows there
    assert np.abs(np.diff(np.sort(x[np.isfinite(x)]))).max() > 0 and not np.all(np.diff(x[:1000]) > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.astype(np.float64)   # no signalling NaN: the references cast without a warning


def test_the_backward_inputs_are_finite_up_to_1000_with_random_cotangents():
    x, ct = at_scale.backward_inputs(np.random.default_rng(2), 1 << 16)
    assert x.dtype == ct.dtype == np.float32 and x.shape == ct.shape == (1 << 16,)
    assert np.isfinite(x).all() and np.abs(x).max() == 1000 and 0 < np.abs(x[x != 0]).min() < 1e-38
    assert np.signbit(x[x == 0]).any() and abs(float(np.mean(ct))) < 0.05 and 0.9 < np.std(ct) < 1.1
    assert np.abs(np.concatenate([x[:64], x[-64:], ct[:64], ct[-64:]])).min() >= 0.5


def _sentence(check):
    with pytest.raises(AssertionError) as caught:
        check()
    return str(caught.value)


# ---- which call is called, and with what ----

def test_the_call_the_output_comes_from_is_called_with_the_paths_inputs():
    assert at_scale.plan(_structure(rms_norm_ffi, 1000), [1000]) == (0, [("input", 0)])


def test_a_residual_comes_from_the_call_that_made_it_which_is_called_first():
    s = _structure(lambda v, c: jax.vjp(rms_norm, v)[1](c)[0], 1000, 1000)
    target, sources = at_scale.plan(s, [1000, 1000])
    assert s.calls[target].target == "rms_norm_bwd"
    assert sources == [("call", 0, [0], [1]), ("input", 0), ("input", 1)]   # rms_norm_fwd's 2nd output, x, ct


@pytest.mark.parametrize("fn", [lambda v: rms_norm_ffi(v * 2),                       # an operand computed in JAX
                                lambda v: rms_norm_ffi(v) * 2,                       # math after the kernel
                                lambda v: jax.numpy.concatenate([rms_norm_ffi(v[:500]), rms_norm_ffi(v[500:])]),
                                lambda v: rms_norm_ffi(jax.numpy.zeros_like(v))])    # a constant
def test_operands_the_grader_cannot_give_as_they_are_mean_the_program_runs(fn):
    assert at_scale.plan(_structure(fn, 1000), [1000]) is None


def test_a_kernel_the_task_gives_its_operands_is_called_on_them_whatever_the_path_computes():
    """The forward kernel takes x alone (the task): it is called on x, as test 5's small calls call it."""
    assert at_scale.plan(_structure(lambda v: rms_norm_ffi(v * 2), 1000), [1000], given=True) == (0, [("input", 0)])
    assert at_scale.plan(_structure(lambda v: rms_norm_ffi(v[:999]), 1000), [1000], given=True) is None


def test_past_the_message_budget_the_program_runs(monkeypatch):
    monkeypatch.setattr(at_scale, "MESSAGE_BYTES", 3999)
    assert at_scale.plan(_structure(rms_norm_ffi, 1000), [1000]) is None


# ---- the whole check, in this process ----

def _expect(ask, fn, arrays, want, given=True):
    at_scale.expect_kernel(ask, fn, arrays, want, kernel="forward kernel", path="jax.jit(f)",
                           hint="h", rtol=1e-5, atol=1e-6, given=given)


def test_a_kernel_called_directly_is_judged_element_by_element_in_place():
    x = np.random.default_rng(5).uniform(-3, 3, 1001).astype(np.float32)
    ask = _ask(rms_norm_ffi)
    _expect(ask, "f", [x], _rms64(x))
    sentence = _sentence(lambda: _expect(ask, "f", [x], _rms64(x)[::-1]))   # every value right, out of place
    assert sentence.startswith("Your forward kernel (target 'rms_norm') called directly on 1,001 values differs "
                               "from the reference at ")


def test_a_backward_kernel_is_fed_its_residual_by_the_forward_kernel_called_directly():
    rng = np.random.default_rng(6)
    x, c = rng.uniform(-3, 3, 1001).astype(np.float32), rng.standard_normal(1001).astype(np.float32)
    want = _rms_vjp64(x, c)
    at_scale.expect_kernel(_ask(rms_norm), VJP, [x, c], want, kernel="backward kernel",
                           path="the VJP", hint="h", rtol=1e-4, atol=1e-5, given=False)


def test_a_forward_kernel_is_called_on_x_whatever_the_path_feeds_it():
    x = np.random.default_rng(7).uniform(-3, 3, 1001).astype(np.float32)
    _expect(_ask(lambda v: rms_norm_ffi(jax.numpy.clip(v, -1, 1))), "f", [x], _rms64(x))


def test_where_the_grader_cannot_give_the_operands_it_runs_the_program():
    x = np.random.default_rng(7).uniform(-3, 3, 1001).astype(np.float32)
    ask = _ask(lambda v: rms_norm_ffi(v * 2))
    _expect(ask, "f", [x], _rms64(2 * x), given=False)
    sentence = _sentence(lambda: _expect(ask, "f", [x], _rms64(x)[::-1], given=False))
    assert sentence.startswith("jax.jit(f) on 1,001 values differs from the reference at ")
