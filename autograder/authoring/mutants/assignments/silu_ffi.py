"""silu_ffi's mutants: the custom_vjp's primal, fwd and bwd rules (Python), and statements of
its two C++ kernels (the forward loop's `yp[i] = ...`, the backward's `op[i] = ...` and its
`float s = ...`). Each C++ mutant compiles its own library; an FFI target name binds once
per process, so prepare() renames each mutant's targets (oracle.py runs it before the cells)."""
import numpy as np

from autograder.authoring.mutants.cxx import CxxPiece
from autograder.authoring.mutants.generate import Piece
from autograder.authoring.mutants.oracle import SHAPES, poison_like

SOURCE = "reference.py"
SIGMOID = "jax.nn.sigmoid(x)"
PIECES = [
    Piece("silu_ffi", "jnp", same_math=f"x * {SIGMOID}"),
    Piece("_silu_fwd", "jnp", element=0, same_math=f"(x * {SIGMOID}, x)",
          edits=(("residual negated", "return (silu_ffi(x), x)", "return (silu_ffi(x), -x)"),)),
    Piece("_silu_bwd", "jnp", element=0, same_math=f"(ct * {SIGMOID} * (1 + x * (1 - {SIGMOID})),)",
          edits=(("operands swapped", ")(x, ct)", ")(ct, x)"),)),
]
CXX_PIECES = [
    CxxPiece("forward yp[i]", "yp[i]", changes=("*->+ #0", "= made +=")),
    CxxPiece("backward op[i]", "op[i]", changes=("-->+ #4",)),
    CxxPiece("backward s", "float s", index=""),
]

# Rank 6, above 2^20 elements, rows of 4100: past every threshold a mutant sits at; checked first.
PAST_ALL = (2, 2, 2, 2, 16, 4100)
LADDER = [PAST_ALL, *SHAPES, (3, 1), (2, 9), (2, 513), (1, 4097), (2, 1, 3, 1, 2, 5)]

_RENAMES: dict = {}    # the current mutant's target names -> the names registered
_STATE = {"mutant": 0, "poisoned": False, "installed": False}


def _install() -> None:
    """jax.ffi.register_ffi_target registers a target under a name of this mutant's own;
    jax.ffi.ffi_call calls it by that name, or, poisoned, calls a host function returning
    the poison values in the result's shape instead."""
    import jax
    register, call = jax.ffi.register_ffi_target, jax.ffi.ffi_call

    def registering(name, fn, *args, **kwargs):
        _RENAMES[name] = f"{name}__mutant{_STATE['mutant']}"
        return register(_RENAMES[name], fn, *args, **kwargs)

    def calling(target, result_shape_dtypes, *args, **kwargs):
        if not _STATE["poisoned"]:
            return call(_RENAMES.get(target, target), result_shape_dtypes, *args, **kwargs)

        def poisoned(*operands, **_attributes):
            return jax.pure_callback(lambda *_: jax.tree_util.tree_map(poison_like, result_shape_dtypes),
                                     result_shape_dtypes, *operands, vmap_method="sequential")
        return poisoned
    jax.ffi.register_ffi_target, jax.ffi.ffi_call = registering, calling
    _STATE["installed"] = True


def prepare() -> None:
    """Before a mutant's cells: new target names (kernels.build forgets the old ones)."""
    from kernels import build
    if not _STATE["installed"]:
        _install()
    _STATE["mutant"] += 1
    _STATE["poisoned"] = False
    _RENAMES.clear()
    build._registered.clear()


def _silu64(x):
    x = x.astype(np.float64)
    with np.errstate(over="ignore"):
        return x / (1 + np.exp(-x))


def _dsilu64(x):
    x = x.astype(np.float64)
    with np.errstate(over="ignore"):
        s = 1 / (1 + np.exp(-x))
    return s * (1 + x * (1 - s))


def _close(got, want, rtol, atol) -> bool:
    got = np.asarray(got)
    return got.shape == want.shape and got.dtype == np.float32 and bool(
        np.all(np.abs(got.astype(np.float64) - want) <= atol + rtol * np.abs(want)))


def oracle(env: dict) -> str:
    """At every shape of LADDER (up to 2^20 + 3 elements, ranks 0 to 6, rows 1 to 4100 wide),
    element by element against float64 SiLU and its derivative: silu_ffi eagerly, under jit
    and under vmap (batches up to 4097); the VJP's primal and cotangent (a random one)
    eagerly, under jit and vmapped; then, each FFI target poisoned (a host function returning the poison values),
    every element of jit(silu_ffi), of the VJP's primal and of its cotangent is a poison
    value (where each element belongs, the values have said: a layout there and back moves
    the poison)."""
    import jax

    from autograder.shared import poison
    fn = env["silu_ffi"]
    rng = np.random.default_rng(11)

    def vjp(v, c):
        y, back = jax.vjp(fn, v)
        return y, back(c)[0]
    runs = {"silu_ffi eagerly": lambda v, c: (fn(v),), "jax.jit(silu_ffi)": jax.jit(lambda v, c: (fn(v),)),
            "the VJP eagerly": vjp, "jax.jit of the VJP": jax.jit(vjp),
            "jax.vmap(silu_ffi)": jax.vmap(lambda v, c: (fn(v),)), "jax.vmap of the VJP": jax.vmap(vjp)}
    for shape in LADDER:
        x = rng.uniform(-20, 20, size=shape).astype(np.float32)
        ct = rng.standard_normal(shape).astype(np.float32)
        y64, g64 = _silu64(x), _dsilu64(x) * ct
        for label, run in runs.items():
            if "vmap" in label and (not shape or not x.size or shape[0] > 4097):
                continue   # vmap_method="sequential_unrolled" lowers one call per example
            got = run(x, ct)
            if not _close(got[0], y64, 2e-5, 1e-6):
                return f"{label}, shape {shape}: not silu(x)"
            if len(got) > 1 and not _close(got[1], g64, 1e-4, 1e-5):
                return f"{label}, shape {shape}: the cotangent is not ct * silu'(x)"
        if not x.size:
            continue
        _STATE["poisoned"] = True
        try:   # functions of their own: jit's cache holds the unpoisoned traces
            y = np.asarray(jax.jit(lambda v: fn(v))(x))
            primal, g = map(np.asarray, jax.jit(lambda v, c: vjp(v, c))(x, ct))
        finally:
            _STATE["poisoned"] = False
        # every element a poison value (a layout there and back moves them: where each belongs
        # the values above have said)
        if not (y.shape == shape and np.all(poison.straight(y, [y.size]))):
            return f"shape {shape}: with the FFI targets poisoned, jit(silu_ffi) is not the forward kernel's output"
        if not (primal.shape == shape and np.all(poison.straight(primal, [primal.size]))):
            return f"shape {shape}: with the FFI targets poisoned, the VJP's primal is not the forward kernel's output"
        if not (g.shape == shape and np.all(poison.straight(g, [g.size]))):
            return f"shape {shape}: with the FFI targets poisoned, the cotangent is not the backward kernel's output"
    return ""


# Mutants the oracle must find wrong (tests/test_mutants.py): C++ from a rank, moved in C++
# past a size, re-sourced in JAX past a size, a Python value.
KNOWN_WRONG = ("thresholds/backward op[i]/-->+ #4/rank>=5", "positions/forward yp[i]/row reversed/size>65536",
               "provenance/_silu_bwd/size>4096", "values/_silu_fwd/residual negated")
