"""Structure proven at every shape: verdicts on the evidence.Structure of a program lowered at
abstract shapes (probe.Ask.structures; shapes from autograder/shared/shapes.py).

A test asks for one path at every shape, then states what each program must be:

    structures = ask.structures("jax.vmap(silu_ffi)", specs, what="jax.vmap(silu_ffi)")
    proofs.expect_every(structures, specs, proofs.output_from(is_forward, "your forward kernel"),
                        what="jax.vmap(silu_ffi)")

and the sentence names the smallest shape where it does not hold ("For inputs of shape
(2^19,), jax.jit(f)'s output is not the output of the pure_callback: it is computed in JAX
(multiply) from your input."). Values and poisoned runs stay on small inputs; what is
proven here holds for every shape the specs cover.
"""
from __future__ import annotations

from collections.abc import Callable

from autograder.shared import checks, placement, shapes
from autograder.shared.evidence import LOOP_INIT, Call, Origin, Structure, dims

Rule = Callable[[Structure], str]   # "" when the program is right, else what is wrong (a phrase)


def _size(spec) -> int:
    total = 0
    for shape, _ in spec:
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


def _label(spec) -> str:
    return " and ".join(shapes.label(tuple(shape)) for shape, _ in spec)


# The largest input (elements) a program the reading could not follow is run at instead
# (`run` of expect_every): 8 MB of float32, sent to the executor and back twice.
RUN_ELEMENTS = 1 << 21


def expect_every(structures: list[Structure], specs: list, rule: Rule, *, what: str, hint: str = "",
                 run: Callable[[list], None] | None = None) -> None:
    """Every program meets `rule`; else the sentence names the smallest input where it does not
    (an empty one only when no other fails). A program whose positions the reading could not
    follow (placement.Unfollowed: not a counterexample) is judged by running it instead, when
    the test gives `run` (which fails the test itself, naming the shape) and the input has at
    most RUN_ELEMENTS elements; past that it is not refused (docs/verdicts.md). A `run` with
    an attribute `together` is handed all those specs at once, smallest first."""
    failures, unfollowed = [], []
    for structure, spec in zip(structures, specs):
        problem = rule(structure) if not structure.refused else (
            structure.refused if structure.refused.startswith("the program ") else
            f"lowering it fails ({structure.refused})")
        if isinstance(problem, placement.Unfollowed) and run is not None:
            unfollowed.append((_size(spec), spec))
        elif problem:
            failures.append((_size(spec) == 0, _size(spec), _label(spec), problem))
    if failures:   # the smallest input that has elements tells most
        *_, label, problem = min(failures)
        checks.fail(f"For inputs of shape {label}, {what}: {problem}" + (f"; {hint}" if hint else "."))
    runnable = [spec for size, spec in sorted(unfollowed, key=lambda u: u[0]) if size <= RUN_ELEMENTS]
    if runnable and hasattr(run, "together"):
        run.together(runnable)   # one program for many shapes (a test's own packing)
    else:
        for spec in runnable:
            run(spec)


def sources_phrase(origin: Origin, calls: list[Call]) -> str:
    """What a value comes from, in words: "computed in JAX (multiply, select) from your input
    and the output of xla_ffi_python_cpu_callback"."""
    words = []
    inputs = [s for s in origin.sources if s.startswith("input:")]
    if inputs:
        words.append("your input" if len(inputs) == 1 else "your inputs")
    for i in origin.calls():
        words.append(f"the output of {calls[i].target}" if i < len(calls) else "a custom_call")
    if "constant" in origin.sources:
        words.append("constants")
    if not words and LOOP_INIT in origin.sources:
        words.append("a loop's initial buffer")
    where = " and ".join(words) or "nothing"
    return f"computed in JAX ({', '.join(origin.math)}) from {where}" if origin.math else f"{where}, only moved"


def which(s: Structure, k: int, names=None) -> str:
    """Output `k` of `s` in words: names(s, k) where a test names its outputs, else "the
    output" (the only one) or "output k"."""
    if names is not None:
        return names(s, k)
    return "the output" if len(s.outputs) == 1 else f"output {k}"


def output_from(pick: Callable[[Call], bool], name: str, outputs: tuple[int, ...] | None = None) -> Rule:
    """Each output (or those of `outputs`) is, in every element, the output of custom_calls that
    `pick` accepts, only moved (reshaped, transposed, sliced, broadcast): no math beside them."""
    def rule(s: Structure) -> str:
        allowed = {i for i, c in enumerate(s.calls) if pick(c)}
        if not allowed:
            return f"{name} is not in the program"
        for k, origin in enumerate(s.outputs):
            if (outputs is None or k in outputs) and not origin.moved_from(allowed):
                return f"{which(s, k)} is not the output of {name}: it is {sources_phrase(origin, s.calls)}"
        return ""
    return rule


def upstream(s: Structure, calls) -> tuple[set[int], list[Origin]]:
    """The custom_calls `calls` take values from, directly or through other calls' operands
    (`calls` included), and every operand read on the way."""
    seen, todo, operands = set(), list(calls), []
    while todo:
        i = todo.pop()
        if i in seen or not 0 <= i < len(s.calls):
            continue
        seen.add(i)
        for operand in s.operands[i] if i < len(s.operands) else ():
            operands.append(operand)
            todo += operand.calls()
    return seen, operands


def pieces(origin: Origin, source: str) -> list:
    """The pieces (positions.py) of `origin` that sit in `source` ("input:0"), as tuples."""
    def tupled(x):
        return tuple(tupled(y) for y in x) if isinstance(x, list) else x
    return [tupled(p[1:]) for p in origin.places if p[0] == source]


def in_place(outputs: tuple[int, ...] | None = None, names=None, *, source: int = 0, perm=None) -> Rule:
    """Each output (or those of `outputs`) takes each element from input `source`'s element
    at the same position (perm(s, k): output k's dimension d is the input's perm[d]; None: the
    same position), through every layout operation and while loop (shared/positions.py)."""
    def rule(s: Structure) -> str:
        if source >= len(s.inputs):
            return ""
        src = dims(s.inputs[source])
        for k, origin in enumerate(s.outputs):
            if (outputs is None or k in outputs) and not empty(s, k):
                found = placement.misplaced(pieces(origin, f"input:{source}"), dims(s.results[k]), src,
                                            "your input", None if perm is None else perm(s, k), which(s, k, names))
                if found:
                    return found
        return ""
    return rule


def calls_of(pick: Callable[[Call], bool], name: str, count: int | None = 1, *,
             exactly: Callable[[Call], bool] | None = None) -> Rule:
    """The program calls `pick`'s kind of custom_call `count` times (None: at least once), and
    no other of the kind `exactly` accepts (e.g. no other host callback)."""
    def rule(s: Structure) -> str:
        n = sum(1 for c in s.calls if pick(c))
        if (count is None and n == 0) or (count is not None and n != count):
            return f"the program holds {n} {name}" + ("" if count is None else f" where the task asks for {count}")
        if exactly is not None:
            others = sorted({c.target for c in s.calls if exactly(c) and not pick(c)})
            if others:
                return f"the program also calls {', '.join(others)}"
        return ""
    return rule


def all_of(*rules: Rule) -> Rule:
    """Every rule holds: the first counterexample, else the first placement.Unfollowed (a rule
    that could not follow the program never hides another's counterexample)."""
    def rule(s: Structure) -> str:
        unfollowed = ""
        for r in rules:
            problem = r(s)
            if problem and not isinstance(problem, placement.Unfollowed):
                return problem
            unfollowed = unfollowed or problem
        return unfollowed
    return rule


def empty(s: Structure, k: int | None = None) -> bool:
    """Output `k` (None: every output) has no elements (a dimension 0): no values to take from
    anywhere."""
    results = s.results if k is None else s.results[k:k + 1]
    return bool(results) and all(0 in dims(r) for r in results)


class _ShapeFree:
    """What values and calls of programs are, shapes, the calls' order and their number aside
    (a sequential vmap calls a kernel once per example), as small integers: a call is its
    target, kind, side effect, attributes (but a host callback's index) and what each of its
    operands is; a value is its JAX operations and its distinct sources, a call by what it is.
    One table serves the programs compared, so equal numbers mean the same thing. Iterative
    and memoized per call: linear in a program's calls and operands, at any depth (a call in a
    loop that feeds itself is its target, "in a loop")."""

    def __init__(self):
        self._ids: dict[tuple, int] = {}

    def _id(self, key: tuple) -> int:
        return self._ids.setdefault(key, len(self._ids))

    def calls(self, s: Structure) -> dict[int, int]:
        """Each call's number: {call index: what it is}."""
        done: dict[int, int] = {}
        for root in range(len(s.calls)):
            stack, open_ = [(root, False)], set()
            while stack:
                i, ready = stack.pop()
                if i in done:
                    continue
                operands = s.operands[i] if i < len(s.operands) else []
                if not ready:
                    open_.add(i)
                    stack.append((i, True))
                    stack += [(j, False) for o in operands for j in o.calls()
                              if j < len(s.calls) and j not in done and j not in open_]
                    continue
                c = s.calls[i]
                attributes = tuple(sorted((k, repr(a.value)) for k, a in c.attributes.items() if k != "index"))
                done[i] = self._id(("call", c.target, c.kind, c.side_effect, attributes,
                                    tuple(self.value(s, o, done) for o in operands)))
                open_.discard(i)
        return done

    def value(self, s: Structure, origin: Origin, called: dict[int, int]) -> int:
        parts = set()
        for source in origin.sources:
            i = int(source.removeprefix("call:")) if source.startswith("call:") else None
            if i is None or i >= len(s.calls):
                parts.add(source)
            else:
                parts.add(called[i] if i in called else f"{s.calls[i].target} in a loop")
        return self._id(("value", tuple(sorted(parts, key=repr)), tuple(origin.math)))


def same_as(base: Structure, base_label: str, *, outputs: tuple[int, ...] | None = None,
            base_output: int | None = None, names=None) -> Rule:
    """The program is, shapes aside (_ShapeFree), the one lowered at `base` (whose values the
    tests checked): the same kinds of custom_calls, and each output (those of `outputs`) what
    the same output of `base` is (or, given `base_output`, what that one is). A difference
    without operations the base does not use (a loop, a pad, other moves) is
    placement.Unfollowed: the program may be judged by running it. Outputs without
    elements are left out: they have no values to take from anywhere, and JAX itself lowers
    some operations on empty arrays otherwise (jnp.nan_to_num). A base that did not lower is
    named by expect_every itself."""
    table = _ShapeFree()
    base_calls = table.calls(base)
    want = [table.value(base, o, base_calls) for o in base.outputs]

    def rule(s: Structure) -> str:
        if base.refused or empty(s):
            return ""
        calls = table.calls(s)
        if base_output is None and _kinds(s.calls) != _kinds(base.calls):
            return placement.Unfollowed(f"the program calls {_calls(s.calls) or 'no custom_call'} where at "
                                        f"{base_label} it calls {_calls(base.calls) or 'none'}")
        for k, origin in enumerate(s.outputs):
            b = k if base_output is None else base_output
            if (outputs is not None and k not in outputs) or empty(s, k) or b >= len(want):
                continue
            if table.value(s, origin, calls) != want[b]:
                got, had = sources_phrase(origin, s.calls), sources_phrase(base.outputs[b], base.calls)
                if got != had:
                    phrase = f"{which(s, k, names)} is {got}, where at {base_label} it is {had}"
                    return phrase if set(origin.math) - set(base.outputs[b].math) else placement.Unfollowed(phrase)
                break
        else:
            if base_output is not None or set(calls.values()) == set(base_calls.values()):
                return ""
        phrase = f"the operands of its custom_calls are computed otherwise than at {base_label}"
        return phrase if _math(s) - _math(base) else placement.Unfollowed(phrase)
    return rule


def _math(s: Structure) -> set:
    """The operations computing the operands of a program's custom_calls."""
    return {m for operands in s.operands for o in operands for m in o.math}


def _kinds(calls: list[Call]) -> set:
    return {(c.target, c.kind, c.side_effect) for c in calls}


def _calls(calls: list[Call]) -> str:
    return ", ".join(dict.fromkeys(c.target for c in calls))
