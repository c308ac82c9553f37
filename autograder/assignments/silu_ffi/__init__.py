"""The silu_ffi exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="silu_ffi",
    core="the values and the gradient of silu_ffi come from two C++ kernels of the student's own, a forward and a backward one",
    answer_cpp=True,   # the grader compiles every C++ file the notebook wrote, for the executor
)
