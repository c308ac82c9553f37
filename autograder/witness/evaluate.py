"""Answer one question where the student's code lives: evaluate an expression among the
notebook's globals, the grading tools and the question's inputs, and reply with data
only (autograder.shared.wire). The witness calls it for every question; Otter's own
in-process runs (grader.check) call it through autograder.student.in_process."""
from __future__ import annotations

import functools
import importlib

import numpy as np

from autograder.shared import checks, errors, paths, wire


def _tools(exercise: str) -> dict:
    """The names every question sees besides the notebook's, and `witness`: the exercise's own
    observations (autograder/assignments/<exercise>/witness.py), where it has some."""
    import jax
    import jax.numpy as jnp

    from autograder.witness import handover, inspection, observe, registry
    registry.install()  # under Otter's own runs: from the first question on
    tools = {"jax": jax, "jnp": jnp, "np": np, "checks": checks, "inspection": inspection,
             "observe": observe, "registry": registry, "handover": handover}
    own = exercise_witness(exercise)
    if own is not None:
        tools["witness"] = own
    return tools


@functools.cache
def exercise_witness(exercise: str):
    """The exercise's witness module, imported once (in the witness, before the notebook ran:
    witness.__main__'s _prepare calls this first), so that a notebook's own entry in sys.modules
    under that name is never the one the questions use."""
    module = paths.witness_module(exercise) if exercise in paths.NAMES else ""
    return importlib.import_module(module) if module else None


def _materialize(spec: dict):
    value = wire.decode(spec["value"])
    if spec.get("as") == "jax":
        import jax.numpy as jnp
        return jnp.asarray(value)
    return value


def evaluate(user_ns: dict, expr: str, inputs: dict, exercise: str = "") -> dict:
    """Evaluate `expr` among the notebook's globals, the tools (`exercise`'s witness among
    them) and the inputs; return a reply message holding only data. Runs where the
    student's code runs."""
    try:
        import builtins  # the real ones: a notebook global named `isinstance` must not shadow them
        namespace = {**user_ns, **{k: v for k, v in vars(builtins).items() if not k.startswith("_")},
                     **_tools(exercise), **{k: _materialize(v) for k, v in inputs.items()}}
        namespace["__builtins__"], namespace["__notebook__"] = builtins, user_ns
        value = eval(compile(expr, "<question>", "eval"), namespace)  # noqa: S307
        return {"ok": wire.encode(value)}
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from student code too
        return {"error": errors.describe(exc)}
