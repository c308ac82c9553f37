"""The reduce_sum_rules exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="reduce_sum_rules",
    core="JAX's transformations of custom_reduce_sum run through the three rules on the given primitive",
)
