"""The silu_ffi exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="silu_ffi",
    core="the values and the gradient of silu_ffi come from two C++ kernels of the student's own, a forward and a backward one",
    answer_kernels=True,   # the executor runs the libraries the notebook loaded, as it loaded them
    sections={   # each test's concept -> the chapter section that teaches it
        'The forward kernel': '5.10',
        'The backward kernel': '5.10',
        'Values of the forward kernel': '5.10',
        'Gradient values under jit and vmap': '5.10',
        'Forward values over every finite float32, NaN, and every shape': '5.10',
        'Gradients for |x| up to 1000, NaN, and every shape': '5.10',
        'vmap of the forward kernel': '5.10',
        'vmap of grad, cotangents and composition': '5.10',
    },
)
