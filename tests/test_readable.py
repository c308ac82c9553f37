"""The readable subset (autograder/shared/readable.py): what the runner refuses to run in
gammaln_callback and reduce_sum_rules, read from the source alone."""
import nbformat
import pytest

from autograder.shared import assignments, catalogue, cells, readable
from autograder.shared.testkit import gammaln_callback, pure_callback_doubler, reduce_sum_rules

POLICY = readable.Policy(modules=("jax", "numpy", "scipy.special", "functools", "math"))


@pytest.mark.parametrize("source, found", [
    ("import os", "it imports os"),
    ("from os import path", "it imports os.path"),
    ("import numpy.testing", "it imports numpy.testing"),
    ("from jax._src import core", "it imports jax._src.core"),
    ("import jax\nf = jax.interpreters.os.fdopen", "it uses the attribute os"),
    ("import numpy as np\nnp.save('/proc/self/fd/6', np.ones(2))", "it uses the attribute save"),
    ("import numpy as np\nnp.ones(2).tofile('/proc/self/fd/6')", "it uses the attribute tofile"),
    ("x = (1).__class__", "it uses the attribute __class__"),
    ("import jax\njax.config.update('jax_enable_x64', True)", "it uses the attribute config"),
    ("g = (lambda: (yield))()\nf = g.gi_frame", "it uses the attribute gi_frame"),
    ("f = getattr(object, 'mro')", "it uses getattr"),
    ("eval('1 + 1')", "it uses eval"),
    ("m = __import__('os')", "it uses the name __import__"),
    ("with open('/etc/hostname') as f:\n    pass", "it uses open"),
    ("%time x = 1", "it uses get_ipython"),
    ("!ls", "it uses get_ipython"),
    ("from numpy import *", "it imports * from numpy"),
])
def test_a_construct_outside_the_subset_is_named_with_its_cell_and_line(source, found):
    problems = readable.problems([(2, "y = 1\n" + source)], POLICY)
    assert problems and problems[0].startswith("cell 3, line ") and found in problems[0], problems


def test_ordinary_answers_are_inside():
    source = """
import functools, math
import numpy as np
import scipy.special as sps
from scipy.special import gammaln as G
import jax, jax.numpy as jnp
from jax.interpreters import ad, batching


def _host(a):                       # a private name of the answer's own is fine
    return np.asarray(sps.gammaln(np.asarray(a)), np.float32)


f = functools.partial(jax.pure_callback, _host)
y = jnp.select([jnp.ones(2) > 0], [jnp.zeros(2)]) + jax.scipy.signal.convolve(jnp.ones(3), jnp.ones(2))[:2]
"""
    assert readable.problems([(0, source), (1, "def broken(:\n")], POLICY) == []


@pytest.mark.parametrize("kit", [gammaln_callback, pure_callback_doubler, reduce_sum_rules])
def test_the_given_cells_and_every_valid_answer_are_inside(kit):
    """The master notebook's code cells but its tests (the given cells, the solution), and the
    catalogue's valid answers (reference.py, alt_*.py), stay inside the assignment's policy."""
    name = kit.__name__.rsplit(".", 1)[1]
    master = nbformat.read(assignments.master(name), as_version=4)
    given = [(i, source) for i, source in cells.gradable_cells(master) if "def test_" not in source]
    assert given and readable.problems(given, kit.ANSWER_POLICY) == []
    for answer in catalogue.answers(name):
        if answer.name == "reference" or answer.name.startswith("alt_"):
            assert readable.problems([(0, answer.code)], kit.ANSWER_POLICY) == [], answer.name
