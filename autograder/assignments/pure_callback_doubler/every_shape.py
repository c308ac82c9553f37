"""pure_callback_doubler at every length, read without running: jax.jit(pure_callback_doubler)
lowered at abstract shapes of every length from 0 to 2^31 - 1 (x is one-dimensional: the
task's words) and read by the executor (probe.Ask.structures); one pure_callback at every
length, the program the one checked at (5,), and the output the callback's, each element where
its input was. Where the reading stops (placement.Unfollowed), the program is run at that
length instead (by_running). Used by the hidden tests 5 and 9.
"""
from autograder.shared import evidence, proofs, shapes
from autograder.assignments.pure_callback_doubler import grader as kit

# The task's domain: x is one-dimensional. Every length from 0 to 2^31 - 1 (powers of two and
# the odd size above each), lowered at abstract shapes; (5,) is among them, the base the others
# must equal. What an answer does at another rank is outside the task and costs nothing.
EVERY_SHAPE = [[(shape, "float32")] for shape in shapes.flat()]
BASE = EVERY_SHAPE.index([((5,), "float32")])
JIT = "jax.jit(pure_callback_doubler)"


def structures(ask):
    """jax.jit(pure_callback_doubler) at every length of EVERY_SHAPE, read by the executor."""
    return ask.structures("pure_callback_doubler", EVERY_SHAPE, what=JIT, hint=kit.TRACING_HINT,
                          outputs=[1] * len(EVERY_SHAPE))


def _is_pure_callback(call):
    return call.kind == evidence.HOST_CALLBACK and not call.side_effect


def _one_pure_callback(s):
    """The program holds one host callback, without side effects."""
    found = [c for c in s.calls if c.kind == evidence.HOST_CALLBACK]
    if not found:
        return f"the program holds no jax.pure_callback; its output is {proofs.sources_phrase(s.outputs[0], s.calls)}"
    if len(found) > 1:
        return f"the program holds {len(found)} host callbacks, where the task asks for exactly one jax.pure_callback"
    if found[0].side_effect:
        return "its host callback has side effects (io_callback or jax.debug.callback), not jax.pure_callback's"
    return ""


def expect_one_pure_callback_everywhere(ask, found):
    """At every length: one pure_callback, and the program the one at shape (5,), shapes aside,
    or, where it is another, that program run at that length (by_running)."""
    proofs.expect_every(found, EVERY_SHAPE, proofs.all_of(_one_pure_callback, proofs.same_as(found[BASE], "(5,)")),
                        what=JIT, hint="call one NumPy host function through jax.pure_callback, the same way "
                        "for every length: no length may take a plain JAX path", run=by_running(ask))


def expect_result_from_callback_everywhere(ask, found):
    """At every length, the output is the pure_callback's output, only moved, each element where
    the input's element it is computed from was (proofs.in_place); where the reading cannot
    follow the positions, that program run at that length (by_running)."""
    proofs.expect_every(found, EVERY_SHAPE, proofs.all_of(proofs.output_from(_is_pure_callback, "the pure_callback"),
                                                          proofs.in_place()), what=JIT,
                        hint="return the callback's output itself, each element where its input was, for every length",
                        run=by_running(ask))


def by_running(ask):
    """The judge of a length whose program the reading could not follow (proofs.expect_every):
    the grader runs jax.jit(pure_callback_doubler) there on values it draws, as it is and with
    the callback's output poisoned; the result must be x doubled, every element the callback's
    output with nothing computed after it (expect_callback_output)."""
    def run(spec):
        (shape, _), = spec
        x = ask.normal(197, shape, scale=100)
        what = f"{JIT} on shape {shapes.label(shape)}"
        kit.expect_callback_output(kit.compiled_program(ask, x, what=what), kit.doubled(x), what)
    return run
