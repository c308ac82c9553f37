"""Is a mutant wrong? Decided without the grader: the answer's notebook cells are run here
(as the witness runs them, one namespace per mutant, in one process for a batch), then the
assignment's oracle (assignments/<name>.py) checks its values on a ladder of shapes and
sizes (large ones included: above every size a threshold in generate.SIZES sits at)
against a float64 reference, eagerly and under jit, and its provenance by the same run with
the piece poisoned (every output element must be the poison). An effects mutant is wrong by
construction. An assignment's `prepare()`, if it has one, runs before each mutant's cells
(silu_ffi: an FFI target name binds once per process, so each mutant's are renamed). A
mutant this finds nothing wrong with is equivalent to the reference, and is counted, not
graded. What the oracles share is here.

    python -m autograder.authoring.mutants.oracle ASSIGNMENT MUTANTS_JSON   (prints JSON lines)
"""
from __future__ import annotations

import json
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

SHAPES = [(), (0,), (7,), (1000,), (1001,), (4097,), (65537,), ((1 << 20) + 3,), (3, 4, 5), (2, 3, 4, 5),
          (2, 3, 2, 3, 2), (1, 2, 1, 2, 1, 2)]


def uniform(shape, rng, low=-1e3, high=1e3) -> np.ndarray:
    return rng.uniform(low, high, size=shape).astype(np.float32)


def poison_like(shape_dtype):
    """The poison values (autograder.shared.poison) in a declared shape and dtype."""
    from autograder.shared import poison
    return poison.values(int(np.prod(shape_dtype.shape))).reshape(shape_dtype.shape).astype(shape_dtype.dtype)


@contextmanager
def poisoned_callbacks():
    """jax.pure_callback with every host function replaced by one that returns the poison
    values in the declared shape and dtype."""
    import jax
    real = jax.pure_callback

    def poisoned(callback, result_shape, *args, **kwargs):
        ranks = [np.ndim(a) for a in jax.tree_util.tree_leaves(args)]

        def host(*a, **_k):   # under vmap (expand_dims, broadcast_all) the batch dims lead the operands
            first = jax.tree_util.tree_leaves(a)[0]
            batch = np.shape(first)[:np.ndim(first) - ranks[0]] if ranks else ()
            return jax.tree_util.tree_map(
                lambda r: poison_like(jax.ShapeDtypeStruct(batch + tuple(r.shape), r.dtype)), result_shape)
        return real(host, result_shape, *args, **kwargs)
    jax.pure_callback = poisoned
    try:
        yield
    finally:
        jax.pure_callback = real


def judge(assignment: str, notebook_cells: list[str]) -> str:
    """Why the answer whose gradable cells are `notebook_cells` is wrong ("": it is not)."""
    from autograder.authoring.mutants import assignments
    module = assignments.load(assignment)
    env: dict = {"__name__": "__main__"}
    try:
        getattr(module, "prepare", lambda: None)()   # a fresh start per mutant (new FFI target names)
        for source in notebook_cells:
            exec(compile(source, "<cell>", "exec"), env)
        return module.oracle(env)
    except Exception as exc:   # the mutant's own failure: wrong
        return f"raised {type(exc).__name__}: {str(exc)[:200]}"


def judged(assignment: str, answers: list, folder: Path) -> dict[str, str]:
    """The oracle's verdict on each answer (a mutant or a variant: .name, .kind, .code): why
    it is wrong, "" when it is not; in one process (JAX imported once), in `folder`."""
    from autograder.shared import catalogue, gradable
    batch = folder / "answers.json"
    batch.write_text(json.dumps([{"name": a.name, "kind": a.kind, "cells": [
        source for _, source in gradable.gradable_cells(catalogue.submission(assignment, a.code))]} for a in answers]))
    run = subprocess.run([sys.executable, "-m", "autograder.authoring.mutants.oracle", assignment, str(batch)],
                         capture_output=True, text=True, cwd=folder)
    found = {}
    for line in run.stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            found[item["name"]] = item["wrong"]
    missing = [a.name for a in answers if a.name not in found]
    if missing:
        raise SystemExit(f"the oracle stopped before {missing[0]}:\n{run.stderr[-3000:]}")
    return found


def main(assignment: str, mutants_json: str) -> None:
    for item in json.loads(open(mutants_json).read()):
        why = "an effect, by construction" if item["kind"] == "effects" else judge(assignment, item["cells"])
        print(json.dumps({"name": item["name"], "wrong": why}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
