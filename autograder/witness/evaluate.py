"""Answer one question where the student's code lives: evaluate an expression among the
notebook's globals, the grading tools and the question's inputs, and reply with data
only (autograder.shared.wire). The witness calls it for every question; Otter's own
in-process runs (grader.check) call it through autograder.shared.probe.connect."""
from __future__ import annotations

import numpy as np

from autograder.shared import checks, wire


def _tools(expr: str) -> dict:
    import jax
    import jax.numpy as jnp

    from autograder.witness import facts, handover, inspection, provenance
    provenance.install()  # under Otter's own runs: from the first question on
    tools = {"jax": jax, "jnp": jnp, "np": np, "checks": checks, "inspection": inspection,
             "facts": facts, "provenance": provenance, "handover": handover}
    if "scipy" in expr:   # only gammaln_callback's questions name it (0.8 s to import)
        import scipy.special
        tools["scipy"] = scipy
    return tools


def _materialize(spec: dict):
    value = wire.decode(spec["value"])
    if spec.get("as") == "jax":
        import jax.numpy as jnp
        return jnp.asarray(value)
    return value


def evaluate(user_ns: dict, expr: str, inputs: dict) -> dict:
    """Evaluate `expr` among the notebook's globals, the tools and the inputs; return a
    reply message holding only data. Runs where the student's code runs."""
    try:
        import builtins  # the real ones: a notebook global named `isinstance` must not shadow them
        namespace = {**user_ns, **{k: v for k, v in vars(builtins).items() if not k.startswith("_")},
                     **_tools(expr), **{k: _materialize(v) for k, v in inputs.items()}}
        namespace["__builtins__"], namespace["__notebook__"] = builtins, user_ns
        value = eval(compile(expr, "<question>", "eval"), namespace)  # noqa: S307
        return {"ok": wire.encode(value)}
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from student code too
        return {"error": checks.describe(exc)}
