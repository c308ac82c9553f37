"""The student's side of grading: execute the notebook, then answer the grader's questions.

    python -I -m autograder.witness CELLS_JSON SKIP_CELLS REQUEST_FD REPLY_FD   (SKIP_CELLS: 1,4 or -)

Started by autograder.runner as the unprivileged `student` user with resource limits, in
a work folder holding only the notebook, which it runs as Jupyter's kernel would (see
docs/students.md, "How the grader runs your notebook"); the runner lists the cells to run in CELLS_JSON
(autograder.shared.gradable). It never sees a test: it receives expressions
with their inputs (autograder.shared.probe) and sends back plain data (autograder.shared.wire).
Messages it sends: {"cell": i} before each code cell, {"ready": {"errors": [...]}}
after the notebook, then one reply per question.
"""
from __future__ import annotations

import os
import sys

from autograder.shared import gradable


def _prepare(imports: list[str], exercise: str):
    """Import what questions use (the exercise's own observations among it), before any
    student code, and snapshot it."""
    with open("/proc/self/oom_score_adj", "w") as f:  # the OOM killer takes us first
        f.write("1000")
    import importlib

    from autograder.shared import xla_cache
    xla_cache.link()        # a batch's warm executables (make validate), before anything compiles
    import jax
    import jax.numpy  # noqa: F401
    import jax.test_util  # noqa: F401
    for module in imports:  # what this assignment's questions use beyond JAX (SciPy: 0.8 s)
        importlib.import_module(module)

    from autograder.witness import evaluate, fingerprint, handover, hostcall, observe, registry, substitute  # noqa: F401
    from autograder.witness.guard import ModuleGuard
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    evaluate.exercise_witness(exercise)   # imported (and cached) before any student code
    jax.numpy.zeros(1).block_until_ready()  # start the CPU backend outside the notebook's time
    hostcall.install()      # the audit hook, before any student code
    from autograder.witness import worlds
    worlds.ALONE = True     # the notebook runs alone here: host functions are judged in two worlds
    registry.install()      # record FFI registrations from here on; the grader's poison target
    config = Config()
    config.HistoryManager.enabled = False   # In, Out, _ and _i3 kept in memory; no SQLite file
    shell = InteractiveShell.instance(config=config)
    from autograder.witness import atfork
    atfork.snapshot()       # the at-fork hooks the worlds' forks run: none of the notebook's
    guard = ModuleGuard()
    guard.bind(worlds, "GUARD", guard)   # the worlds put the grader's code back before each fork
    _folder_on_path()
    return shell, guard


def _folder_on_path() -> None:
    """What ipykernel's shell adds that `python -I` leaves out (IPython's
    InteractiveShellApp.init_path, which -I's safe_path turns off): '' on sys.path, before the
    first site-packages, so that a module the notebook writes in its folder (the working
    folder: the runner starts us there) imports as in Jupyter. Done after every import above:
    a student's numpy.py or jax.py cannot replace a module already imported, and the
    standard library comes before ''."""
    if "" in sys.path:
        return
    index = next((i for i, p in enumerate(sys.path)
                  if os.path.basename(p) in ("site-packages", "dist-packages")), 0)
    sys.path.insert(index, "")


def main(cell_list: str, skip: str, request_fd: str, reply_fd: str) -> None:
    from autograder.shared import wire
    from autograder.shared.errors import describe
    from autograder.witness.evaluate import evaluate

    requests = os.fdopen(int(request_fd), "rb")
    replies = os.fdopen(int(reply_fd), "wb")
    exercise, imports, sources = gradable.read(cell_list)
    shell, guard = _prepare(imports, exercise)
    skipped = {int(i) for i in skip.split(",") if i.isdigit()}
    errors = []
    for index, source in sources:
        if index in skipped:
            continue
        wire.send(replies, {"cell": index})
        result = shell.run_cell(source, store_history=True)   # as ipykernel: In[n], Out[n], _
        if not result.success:
            exc = result.error_in_exec or result.error_before_exec
            errors.append([index, describe(exc) if exc else "an error"])
    sys.stdout.flush()
    wire.send(replies, {"ready": {"errors": errors}})
    guard.restore()
    dirty = False
    while True:
        message = wire.receive(requests.read, None)
        if message.get("op") != "eval":
            break
        serving = bool(message.get("serving"))
        if dirty and not serving:
            guard.restore()   # after a run of served host callbacks, before any other question
        reply = evaluate(shell.user_ns, message["expr"], message.get("inputs", {}), exercise)
        sys.stdout.flush()
        wire.send(replies, reply)
        # Undo what this question's student code patched before the next question arrives,
        # while the grader reads the reply (it costs ~20 ms; done here it overlaps). A served
        # host callback defers it: one program run may reach thousands of them.
        dirty = serving
        if not serving:
            guard.restore()


if __name__ == "__main__":
    main(*sys.argv[1:])
