"""Answers that differ from another answer of their catalogue only in where they keep things
(SciPy's functions in a module-level tuple, state deep in containers or under a private
name) expect what that twin expects: holding a function is not depending on it, and state
is state wherever it sits. make validate then grades both against the same expectation."""
import pytest

from autograder.shared import catalogue

# (assignment, answer, its twin, whether the messages are the twin's too)
TWINS = [
    ("gammaln_callback", "wrong_digamma_from_jax_with_scipy_in_tuple", "wrong_jax_digamma", True),
    ("gammaln_callback", "wrong_host_math_lgamma_with_scipy_in_tuple", "wrong_host_math_lgamma", True),
    ("pure_callback_doubler", "wrong_state_deep_in_container", "wrong_state_in_nested_container", False),
    ("pure_callback_doubler", "wrong_state_in_private_global", "wrong_impure_global_list", False),
]


@pytest.mark.parametrize("assignment, answer, twin, same_messages", TWINS)
def test_an_answer_expects_what_its_twin_expects(assignment, answer, twin, same_messages):
    answers = {a.name: a for a in catalogue.answers(assignment)}
    assert answers[answer].score == answers[twin].score
    if same_messages:
        assert answers[answer].messages == answers[twin].messages
