"""Protocol takeover: a primitive computed with jnp (no kernel), and a cell that takes over the
witness's pipes (their numbers are in its sys.argv) to answer every grading question itself,
where the guard never runs: ordinary questions truthfully, and each question asking for the
compiled program with a genuine-looking one, the jnp program plus a live custom_call to the
course's rms_norm whose result is multiplied by zero. Before the executor, the same cell
could answer the grader's trace questions with any report it liked and earned 10/10. Now
the program is read and run by the executor: the custom_call is there, but the output does
not depend on it, so every test that runs a compiled program is lost (8 of 10); the two
that only ask the witness (the eager impl's values, the eps param in the jaxpr) are still
answered by the taken-over witness, and they are true of this cell's real primitive: the
same code without the takeover, solutions/ffi_lowering/wrong_lower_fun_jnp.py, earns the
same 2 points. The takeover gains nothing.

assignment: ffi_lowering
score: 2
messages:
  - does not come from the rms_norm kernel
"""
import os
import sys

from jax.interpreters import batching


def _rms_jnp(x, eps):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps)


rms_norm_prim_p = Primitive("rms_norm_prim")
rms_norm_prim_p.def_abstract_eval(lambda x, *, eps: ShapedArray(x.shape, x.dtype))
rms_norm_prim_p.def_impl(lambda x, *, eps: _rms_jnp(x, eps))
mlir.register_lowering(rms_norm_prim_p, mlir.lower_fun(_rms_jnp, multiple_results=False), platform="cpu")
batching.primitive_batchers[rms_norm_prim_p] = (
    lambda args, dims, *, eps: (rms_norm_prim_p.bind(jnp.moveaxis(args[0], dims[0], 0), eps=eps), 0))


def _genuine_looking(expr, namespace):
    """For 'handover.program(F, x)': F's own program with a live, ignored rms_norm call, and no
    bindings."""
    import ast
    fn = eval(ast.unparse(ast.parse(expr, mode="eval").body.args[0]), namespace)
    x = namespace["x"]
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    decoy = lambda v: fn(v) + 0.0 * jax.ffi.ffi_call("rms_norm", shape)(v, eps=np.float32(1e-5))
    from autograder.shared.evidence import Handover   # the record the grader expects, forged
    return Handover(jax.jit(decoy).lower(x).as_text(), {}, 0, [])


if sys.argv and sys.argv[0].endswith(os.path.join("autograder", "witness", "__main__.py")):
    from autograder.shared import wire
    from autograder.witness.evaluate import _materialize, _tools, evaluate
    requests = os.fdopen(int(sys.argv[-2]), "rb")
    replies = os.fdopen(int(sys.argv[-1]), "wb")
    wire.send(replies, {"ready": {"errors": []}})
    while True:
        message = wire.receive(requests.read, None)
        if message.get("op") != "eval":
            os._exit(0)
        expr, inputs = message["expr"], message.get("inputs", {})
        if expr.startswith("handover.program("):
            namespace = {**globals(), **_tools(expr), **{k: _materialize(v) for k, v in inputs.items()}}
            reply = {"ok": wire.encode(_genuine_looking(expr, namespace))}
        else:
            reply = evaluate(globals(), expr, inputs, "ffi_lowering")
        wire.send(replies, reply)
