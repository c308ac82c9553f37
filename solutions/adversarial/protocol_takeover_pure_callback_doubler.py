"""Protocol takeover, the issue's own example: pure_callback_doubler computed with jnp (no
callback), and a cell that takes over the witness's pipes (their numbers are in its
sys.argv) to answer every grading question itself, where the guard never runs (here with
evaluate's own answers; a forger would report one pure_callback, a NumPy host function and
poisoned runs that change). The issue reports 10/10 for such a cell
(4 without the takeover). Now the runner reads the notebook before running it:
importing sys and os is outside the readable subset, so the notebook is not run and every
test fails with that reason.

assignment: pure_callback_doubler
score: 0
messages:
  - your notebook uses code this task's answers may not use (cell
  - it imports os
"""
import os
import sys


def pure_callback_doubler(x):
    return jnp.asarray(x) * 2


if sys.argv and sys.argv[0].endswith(os.path.join("autograder", "witness", "__main__.py")):
    from autograder.shared import wire
    from autograder.witness.evaluate import evaluate
    requests = os.fdopen(int(sys.argv[-2]), "rb")
    replies = os.fdopen(int(sys.argv[-1]), "wb")
    wire.send(replies, {"ready": {"errors": []}})
    while True:
        message = wire.receive(requests.read, None)
        if message.get("op") != "eval":
            os._exit(0)
        wire.send(replies, evaluate(globals(), message["expr"], message.get("inputs", {})))
