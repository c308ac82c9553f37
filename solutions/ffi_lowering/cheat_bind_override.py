"""Cheat: a genuine Primitive named rms_norm_prim whose bind is replaced on the instance
by a jnp RMSNorm, with nothing registered.

score: 0
messages:
  - rms_norm_prim_p is not an untouched jax.extend.core.Primitive
"""
rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.bind = lambda x, *, eps: x / jnp.sqrt(jnp.mean(x ** 2, axis=-1, keepdims=True) + eps)
