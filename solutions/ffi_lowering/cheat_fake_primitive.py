"""Cheat: no primitive at all, an object whose .bind does the RMSNorm in jnp. The
chapter's self-check passes except for its lowering-text assert.

score: 0
messages:
  - rms_norm_prim_p is not an untouched jax.extend.core.Primitive
"""
class _FakePrimitive:
    name = "rms_norm_prim"

    def bind(self, x, *, eps):
        return x / jnp.sqrt(jnp.mean(x ** 2, axis=-1, keepdims=True) + eps)


rms_norm_prim_p = _FakePrimitive()
