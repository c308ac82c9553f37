"""ffi_lowering's mutants: the lowering (eps passed wrong, thresholds on the static shape
and on eps, replaced by mlir.lower_fun of the jnp math), the batching rule (eps passed
wrong, the batch dimension moved wrong, thresholds on the batch dimension, the batch size,
the row width, eps; replaced by the jnp math) and the abstract evaluation (shape or dtype
wrong). The reference registers jax.ffi.ffi_lowering("rms_norm") at module level, which no
mutant reaches: the source is the catalogue's alt_lowering_def.py, whose lowering is a def.
"""
import numpy as np

from autograder.authoring.mutants.generate import Piece
from autograder.authoring.mutants.oracle import poison_like

SOURCE = "alt_lowering_def.py"

# a row's RMSNorm in jnp (float32), for the provenance mutants: right values, not the kernel's
_JNP = "({v} / jnp.sqrt(jnp.mean(jnp.square({v}), axis=-1, keepdims=True) + eps))"
_MOVED = "jnp.moveaxis(batched_args[0], batch_dims[0], 0)"
_EPS = (("eps>1e-3", "eps > 1e-3"), ("eps<1e-20", "eps < 1e-20"), ("eps>1e20", "eps > 1e20"))
PIECES = [
    Piece("_rms_norm_prim_lowering", "jnp",
          same_math="mlir.lower_fun(lambda v: " + _JNP.format(v="v") + ", multiple_results=False)(ctx, x)",
          size="int(np.prod(ctx.avals_in[0].shape))", rank="len(ctx.avals_in[0].shape)",
          conditions=(("width>8", "ctx.avals_in[0].shape[-1:] > (8,)"),
                      ("width>512", "ctx.avals_in[0].shape[-1:] > (512,)"),
                      ("width>4096", "ctx.avals_in[0].shape[-1:] > (4096,)"), *_EPS),
          edits=(("eps*2", "eps=eps", "eps=eps * 2"),
                 ("eps fixed at 1e-5", "eps=eps", "eps=np.float32(1e-05)"),
                 ("eps floored at 1e-5", "eps=eps", "eps=np.maximum(eps, np.float32(1e-05))"),
                 ("eps capped at 1", "eps=eps", "eps=np.minimum(eps, np.float32(1))"),
                 ("eps as a Python float", "eps=eps", "eps=float(eps)"))),
    Piece("_rms_norm_prim_batch", "jnp", element=0,
          same_math=f"({_JNP.format(v=_MOVED)}, 0)",
          size="np.size({arg}[0])", rank="np.ndim({arg}[0])",
          conditions=(("bd>=1", "batch_dims[0] >= 1"), ("bd last", "batch_dims[0] == np.ndim(batched_args[0]) - 1"),
                      ("batch>64", "np.shape(batched_args[0])[batch_dims[0]] > 64"),
                      ("width>8", "np.shape(batched_args[0])[-1] > 8"),
                      ("width>4096", "np.shape(batched_args[0])[-1] > 4096"), *_EPS),
          edits=(("eps*2", "eps=eps", "eps=eps * 2"), ("eps fixed at 1e-5", "eps=eps", "eps=np.float32(1e-05)"),
                 ("batch moved last", "jnp.moveaxis(x, bd, 0)", "jnp.moveaxis(x, bd, -1)"),
                 ("batch not moved", "jnp.moveaxis(x, bd, 0)", "x"),
                 ("batch dimension returned as bd", "eps=eps), 0)", "eps=eps), bd)"))),
    Piece("_rms_norm_prim_abstract_eval", "jnp",
          edits=(("dtype float16", "x.dtype", "np.float16"), ("shape reversed", "x.shape", "x.shape[::-1]"))),
]
CXX_PIECES = []

# --- the oracle ---------------------------------------------------------------------------
ATOL = 1e-6
# rank >= 1, no empty input (the task's range); widths 1 to past 4096, sizes past 2^20, ranks to 6
LADDER = [(7,), (1000,), (1001,), (4097,), (65537,), ((1 << 20) + 3,), (5, 1), (3, 9), (2, 513), (2, 4097),
          (3, 4, 5), (2, 3, 4, 5), (2, 3, 2, 3, 2), (1, 2, 1, 2, 1, 2), (2, 3, 4, 5, 6, 7),
          ((1 << 17) + 1, 8), (3, (1 << 18) + 5)]
EAGER = [(7,), (4097,), ((1 << 20) + 3,), (3, 9), (2, 3, 2, 3, 2), (1, 2, 1, 2, 1, 2), ((1 << 17) + 1, 8)]
LADDER_EPS = 0.37   # not the usual 1e-5: a constant eps shows; the rows are scaled so that eps weighs
SIDE_EPS = (1e-25, 1e25)   # the ladder under jit again: an eps floored or capped shows
EPS = (1e-30, 1e-20, 1e-10, 1e-5, 1e-3, 2e-3, 0.5, 2.0, 1e5, 1e20, 1e30)
# vmap: the batch dimension at every position of these (in_axes, out_axes = 0 and the last)
VMAP = [(5, 1), (3, 9), (2, 513), (70, 4097), (3, 4, 5), (2, 3, 4, 5), (2, 3, 2, 3, 2), (1, 2, 1, 2, 1, 2),
        (2, 3, 4, 5, 6, 7), ((1 << 17) + 1, 8)]
VMAP_EAGER = [(3, 9), (2, 3, 2, 3, 2), (70, 4097)]
NESTED = [  # (in_axes inner, in_axes outer, shape): jax.vmap(jax.vmap(bind, in_axes=inner), in_axes=outer)
    (1, 3, (3, 4, 16, 2)), (0, 2, (2, 3, 4, 5, 6)), (-1, 0, (3, 2, 5, 4, 2, 3))]
_DATA: dict = {}   # the inputs, made once per process
_WANT: dict = {}   # their float64 RMSNorm


def _scaled(shape, eps, seed):
    """Entries of magnitude up to 1.7 sqrt(eps): the mean square about eps, so eps weighs."""
    key = (shape, eps, seed)
    if key not in _DATA:
        rng = np.random.default_rng(seed)
        u = rng.uniform(-1, 1, size=shape)
        _DATA[key] = (u * 1.7 * np.sqrt(np.float64(np.float32(eps)))).astype(np.float32)
    return _DATA[key]


def _want(x, eps, bd=0):
    """RMSNorm in float64 of x's rows, vmap over axis bd (the batch first in the result);
    computed once per input (the inputs are _scaled's, kept)."""
    from autograder.shared.references import rms_norm_np64
    key = (id(x), eps, bd)
    if key not in _WANT:
        _WANT[key] = rms_norm_np64(np.moveaxis(x, bd, 0), eps=float(np.float32(eps)))
    return _WANT[key]


def _nested(x, inner, outer):
    """jax.vmap(jax.vmap(RMSNorm, in_axes=inner), in_axes=outer)(x) in float64."""
    from autograder.shared.references import rms_norm_np64
    key = (id(x), inner, outer)
    if key not in _WANT:
        y, eps = np.moveaxis(x, outer, 0), float(np.float32(LADDER_EPS))
        _WANT[key] = np.stack([rms_norm_np64(np.moveaxis(y[k], inner, 0), eps=eps) for k in range(y.shape[0])])
    return _WANT[key]


def _differs(got, want) -> str:
    got = np.asarray(got)
    if got.shape != want.shape or got.dtype != np.float32:
        return f"gives {got.dtype}{list(got.shape)}, not float32{list(want.shape)}"
    # the kernel sums a row's squares in float32, in order: a row of n drifts about sqrt(n) 2^-24
    rtol = 1e-5 + 8 * np.sqrt(max(want.shape, default=1)) * 2.0**-24
    bad = ~np.isclose(got, want, rtol=rtol, atol=ATOL, equal_nan=True)
    if bad.any():
        i = np.unravel_index(np.argmax(bad), got.shape)
        return f"differs from RMSNorm at {tuple(int(k) for k in i)}: {got[i]!r} where {want[i]!r}"
    return ""


def _poisoned_kernel():
    """jax.ffi's lowering of the target rms_norm (whatever the answer's lowering calls it with)
    made a pure_callback returning the poison values in the declared shape."""
    from contextlib import contextmanager

    import jax
    from jax._src import ffi
    from jax.interpreters import mlir
    from types import SimpleNamespace

    @contextmanager
    def patched():
        real = ffi.build_ffi_lowering_function

        def build(name, *a, **k):
            if name != "rms_norm":
                return real(name, *a, **k)

            def lowering(ctx, *operands, **params):
                aval = ctx.avals_out[0]
                spec = jax.ShapeDtypeStruct(aval.shape, aval.dtype)
                fn = lambda *ops: jax.pure_callback(lambda *_: poison_like(spec), spec, *ops)
                return SimpleNamespace(results=mlir.lower_fun(fn, multiple_results=False)(ctx, *operands))
            return lowering
        ffi.build_ffi_lowering_function = build
        try:
            yield
        finally:
            ffi.build_ffi_lowering_function = real
    return patched()


def _paths(prim):
    """(label, functions, inputs, wants, names, poisoned) of every path the oracle runs under
    jit, each one program of many calls; poisoned: run only with the kernel poisoned (True),
    only as it is (False), or both (None)."""
    import jax

    def bind(eps):
        return lambda v: prim.bind(v, eps=np.float32(eps))
    out = []
    for eps in (LADDER_EPS, *SIDE_EPS):
        xs = [_scaled(s, eps, 1) for s in LADDER]
        out.append((f"jax.jit of bind with eps={eps:g}", [bind(eps)] * len(xs), xs, [_want(x, eps) for x in xs], LADDER,
                    None if eps == LADDER_EPS else False))
    xs = [_scaled((6, 40), e, 2) for e in EPS]
    out.append(("jax.jit of bind, eps ladder", [bind(e) for e in EPS], xs, [_want(x, e) for x, e in zip(xs, EPS)],
                [f"eps={e:g}" for e in EPS], None))
    for bd in (0, 1, -1):   # the batch dimension first, in the middle, last
        xs = [_scaled((5, 6, 40), e, 3) for e in EPS]
        out.append((f"jax.jit(jax.vmap(in_axes={bd})), eps ladder",
                    [jax.vmap(bind(e), in_axes=bd) for e in EPS], xs, [_want(x, e, bd) for x, e in zip(xs, EPS)],
                    [f"eps={e:g}" for e in EPS], None))
    for poisoned in (False, True):   # every batch position; its first and last again with the kernel poisoned
        fns, xs, wants, names = [], [], [], []
        for shape in VMAP:
            x = _scaled(shape, LADDER_EPS, 5)
            for bd in (0, len(shape) - 1) if poisoned else range(len(shape)):
                fns.append(jax.vmap(bind(LADDER_EPS), in_axes=bd))
                xs.append(x)
                wants.append(_want(x, LADDER_EPS, bd))
                names.append(f"shape {shape} in_axes={bd}")
        if not poisoned:
            for inner, outer, shape in NESTED:
                x = _scaled(shape, LADDER_EPS, 6)
                fns.append(jax.vmap(jax.vmap(bind(LADDER_EPS), in_axes=inner), in_axes=outer))
                xs.append(x)
                wants.append(_nested(x, inner, outer))
                names.append(f"shape {shape} vmap(vmap(in_axes={inner}), in_axes={outer})")
        out.append(("jax.jit(jax.vmap) at every batch position" if not poisoned else
                    "jax.jit(jax.vmap), the batch dimension first and last", fns, xs, wants, names, poisoned))
    return out


def oracle(env: dict) -> str:
    """RMSNorm over the last axis (float32, to rtol 1e-5 + 8 sqrt(n) 2^-24 of the float64 reference, element
    by element), eps as bound, on rows where eps weighs: jax.eval_shape; eagerly and under
    jax.jit on a ladder of shapes (widths 1 to 2^20 + 3, sizes past 2^20, ranks 1 to 6);
    every eps from 1e-30 to 1e30 eagerly, under jit and under jax.vmap (batch first, in the
    middle and last); jax.vmap at every batch position of ranks 2 to 6 (to 131,073 examples
    and rows of 131,073), nested vmap, eager vmap; and every element of every jit result is
    the rms_norm kernel's (its lowering poisoned: every element a poison value)."""
    import jax

    from autograder.shared import poison
    prim = env["rms_norm_prim_p"]
    for shape in LADDER + [(1, 2**31 - 1)]:
        got = jax.eval_shape(lambda v: prim.bind(v, eps=np.float32(1e-5)), jax.ShapeDtypeStruct(shape, np.float32))
        if tuple(got.shape) != shape or got.dtype != np.float32:
            return f"jax.eval_shape on shape {shape} gives {got.dtype}{list(got.shape)}"
    for shape in EAGER:
        x = _scaled(shape, LADDER_EPS, 1)
        why = _differs(prim.bind(x, eps=np.float32(LADDER_EPS)), _want(x, LADDER_EPS))
        if why:
            return f"eager bind on shape {shape} {why}"
    for e in EPS:
        x = _scaled((6, 40), e, 2)
        why = _differs(prim.bind(x, eps=np.float32(e)), _want(x, e))
        if why:
            return f"eager bind with eps={e:g} {why}"
    for shape in VMAP_EAGER:
        x = _scaled(shape, LADDER_EPS, 5)
        for bd in range(len(shape)):
            why = _differs(jax.vmap(lambda v: prim.bind(v, eps=np.float32(LADDER_EPS)), in_axes=bd)(x),
                           _want(x, LADDER_EPS, bd))
            if why:
                return f"eager jax.vmap(in_axes={bd}) on shape {shape} {why}"
    for e in (EPS[0], EPS[-1]):
        x = _scaled((5, 6, 40), e, 3)
        for bd in (0, 1, 2):
            why = _differs(jax.vmap(lambda v: prim.bind(v, eps=np.float32(e)), in_axes=bd)(x), _want(x, e, bd))
            if why:
                return f"eager jax.vmap(in_axes={bd}) with eps={e:g} {why}"
    paths = _paths(prim)
    for label, fns, xs, wants, names, poisoned in paths:
        if poisoned:
            continue
        got = jax.jit(lambda *a, fns=fns: [f(v) for f, v in zip(fns, a)])(*xs)
        for g, w, name in zip(got, wants, names):
            why = _differs(g, w)
            if why:
                return f"{label}, {name}: {why}"
    with _poisoned_kernel():
        for label, fns, xs, wants, names, poisoned in paths:
            if poisoned is False:
                continue
            got = jax.jit(lambda *a, fns=fns: [f(v) for f, v in zip(fns, a)])(*xs)
            for g, name in zip(got, names):
                g = np.asarray(g)
                # every element a poison value (a batching rule that binds per example gets each
                # example's own poison: not one permutation of the whole's)
                if not np.all(poison.straight(g, [g.size])):
                    return f"{label}, {name}: with the rms_norm kernel poisoned, not every element is its output"
    return ""


# Mutants the oracle must find wrong (tests/test_mutants.py): eps, a threshold, a position, a provenance.
KNOWN_WRONG = ("thresholds/_rms_norm_prim_lowering/eps*2/width>4096",
               "thresholds/_rms_norm_prim_batch/batch moved last/rank>=5",
               "positions/_rms_norm_prim_batch/rolled by one/size>65536",
               "provenance/_rms_norm_prim_lowering/size>1048576")
