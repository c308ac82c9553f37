"""The gammaln_callback exercise: its record; `grader` holds what its tests share."""
from autograder.assignments import Exercise

EXERCISE = Exercise(
    name="gammaln_callback",
    core="the values of gammaln_cb come from SciPy's gammaln and its derivative from SciPy's digamma, each called on the host through jax.pure_callback",
    witness_imports=('scipy.special',),   # the questions name scipy
)
