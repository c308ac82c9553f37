"""gammaln_callback's mutants: its two host functions, the traced function and its JVP rule.
The source is the reference with its host functions named (a lambda has no body an effect
could go into)."""
from contextlib import contextmanager

import numpy as np

from autograder.authoring.mutants.generate import Piece
from autograder.authoring.mutants.oracle import SHAPES, poison_like, poisoned_callbacks

SOURCE = "alt_named_host_functions.py"
PIECES = [
    Piece("host_gammaln", "np", same_math="np.asarray(jax.scipy.special.gammaln(jnp.asarray(a)))", host=True),
    Piece("host_digamma", "np", same_math="np.asarray(jax.scipy.special.digamma(jnp.asarray(a)))", host=True),
    Piece("gammaln_cb", "jnp", same_math="jax.scipy.special.gammaln(x)"),
    Piece("_gammaln_cb_jvp", "jnp", element=1, size="np.size({arg}[0])", rank="np.ndim({arg}[0])",
          same_math="(gammaln_cb(primals[0]), jax.scipy.special.digamma(primals[0]) * tangents[0])"),
]
CXX_PIECES = []

# Mutants the oracle must find wrong (tests/test_mutants.py).
KNOWN_WRONG = ("positions/host_digamma/rolled by one/size>65536", "thresholds/_gammaln_cb_jvp/mult->add/rank>=5",
               "provenance/host_gammaln/size>4096", "provenance/gammaln_cb/size>0")


def _positive(shape, rng) -> np.ndarray:
    """float32 values of the task's domain: log-uniform over the positive normal floats and
    uniform from 0.1 to 40, mixed."""
    n = int(np.prod(shape))
    tiny, huge = float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max)
    wide = np.exp(rng.uniform(np.log(tiny), np.log(huge), n))
    mixed = np.where(rng.random(n) < 0.5, wide, rng.uniform(0.1, 40.0, n))
    return np.clip(mixed, tiny, huge).astype(np.float32).reshape(shape)


def _same(got, want) -> bool:
    got = np.asarray(got)
    return got.shape == want.shape and got.dtype == np.float32 and bool(
        np.allclose(got, want, rtol=1e-6, atol=0, equal_nan=True))


@contextmanager
def _poisoned_scipy():
    """SciPy's gammaln and digamma replaced by functions returning the poison values."""
    import scipy.special as sps
    real = sps.gammaln, sps.digamma

    def poisoned(a, *_args, **_kwargs):
        return poison_like(np.asarray(a, np.float32))
    sps.gammaln = sps.digamma = poisoned
    try:
        yield
    finally:
        sps.gammaln, sps.digamma = real


def oracle(env: dict) -> str:
    """gammaln and its derivative digamma, element by element, against SciPy's float64
    functions rounded to float32, at every shape: eagerly, under jit, under vmap, through
    jax.grad and jax.jvp (a drawn tangent), and each host function alone, which runs no
    JAX; with SciPy's functions poisoned, and again with every callback poisoned, every
    element of the values and of the gradient is the poison."""
    import jax
    import scipy.special as sps

    from autograder.shared import poison
    from autograder.witness import hostcall
    rng = np.random.default_rng(11)
    fn, hosts = env["gammaln_cb"], {"host_gammaln": env["host_gammaln"], "host_digamma": env["host_digamma"]}
    grad = jax.grad(lambda v: fn(v).sum())
    for shape in SHAPES:
        x = _positive(shape, rng)
        t = rng.uniform(-2, 2, shape).astype(np.float32)
        wide = x.astype(np.float64)
        value, derivative = sps.gammaln(wide).astype(np.float32), sps.digamma(wide).astype(np.float32)
        tangent = (sps.digamma(wide) * t).astype(np.float32)
        runs = [("eagerly", fn, value), ("under jit", jax.jit(fn), value), ("jax.grad", grad, derivative),
                ("jax.jit(jax.grad)", jax.jit(grad), derivative),
                ("jax.jvp's tangent", lambda v: jax.jvp(fn, (v,), (t,))[1], tangent),
                ("the host function host_gammaln", hosts["host_gammaln"], value),
                ("the host function host_digamma", hosts["host_digamma"], derivative)]
        if x.ndim and x.size <= 1 << 16:
            runs += [("jax.vmap", jax.vmap(fn), value), ("jax.vmap(jax.grad)", jax.vmap(grad), derivative)]
        for label, run, want in runs:
            if not _same(run(x), want):
                return f"{label}, shape {shape}: not SciPy's values"
        for name, host in hosts.items():   # the task's host functions are SciPy's
            if hostcall.call(host, x).jax:
                return f"the host function {name}, shape {shape}: computes with JAX"
        if not x.size:
            continue
        for label, poisoned in (("SciPy's functions", _poisoned_scipy), ("the callbacks", poisoned_callbacks)):
            with poisoned():   # functions of their own: jit's cache holds the unpoisoned traces
                got = [np.asarray(jax.jit(lambda v: fn(v))(x)), np.asarray(jax.jit(jax.grad(lambda v: fn(v).sum()))(x))]
            for what, g in zip(("values", "gradient"), got):
                if not np.all(poison.straight(g, [g.size])):
                    return f"shape {shape}: with {label} poisoned, not every element of the {what} is theirs"
    return ""
