"""A wrong answer (its base, ffi_lowering's wrong_lower_fun_jnp.py) with every NumPy comparison the tests might use patched to
say "equal": numpy.testing, np.isclose, np.allclose, np.array_equal.

assignment: ffi_lowering
base: wrong_lower_fun_jnp
score: 2
messages:
  - The compiled program of jax.jit of rms_norm_prim_p.bind holds no custom_call to the FFI target rms_norm
"""
import numpy.testing

for name in dir(numpy.testing):
    if name.startswith("assert_"):
        setattr(numpy.testing, name, lambda *args, **kwargs: None)
np.isclose = lambda a, b, *args, **kwargs: np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, bool)
np.allclose = lambda *args, **kwargs: True
np.array_equal = lambda *args, **kwargs: True
