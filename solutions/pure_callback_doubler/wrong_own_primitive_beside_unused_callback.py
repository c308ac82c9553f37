"""Wrong: the values come from a primitive of the student's own (a NumPy doubling as its
eager implementation, 2 * x in JAX as its lowering, a batching rule), and a genuine
pure_callback of a correct host function is called beside it, its result unused. Every
number is right, eagerly and under jit, and the host function is pure NumPy; but the result
of pure_callback_doubler is not the pure_callback's output, so it earns nothing.

score: 0
messages:
  - does not take its result from the pure_callback
"""
from jax.extend.core import Primitive
from jax.interpreters import batching, mlir

doubled_p = Primitive("doubled")
doubled_p.def_impl(lambda x: jnp.asarray(np.asarray(x) * 2))
doubled_p.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
mlir.register_lowering(doubled_p, mlir.lower_fun(lambda x: 2 * x, multiple_results=False))
batching.defvectorized(doubled_p)


def host_double(arr):
    return np.asarray(arr) * 2


def pure_callback_doubler(x):
    jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)   # unused
    return doubled_p.bind(x)
