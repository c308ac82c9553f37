"""The keyed poison of a ufunc (autograder/witness/substitute.py, issue 38): SciPy's real
values everywhere but on the grader's own input values, so that a host function's self-test
at a known point cannot tell it is poisoned; isinstance answers as for the ufunc."""
import math

import numpy as np
import scipy.special as sps

from autograder.witness import substitute

G5, G25 = float(sps.gammaln(5.0)), float(sps.gammaln(2.5))   # a global holding the ufunc would be replaced too
X = np.array([[0.5, 2.5, 7.25], [1e-30, 3e30, np.nan]], np.float32)


def test_keyed_poison_writes_only_on_the_grader_s_input():
    keyed = substitute.PoisonUfunc(sps.gammaln, substitute.keys_of([X]))
    got = keyed(X)
    assert not np.any(np.isclose(got, sps.gammaln(X), equal_nan=True))   # every input element poisoned, NaN too
    assert keyed(np.float64(5.0)) == sps.gammaln(np.float64(5.0))   # a self-test sees SciPy
    assert math.isclose(keyed(np.float64(5.0)), math.log(24.0), rel_tol=1e-14)
    mixed = keyed(np.array([5.0, 2.5, 1.5]))
    assert mixed[0] == sps.gammaln(5.0) and mixed[2] == sps.gammaln(1.5) and mixed[1] != sps.gammaln(2.5)
    assert keyed(X.astype(np.float64))[0, 1] != sps.gammaln(2.5)   # float64 of the same value: poisoned
    out = np.empty_like(X)
    assert keyed(X, out=out) is out and not np.isclose(out[0, 0], sps.gammaln(np.float32(0.5)))


def test_keyed_poison_is_an_instance_of_ufunc_and_only_type_tells():
    keyed = substitute.PoisonUfunc(sps.digamma, substitute.keys_of([X]))
    assert isinstance(keyed, np.ufunc) and keyed.__class__ is np.ufunc
    assert type(keyed) is substitute.PoisonUfunc   # what stays observable (docs/verdicts.md)


def test_poisoned_with_keys_replaces_and_puts_back():
    held = {"f": sps.gammaln}
    with substitute.poisoned("scipy.special.gammaln", substitute.keys_of([X])):
        assert isinstance(held["f"], np.ufunc) and type(held["f"]) is substitute.PoisonUfunc
        assert held["f"](np.float64(5.0)) == G5   # off the keys: SciPy's value
        assert not math.isclose(held["f"](np.float64(2.5)), G25, rel_tol=1e-6)   # on the keys: poisoned
    assert held["f"] is sps.gammaln and type(sps.gammaln) is np.ufunc


def test_keys_of_takes_every_value_of_every_array():
    other = np.array([2.5, 9.0], np.float32)
    keys = substitute.keys_of([X, other])
    assert keys.contains(X).all() and keys.contains(other).all()   # the arrays themselves, whole
    assert keys.contains(X[::-1].copy()).all() and keys.contains(np.float64(9.0))   # by search
    assert keys.contains(np.float32([np.nan, 1.25])).tolist() == [bool(np.isnan(X).any()), 1.25 in X]
