"""How tests ask about a student's answer without touching it.

Every test function takes Otter's `env` and asks through `ask = probe.connect(env)`:

    x = ask.normal(31, (3, 7), scale=4)                 # float32 NumPy input
    y = ask.run("jax.jit(silu_ffi)(x)", x=x, what="jax.jit(silu_ffi)", hint="...")
    calls = ask.run("facts.custom_calls(silu_ffi, x)", x=x, what="Lowering ...")

`ask.run` evaluates one expression where the answer lives and returns plain data
(NumPy arrays, lists, dicts of data, numbers, strings; other objects as `wire.Opaque`).
The expression sees the notebook's globals plus `jax`, `jnp`, `np`, `scipy`, `checks`,
`inspection` and `facts` (autograder.facts) and the named inputs (arrays arrive as jax
arrays; wrap one in `probe.numpy(x)` to pass a NumPy array).

- In Otter's own runs (`grader.check`, `otter assign`, `otter run`), `env` is the
  notebook's globals and the expression is evaluated in that process.
- In our runner (autograder.runner), `env` is a `Remote`: the expression goes to the
  witness, a separate unprivileged process that executed the notebook, and only the
  data comes back. The test code, its expected values and the verdict stay in the
  grader's process. Both paths go through `evaluate` and the wire format, so a test
  sees the same data either way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder import checks, wire


@dataclass(frozen=True)
class numpy:  # noqa: N801  (reads as a marker: probe.numpy(x))
    """An input to hand to the expression as a NumPy array instead of a jax array."""
    value: Any


class Unanswered(Exception):
    """The witness could not answer: it crashed, timed out or broke the protocol. The
    message is a sentence for the student in which "{what}" names the question."""


# ------------------------------------------------------------ grader side ----------

class Ask:
    def __init__(self, answer, seed: int):
        self._answer = answer   # (expr, encoded inputs) -> {"ok": data} | {"error": str}
        self.seed = seed

    def run(self, expr: str, *, what: str | None = None, hint: str = "", **inputs) -> Any:
        """The value of `expr`, or a failure '<what> raised <error>; <hint>'."""
        what = what or expr
        try:
            reply = self._answer(expr, {k: _input(v) for k, v in inputs.items()})
        except Unanswered as exc:
            checks.fail(str(exc).replace("{what}", what) + ".")
        if "error" in reply:
            checks.fail(f"{what} raised {reply['error']}" + (f"; {hint}" if hint else "."))
        return wire.decode(reply["ok"])

    def defined(self, name: str) -> bool:
        """Whether the notebook defined `name` (and not as None)."""
        return bool(self.run(f"__notebook__.get({name!r}) is not None"))

    def rng(self, key: int) -> np.random.Generator:
        """Inputs drawn at grading time: the runner picks a fresh seed per grading."""
        return np.random.default_rng([key, self.seed])

    def normal(self, key: int, shape: tuple, scale: float = 1.0) -> np.ndarray:
        return (self.rng(key).standard_normal(shape) * scale).astype(np.float32)

    def uniform(self, key: int, shape: tuple, low: float, high: float) -> np.ndarray:
        return self.rng(key).uniform(low, high, shape).astype(np.float32)


def _input(value) -> dict:
    if isinstance(value, numpy):
        return {"as": "numpy", "value": wire.encode(np.asarray(value.value))}
    if isinstance(value, np.ndarray) or type(value).__name__ == "ArrayImpl":
        return {"as": "jax", "value": wire.encode(np.asarray(value))}
    return {"as": "data", "value": wire.encode(value)}


class Remote:
    """What the runner hands to test functions as Otter's `env`."""

    def __init__(self, answer, seed: int):
        self.ask = Ask(answer, seed)

    def get(self, name, default=None):  # Otter passes env.get(arg) for other parameters
        return default


def connect(env) -> Ask:
    if isinstance(env, Remote):
        return env.ask
    # Otter's in-process runs: a fixed seed, so `grader.check` gives stable feedback.
    return Ask(lambda expr, inputs: evaluate(env, expr, inputs), seed=0)


# ----------------------------------------------------------- witness side ----------

def _tools() -> dict:
    import jax
    import jax.numpy as jnp
    import scipy
    import scipy.special  # noqa: F401

    from autograder import facts, inspection, provenance
    provenance.install()  # under Otter's own runs: from the first question on
    return {"jax": jax, "jnp": jnp, "np": np, "scipy": scipy, "checks": checks,
            "inspection": inspection, "facts": facts, "provenance": provenance}


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
                     **_tools(), **{k: _materialize(v) for k, v in inputs.items()}}
        namespace["__builtins__"], namespace["__notebook__"] = builtins, user_ns
        value = eval(compile(expr, "<question>", "eval"), namespace)  # noqa: S307
        return {"ok": wire.encode(value)}
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from student code too
        return {"error": checks.describe(exc)}
