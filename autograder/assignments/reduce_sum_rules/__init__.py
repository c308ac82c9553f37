"""The reduce_sum_rules exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="reduce_sum_rules",
    core="JAX's transformations of custom_reduce_sum run through the three rules on the given primitive",
    sections={   # each test's concept -> the chapter section that teaches it
        'Registering the three rules': '5.9',
        'The JVP rule': '5.9',
        'The transpose rule': '5.9',
        'vmap, grad and derivatives of order 2': '5.9',
        'The primitive': '5.7',
        'The batching rule': '5.9',
        'Composing jit, grad and vmap': '5.9',
        'Second-order derivatives': '5.9',
    },
)
