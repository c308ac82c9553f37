"""The gammaln_callback answers that are wrong only above a size (their messages name the
grader's direct call of a host function on 1,048,579 values) must be wrong only there: every
program the grader runs (test 5's and test 6's paths, on `large_input` up to 71 x 71 = 5041
elements, drawn anew per grading) must pass on them. A threshold inside that range (a digamma
series above 4096 elements) lost test 6 on the drawn input first, with another message, in
about one grading in ten (the shapes of more than 4096 elements): make validate failed by seed.
Questions are evaluated here, the programs run by the executor's code in this process."""
import numpy as np
import pytest
import scipy.special as sps

from autograder.assignments.gammaln_callback import grader as kit
from autograder.assignments.gammaln_callback import references
from autograder.executor import program
from autograder.shared import catalogue
from autograder.shared.probe import Ask
from autograder.witness.evaluate import evaluate

_PRELUDE = "import numpy as np\nimport scipy.special as sps\nimport jax\nimport jax.numpy as jnp\n"
AT_SCALE = "called directly on 1,048,579 values"
ONLY_AT_SCALE = [a for a in catalogue.answers("gammaln_callback") if any(AT_SCALE in m for m in a.messages)]


class _Largest:
    """A Generator whose integers() give the top of their range (the largest shape
    large_input can draw); everything else is the wrapped generator's."""

    def __init__(self, rng):
        self._rng = rng

    def integers(self, low, high):
        return high - 1

    def __getattr__(self, name):
        return getattr(self._rng, name)


def _ask(code: str) -> Ask:
    names: dict = {}
    exec(_PRELUDE + code, names)   # noqa: S102  (a catalogue answer, as the notebook runs it)
    return Ask(lambda expr, inputs, serving=False: evaluate(names, expr, inputs, "gammaln_callback"), seed=0,
               execute=lambda request, serve=None: program.handle(request, serve=serve))


def _failure(check, *args, **kwargs) -> str:
    try:
        check(*args, **kwargs)
    except AssertionError as exc:
        return str(exc)
    return ""


def test_the_largest_drawn_input_is_71_by_71():
    big = references.large_input(_Largest(np.random.default_rng(0)))
    assert big.shape == (71, 71) and big.dtype == np.float32


def test_some_answers_are_wrong_only_at_scale():
    assert {a.name for a in ONLY_AT_SCALE} >= {"wrong_host_math_lgamma_above_8192_elements",
                                               "wrong_host_reverses_above_8192_elements"}


@pytest.mark.parametrize("answer", ONLY_AT_SCALE, ids=lambda a: a.name)
def test_an_answer_wrong_only_at_scale_passes_every_path_on_the_largest_drawn_input(answer):
    ask = _ask(answer.code)
    rng = np.random.default_rng(11)   # test 5's inputs, then test 6's, `big` the largest
    a = references.forward_input(rng)
    big = references.large_input(_Largest(rng))
    t = references.random_tangent(rng, a.shape)
    assert _failure(kit.check_forward_paths, ask, a, big, t, gammaln=sps.gammaln) == ""
    rng = np.random.default_rng(12)
    a, _ = references.wide_inputs(rng, (6, 5))
    big = references.large_input(_Largest(rng))
    t = references.random_tangent(rng, a.shape)
    assert _failure(kit.check_derivative_paths, ask, a, big, t, digamma=sps.digamma) == ""
