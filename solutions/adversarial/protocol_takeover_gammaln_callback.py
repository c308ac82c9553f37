"""Protocol takeover, reaching the pipes through a public module's re-export of os
(jax.interpreters.os, since no import of os is allowed) instead of importing it: gammaln_cb
computed with jax.scipy (no callback), and a cell that takes over the witness's pipes to
answer every grading question itself, where the guard never runs, with whatever the tests
want to hear. Before the readable subset the same takeover could answer every structural
question (callback equations, host functions, poisoned runs) as it liked. Now the runner
reads the notebook before running it: the attribute os is outside the subset, so the
notebook is not run and every test fails with that reason; a takeover needs the process's
descriptors, which nothing inside the subset reaches.

assignment: gammaln_callback
score: 0
messages:
  - your notebook uses code this task's answers may not use (cell
  - it uses the attribute os
"""
@jax.custom_jvp
def gammaln_cb(x):
    return jax.scipy.special.gammaln(x)


gammaln_cb.defjvps(lambda t, y, x: jax.scipy.special.digamma(x) * t)

fdopen = jax.interpreters.os.fdopen
requests, replies = fdopen(5, "rb"), fdopen(6, "wb")   # an attacker would find the numbers
