"""Many shapes read from one lowering (autograder/shared/packing.py, probe.Ask.structures with
`outputs`): each part of a pack reads as the program of its shape lowered alone."""
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import io_callback

from autograder.executor import program
from autograder.shared import dataflow, packing, wire
from autograder.shared.evidence import Origin, Structure
from autograder.shared.probe import Ask
from autograder.witness import handover
from tests.origins import bare

S = jax.ShapeDtypeStruct


def _host(a):
    return np.asarray(a) * 2


def doubler(x):
    return jax.pure_callback(_host, S(x.shape, x.dtype), x, vmap_method="sequential")


def above(x):
    """JAX math past 2^18 elements, the callback below."""
    return x * 2 if x.size > 2**18 else doubler(x)


def two_calls(x):
    """Two callbacks in a chain, one whose result reaches no output, two outputs."""
    io_callback(lambda a: None, None, x[:1] * 3, ordered=False)
    return doubler(doubler(x) + 1.0), x.sum()


def batched(x):
    return jax.vmap(doubler, in_axes=x.ndim - 1)(x)


FUNCTIONS = {"doubler": doubler, "above": above, "two_calls": two_calls, "batched": batched}
SHAPES = [(3,), (2**18 + 1,), (2, 3), (4, 1, 5), (2**31 - 1,)]


def _alone(fn, shape):
    return dataflow.structure(jax.jit(fn, keep_unused=True).lower(S(shape, np.float32)).as_text())


def _normal(s):
    """A Structure, each host callback's index (its place among the program's) left out."""
    calls = [dataclasses.replace(c, attributes={k: a for k, a in c.attributes.items() if k != "index"})
             for c in s.calls]
    return dataclasses.replace(s, calls=calls)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_part_of_a_pack_reads_as_its_shape_lowered_alone(name):
    fn = FUNCTIONS[name]
    specs = [[(shape, "float32")] for shape in SHAPES if name != "batched" or len(shape) > 1 and shape[-1] < 10]
    counts = [len(jax.tree.leaves(jax.eval_shape(fn, S(spec[0][0], np.float32)))) for spec in specs]
    whole = jax.jit(eval(packing.expression(["fn"] * len(specs), specs), {"jax": jax, "fn": fn}), keep_unused=True)
    text = whole.lower(*(S(shape, np.float32) for spec in specs for shape, _ in spec)).as_text()
    parts = packing.split(dataflow.structure(text), specs, counts)
    assert [_normal(p) for p in parts] == [_normal(_alone(fn, spec[0][0])) for spec in specs]


def test_a_pack_of_several_functions_reads_as_each_lowered_alone():
    """One function per spec (jax.vmap at each batch position, say)."""
    fns = {"f0": jax.vmap(FUNCTIONS["batched"], in_axes=0), "f1": jax.vmap(FUNCTIONS["batched"], in_axes=1)}
    names = ["f0", "f1", "f0"]
    specs = [[((3, 4, 5), "float32")], [((4, 3, 5), "float32")], [((2, 6, 7), "float32")]]
    whole = jax.jit(eval(packing.expression(names, specs), {"jax": jax, **fns}), keep_unused=True)
    text = whole.lower(*(S(spec[0][0], np.float32) for spec in specs)).as_text()
    parts = packing.split(dataflow.structure(text), specs, [1, 1, 1])
    assert [_normal(p) for p in parts] == [_normal(_alone(fns[n], spec[0][0])) for n, spec in zip(names, specs)]


def test_inputs_are_numbered_within_their_spec():
    whole = Structure([], [Origin(["input:0"], []), Origin(["input:1", "input:2"], ["add"])], [],
                      ["tensor<2xf32>", "tensor<3xf32>", "tensor<3xf32>"], ["tensor<2xf32>", "tensor<3xf32>"])
    first, second = packing.split(whole, [[((2,), "f")], [((3,), "f"), ((3,), "f")]], [1, 1])
    assert bare(first.outputs) == [Origin(["input:0"], [])] and first.inputs == ["tensor<2xf32>"]
    assert bare(second.outputs) == [Origin(["input:0", "input:1"], ["add"])] and len(second.inputs) == 2


def test_a_pack_with_other_outputs_than_said_is_not_split():
    specs = [[((3,), "float32")], [((4,), "float32")]]
    text = jax.jit(lambda a, b: (doubler(a), doubler(b), a)).lower(S((3,), np.float32), S((4,), np.float32)).as_text()
    assert packing.split(dataflow.structure(text), specs, [1, 1]) is None


def test_a_pack_with_a_call_of_nobodys_is_not_split():
    """An io_callback of constants whose result reaches no output: which shape's is it?"""
    def f(x):
        io_callback(lambda: None, None, ordered=False)
        return doubler(x)
    specs = [[((3,), "float32")], [((4,), "float32")]]
    text = jax.jit(eval(packing.expression(["f"] * len(specs), specs), {"jax": jax, "f": f})).lower(
        S((3,), np.float32), S((4,), np.float32)).as_text()
    s = dataflow.structure(text)
    assert len(s.calls) == 4 and packing.split(s, specs, [1, 1]) is None


def _ask(fail_packed=False):
    asked = []

    def answer(expr, inputs, serving):
        asked.append(expr)
        specs = wire.decode(inputs["specs"]["value"])
        fn = eval(expr.removeprefix("handover.lowered(").removesuffix(", specs)"),
                  {"jax": jax, "jnp": jnp, "above": above})
        if fail_packed and len(specs) == 1:
            fn = None   # the pack does not lower: each shape is lowered alone
        return {"ok": wire.encode(handover.lowered(fn, specs))}
    return Ask(answer, seed=0, execute=lambda request, serve=None: program.handle(request)), asked


def test_ask_structures_lowers_the_shapes_once_and_alone_when_the_pack_fails():
    specs = [[(shape, "float32")] for shape in SHAPES]
    ask, asked = _ask()
    got = ask.structures("above", specs, what="jax.jit(above)", outputs=[1] * len(specs))
    assert len(asked) == 1 and [bool(s.calls) for s in got] == [True, False, True, True, False]
    ask, asked = _ask(fail_packed=True)
    alone = ask.structures("above", specs, what="jax.jit(above)", outputs=[1] * len(specs))
    assert len(asked) == 2 and [_normal(s) for s in alone] == [_normal(s) for s in got]
