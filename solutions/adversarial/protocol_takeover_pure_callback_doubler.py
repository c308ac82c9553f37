"""Protocol takeover, reaching os without importing it (a `match` class pattern reads
`__init__` and `__globals__` by name, and os's own globals hold sys): after the program of
wrong_callback_times_zero_plus_jnp (a genuine pure_callback multiplied by zero beside
2 * x in jnp), a cell takes over the witness's pipes and answers every question the
student's process is asked about (eager values, jaxpr callback equations, the host function
called directly, its purity) from an honest doubler it keeps aside, and hands over only the
real program when the grader asks for it. Before the executor ran the programs, such a cell
earned 10/10. Now every verdict that matters is computed by the executor from the real
program, and every test that rests on the witness's word is gated on it: the takeover
earns what its real code earns (0).

assignment: pure_callback_doubler
base: wrong_callback_times_zero_plus_jnp
score: 0
messages:
  - does not take its result from the pure_callback
absent:
  - of your notebook raised
"""
def _honest_host(arr):
    return np.asarray(arr) * 2


def _honest_doubler(x):
    return jax.pure_callback(_honest_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def _module_os():
    """os, from the globals of a function defined in it, found by a class pattern."""
    for cls in object.__subclasses__():
        match cls:
            case type(__name__="_wrap_close", __init__=object(__globals__={"sys": found})):
                return found.modules["os"]


os_ = _module_os()
if os_.sys.argv and os_.sys.argv[0].endswith(os_.path.join("autograder", "witness", "__main__.py")):
    from autograder.shared import wire
    from autograder.witness.evaluate import evaluate
    requests, replies = os_.fdopen(int(os_.sys.argv[-2]), "rb"), os_.fdopen(int(os_.sys.argv[-1]), "wb")
    honest = {**globals(), "pure_callback_doubler": _honest_doubler, "host_double": _honest_host}
    wire.send(replies, {"ready": {"errors": []}})
    while True:
        message = wire.receive(requests.read, None)
        if message.get("op") != "eval":
            os_._exit(0)
        expr = message["expr"]
        wire.send(replies, evaluate(globals() if expr.startswith("handover.") else honest, expr,
                                    message.get("inputs", {}), "pure_callback_doubler"))
