"""The pure_callback_doubler exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="pure_callback_doubler",
    core="the result of pure_callback_doubler is the host function's NumPy doubling, returned through jax.pure_callback",
    sections={   # each test's concept -> the chapter section that teaches it
        'The doubled values': '5.4',
        "The result's shape and dtype": '5.4',
        'Empty input': '5.4',
        'The pure_callback': '5.3',
        'The host function': '5.3',
        'Purity of the host function': '5.4',
        'The callback result': '5.4',
    },
)
