"""Cheat: no working JVP or batching rule (placeholders that return nothing useful are
registered so the tables are filled); instead a bind_with_trace set on the primitive
instance computes jnp.sum whenever it is bound under a JVP, linearize or batching trace.
Under make_jaxpr and jit the primitive is the given one; the transpose rule is correct.

score: 0
messages:
  - custom_reduce_sum_p is not the given, untouched jax.extend.core.Primitive named custom_reduce_sum (its instance sets bind_with_trace)
"""
import types

from jax._src import core as _core

_class_bind_with_trace = type(custom_reduce_sum_p).bind_with_trace


def _bind_with_trace(self, trace, args, avals, params):
    if type(trace).__name__ in ("JVPTrace", "LinearizeTrace", "BatchTrace"):
        with _core.set_current_trace(trace):
            return jnp.sum(args[0], axis=params["axis"])
    return _class_bind_with_trace(self, trace, args, avals, params)


custom_reduce_sum_p.bind_with_trace = types.MethodType(_bind_with_trace, custom_reduce_sum_p)


def _placeholder(*args, **params):
    raise NotImplementedError


def _transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _placeholder
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _placeholder
