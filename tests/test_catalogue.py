"""The answer catalogues are well formed; the grading itself is `make validate`."""
import ast

import pytest

from autograder.shared import assignments, catalogue

PRESENT = assignments.present()


@pytest.mark.parametrize("name", PRESENT)
def test_catalogue_has_every_kind_of_answer(name):
    """Does each catalogue hold the reference, 3 valid alternatives, 5 wrong answers and 2 cheats?"""
    kinds = [a.name.split("_")[0] for a in catalogue.answers(name)]
    assert "reference" in kinds
    assert kinds.count("alt") >= 3 and kinds.count("wrong") >= 5 and kinds.count("cheat") >= 2, kinds


@pytest.mark.parametrize("name", PRESENT)
def test_expectations_are_consistent(name):
    """Does every valid answer expect full marks, and every wrong or cheating one less, with a message?"""
    for a in catalogue.answers(name):
        if a.name == "reference" or a.name.startswith("alt_"):
            assert a.score == 10 and not a.messages, a.name
        else:
            assert a.score < 10 and a.messages, a.name


@pytest.mark.parametrize("name", PRESENT)
def test_reference_is_the_masters_solution(name):
    """Is solutions/<name>/reference.py exactly the master notebook's solution cell?"""
    source = (assignments.solutions(name) / "reference.py").read_text()
    docstring = ast.parse(source).body[0]
    body = "\n".join(source.splitlines()[docstring.end_lineno:])
    assert body.strip() == catalogue.solution_cell(name).strip()


def test_all_five_assignments_are_present():
    assert assignments.present() == list(assignments.NAMES)


def test_a_protocol_takeover_earns_what_its_real_code_earns():
    """A takeover of the witness's pipes is expected to score exactly what the same code
    without the takeover scores (make validate grades both and checks each expectation);
    in the assignments with a readable subset the takeover is not even run (0)."""
    attacks = {a.name: a for a in catalogue.answers("adversarial")}
    pairs = {"protocol_takeover_ffi_lowering": ("ffi_lowering", "wrong_lower_fun_jnp"),
             "protocol_takeover_silu_ffi": ("silu_ffi", "cheat_custom_vjp_around_jax_nn_silu")}
    for attack, (assignment, real) in pairs.items():
        (honest,) = [a for a in catalogue.answers(assignment) if a.name == real]
        assert attacks[attack].assignment == assignment and attacks[attack].score == honest.score
