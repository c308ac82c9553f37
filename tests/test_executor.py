"""The executor: the program an answer built, read and run with no student Python and only
the course's kernels (autograder/executor/program.py), in its own process and uid
(autograder/runner/executor_client.py)."""
import os
import pwd
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.core import Primitive
from jax.interpreters import mlir

import kernels.rms_norm  # noqa: F401  (registers rms_norm here, for lowering)
from autograder.executor import program
from autograder.shared import config as settings, poison
from autograder.shared.probe import Unanswered
from autograder.shared.references import rms_norm_np64

X = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)


def _rms_prim():
    p = Primitive("rms_norm_prim_test")
    p.def_impl(lambda x, eps: x)
    p.def_abstract_eval(lambda x, eps: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, jax.ffi.ffi_lowering("rms_norm"), platform="cpu")
    return lambda v: p.bind(v, eps=np.float32(1e-5))


def _text(fn, *args):
    return jax.jit(fn).lower(*args).as_text()


def test_a_program_is_read_and_run_on_the_graders_input():
    report = program.report(_text(_rms_prim(), X), [X], each=True)
    assert report.refused == ""
    (call,) = report.calls
    assert (call.target, call.kind, call.course) == ("rms_norm", "ffi", True)
    assert call.attributes["eps"].type == "f32"
    np.testing.assert_allclose(report.value[0], rms_norm_np64(X, 1e-5), rtol=1e-5)
    # the poisoned run: the kernel's output replaced by the poison pattern, element for element
    np.testing.assert_array_equal(report.run("ffi").outputs[0].ravel(), poison.values(X.size))
    assert report.run("call:0").sizes == [X.size]
    assert "custom-call" in report.opcodes and "divide" not in report.opcodes


def test_a_run_that_judges_only_values_poisons_no_kernel():
    """kernels=False (a request's "kernels": False): the same value, no poisoned FFI run."""
    request = {"op": "run", "text": _text(_rms_prim(), X), "args": [X], "each": True, "kernels": False}
    report = program.handle(request)
    np.testing.assert_allclose(report.value[0], rms_norm_np64(X, 1e-5), rtol=1e-5)
    assert report.refused == "" and report.poisoned.get("ffi") is None and "call:0" not in report.poisoned
    assert program.handle({**request, "kernels": True}).run("ffi") is not None


def test_an_entry_equal_to_its_poison_by_chance_is_poisoned_again():
    """A sum over an axis of length 1 copies x; x's entry 2 is the poison's own entry 2, so the
    first poisoned run leaves it unchanged. The executor runs again with the other salt, and
    the entry changes: it depends on the kernel. An entry the kernel does not reach (set
    after it) stays unchanged in both runs."""
    from kernels import reduce_sum
    x = np.linspace(-3, 3, 6, dtype=np.float32).reshape(6, 1)
    x[2, 0] = poison.values(6)[2]
    report = program.report(_text(lambda v: reduce_sum.reduce_sum(v, (1,)), x), [x])
    got = report.run("ffi").outputs[0]
    assert got[2] == poison.values(6, poison.SALT_AGAIN)[2] and np.all(poison.changed(x[:, 0], got))
    assert np.all(poison.straight(got, [6]))
    cut = program.report(_text(lambda v: reduce_sum.reduce_sum(v, (1,)).at[4].set(v[4, 0]), x), [x])
    assert list(np.flatnonzero(~poison.changed(x[:, 0], cut.run("ffi").outputs[0]))) == [4]


def test_the_value_comes_from_the_program_not_from_the_process_that_lowered_it():
    """A program that computes something else gives that, whatever its maker claims."""
    text = _text(lambda v: v * 2, X)
    report = program.report(text, [X])
    assert report.calls == [] and report.run("ffi") is None
    np.testing.assert_array_equal(report.value[0], X * 2)


def test_a_program_asked_again_is_compiled_once_unless_a_target_means_another_function(monkeypatch):
    """The executor's cache: the same text on the same operand types runs the executable of
    the first run, poisoned runs included; a target bound to another handler compiles anew."""
    compiles = []
    real = jax.stages.Lowered.compile
    monkeypatch.setattr(jax.stages.Lowered, "compile", lambda self, *a, **k: compiles.append(1) or real(self, *a, **k))
    monkeypatch.setattr(program, "_COMPILED", {})
    text = _text(_rms_prim(), X)
    first = program.report(text, [X], each=True)
    assert len(compiles) == 2   # the program and its run with the kernel poisoned (ffi = call:0)
    again = program.report(text, [X], each=True)
    assert len(compiles) == 2
    np.testing.assert_array_equal(again.value[0], first.value[0])
    np.testing.assert_array_equal(again.run("ffi").outputs[0], first.run("ffi").outputs[0])
    np.testing.assert_allclose(program.report(text, [X * 2]).value[0], rms_norm_np64(X * 2, 1e-5), rtol=1e-5)
    assert len(compiles) == 2   # other values, same types: the same executable
    other = program.Handlers()
    other.describe = lambda target: {"handler": "0xother", "course": True}
    program.report(text, [X], handlers=other)
    assert len(compiles) == 4   # the program and its poisoned run again


@pytest.mark.parametrize("make, refused", [
    (lambda: _text(lambda v: jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct(v.shape, v.dtype), v), X),
     "it runs a host callback and nobody serves it"),
    (lambda: _text(lambda v: jax.ffi.ffi_call("students_own", jax.ShapeDtypeStruct(v.shape, v.dtype))(v), X),
     "it calls the FFI target students_own, which your notebook did not register from a function of a library it loaded"),
    (lambda: _text(_rms_prim(), X[:2]), "the program does not take the grader's inputs (tensor<2x8xf32>)"),
    (lambda: "module { this is not a program", "the program could not be read or run (MLIRError"),
])
def test_a_program_the_grader_will_not_run_is_refused_with_the_reason(make, refused):
    report = program.handle({"op": "run", "text": make(), "args": [X]})
    assert report.value is None and report.refused.startswith(refused)


def _callback_program():
    """A program of two host callbacks around JAX math, lowered here: its text, and a serve()
    that calls the callbacks JAX registered for it (what handover.serve does in the witness),
    recording each call; context 0 serves with the host function poisoned (returns zeros)."""
    from autograder.witness import handover
    def double(a):
        return np.asarray(a) * 2
    def fn(v):
        y = jax.pure_callback(double, jax.ShapeDtypeStruct(v.shape, v.dtype), v)
        return jax.numpy.sin(y) + jax.pure_callback(double, jax.ShapeDtypeStruct(v.shape, v.dtype), y)
    handed = handover.program(fn, X)
    text, pid, recorded = handed.text, handed.pid, handed.recorded
    served = []

    def serve(index, operands, context):
        served.append((index, context))
        if context == 0:
            return [np.zeros_like(operands[0])]
        return handover.serve(pid, index, operands)
    return text, serve, served, recorded


def test_a_program_with_host_callbacks_is_run_here_each_callback_served_by_the_witness():
    text, serve, served, _ = _callback_program()
    report = program.report(text, [X], serve=serve, replace=1)
    assert report.refused == "" and [c.kind for c in report.calls] == ["host_callback"] * 2
    np.testing.assert_allclose(report.value[0], np.sin(2 * X) + 4 * X, rtol=1e-6)
    assert "sin" in report.opcodes          # JAX's math, outside the callbacks, seen here
    # every host callback poisoned: the poison's values flow through sin(y) + poison
    poisoned = report.run("host_callback").outputs[0]
    assert not np.isclose(poisoned, report.value[0]).any()
    # the run whose callbacks the witness serves with the host function poisoned (context 0)
    np.testing.assert_array_equal(report.run("replace:0").outputs[0], np.zeros_like(X))
    assert {c for _, c in served} == {-1, 0} and {i for i, _ in served} == {0, 1}


def test_an_io_callback_is_a_host_callback_but_not_a_pure_callback():
    """The doubler's and gammaln's gates ask for the piece "pure_callback": io_callback's
    custom_call carries has_side_effect, pure_callback's never does."""
    from jax.experimental import io_callback
    declared = jax.ShapeDtypeStruct(X.shape, X.dtype)
    text = _text(lambda v: (jax.pure_callback(lambda a: a * 2, declared, v),
                            io_callback(lambda a: a * 3, declared, v)), X)
    report = program.report(text, [X], serve=lambda index, operands, context: [operands[0] * (2 + index)])
    assert [c.side_effect for c in report.calls] == [False, True]
    pure, host = report.run("pure_callback").outputs, report.run("host_callback").outputs
    assert poison.changed(report.value[0], pure[0]).all() and not poison.changed(report.value[1], pure[1]).any()
    assert poison.changed(report.value[1], host[1]).all()


@pytest.mark.parametrize("result, refused", [
    (lambda ops: [ops[0].astype(np.float64)], "a host callback returned float64[3, 8] as result 0 where the program declares float32[3, 8]"),
    (lambda ops: [ops[0][:2]], "a host callback returned float32[2, 8]"),
    (lambda ops: [ops[0], ops[0]], "a host callback returned 2 arrays where the program declares 1"),
])
def test_a_served_result_unlike_the_declaration_is_refused(result, refused):
    """The witness's reply is checked against the program's own declaration."""
    text, _, _, _ = _callback_program()
    report = program.report(text, [X], serve=lambda index, ops, context: result(ops))
    assert report.value is None and refused in report.refused


def test_calls_the_witness_recorded_with_the_same_operands_are_served_from_its_record():
    """The witness's own run is recorded; the executor serves a call from that record only
    where its operands are exactly the same, and asks live for any other."""
    text, serve, served, recorded = _callback_program()
    assert [c for c, _ in recorded] == [-1] and len(recorded[0][1]) == 2
    report = program.report(text, [X], serve=serve, recorded=recorded)
    np.testing.assert_allclose(report.value[0], np.sin(2 * X) + 4 * X, rtol=1e-6)
    # the clean run: both calls from the record; the run with every callback poisoned reaches none
    assert served == []
    forged = [[-1, [[0, [X], [np.zeros_like(X)]]]]]   # a record whose operands differ from the run's: not used
    report = program.report(text, [X + 1], serve=serve, recorded=forged)
    np.testing.assert_allclose(report.value[0], np.sin(2 * (X + 1)) + 4 * (X + 1), rtol=1e-6)
    assert len(served) == 2


def test_a_kernel_that_rejects_its_attributes_is_reported_with_the_calls():
    p = Primitive("rms_norm_prim_f64")
    p.def_abstract_eval(lambda x, eps: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, lambda ctx, x, eps: jax.ffi.ffi_lowering("rms_norm")(ctx, x, eps=float(eps)),
                           platform="cpu")
    report = program.handle({"op": "run", "text": _text(lambda v: p.bind(v, eps=1e-5), X), "args": [X]})
    assert report.value is None and report.refused.startswith("running it raised")
    assert report.calls[0].attributes["eps"].type == "f64"


def _account(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


@pytest.mark.skipif(os.geteuid() != 0 or _account("executor") is None,
                    reason="the grading image's root and executor account")
def test_the_executor_process_runs_as_its_own_user_and_a_crash_is_contained():
    from autograder.runner.executor_client import Executor
    limits = settings.load().limits
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o711)
        executor = Executor(Path(tmp) / "executor", limits)
        try:
            report = executor.run({"op": "run", "text": _text(_rms_prim(), X), "args": [X]})
            np.testing.assert_allclose(report.value[0], rms_norm_np64(X, 1e-5), rtol=1e-5)
            uid = int(next(l for l in open(f"/proc/{executor.proc.pid}/status") if l.startswith("Uid:")).split()[1])
            assert uid == _account("executor").pw_uid
            os.kill(executor.proc.pid, 9)
            with pytest.raises(Unanswered, match="crashed with SIGKILL"):
                executor.run({"op": "run", "text": _text(_rms_prim(), X), "args": [X]})
            restarted = executor.run({"op": "run", "text": _text(lambda v: v + 1, X), "args": [X]})
            assert restarted.value[0].shape == X.shape
        finally:
            executor.close()


def test_the_executor_hands_out_dirty_allocations():
    """The executor's process fills every allocation with a byte pattern (glibc's
    M_PERTURB): a kernel reading its result buffer before writing it shows at every size,
    not only where the heap hands out used memory (a large allocation is fresh zero pages)."""
    import subprocess
    import sys
    code = ("from autograder.executor import allocations; allocations.dirty(); "
            "import numpy as np; print(int(np.count_nonzero(np.empty(1 << 22, np.uint8))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == 1 << 22


def test_a_library_that_turns_the_pattern_off_is_overruled(tmp_path):
    """A constructor of the student's library calls mallopt(M_PERTURB, 0) (issue 54): the
    executor sets the pattern again after each load and before each request."""
    import subprocess
    import sys
    source = tmp_path / "off.c"
    source.write_text("#include <malloc.h>\n__attribute__((constructor)) static void off(void) "
                      "{ mallopt(M_PERTURB, 0); }\n")
    library = tmp_path / "liboff.so"
    subprocess.run(["clang", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    code = ("import ctypes, numpy as np\n"
            "from autograder.executor import allocations\n"
            "count = lambda: int(np.count_nonzero(np.empty(1 << 22, np.uint8)))\n"
            "allocations.dirty()\n"
            f"ctypes.CDLL({str(library)!r})\n"
            "off = count()\n"
            "allocations.dirty()\n"
            "print(off, count())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert [int(n) for n in out.stdout.split()] == [0, 1 << 22]


def test_a_reduction_of_predicates_is_listed_apart_from_arithmetic():
    """x[i] and .at[i].set at a loop's counter keep jnp.all of a bounds test: a reduce of
    predicates ("reduce-pred"), which gammaln_callback's math check allows; a sum stays "reduce"."""
    from autograder.shared import stablehlo

    def looped(x):
        return jax.lax.fori_loop(0, x.shape[0], lambda i, o: o.at[i].set(x[i] * 2), jnp.zeros_like(x))
    ops = stablehlo.opcodes(jax.jit(looped).lower(jnp.ones((4, 6))).compile())
    assert "reduce-pred" in ops and "reduce" not in ops
    assert "reduce" in stablehlo.opcodes(jax.jit(lambda x: jnp.sum(x, 0)).lower(jnp.ones((4, 6))).compile())
