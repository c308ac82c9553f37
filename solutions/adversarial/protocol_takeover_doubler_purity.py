"""Protocol takeover, the stated limit: after the program of wrong_impure_print (a correct
pure_callback whose host function prints), a cell takes over the witness's pipes (their
numbers are in its sys.argv) and answers the questions only the student's process can
answer (the host function called directly, its output, its state) from a silent host
function it keeps aside, handing over the real program when the grader asks for it. The
program is right, so the executor's gate passes, and the purity test, which rests on what
the student's process reports, is forged: the takeover gains that one witness-only point
(9 -> 10), as the task text and the README say, and no test whose verdict the executor
computes.

assignment: pure_callback_doubler
base: wrong_impure_print
score: 10
absent:
  - of your notebook raised
"""
import os
import sys


def _silent_host(arr):
    return np.asarray(arr) * 2


def _silent_doubler(x):
    return jax.pure_callback(_silent_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


if sys.argv and sys.argv[0].endswith(os.path.join("autograder", "witness", "__main__.py")):
    from autograder.shared import wire
    from autograder.witness.evaluate import evaluate
    requests, replies = os.fdopen(int(sys.argv[-2]), "rb"), os.fdopen(int(sys.argv[-1]), "wb")
    silent = {**globals(), "pure_callback_doubler": _silent_doubler}
    wire.send(replies, {"ready": {"errors": []}})
    while True:
        message = wire.receive(requests.read, None)
        if message.get("op") != "eval":
            os._exit(0)
        expr = message["expr"]
        wire.send(replies, evaluate(globals() if expr.startswith("handover.") else silent, expr,
                                    message.get("inputs", {}), "pure_callback_doubler"))
