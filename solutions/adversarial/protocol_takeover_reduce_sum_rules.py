"""Protocol takeover: custom_reduce_sum redefined with jnp.sum, and a cell that takes over the
witness's pipes (their numbers are in its sys.argv) to answer every grading question itself,
where the guard never runs (here with evaluate's own answers; a forger would rewrite the
poisoned runs and jaxpr facts, as protocol_takeover_ffi_lowering.py does for its program).
Before the readable subset such a cell could answer every question as it liked. Now the
runner reads the notebook before running it: importing sys and os is outside the subset,
so the notebook is not run and every test fails with that reason.

assignment: reduce_sum_rules
score: 0
messages:
  - your notebook uses code this task's answers may not use (cell
  - it imports os
"""
import os
import sys


def custom_reduce_sum(x, axis):
    return jnp.sum(x, axis=axis)


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
