"""Protocol takeover through /proc/self/cmdline and the builtin open() of a descriptor number
(no os, no sys: reopening /proc/self/fd/N by path is refused, the pipes are root's): after
the program of wrong_jax_digamma
(SciPy's gammaln through a callback, the derivative from jax.scipy's digamma), a cell
answers every question the student's process is asked (eager values, jaxpr equations,
the host functions called directly, poisoned eager runs) from an honest gammaln_cb it
keeps aside, and hands over only the real programs when the grader asks for them. The
derivative's compiled program, run by the executor, does not come from SciPy's digamma,
and every derivative test is gated on that run: the takeover earns what its real code
earns.

assignment: gammaln_callback
base: wrong_jax_digamma
score: 3
messages:
  - so this test earns nothing
absent:
  - of your notebook raised
"""
def _honest_cb(fn, x):
    return jax.pure_callback(lambda a: fn(np.asarray(a)).astype(a.dtype),
                             jax.ShapeDtypeStruct(x.shape, x.dtype), x, vmap_method="expand_dims")


@jax.custom_jvp
def _honest_gammaln_cb(x):
    return _honest_cb(sps.gammaln, x)


@_honest_gammaln_cb.defjvp
def _honest_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _honest_gammaln_cb(x), _honest_cb(sps.digamma, x) * t


def _pipes():
    """The witness's request and reply pipes, by the numbers its command line ends with."""
    with open("/proc/self/cmdline", "rb") as f:
        args = f.read().split(b"\0")[:-1]
    if not args or not any(a.endswith(b"autograder.witness") for a in args):
        return None
    return open(int(args[-2]), "rb", closefd=False), open(int(args[-1]), "wb", closefd=False)


pipes = _pipes()
if pipes:
    from autograder.shared import wire
    from autograder.witness.evaluate import evaluate
    requests, replies = pipes
    honest = {**globals(), "gammaln_cb": _honest_gammaln_cb}
    wire.send(replies, {"ready": {"errors": []}})
    while True:
        message = wire.receive(requests.read, None)
        if message.get("op") != "eval":
            raise SystemExit
        expr = message["expr"]
        wire.send(replies, evaluate(globals() if expr.startswith("handover.") else honest, expr,
                                    message.get("inputs", {}), "gammaln_callback"))
