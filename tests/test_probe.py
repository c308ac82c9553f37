"""The grading questions' plumbing: data-only wire format, local asking, the module guard."""
import io
import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.shared import checks, probe, wire
from autograder.witness.guard import ModuleGuard


def test_wire_round_trip_is_data_only():
    value = {"a": [np.float32([1, 2]), (3, 4.5, "s", None, True)], "b": jnp.ones((2, 2))}
    back = wire.decode(wire.encode(value))
    assert back["a"][1] == [3, 4.5, "s", None, True]
    assert back["a"][0].dtype == np.float32 and isinstance(back["b"], np.ndarray)
    assert wire.decode(wire.encode(lambda: 1)) == wire.Opaque("builtins.function")


def test_wire_refuses_pickles_and_oversized_messages():
    """An object array or a pickle never decodes; an oversized message is refused unread."""
    buf = io.BytesIO()
    np.save(buf, np.array([object()], dtype=object), allow_pickle=True)
    with pytest.raises(wire.WireError, match="only arrays of numbers travel"):
        wire.decode({"$npy": buf.getvalue()})
    with pytest.raises(wire.WireError, match="without its bytes"):
        wire.decode({"$npy": "a base64 text"})
    stream = io.BytesIO((10**9).to_bytes(8, "big") + b"{}")
    with pytest.raises(wire.WireError, match="exceeds"):
        wire.receive(stream.read, 64 << 20)
    with pytest.raises(wire.WireError):
        wire.receive(io.BytesIO(len(pickle.dumps(1)).to_bytes(8, "big") + pickle.dumps(1)).read, 64 << 20)
    assert wire.receive(io.BytesIO(wire.frame({"a": [1]})).read, 64 << 20) == {"a": [1]}


def test_arrays_travel_as_blobs_beside_the_json():
    """An array's bytes cross raw, beside the JSON (no base64); a reference to no blob, or a
    blob cut short, is refused."""
    big = np.arange(2**20, dtype=np.float32)
    framed = wire.frame({"ok": wire.encode([big, {"k": np.int8(3)}])})
    assert len(framed) < big.nbytes + 1024
    back = wire.decode(wire.receive(io.BytesIO(framed).read, 64 << 20)["ok"])
    assert np.array_equal(back[0], big) and back[1]["k"] == 3
    forged = wire.frame({"ok": {"$npy": {"$blob": 0}}})
    with pytest.raises(wire.WireError, match="no blob"):
        wire.receive(io.BytesIO(forged).read, 64 << 20)
    with pytest.raises(wire.WireError):
        wire.receive(io.BytesIO(framed[:-10]).read, 64 << 20)


def test_local_ask_evaluates_in_the_notebook_globals():
    ask = probe.connect({"double": lambda x: 2 * x})
    x = ask.normal(1, (3,))
    assert x.dtype == np.float32
    np.testing.assert_array_equal(ask.run("jax.jit(double)(x)", x=x), 2 * x)
    assert ask.run("type(x).__name__", x=probe.numpy(x)) == "ndarray"
    assert ask.defined("double") and not ask.defined("triple")
    with pytest.raises(AssertionError, match="^d raised SystemExit: 3; h$"):
        ask.run("exit(3)", what="d", hint="h")


def test_remote_ask_turns_an_unanswered_question_into_a_sentence():
    def crashed(expr, inputs, serving=False):
        raise probe.Unanswered("Your notebook's process crashed with SIGSEGV while computing {what}")
    ask = probe.connect(probe.Remote(crashed, seed=5))
    with pytest.raises(AssertionError) as e:
        ask.run("f(x)", what="jax.jit(f)")
    assert str(e.value) == "Your notebook's process crashed with SIGSEGV while computing jax.jit(f)."
    assert not np.array_equal(ask.normal(1, (4,)), probe.connect({}).normal(1, (4,)))


def test_guard_undoes_patches_to_modules_functions_and_classes():
    guard = ModuleGuard()
    real_isclose, real_code = np.isclose, checks.expect_close.__code__
    np.isclose = lambda *a, **k: True
    checks.expect_close.__code__ = (lambda *a, **k: None).__code__
    jax.stages.Lowered.as_text = lambda self, *a, **k: "forged"
    real_defaults, real_linspace = checks.expect_close.__defaults__, np.linspace
    checks.expect_close.__defaults__ = None
    del np.linspace                 # deleted and added back: the dict's order changes
    np.linspace = lambda *a, **k: None
    try:
        assert guard.restore() >= 4
        assert np.isclose is real_isclose and checks.expect_close.__code__ is real_code
        assert checks.expect_close.__defaults__ is real_defaults and np.linspace is real_linspace
        assert jax.jit(lambda v: v).lower(1.0).as_text() != "forged"
        assert guard.restore() == 0     # what was put back is the new "unchanged"
        np.isclose = lambda *a, **k: True
        assert guard.restore() == 1 and np.isclose is real_isclose
    finally:
        np.isclose = real_isclose


def test_every_record_names_types_the_wire_can_check():
    """Each exercise's records.py and the shared records resolve their annotations (the wire
    checks every field against them: a name missing there fails only when one travels)."""
    import importlib
    import typing

    from autograder.shared import evidence, paths
    for name in paths.NAMES:
        try:
            importlib.import_module(f"autograder.assignments.{name}.records")
        except ModuleNotFoundError:
            pass
    for cls in evidence.RECORDS.values():
        assert typing.get_type_hints(cls)
