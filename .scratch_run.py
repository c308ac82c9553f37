import os, tempfile
os.chdir(tempfile.mkdtemp())
from pathlib import Path
import numpy as np, jax, jax.numpy as jnp
from kernels.build import KernelBuildError, load_and_register
exec(open('/repo/.scratch_variant.py').read())
for seed in range(5):
    x = (np.random.default_rng(seed).normal(size=(1,))*4).astype(np.float32)
    f = jax.jit(lambda v: jax.vjp(silu_ffi, v)[0])
    print(x, f(x), x/(1+np.exp(-x.astype(np.float64))), jax.jit(silu_ffi)(x), silu_ffi(x))
print(jax.jit(lambda v: jax.vjp(silu_ffi, v)[0]).lower(jnp.ones(1)).as_text())
