"""How tests ask about a student's answer without touching it.

Every test function takes Otter's `env` and asks through the Ask its exercise's grader
connects (`with kit.case(env, concept="...") as ask:`, which is `probe.case`):

    x = ask.normal(31, (3, 7), scale=4)                 # float32 NumPy input
    y = ask.run("jax.jit(silu_ffi)(x)", x=x, what="jax.jit(silu_ffi)", hint="...")
    n = ask.run('observe.count_eqns(f, x, primitive="pure_callback")', x=x, what="Tracing f")
    report = ask.program("silu", "x", x=x, what="jax.jit(silu)")  # the program, run by the executor

`ask.run` evaluates one expression where the answer lives and returns plain data
(NumPy arrays, lists, dicts of data, numbers, strings; other objects as `wire.Opaque`).
The expression sees the notebook's globals plus `jax`, `jnp`, `np`, `checks`, `inspection`,
`observe`, `registry` and `handover` (autograder/witness/), `witness` (the exercise's own
observations, autograder/assignments/<name>/witness.py, where it has some) and the named
inputs (arrays arrive as jax arrays; wrap one in `probe.numpy(x)` to pass a NumPy array).

- In Otter's own runs (`grader.check`, `otter assign`, `otter run`), `env` is the
  notebook's globals and the expression is evaluated in that process
  (autograder.student.in_process, registered by the notebook's Notebook).
- In our runner (autograder.runner), `env` is a `Remote`: the expression goes to the
  witness, a separate unprivileged process that executed the notebook, and only the
  data comes back. The test code, its expected values and the verdict stay in the
  grader's process. Both paths go through `evaluate` and the wire format, so a test
  sees the same data either way.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.shared import checks, packing, wire
from autograder.shared.evidence import Handover, KernelCall, Lowered, Program, Report, Structure, tensor_type


@dataclass(frozen=True)
class numpy:  # noqa: N801  (reads as a marker: probe.numpy(x))
    """An input to hand to the expression as a NumPy array instead of a jax array."""
    value: Any


class Unanswered(Exception):
    """The witness could not answer: it crashed, timed out or broke the protocol. The
    message is a sentence for the student in which "{what}" names the question."""


# ------------------------------------------------------------ grader side ----------

class Ask:
    def __init__(self, answer, seed: int, execute=None):
        self._answer = answer   # (expr, encoded inputs, serving) -> {"ok": data} | {"error": str}
        # (executor request, serve) -> executor reply (autograder.executor.program.handle)
        self._execute = execute
        self.seed = seed
        self._programs: dict = {}   # Ask.program's reports, by question: tests' gates ask the same one
        # Seconds spent waiting, by where (make bench's profile: grading.json's cases): "witness"
        # (questions), "served" (host callbacks served for the executor, inside "executor").
        self.spent: collections.Counter = collections.Counter()

    def run(self, expr: str, *, what: str | None = None, hint: str = "", serving: bool = False,
            **inputs) -> Any:
        """The value of `expr`, or a failure '<what> raised <error>; <hint>'. `serving`: the
        question serves a host callback for the executor (see Ask.program)."""
        what = what or expr
        started = time.perf_counter()
        try:
            reply = self._answer(expr, {k: _input(v) for k, v in inputs.items()}, serving)
        except Unanswered as exc:
            checks.fail(str(exc).replace("{what}", what) + ".")
        finally:
            self.spent["served" if serving else "witness"] += time.perf_counter() - started
        if "error" in reply:
            checks.fail(f"{what} raised {reply['error']}" + (f"; {hint}" if hint else "."))
        try:
            return wire.decode(reply["ok"])
        except wire.WireError as exc:   # not data (an array of nothing, sizes that are not there): refused unread
            checks.fail(f"{what} came back as something that is not data ({exc})")

    def program(self, fn: str, *args: str, what: str, hint: str = "", each: bool = False,
                replace: tuple[str, ...] = (), optional: bool = False, kernels: bool = True,
                **inputs) -> Report | None:
        """The program that `fn` (an expression naming a function) builds under jax.jit on
        the inputs named by `args`, read and run outside the student's Python: the witness
        hands over only its StableHLO text (and which exported function each FFI target it
        registered is); the executor (autograder.executor, its own unprivileged process
        with the course's kernels and the answer's kernel source compiled by the grader)
        reads its custom_calls and runs it on the grader's own input arrays, as is and
        poisoned. Each host callback the executor's runs reach is served by the witness's
        host function (autograder/witness/handover.py: from the record of its own run
        where the operands are the same, live otherwise), and, for each dotted name of
        `replace` (scipy.special.gammaln), once more with that function poisoned where the
        witness serves: the report's poisoned[name]. Returns the executor's evidence.Report,
        its `program` what kernel_call needs to call one of its kernels again. The same
        question is answered once per grading.
        `optional`: None, not a failure, when the answer cannot even lower `fn` (a path whose
        failure is another test's business); the executor's verdicts are never optional.
        `kernels=False`: the FFI calls are not poisoned (no report.poisoned for them: a test
        that judges only the values saves the compile of a poisoned program)."""
        key = (fn, args, each, replace, kernels, tuple(sorted((k, _fingerprint(v)) for k, v in inputs.items())))
        if key not in self._programs:
            try:
                handed = self.run(f"handover.program({fn}, {', '.join(args)}, replace={tuple(replace)!r})",
                                  what=what, hint=hint, **inputs)
            except AssertionError:
                if optional:
                    return None
                raise
            self._programs[key] = self._program(handed, args, what=what, each=each, replace=replace,
                                                kernels=kernels, **inputs)
        return self._programs[key]

    def _program(self, handed, args: tuple, *, what: str, each: bool, replace: tuple, kernels: bool = True,
                 **inputs) -> Report:
        checks.expect(isinstance(handed, Handover), f"Lowering {what} gave no program.")
        text, bindings, pid, recorded = handed.text, handed.bindings, handed.pid, handed.recorded
        arrays = [np.asarray(inputs[a].value if isinstance(inputs[a], numpy) else inputs[a]) for a in args]

        def serve(index: int, operands: list, context: int) -> list:
            names = replace[context:context + 1] if context >= 0 else ()
            named = {f"o{i}": numpy(o) for i, o in enumerate(operands)}
            return self.run(f"handover.serve({pid}, {int(index)}, [{', '.join(named)}], {tuple(names)!r})",
                            what=f"Your host function, called by the grader's run of {what},", serving=True,
                            **named)

        report = self._executed({"op": "run", "text": text, "args": arrays, "each": each, "bindings": bindings,
                                 "replace": len(replace), "recorded": recorded, "kernels": kernels},
                                what, serve, Report)
        poisoned = dict(report.poisoned)
        for i, name in enumerate(replace):   # the executor numbers them; the tests name them
            poisoned[name] = poisoned.pop(f"replace:{i}", None)
        return dataclasses.replace(report, poisoned=poisoned, program=Program(text, bindings))

    def structures(self, fn: str | list[str], specs: list, *, what: str, hint: str = "",
                   outputs: list[int] | None = None, **inputs) -> list[Structure]:
        """`fn` (an expression naming a function; or one per spec) lowered by jax.jit at each of `specs`, abstract
        shapes (per argument a (shape, dtype) pair: nothing is allocated or run, so 2^31 - 1
        elements cost what 8 do), and read by the executor on its graph alone
        (autograder/shared/dataflow.py): an evidence.Structure per spec, whose `refused` says
        why there is none (the lowering raised; the program takes other inputs than asked).
        `outputs`: how many outputs `fn` has at each spec; given, the specs are lowered side by
        side as one program and read apart (shared/packing.py), or one by one when that one
        cannot be lowered or read (so a failure names its own shape).
        `inputs`: names the expression `fn` may use besides (as in Ask.run)."""
        specs = [[(tuple(int(d) for d in shape), str(np.dtype(dtype))) for shape, dtype in spec] for spec in specs]
        fns = [fn] * len(specs) if isinstance(fn, str) else list(fn)
        key = ("structures", tuple(fns), repr(specs), tuple(sorted((k, _fingerprint(v)) for k, v in inputs.items())))
        if key not in self._programs:   # tests of one grading ask for the same paths
            found = None
            if outputs is not None and len(specs) > 1:
                (whole,) = self._structures(packing.expression(fns, specs), [[a for spec in specs for a in spec]],
                                            what=what, hint=hint, **inputs)
                found = packing.split(whole, specs, list(outputs))
            if found is None:   # one lowering per function, of its specs one by one
                found = [None] * len(specs)
                for f in dict.fromkeys(fns):
                    mine = [k for k, g in enumerate(fns) if g == f]
                    for k, got in zip(mine, self._structures(f, [specs[k] for k in mine], what=what, hint=hint, **inputs)):
                        found[k] = got
            self._programs[key] = found
        return self._programs[key]

    def _structures(self, fn: str, specs: list, *, what: str, hint: str, **inputs) -> list[Structure]:
        handed = self.run(f"handover.lowered({fn}, specs)", what=what, hint=hint, specs=specs, **inputs)
        checks.expect(isinstance(handed, list) and len(handed) == len(specs)
                      and all(isinstance(h, Lowered) for h in handed), f"Lowering {what} gave no programs.")
        read = iter(self._executed({"op": "structure", "texts": [h.text for h in handed if h.text]},
                                   what, None, list))
        out = []
        for spec, h in zip(specs, handed):
            found = next(read, None) if h.text else None
            checks.expect(found is None or isinstance(found, Structure),
                          f"{what} was not read: the executor replied with no Structure.")
            wanted = [tensor_type(shape, dtype) for shape, dtype in spec]
            if found is None:
                found = Structure([], [], [], [], [], h.error if h.error.startswith("the program ")
                                  else f"lowering it raised {h.error}")
            elif not found.refused and found.inputs != wanted:
                found = dataclasses.replace(found, refused="the program handed over takes other inputs "
                                            f"({', '.join(found.inputs)}) than asked ({', '.join(wanted)})")
            out.append(found)
        return out

    def kernel_call(self, report: Report, index: int, operands: tuple, *, what: str) -> KernelCall:
        """Call custom_call number `index` of the program behind `report` (Ask.program's)
        directly on the grader's `operands`, in the executor."""
        return self._executed({"op": "call", "text": report.program.text, "bindings": report.program.bindings,
                               "index": index, "operands": [np.asarray(o) for o in operands]}, what, None, KernelCall)

    def _executed(self, request: dict, what: str, serve, kind: type):
        if self._execute is None:
            checks.fail(f"{what} was not computed: this grading has no executor for programs.")
        started = time.perf_counter()
        try:
            reply = self._execute(request, serve)   # data only: decoded once, from the executor's pipe
        except (Unanswered, wire.WireError) as exc:
            checks.fail(str(exc).replace("{what}", what) + ".")
        finally:
            self.spent["executor"] += time.perf_counter() - started
        checks.expect(isinstance(reply, kind), f"{what} was not computed: the executor replied with no {kind.__name__}.")
        return reply

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


def _fingerprint(value):
    """A hashable stand-in for one input of a question (arrays by dtype, shape and bytes)."""
    value = value.value if isinstance(value, numpy) else value
    if isinstance(value, np.ndarray) or type(value).__name__ == "ArrayImpl":
        array = np.asarray(value)
        return (str(array.dtype), array.shape, array.tobytes())
    return repr(value)


def _input(value) -> dict:
    if isinstance(value, numpy):
        return {"as": "numpy", "value": wire.encode(np.asarray(value.value))}
    if isinstance(value, np.ndarray) or type(value).__name__ == "ArrayImpl":
        return {"as": "jax", "value": wire.encode(np.asarray(value))}
    return {"as": "data", "value": wire.encode(value)}


class Remote:
    """What the runner hands to test functions as Otter's `env`."""

    def __init__(self, answer, seed: int, execute=None):
        self.ask = Ask(answer, seed, execute)

    def get(self, name, default=None):  # Otter passes env.get(arg) for other parameters
        return default


# How the notebook's own process answers its questions under Otter's in-process runs
# (grader.check, otter assign, otter run): autograder.student.in_process registers it when
# the notebook's `Notebook` is imported. shared/ cannot import the student's side itself.
_in_process: Callable[[dict, str], Ask] | None = None


def answer_in_process(make_ask: Callable[[dict, str], Ask]) -> None:
    """Register `make_ask(env, exercise)`, the Ask of a notebook answering itself."""
    global _in_process
    _in_process = make_ask


def connect(env, exercise: str = "") -> Ask:
    """The Ask of a test's `env`: the runner's Remote, or, in Otter's own runs, where `env` is
    the notebook's globals, the notebook's process answering itself; `exercise` names whose
    observations (autograder/assignments/<exercise>/witness.py) its questions use."""
    if isinstance(env, Remote):
        return env.ask
    if _in_process is None:
        checks.fail("These tests answer themselves only in a notebook whose grader is "
                    "autograder.student.Notebook; run the notebook's first cell.")
    return _in_process(env, exercise)


@contextlib.contextmanager
def case(env, *, concept: str, exercise: str = "", before: Callable[[Ask], None] | None = None,
         after: Callable[[Ask], None] | None = None, section: str = ""):
    """A test's one ritual: `with kit.case(env, concept="...") as ask:` connects (with the
    exercise's observations; `before` and `after`, an exercise's checks of what every test
    presupposes, run first and once the block finished), and whatever fails inside reads as
    checks.verdict makes it: the concept, then the sentence, then the chapter `section` to read."""
    try:
        ask = connect(env, exercise)
        if before is not None:
            before(ask)
        yield ask
        if after is not None:
            after(ask)
    except Exception as exc:  # student code may raise anything
        failure = checks.verdict(exc, concept, section)
    else:
        return
    raise failure
