"""The answer catalogues are well formed; the grading itself is `make validate`."""
import ast

import pytest

from autograder.shared import paths, catalogue

PRESENT = paths.present()


@pytest.mark.parametrize("name", PRESENT)
def test_catalogue_has_every_kind_of_answer(name):
    """Does each catalogue hold the reference, 3 valid alternatives, 5 wrong answers and 2 cheats?"""
    kinds = [a.name.split("_")[0] for a in catalogue.answers(name)]
    assert "reference" in kinds
    assert kinds.count("alt") >= 3 and kinds.count("wrong") >= 5 and kinds.count("cheat") >= 2, kinds


@pytest.mark.parametrize("name", PRESENT)
def test_expectations_are_consistent(name):
    """Does every valid answer expect full marks (its messages, if any, are notes it must
    carry), and every wrong or cheating one less, with a message?"""
    for a in catalogue.answers(name):
        if a.name == "reference" or a.name.startswith("alt_"):
            assert a.score == 10 and (not a.messages or a.name.startswith("alt_")), a.name
        else:
            assert a.score < 10 and a.messages, a.name


@pytest.mark.parametrize("name", PRESENT)
def test_reference_is_the_masters_solution(name):
    """Is solutions/<name>/reference.py exactly the master notebook's solution cell?"""
    source = (paths.solutions(name) / "reference.py").read_text()
    docstring = ast.parse(source).body[0]
    body = "\n".join(source.splitlines()[docstring.end_lineno:])
    assert body.strip() == catalogue.solution_cell(name).strip()


def test_all_five_assignments_are_present():
    assert paths.present() == list(paths.NAMES)


# Points a takeover may gain: the tests whose verdict rests on what the student's process
# reports (the task texts' point tables say which), and only where its real program is right.
WITNESS_ONLY_GAIN = {"protocol_takeover_doubler_purity": 1}   # the purity test of wrong_impure_print


def test_a_protocol_takeover_earns_what_its_real_code_earns():
    """A takeover of the witness's pipes is expected to score what the same code without the
    takeover scores, plus at most the witness-only points stated above (make validate grades
    both and checks each expectation). Every assignment has one, and they reach the pipes in
    more than one way."""
    attacks = {a.name: a for a in catalogue.answers("adversarial") if a.name.startswith("protocol_takeover")}
    pairs = {"protocol_takeover_ffi_lowering": ("ffi_lowering", "wrong_lower_fun_jnp"),
             "protocol_takeover_silu_ffi": ("silu_ffi", "cheat_custom_vjp_around_jax_nn_silu")}
    pairs |= {name: (a.assignment, a.base) for name, a in attacks.items() if a.base}
    assert set(pairs) == set(attacks)
    assert {a.assignment for a in attacks.values()} == set(paths.present())
    for attack, (assignment, real) in pairs.items():
        (honest,) = [a for a in catalogue.answers(assignment) if a.name == real]
        assert attacks[attack].assignment == assignment
        assert attacks[attack].score == honest.score + WITNESS_ONLY_GAIN.get(attack, 0), attack
    ways = {"match class pattern": "case type(", "/proc/self/cmdline": "/proc/self/cmdline", "sys.argv": "sys.argv"}
    used = {way for way, mark in ways.items() if any(mark in a.path.read_text() for a in attacks.values())}
    assert used == set(ways)
