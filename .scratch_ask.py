import os, tempfile, sys
sys.path.insert(0, '/repo')
os.chdir(tempfile.mkdtemp())
from pathlib import Path
import numpy as np, jax, jax.numpy as jnp
from kernels.build import KernelBuildError, load_and_register
exec(open('/repo/.scratch_variant.py').read())
from autograder.executor import program
from autograder.shared.probe import Ask
from autograder.witness.evaluate import evaluate
from autograder.assignments.silu_ffi import grader as kit
names = {"silu_ffi": silu_ffi}
ask = Ask(lambda expr, inputs, serving: evaluate(names, expr, inputs, "silu_ffi"), seed=0,
          execute=lambda request, serve=None: program.handle(request))
for shape in [(1,), (2,), (3,), (4,6)]:
    x = ask.normal(541, shape, scale=4.0)
    try:
        (got,) = kit.kernel_values(ask, "lambda v: jax.vjp(silu_ffi, v)[0]", "t", "h", x=x)
        print(shape, x.ravel()[:4], np.asarray(got).ravel()[:4], kit.silu_np64(x).ravel()[:4])
    except AssertionError as e:
        print(shape, "FAIL", str(e)[:300])
