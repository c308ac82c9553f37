"""Cheat: replaces custom_reduce_sum_p by an instance of a Primitive subclass (same name,
the given implementation, abstract evaluation and lowering) whose bind_with_trace computes
jnp.sum under JVP, linearize and batching traces; placeholder JVP and batching rules fill
the tables, the transpose rule is correct.

score: 0
messages:
  - "custom_reduce_sum_p is not the given, untouched jax.extend.core.Primitive named custom_reduce_sum (it is a "
"""
from jax._src import core as _core

_given_p = custom_reduce_sum_p


class _SumPrimitive(Primitive):
    def bind_with_trace(self, trace, args, avals, params):
        if type(trace).__name__ in ("JVPTrace", "LinearizeTrace", "BatchTrace"):
            with _core.set_current_trace(trace):
                return jnp.sum(args[0], axis=params["axis"])
        return super().bind_with_trace(trace, args, avals, params)


custom_reduce_sum_p = _SumPrimitive("custom_reduce_sum")
custom_reduce_sum_p.def_impl(_given_p.impl)
custom_reduce_sum_p.def_abstract_eval(_custom_reduce_sum_abstract_eval)
mlir.register_lowering(custom_reduce_sum_p,
                       mlir.lower_fun(lambda x, *, axis: jnp.sum(x, axis=axis), multiple_results=False))


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
