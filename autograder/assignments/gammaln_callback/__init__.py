"""The gammaln_callback exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="gammaln_callback",
    core="the values of gammaln_cb come from SciPy's gammaln and its derivative from SciPy's digamma, each called on the host through jax.pure_callback",
    witness_imports=('scipy.special',),   # the questions name scipy
    sections={   # each test's concept -> the chapter section that teaches it
        'The custom_jvp around a pure_callback': '5.4',
        'The forward values': '5.4',
        'The derivative': '5.4',
        'vmap': '5.4',
        'The forward callback': '5.4',
        'The derivative callback': '5.4',
        'Where the math happens': '5.4',
        'Shapes and dtypes': '5.4',
    },
)
