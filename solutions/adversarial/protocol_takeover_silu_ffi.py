"""Protocol takeover: silu_ffi computed with jnp (no kernel at all), and a cell that takes over
the witness's pipes (their numbers are in its sys.argv) to answer every grading question
itself, where the guard never runs: ordinary questions truthfully (the jnp values are
right), and each question asking for a compiled program with a genuine-looking one: the
program of the asked function with every output passed through one of two copy kernels
that silu.cc really holds (CopyA, CopyB, two distinct functions), with the bindings the
notebook really registered. Before the executor, the same cell answered the trace questions
with any report it liked and earned 10/10. Now the programs are run by the executor with
silu.cc compiled by the grader: the copies are real and live, but every compiled program
holds exp and divide outside the kernels, and every test reads that from the program (the
public structure tests too), so it scores what the same cell without the takeover scores
(cheat_custom_vjp_around_jax_nn_silu.py, jnp in a custom_vjp: 0; tests/test_catalogue.py pins
the equality). The takeover chooses which program is graded, never how: a program that earns
anything needs C++ kernels in silu.cc that compute SiLU, which is the exercise.

assignment: silu_ffi
score: 0
messages:
  - computes math in JAX outside your kernels
"""
import os
import sys

Path("silu.cc").write_text(r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error CopyImpl(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i];
  return ffi::Error::Success();
}
static ffi::Error CopyImplB(ffi::Buffer<ffi::F32> x, ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) y->typed_data()[i] = x.typed_data()[i] + 0.0f;
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(CopyA, CopyImpl,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(CopyB, CopyImplB,
    ffi::Ffi::Bind().Arg<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
""")
load_and_register("silu.cc", {"copy_forward": "CopyA", "copy_backward": "CopyB"})


@jax.custom_vjp
def silu_ffi(x):
    return jax.nn.silu(x)


def _bwd(x, g):
    s = jax.nn.sigmoid(x)
    return (g * s * (1 + x * (1 - s)),)


silu_ffi.defvjp(lambda x: (silu_ffi(x), x), _bwd)


def _copy(target, v):
    return jax.ffi.ffi_call(target, jax.ShapeDtypeStruct(v.shape, v.dtype), vmap_method="broadcast_all")(v)


def _genuine_looking(expr, namespace):
    """For 'handover.program(F, a, ...)': F's own program with its first output copied by CopyA
    and the others by CopyB, and the true bindings."""
    import ast
    call = ast.parse(expr, mode="eval").body
    fn = eval(ast.unparse(call.args[0]), namespace)
    args = [namespace[a.id] for a in call.args[1:]]

    def decoy(*a):
        leaves, tree = jax.tree.flatten(fn(*a))
        return jax.tree.unflatten(tree, [_copy("copy_forward" if i == 0 else "copy_backward", leaf)
                                         for i, leaf in enumerate(leaves)])
    from autograder.shared.evidence import Handover   # the record the grader expects, forged
    return Handover(jax.jit(decoy).lower(*args).as_text(), eval("registry.bindings()", namespace), 0, [])


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
            reply = evaluate(globals(), expr, inputs, "silu_ffi")
        wire.send(replies, reply)
