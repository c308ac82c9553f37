"""Otter's own runs of the tests (grader.check, otter assign, otter run): the notebook's
process is the student's side, so it answers its own questions (autograder.witness.evaluate)
and runs the programs itself (autograder.executor.program, every FFI target as the notebook
registered it), with a fixed seed for stable feedback. Registered with
autograder.shared.probe when the notebook's `Notebook` (autograder.student.notebook) is
imported; the runner's gradings never come here (their `env` is a probe.Remote). JAX and
the grading tools are imported on the first question, not with the Notebook."""
from __future__ import annotations

from autograder.shared import probe


def ask(env: dict, exercise: str = "") -> probe.Ask:
    """The Ask of a notebook answering itself (`env` is its globals)."""
    from autograder.executor import program
    from autograder.witness.evaluate import evaluate
    handlers = _handlers()
    from autograder.shared import wire
    # what the executor's pipe would give: records rebuilt as data (no object of this process)
    return probe.Ask(lambda expr, inputs, serving=False: evaluate(env, expr, inputs, exercise), seed=0,
                     execute=lambda request, serve=None: wire.decode(wire.encode(program.handle(request, handlers,
                                                                                                serve))))


def _handlers():
    """The notebook's own process as the executor: the answer's library is already loaded
    here, and each handler is as the witness's registry saw it registered."""
    from autograder.executor.handlers import Handlers
    from autograder.witness.registry import handler

    class InProcess(Handlers):
        def resolve(self, targets, bindings):
            self.course()
            return ""

        def describe(self, target):
            return handler(target)
    return InProcess()


probe.answer_in_process(ask)
