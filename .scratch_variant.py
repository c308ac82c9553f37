"""The identity forms a variant wraps around a piece of an answer. This file's text is put at
the top of the variant's answer cell (it runs in the student's notebook, so it imports
nothing of the grader's): each form recomputes what the piece computes, by another route.

- `_v_traced(form)`: a decorator for an elementwise traced piece (every array argument of
  one shape, every output of that shape); the form, named in _V_LAYOUTS, _V_LOOPS or
  _V_GUARDS, computes `call(*arrays)` another way (a layout there and back, a loop over the
  leading axis, the input in parts, a guard that passes what the piece gives anyway).
- `_v_host(form)`: a decorator for a host function of one array.
- `_v_batch(primitive, form)`: a batching rule for a primitive of one operand whose result
  keeps its leading axis: the examples moved to the front and bound one at a time in a loop
  of `form`, or the batch padded.
"""
import concurrent.futures
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def _v_traced(form):
    form = {**_V_LAYOUTS, **_V_LOOPS, **_V_GUARDS}[form]

    def decorate(f):
        @functools.wraps(f)
        def piece(*args):
            where = [i for i, a in enumerate(args) if hasattr(a, "shape")]

            def call(*arrays):
                full = list(args)
                for i, a in zip(where, arrays):
                    full[i] = a
                return f(*full)
            return form(call, [jnp.asarray(args[i]) for i in where])
        return piece
    return decorate


def _v_layout(there, back):
    """call on each array moved `there`, its outputs moved `back` (given the first array's shape)."""
    def form(call, arrays):
        shape = arrays[0].shape
        return jax.tree_util.tree_map(lambda r: back(r, shape), call(*[there(a) for a in arrays]))
    return form


def _v_padded(block, value=1.0):
    """The arrays flattened and padded with `value` to whole blocks; the outputs sliced back."""
    return _v_layout(lambda a: jnp.pad(a.ravel(), (0, (-a.size) % block), constant_values=value),
                     lambda r, shape: r[:math.prod(shape)].reshape(shape))


def _v_gathered(a):
    n = a.size
    return jnp.take(a.ravel(), jnp.arange(n)[::-1]) if n else a.ravel()


def _v_scattered(r, shape):
    n = math.prod(shape)
    return (jnp.zeros_like(r).at[jnp.arange(n)[::-1]].set(r) if n else r).reshape(shape)


_V_LAYOUTS = {
    "flipped": _v_layout(jnp.flip, lambda r, shape: jnp.flip(r)),
    "transposed": _v_layout(jnp.transpose, lambda r, shape: jnp.transpose(r)),
    "fortran_order": _v_layout(lambda a: a.ravel(order="F"), lambda r, shape: r.reshape(shape, order="F")),
    "rows": _v_layout(lambda a: a.reshape(-1, a.shape[-1]) if a.ndim >= 2 and a.size else a,
                      lambda r, shape: r.reshape(shape)),
    "column": _v_layout(lambda a: a.reshape(-1, 1), lambda r, shape: r.reshape(shape)),
    "rolled": _v_layout(lambda a: jnp.roll(a.ravel(), 3), lambda r, shape: jnp.roll(r, -3).reshape(shape)),
    "padded_to_8": _v_padded(8),
    "padded_to_1024": _v_padded(1024),
    "gathered_and_scattered": _v_layout(_v_gathered, _v_scattered),
}


def _v_leading(loop):
    """`loop(call, arrays, n)` over the leading axis (n examples); a 0-d input is called as it
    is, a 1-d one padded with ones to whole rows of 64 (one callback per element would take
    minutes on the million values the grader runs)."""
    def form(call, arrays):
        if arrays[0].ndim == 0:
            return call(*arrays)
        if arrays[0].ndim == 1:
            size = arrays[0].size
            rows = [jnp.pad(a, (0, -size % 64), constant_values=1.0).reshape(-1, 64) for a in arrays]
            return jax.tree_util.tree_map(lambda r: r.ravel()[:size], _v_rows(loop, call, rows, call))
        return _v_rows(loop, call, arrays, call)
    return form


def _v_rows(loop, call, arrays, empty=None):
    """`loop` over the leading axis; no examples (a loop could not index one): `empty`, the
    piece called on the empty arrays as they are (elementwise pieces), or the outputs' empty
    arrays (a batching rule)."""
    n = arrays[0].shape[0]
    if n:
        return loop(call, arrays, n)
    return empty(*arrays) if empty else _v_zeros(call, arrays, 0)


def _v_zeros(call, arrays, n):
    one = jax.eval_shape(call, *[jax.ShapeDtypeStruct(a.shape[1:], a.dtype) for a in arrays])
    return jax.tree_util.tree_map(lambda s: jnp.zeros((n, *s.shape), s.dtype), one)


def _v_fori_at(call, arrays, n):
    def body(i, out):
        return jax.tree_util.tree_map(lambda o, r: o.at[i].set(r), out, call(*[a[i] for a in arrays]))
    return lax.fori_loop(0, n, body, _v_zeros(call, arrays, n))


def _v_fori_dus(call, arrays, n):
    def body(i, out):
        return jax.tree_util.tree_map(lambda o, r: lax.dynamic_update_index_in_dim(o, r, i, 0), out,
                                      call(*[lax.dynamic_index_in_dim(a, i, 0, keepdims=False) for a in arrays]))
    return lax.fori_loop(0, n, body, _v_zeros(call, arrays, n))


def _v_while(call, arrays, n):
    def body(carry):
        i, out = carry
        return i + 1, jax.tree_util.tree_map(lambda o, r: o.at[i].set(r), out, call(*[a[i] for a in arrays]))
    return lax.while_loop(lambda carry: carry[0] < n, body, (0, _v_zeros(call, arrays, n)))[1]


def _v_scan(unroll):
    return lambda call, arrays, n: lax.scan(lambda c, rows: (c, call(*rows)), None, tuple(arrays), unroll=unroll)[1]


def _v_blocks(call, arrays, n, block=1024):
    """The arrays flattened, padded to whole blocks with ones, one block at a time (lax.map)."""
    shape, size = arrays[0].shape, arrays[0].size
    blocks = [jnp.pad(a.ravel(), (0, (-size) % block), constant_values=1.0).reshape(-1, block) for a in arrays]
    out = lax.map(lambda rows: call(*rows), tuple(blocks))
    return jax.tree_util.tree_map(lambda r: r.ravel()[:size].reshape(shape), out)


def _v_split(call, arrays):
    """The arrays flattened and cut in three parts, each called, the outputs joined."""
    shape = arrays[0].shape
    parts = [call(*p) for p in zip(*[jnp.array_split(a.ravel(), 3) for a in arrays])]
    return jax.tree_util.tree_map(lambda *rs: jnp.concatenate(rs).reshape(shape), *parts)


def _v_vmapped(call, arrays):
    """vmap over every axis: the piece called on 0-d examples."""
    f = call
    for _ in range(arrays[0].ndim):
        f = jax.vmap(f)
    return f(*arrays)


# Loops over the leading axis: (call, arrays, n) -> outputs (batching rules use them too).
_V_ROW_LOOPS = {
    "lax_map": lambda call, arrays, n: lax.map(lambda rows: call(*rows), tuple(arrays)),
    "lax_map_batch_size_4": lambda call, arrays, n: lax.map(lambda rows: call(*rows), tuple(arrays), batch_size=4),
    "fori_loop_at_set": _v_fori_at,
    "fori_loop_dynamic_update": _v_fori_dus,
    "while_loop": _v_while,
    "scan": _v_scan(1),
    "scan_unroll_2": _v_scan(2),
    "lax_map_over_indices": lambda call, arrays, n: lax.map(lambda i: call(*[a[i] for a in arrays]), jnp.arange(n)),
    # A Python loop: the program grows with n (batching rules only: their batches are small).
    "unstacked": lambda call, arrays, n: jax.tree_util.tree_map(
        lambda *rs: jnp.stack(rs), *[call(*[a[i] for a in arrays]) for i in range(n)]),
}
_V_LOOPS = {
    **{name: _v_leading(loop) for name, loop in _V_ROW_LOOPS.items()},
    "blocks_of_1024_lax_map": _v_leading(_v_blocks),
    "vmap_leading_axis": _v_leading(lambda call, arrays, n: jax.vmap(call)(*arrays)),
    "vmap_every_axis": _v_vmapped,
    "split_in_three": _v_split,
}


# Guards around a piece that passes +inf and NaN through (gammaln does): (call, arrays) -> output.
_V_GUARDS = {
    "isinf_guard": lambda call, arrays: jnp.where(jnp.isinf(arrays[0]) & (arrays[0] > 0), jnp.inf, call(*arrays)),
    "isnan_guard": lambda call, arrays: jnp.where(jnp.isnan(arrays[0]), arrays[0], call(*arrays)),
    "isfinite_guard": lambda call, arrays: jnp.where(jnp.isfinite(arrays[0]), call(*arrays),
                                                     jnp.where(jnp.isnan(arrays[0]), arrays[0], jnp.inf)),
}


def _v_host(form):
    form = _V_HOSTS[form]

    def decorate(f):
        @functools.wraps(f)
        def host(a):
            return form(f, a)
        return host
    return decorate


def _v_chunks(f, a, threaded=False):
    a = np.asarray(a)
    parts = np.array_split(a.ravel(), 4)
    if threaded:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            done = list(pool.map(f, parts))
    else:
        done = [f(p) for p in parts]
    return np.concatenate([np.ravel(d) for d in done]).reshape(a.shape)


def _v_out_buffer(f, a):
    r = np.asarray(f(a))
    out = np.empty(r.shape, r.dtype)
    out[...] = r
    return out


_V_HOSTS = {
    "chunked": _v_chunks,
    "threaded_chunks": functools.partial(_v_chunks, threaded=True),
    "private_copy": lambda f, a: f(np.array(a, copy=True)),
    "out_buffer": _v_out_buffer,
    "fortran_order": lambda f, a: np.array(f(np.array(a, order="F")), order="C"),
    "flattened": lambda f, a: np.asarray(f(np.ravel(np.asarray(a)))).reshape(np.shape(a)),
    "flipped": lambda f, a: np.flip(f(np.flip(np.asarray(a)).copy())).copy(),
}


def _v_batch(primitive, loop):
    """A batching rule binding `primitive` on one example at a time (a loop of _V_ROW_LOOPS over
    the batch moved to the front), its other parameters as given."""
    def rule(batched_args, batch_dims, **params):
        (x,), (bd,) = batched_args, batch_dims
        x = jnp.moveaxis(x, bd, 0)
        return _v_rows(_V_ROW_LOOPS[loop], lambda e: primitive.bind(e, **params), [x]), 0
    return rule


SILU_CC = '\n#include <cmath>\n#include <cstdint>\n#include "xla/ffi/api/ffi.h"\n\nnamespace ffi = xla::ffi;\n'
SILU_CC += '\nstatic inline float Sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }   // exp(80) fits in float32\n\nstatic ffi::Error SiluImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {\n  const int64_t n = x.element_count();\n  const float* xp = x.typed_data();\n  float* yp = y->typed_data();\n  for (int64_t i = 0; i < n; ++i) yp[i] = xp[i] * Sigmoid(xp[i]);\n  return ffi::Error::Success();\n}\n\n// ct_x = ct_y * s * (1 + x * (1 - s)), s = sigmoid(x)\nstatic ffi::Error SiluBwdImpl(ffi::Buffer<ffi::F32> x, ffi::Buffer<ffi::F32> ct_y,\n                              ffi::ResultBuffer<ffi::F32> ct_x) {\n  const int64_t n = x.element_count();\n  const float* xp = x.typed_data();\n  const float* gp = ct_y.typed_data();\n  float* op = ct_x->typed_data();\n  for (int64_t i = 0; i < n; ++i) {\n    float s = Sigmoid(xp[i]);\n    op[i] = gp[i] * s * (1.0f + xp[i] * (1.0f - s));\n  }\n  return ffi::Error::Success();\n}\n\nXLA_FFI_DEFINE_HANDLER_SYMBOL(Silu, SiluImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\nXLA_FFI_DEFINE_HANDLER_SYMBOL(SiluBwd, SiluBwdImpl,\n    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());\n'
Path('silu.cc').write_text(SILU_CC)
load_and_register('silu.cc', {'silu': 'Silu', 'silu_bwd': 'SiluBwd'})

@jax.custom_vjp
@_v_traced('gathered_and_scattered')
def silu_ffi(x):
    return jax.ffi.ffi_call('silu', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all')(x)

def _silu_fwd(x):
    return (silu_ffi(x), x)

def _silu_bwd(x, ct):
    return (jax.ffi.ffi_call('silu_bwd', jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method='broadcast_all')(x, ct),)
silu_ffi.defvjp(_silu_fwd, _silu_bwd)
