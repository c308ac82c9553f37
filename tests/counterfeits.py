"""Answers that fool the chapter's self-checks (the course's facts, kept beside the repository
in ../shared/FACTS.md: "What the seed's self-checks miss"). The inspection library must tell
each of them from the real thing."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.core import ShapedArray
from jax.experimental import io_callback
from jax.extend.core import Primitive
from jax.interpreters import mlir


@jax.jit
def pure_callback(x):
    """A jitted helper that is merely *named* pure_callback: `"pure_callback" in
    str(jaxpr)` holds, yet no host callback runs."""
    return 2 * x


def doubler_named_helper(x):
    return pure_callback(x)


# A user primitive that takes the name of JAX's callback primitive.
fake_pure_callback_p = Primitive("pure_callback")
fake_pure_callback_p.def_impl(lambda x: 2 * x)
fake_pure_callback_p.def_abstract_eval(lambda a: ShapedArray(a.shape, a.dtype))
mlir.register_lowering(fake_pure_callback_p, mlir.lower_fun(lambda x: 2 * x, multiple_results=False))


def doubler_fake_primitive(x):
    return fake_pure_callback_p.bind(x)


def _sds(x):
    return jax.ShapeDtypeStruct(x.shape, x.dtype)


def doubler_io_callback(x):
    return io_callback(lambda a: np.asarray(a) * 2, _sds(x), x)


def _silu_host(a):
    a = np.asarray(a)
    return (a / (1 + np.exp(-a))).astype(a.dtype)


def _silu_grad_host(a, g):
    a, g = np.asarray(a), np.asarray(g)
    s = 1 / (1 + np.exp(-a))
    return (g * s * (1 + a * (1 - s))).astype(a.dtype)


@jax.custom_vjp
def silu_callbacks(x):
    """SiLU with both passes through pure_callback: two custom_calls, no FFI handler."""
    return jax.pure_callback(_silu_host, _sds(x), x, vmap_method="broadcast_all")


silu_callbacks.defvjp(
    lambda x: (silu_callbacks(x), x),
    lambda x, g: (jax.pure_callback(_silu_grad_host, _sds(x), x, g, vmap_method="broadcast_all"),))


class FakePrimitive:
    """Passes `rms_norm_prim_p.bind(x, eps=...)` with jnp code and no primitive at all."""
    name = "rms_norm_prim"

    def bind(self, x, *, eps):
        return x / jnp.sqrt(jnp.mean(x ** 2, axis=-1, keepdims=True) + eps)
