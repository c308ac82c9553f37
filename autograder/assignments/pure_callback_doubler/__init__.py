"""The pure_callback_doubler exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="pure_callback_doubler",
    core="the result of pure_callback_doubler is the host function's NumPy doubling, returned through jax.pure_callback",
)
