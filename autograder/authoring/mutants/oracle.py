"""Is a mutant wrong? Decided without the grader: the answer's notebook cells are run here
(as the witness runs them, one namespace per mutant, in one process for a batch), then its
values are checked on a ladder of shapes and sizes (large ones included: above every size
a threshold in generate.SIZES sits at) against a float64 reference, eagerly and under jit,
and its provenance by the same run with the piece poisoned (every output element must be
the poison). An effects mutant is wrong by construction. A mutant this finds nothing wrong
with is equivalent to the reference, and is counted, not graded.

    python -m autograder.authoring.mutants.oracle ASSIGNMENT MUTANTS_JSON   (prints JSON lines)
"""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager

import numpy as np

SHAPES = [(), (0,), (7,), (1000,), (1001,), (4097,), (65537,), ((1 << 20) + 3,), (3, 4, 5), (2, 3, 4, 5),
          (2, 3, 2, 3, 2), (1, 2, 1, 2, 1, 2)]


def _inputs(shape, rng) -> np.ndarray:
    return rng.uniform(-1e3, 1e3, size=shape).astype(np.float32)


@contextmanager
def _poisoned_callbacks():
    """jax.pure_callback with every host function replaced by one that returns the poison
    values (autograder.shared.poison) in the declared shape and dtype."""
    import jax

    from autograder.shared import poison
    real = jax.pure_callback

    def poisoned(callback, result_shape, *args, **kwargs):
        def host(*_a, **_k):
            return jax.tree_util.tree_map(
                lambda s: poison.values(int(np.prod(s.shape))).reshape(s.shape).astype(s.dtype), result_shape)
        return real(host, result_shape, *args, **kwargs)
    jax.pure_callback = poisoned
    try:
        yield
    finally:
        jax.pure_callback = real


def doubler(env: dict) -> str:
    """pure_callback_doubler: 2x in float32, element by element, at every shape, eagerly and
    under jit, for the traced function and the host function alone, which runs no JAX (its
    provenance: NumPy's product); and every element of the traced function's result is the
    callback's (poisoned, every element is poison)."""
    import jax

    from autograder.shared import poison
    from autograder.witness import hostcall
    rng = np.random.default_rng(7)
    fn, host = env["pure_callback_doubler"], env["host_double"]
    for shape in SHAPES:
        x = _inputs(shape, rng)
        want = (x.astype(np.float64) * 2).astype(np.float32)
        for label, run in (("eagerly", fn), ("under jit", jax.jit(fn)), ("the host function", host)):
            got = np.asarray(run(x))
            if got.shape != want.shape or got.dtype != np.float32 or not np.array_equal(got, want):
                return f"{label}, shape {shape}: not 2x in float32"
        if hostcall.call(host, x).jax:   # the task's host function is NumPy's product
            return f"the host function, shape {shape}: computes with JAX"
        with _poisoned_callbacks():   # a function of its own: jit's cache holds the unpoisoned trace of fn
            got = np.asarray(jax.jit(lambda v: fn(v))(x))
        if got.size and not np.all(poison.straight(got, [got.size])):
            return f"shape {shape}: with the callback poisoned, not every element is the callback's"
    return ""


ORACLES = {"pure_callback_doubler": doubler}


def judge(assignment: str, notebook_cells: list[str]) -> str:
    """Why the answer whose gradable cells are `notebook_cells` is wrong ("": it is not)."""
    env: dict = {"__name__": "__main__"}
    try:
        for source in notebook_cells:
            exec(compile(source, "<cell>", "exec"), env)
        return ORACLES[assignment](env)
    except Exception as exc:   # the mutant's own failure: wrong
        return f"raised {type(exc).__name__}: {str(exc)[:200]}"


def main(assignment: str, mutants_json: str) -> None:
    for item in json.loads(open(mutants_json).read()):
        why = "an effect, by construction" if item["kind"] == "effects" else judge(assignment, item["cells"])
        print(json.dumps({"name": item["name"], "wrong": why}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
