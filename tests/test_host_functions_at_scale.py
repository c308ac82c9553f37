"""Host functions called directly on a huge input (issue 47: opaque code at scale): a branch
inside a host function is invisible to the lowering of the programs at large shapes, so the
graders of pure_callback_doubler and gammaln_callback call every host function the answer's
callbacks reach on a large input (the doubler's 2^23 + 3 values and a ladder of lengths,
gammaln's 2^20 + 3 values), element by element, and gammaln's with SciPy poisoned (keyed on
those values). Questions are evaluated here, on answers defined by exec."""
import numpy as np
import pytest
import scipy.special as sps

from autograder.assignments.gammaln_callback import grader as gkit
from autograder.assignments.pure_callback_doubler import grader as dkit
from autograder.shared import poison
from autograder.shared.probe import Ask
from autograder.witness import substitute
from autograder.witness.evaluate import evaluate

_PRELUDE = "import numpy as np\nimport scipy.special as sps\nimport jax\nimport jax.numpy as jnp\nimport math\n"


def _ask(source: str, exercise: str) -> Ask:
    names: dict = {}
    exec(_PRELUDE + source, names)   # noqa: S102  (the catalogue's kind of answer, written here)
    return Ask(lambda expr, inputs, serving=False: evaluate(names, expr, inputs, exercise), seed=3)


def _failure(check, *args, **kwargs) -> str:
    try:
        check(*args, **kwargs)
    except AssertionError as exc:
        return str(exc)
    return ""


# ---- pure_callback_doubler ----

_DOUBLER = ("def pure_callback_doubler(x):\n"
            "    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n")


def _doubler(host: str) -> Ask:
    return _ask(host + _DOUBLER, "pure_callback_doubler")


def test_the_doubler_input_spans_every_magnitude_in_random_order():
    a = dkit.big_input(_doubler("def host(arr):\n    return np.asarray(arr) * 2\n"))
    assert a.size == dkit.BIG == 2**23 + 3 and a.dtype == np.float32
    finite = np.abs(a[np.isfinite(a)])
    assert np.isnan(a).any() and np.isposinf(a).any() and np.isneginf(a).any()
    assert (a < 0).any() and (a > 0).any() and finite.min() == 0 and finite.max() > 3e38
    assert ((finite > 0) & (finite < 1.2e-38)).any()   # subnormal
    assert np.count_nonzero(np.diff(np.log2(finite[finite > 0])) > 0) > 0.4 * a.size   # not sorted


@pytest.mark.parametrize("host", [
    "def host(arr):\n    return np.asarray(arr) * 2\n",
    "def host(arr):\n    arr = np.asarray(arr)\n    flat = arr.reshape(-1)\n    out = np.empty_like(flat)\n"
    "    for i in range(0, flat.size, 4096):\n        out[i:i + 4096] = flat[i:i + 4096] * 2\n"
    "    return out.reshape(arr.shape)\n",
    "def host(arr):\n    with np.errstate(over='ignore'):\n"
    "        return (np.asarray(arr, np.float64) * 2).astype(np.float32)\n",
])
def test_a_doubling_host_function_passes_at_scale(host):
    assert _failure(dkit.expect_numpy_doubling_at_scale, _doubler(host)) == ""


@pytest.mark.parametrize("host", [
    "def host(arr):\n    arr = np.asarray(arr)\n    return (arr * 2)[::-1] if arr.size > 4096 else arr * 2\n",
    "def host(arr):\n    arr = np.asarray(arr)\n    return np.roll(arr * 2, 1) if arr.size > 8192 else arr * 2\n",
    "def host(arr):\n    arr = np.asarray(arr)\n    out = arr * 2\n    if arr.size > 2**20:\n        out[-1] = 0\n"
    "    return out\n",
])
def test_a_host_function_wrong_only_above_a_size_fails_with_the_size_and_a_counterexample(host):
    said = _failure(dkit.expect_numpy_doubling_at_scale, _doubler(host))
    assert "of 8,388,611 values given to it directly" in said and "differs from the reference arr * 2 at" in said
    assert ": at arr[" in said and ", got " in said and ", expected " in said


def test_jax_inside_the_host_function_above_a_size_shows():
    host = ("def host(arr):\n    arr = np.asarray(arr)\n"
            "    return np.asarray(jnp.asarray(arr) * 2) if arr.size > 4096 else arr * 2\n")
    said = _failure(dkit.expect_numpy_doubling_at_scale, _doubler(host))
    assert "ran JAX code when called on a NumPy array of 8,388,611 values" in said


@pytest.mark.parametrize("host, length", [
    ("def host(arr):\n    arr = np.asarray(arr)\n    out = arr * 2\n    if arr.size % 2**18 == 0:\n"
     "        out[-1] = 0\n    return out\n", "(262144,)"),
    ("def host(arr):\n    arr = np.asarray(arr)\n    return arr * 3 if arr.size == 3 * 2**19 else arr * 2\n",
     "(1572864,)"),
])
def test_a_host_function_wrong_only_at_some_lengths_is_named_at_the_first(host, length):
    """The dense ladder (shapes.HOST_LENGTHS): each side of every power of two up to 2^20 and
    three times each; the large input alone (2^23 + 3) passes both."""
    said = _failure(dkit.expect_numpy_doubling_at_scale, _doubler(host))
    assert f"on a NumPy array of shape {length} given to it directly differs" in said


def test_no_callback_at_that_size_is_the_every_shape_tests_finding():
    source = ("def host(arr):\n    return np.asarray(arr) * 2\n"
              "def pure_callback_doubler(x):\n    if x.size > 4096:\n        return 2 * x\n"
              "    return jax.pure_callback(host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)\n")
    assert _failure(dkit.expect_numpy_doubling_at_scale, _ask(source, "pure_callback_doubler")) == ""


# ---- gammaln_callback ----

def _gammaln(forward: str, derivative: str = "", *, tuple_host: bool = False) -> Ask:
    """An answer whose host functions are `forward` and `derivative` (sources defining
    fwd(a) and der(a)), or one host returning both."""
    if tuple_host:
        body = ("def _both(x):\n    s = jax.ShapeDtypeStruct(x.shape, x.dtype)\n"
                "    return jax.pure_callback(both, (s, s), x, vmap_method='expand_dims')\n"
                "@jax.custom_jvp\ndef gammaln_cb(x):\n    return _both(x)[0]\n"
                "@gammaln_cb.defjvp\ndef _jvp(p, t):\n    y, psi = _both(p[0])\n    return y, psi * t[0]\n")
    else:
        body = ("def _cb(h, x):\n    return jax.pure_callback(h, jax.ShapeDtypeStruct(x.shape, x.dtype), x, "
                "vmap_method='expand_dims')\n"
                "@jax.custom_jvp\ndef gammaln_cb(x):\n    return _cb(fwd, x)\n"
                "@gammaln_cb.defjvp\ndef _jvp(p, t):\n    return gammaln_cb(p[0]), _cb(der, p[0]) * t[0]\n")
    return _ask(forward + derivative + body, "gammaln_callback")


_FWD = "def fwd(a):\n    return sps.gammaln(np.asarray(a)).astype(np.float32)\n"
_DER = "def der(a):\n    return sps.digamma(np.asarray(a)).astype(np.float32)\n"
_CHUNKED = ("def fwd(a):\n    a = np.asarray(a)\n    flat, out = a.reshape(-1), np.empty(a.size, np.float32)\n"
            "    for i in range(0, a.size, 4096):\n        out[i:i + 4096] = sps.gammaln(flat[i:i + 4096])\n"
            "    return out.reshape(a.shape)\n")
_LGAMMA = ("def fwd(a):\n    a = np.asarray(a)\n    if a.size > 8192:\n"
           "        return np.array([math.lgamma(v) for v in a.ravel().tolist()], np.float32).reshape(a.shape)\n"
           "    return sps.gammaln(a).astype(np.float32)\n")
_REVERSED = ("def fwd(a):\n    a = np.asarray(a)\n    y = sps.gammaln(a).astype(np.float32)\n"
             "    return y.ravel()[::-1].reshape(a.shape) if a.size > 8192 else y\n")


def _inputs(ask):
    rng = ask.rng(11)
    a = gkit.forward_input(rng)
    return a, gkit.huge_input(rng)


def test_the_gammaln_input_is_the_domain_in_random_order():
    a, huge = _inputs(_gammaln(_FWD, _DER))
    assert huge.size == gkit.HUGE == 2**20 + 3 and huge.ndim == 1 and huge.dtype == np.float32
    assert set(np.float32(gkit.EDGES)) <= set(huge.tolist()) and huge.min() > 0 and np.isfinite(huge).all()
    assert np.count_nonzero(np.diff(huge) > 0) > 0.4 * huge.size


@pytest.mark.parametrize("forward,derivative,tuple_host", [
    (_FWD, _DER, False),
    (_CHUNKED, _DER, False),
    ("def both(a):\n    a = np.asarray(a)\n    return sps.gammaln(a).astype(a.dtype), sps.digamma(a).astype(a.dtype)\n",
     "", True),
    ("fwd = np.vectorize(lambda v: sps.gammaln(v), otypes=[np.float32])\n", _DER, False),
])
def test_valid_host_functions_pass_at_scale(forward, derivative, tuple_host):
    ask = _gammaln(forward, derivative, tuple_host=tuple_host)
    a, huge = _inputs(ask)
    assert _failure(gkit.check_forward_hosts_at_scale, ask, a, huge, gammaln=sps.gammaln) == ""
    assert _failure(gkit.check_derivative_hosts_at_scale, ask, a, huge, digamma=sps.digamma) == ""


def test_a_host_function_that_stops_calling_scipy_above_a_size_loses_the_provenance():
    ask = _gammaln(_LGAMMA, _DER)
    a, huge = _inputs(ask)
    said = _failure(gkit.check_forward_hosts_at_scale, ask, a, huge, gammaln=sps.gammaln)
    assert "called directly on 1,048,579 values" in said
    assert "does not take its values from scipy.special.gammaln" in said
    assert ": at x[" in said and "both times" in said
    assert _failure(gkit.check_derivative_hosts_at_scale, ask, a, huge, digamma=sps.digamma) == ""


def test_a_reversed_result_above_a_size_loses_the_values():
    ask = _gammaln(_REVERSED, _DER)
    a, huge = _inputs(ask)
    said = _failure(gkit.check_forward_hosts_at_scale, ask, a, huge, gammaln=sps.gammaln)
    assert "called directly on 1,048,579 values over the whole domain" in said and ": at x[" in said
    assert "expected" in said
    assert _failure(gkit.check_derivative_hosts_at_scale, ask, a, huge, digamma=sps.digamma) == ""


def test_a_digamma_series_above_a_size_loses_the_derivative_only():
    series = ("def der(a):\n    a = np.asarray(a)\n    if a.size <= 4096:\n"
              "        return sps.digamma(a).astype(np.float32)\n"
              "    x = a.astype(np.float64)\n    r = np.zeros_like(x)\n"
              "    with np.errstate(all='ignore'):\n"
              "        for _ in range(6):\n            small = x < 6\n            r = np.where(small, r - 1 / x, r)\n"
              "            x = np.where(small, x + 1, x)\n"
              "        f = 1 / (x * x)\n"
              "        return (r + np.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f / 252))).astype(np.float32)\n")
    ask = _gammaln(_FWD, series)
    a, huge = _inputs(ask)
    assert _failure(gkit.check_forward_hosts_at_scale, ask, a, huge, gammaln=sps.gammaln) == ""
    said = _failure(gkit.check_derivative_hosts_at_scale, ask, a, huge, digamma=sps.digamma)
    assert "jax.grad(gammaln_cb), called directly on 1,048,579 values" in said


def test_the_keyed_poison_hits_exactly_the_keys_by_binary_search():
    """substitute.PoisonUfunc keyed on many values (a binary search, with a scalar path for
    np.vectorize) poisons exactly where np.isin says the input is a key, NaN matching NaN."""
    x = np.float32([0.5, 2.0, 7.0, np.nan, 3e38] + list(np.linspace(1, 9, 100)))
    keys = substitute.keys_of([x])
    keyed = substitute.PoisonUfunc(sps.gammaln, keys)
    probes = [np.float32([0.5, 1.5, 7.0, np.nan]), np.linspace(1, 9, 100).astype(np.float32),
              np.linspace(1, 9, 100), x[::-1].copy()]
    for probe_ in probes:
        got, real = keyed(probe_), sps.gammaln(probe_)
        hit = np.isin(probe_.astype(np.float64), x.astype(np.float64)) | np.isnan(probe_)
        assert np.array_equal(got[~hit], real[~hit], equal_nan=True)
        assert np.array_equal(got[hit], poison.values(probe_.size).astype(got.dtype)[hit])
    for scalar, is_key in ((2.0, True), (np.float32(7.0), True), (np.float64(4.5), False), (np.float32(np.nan), True)):
        got = keyed(scalar)
        assert (got == np.float64(poison.values(1)[0]).astype(np.asarray(got).dtype)) == is_key
    out = np.zeros(4, np.float32)
    keyed(probes[0], out=out, where=np.array([True, True, False, True]))
    assert out[2] == 0 and out[1] == np.float32(sps.gammaln(np.float32(1.5)))
    assert isinstance(keyed, np.ufunc) and keyed.__name__ == "gammaln"
