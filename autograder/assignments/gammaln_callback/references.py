"""The inputs gammaln_callback's tests draw over the task's domain, and the float32
references they compare with (SciPy's float64 functions, passed in by the test cells,
rounded to float32)."""
import numpy as np


def public_input():
    """The public tests' input: 20 values from 0.3 to 9, float32, shape (4, 5)."""
    return np.linspace(0.3, 9.0, 20, dtype=np.float32).reshape(4, 5)


def large_input(rng):
    """A float32 input over the whole domain (`domain_values`) of random shape (40-71, 40-71)."""
    shape = (int(rng.integers(40, 72)), int(rng.integers(40, 72)))
    return domain_values(rng, int(np.prod(shape))).reshape(shape)


# The task's domain: every positive normal float32 (XLA on the CPU flushes subnormals to
# zero), and +inf and NaN for the values alone.
SMALLEST, LARGEST = float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max)
DOMAIN = "positive float32 inputs from 1.2e-38 to 3.4e38"
# Fixed points of the domain: its ends, next to the pole at 0, gammaln's zeros at 1 and 2,
# digamma's zero 1.4616, around 4.08e36 where float32's gammaln overflows to inf.
EDGES = (SMALLEST, 3e-38, 1e-30, 1e-10, 1e-6, 9.9e-4, 0.1, 0.999, 1.0, 1.001, 1.4616, 1.999, 2.0, 2.001,
         40.0, 4.0e36, 4.2e36, LARGEST)


def domain_values(rng, n):
    """n float32 values drawn over the whole domain: half log-uniformly from SMALLEST to
    LARGEST (near the pole, huge, overflowing), half uniformly from 0.1 to 40."""
    k = n // 2
    wide = np.exp(rng.uniform(np.log(SMALLEST), np.log(LARGEST), k))
    a = np.clip(np.concatenate([wide, rng.uniform(0.1, 40.0, n - k)]), SMALLEST, LARGEST).astype(np.float32)
    return rng.permutation(a)


def wide_inputs(rng, shape):
    """(a, big): float32 values of `shape` over the whole domain, EDGES first (as many as
    fit) then drawn (`domain_values`), shuffled; then a `large_input`."""
    n = int(np.prod(shape))
    fixed = np.array(EDGES[:n], np.float32)
    a = rng.permutation(np.concatenate([fixed, domain_values(rng, n - fixed.size)])).reshape(shape)
    return a, large_input(rng)


# The size of the input every host function is called on directly (hostfns.check_hosts_at_scale):
# above every size a threshold inside a host function could plausibly sit at (the programs at
# larger shapes are only lowered, never run, and a lowering cannot see inside a host function).
HUGE = 2**20 + 3


def huge_input(rng):
    """HUGE float32 values over the whole domain (`domain_values`, in random order), EDGES at
    drawn places (1-D)."""
    a = domain_values(rng, HUGE)
    a[rng.choice(HUGE, len(EDGES), replace=False)] = EDGES
    return a


def forward_input(rng):
    """EDGES and 42 values drawn over the whole domain (`domain_values`), shuffled into a
    float32 (3, 4, 5)."""
    a = np.concatenate([np.array(EDGES, np.float32), domain_values(rng, 60 - len(EDGES))])
    return rng.permutation(a).reshape(3, 4, 5)


def special_input(rng):
    """NaN and +inf (twice each) among 8 values drawn over the domain, float32 (12,): what
    gammaln_cb's values must be at the task's special inputs."""
    a = np.concatenate([[np.nan, np.inf, np.nan, np.inf], domain_values(rng, 8)]).astype(np.float32)
    return rng.permutation(a)


def random_tangent(rng, shape):
    """A float32 tangent of `shape`, magnitudes 0.5 to 2 with random signs."""
    return (rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)).astype(np.float32)


def gradient_input(rng):
    """EDGES, 20 values drawn over the domain, then +inf and NaN (float32, 40 values)."""
    return np.concatenate([EDGES, domain_values(rng, 20), [np.inf, np.nan]]).astype(np.float32)


def flat_input():
    """24 values from 0.7 to 12, float32, 1-D: the shape test's input and references."""
    return np.linspace(0.7, 12.0, 24, dtype=np.float32)


def f32(values):
    """float64 `values` as float32 computes them (overflow to inf), back in float64: the
    reference of a float32 result."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values, np.float64).astype(np.float32).astype(np.float64)


def scipy32(fn, x):
    """SciPy's `fn` on x in float64, rounded to float32 (so inf where float32 overflows)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return f32(fn(np.asarray(x, np.float64)))
