"""pure_callback_doubler's mutants: its host function and its traced function."""
import numpy as np

from autograder.authoring.mutants.generate import Piece
from autograder.authoring.mutants.oracle import SHAPES, poisoned_callbacks, uniform

SOURCE = "reference.py"
# x is one-dimensional (the task's words): no threshold on the rank, and the oracle's shapes 1-d.
PIECES = [
    Piece("host_double", "np", same_math="np.asarray(jnp.asarray(arr) * 2)", host=True, ranks=()),
    Piece("pure_callback_doubler", "jnp", same_math="x * 2", ranks=()),
]
LENGTHS = [s for s in SHAPES if len(s) == 1]
CXX_PIECES = []


def oracle(env: dict) -> str:
    """2x in float32, element by element, at every length, eagerly and under jit, for the
    traced function and the host function alone, which runs no JAX (its provenance:
    NumPy's product); and every element of the traced function's result is the callback's
    (poisoned, every element is poison)."""
    import jax

    from autograder.shared import poison
    from autograder.witness import hostcall
    rng = np.random.default_rng(7)
    fn, host = env["pure_callback_doubler"], env["host_double"]
    for shape in LENGTHS:
        x = uniform(shape, rng)
        want = (x.astype(np.float64) * 2).astype(np.float32)
        for label, run in (("eagerly", fn), ("under jit", jax.jit(fn)), ("the host function", host)):
            got = np.asarray(run(x))
            if got.shape != want.shape or got.dtype != np.float32 or not np.array_equal(got, want):
                return f"{label}, shape {shape}: not 2x in float32"
        if hostcall.call(host, x).jax:   # the task's host function is NumPy's product
            return f"the host function, shape {shape}: computes with JAX"
        with poisoned_callbacks():   # a function of its own: jit's cache holds the unpoisoned trace of fn
            got = np.asarray(jax.jit(lambda v: fn(v))(x))
        if got.size and not np.all(poison.straight(got, [got.size])):
            return f"shape {shape}: with the callback poisoned, not every element is the callback's"
    return ""


# Mutants the oracle must find wrong (tests/test_mutants.py): moved, thresholded, re-sourced.
KNOWN_WRONG = ("positions/host_double/reversed/size>4096", "thresholds/host_double/2->3/size>4096",
               "provenance/pure_callback_doubler/size>65536", "provenance/host_double/size>4096")
