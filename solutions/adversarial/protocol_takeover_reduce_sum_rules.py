"""Protocol takeover on top of a batching rule that sums with jnp.sum (base:
wrong_batch_with_jnp_sum, 7 points): a cell that takes over the witness's pipes (their
numbers are in its sys.argv) and answers every question itself, where the guard never runs,
each with the witness's own code but with a correct batching rule put in JAX's table first,
so the rule poisons, the eager values and the tables all look like a correct answer's;
only the programs it hands over (handover.program) are lowered with the cell's real rule.
Before the grader ran those programs itself, such a cell earned 10/10. Now every test
also grades its program in the executor, where custom_reduce_sum_p is a custom_call to the
grader's kernel: the vmapped sums do not come from it, so the three tests that vmap are
lost, exactly as the same code without the takeover loses them (7).

assignment: reduce_sum_rules
base: wrong_batch_with_jnp_sum
score: 7
messages:
  - In the grader's run of the compiled program of jax.vmap of custom_reduce_sum, the values do not come from custom_reduce_sum_p
  - the batching rule must bind custom_reduce_sum_p on the batched operand, not compute the sum another way
"""
import os
import sys


def _correct_batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


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
        expr = message["expr"]
        batching.primitive_batchers[custom_reduce_sum_p] = _batch if expr.startswith("handover.") else _correct_batch
        wire.send(replies, evaluate(globals(), expr, message.get("inputs", {}), "reduce_sum_rules"))
