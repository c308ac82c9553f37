"""Cheat: custom_reduce_sum binds custom_reduce_sum_p only while JAX stages a program
(make_jaxpr, jit); run eagerly, and under eager jvp, vjp, vmap or linear_transpose, it is
jnp.sum. Correct rules are registered, and every value is right.

score: 0
messages:
  - do not come from custom_reduce_sum_p (its given implementation)
  - do not come from your JVP rule
  - do not come from your transpose rule
  - do not come from your batching rule
"""
from jax._src.interpreters.partial_eval import DynamicJaxprTracer

_given_custom_reduce_sum = custom_reduce_sum


def _staged(x):
    while not isinstance(x, DynamicJaxprTracer) and (hasattr(x, "primal") or hasattr(x, "val")):
        x = x.primal if hasattr(x, "primal") else x.val    # look through jvp and vmap tracers
    return isinstance(x, DynamicJaxprTracer)


def custom_reduce_sum(x, axis):
    if _staged(x):
        return _given_custom_reduce_sum(x, axis)
    return jnp.sum(x, axis=axis)


def _jvp(primals, tangents, *, axis):
    (x,), (t,) = primals, tangents
    y = custom_reduce_sum_p.bind(x, axis=axis)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, custom_reduce_sum_p.bind(t, axis=axis)


def _transpose(ct, x, *, axis):
    if type(ct) is ad.Zero:
        return (ad.Zero(x.aval),)
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), x.aval.shape),)


def _batch(args, dims, *, axis):
    (x,), (bd,) = args, dims
    return custom_reduce_sum_p.bind(jnp.moveaxis(x, bd, 0), axis=tuple(a + 1 for a in axis)), 0


ad.primitive_jvps[custom_reduce_sum_p] = _jvp
ad.primitive_transposes[custom_reduce_sum_p] = _transpose
batching.primitive_batchers[custom_reduce_sum_p] = _batch
