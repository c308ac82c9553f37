"""A wrong answer (its base, ffi_lowering's wrong_lower_fun_jnp.py), then sys.exit(0) in the middle of the cell, hoping the grader
stops early and keeps the points of the tests that did not run.

assignment: ffi_lowering
base: wrong_lower_fun_jnp
score: 2
messages:
  - The compiled program of jax.jit of rms_norm_prim_p.bind holds no custom_call to the FFI target rms_norm
"""
import sys


sys.exit(0)
