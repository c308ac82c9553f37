"""reduce_sum_rules' observations: what the primitive object is, and whether a result
depends on each rule registered for it (the JVP, transpose or batching rule, or the
primitive's own impl and lowering swapped in JAX's tables for a weighted poison for one
evaluation). Runs where the student's code runs; exposed to the tests' questions as
`witness`.

From every test's first question on (`primitive_state(..., lower_to_kernel=True)`), the
primitive lowers to the grader's kernel (kernels/reduce_sum.py, `lower_to_grader_kernel`):
every place an answer binds it is then a custom_call to __grader_reduce_sum__ in the
compiled program, with the axes it sums, which the executor reads and poisons.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np


def primitive_state(primitive, example, axis: tuple, *, lower_to_kernel: bool = False):
    """What `primitive` is, as an records.PrimitiveState: its class, whether that class is
    jax.extend.core.Primitive itself (not a subclass), the sorted names in its instance
    __dict__ (Primitive(name), def_impl and def_abstract_eval set exactly "abstract_eval",
    "impl" and "name"; anything else, such as bind or bind_with_trace, is an instance-level
    override), its name, and what its own pieces compute on `example` summed over `axis`:
    impl (its impl called directly), lowering (jax.jit of Primitive.bind, which runs the
    lowering the notebook registered, not the grader's), abstract_eval ({"shape", "dtype",
    "effects"}); each an "Error: message" string if it raised. With `lower_to_kernel`, the
    primitive then lowers to the grader's kernel (`lower_to_grader_kernel` below)."""
    import jax
    import jax.numpy as jnp
    from jax.extend.core import Primitive

    from autograder.shared.errors import describe
    from autograder.assignments.reduce_sum_rules.records import PrimitiveState
    cls = type(primitive)
    state = {"type": f"{cls.__module__}.{cls.__qualname__}", "plain": cls is Primitive,
             "attributes": sorted(str(k) for k in getattr(primitive, "__dict__", {})),
             "name": str(getattr(primitive, "name", ""))}
    if not isinstance(primitive, Primitive):
        return PrimitiveState(**state)
    x = jnp.asarray(example)

    def lowered():
        with _notebook_lowering(primitive):
            return np.asarray(jax.jit(lambda v: Primitive.bind(primitive, v, axis=axis))(x))

    for key, run in (("impl", lambda: np.asarray(primitive.impl(x, axis=axis))),
                     ("lowering", lowered),
                     ("abstract_eval", lambda: _aval_data(
                         primitive.abstract_eval(jax.typeof(x), axis=axis)))):
        try:
            state[key] = run()
        except BaseException as exc:  # student code may raise anything
            state[key] = describe(exc)
    if lower_to_kernel:
        lower_to_grader_kernel(primitive)
    return PrimitiveState(**state)


def _aval_data(result) -> dict:
    aval, effects = result if isinstance(result, tuple) else (result, ())
    return {"shape": [int(d) for d in aval.shape], "dtype": str(aval.dtype), "effects": len(effects)}


# ------------------------------------------------------------ the grader's kernel ----------
# The CPU lowering table's entry for each primitive before the grader's kernel took it
# (None: it had none there, so the generic lowering applied), and the grader's entry.
_before_kernel: dict = {}
_kernel_entries: dict = {}


def lower_to_grader_kernel(primitive) -> None:
    """Make the grader's kernel (kernels/reduce_sum.py, __grader_reduce_sum__) the CPU
    lowering of `primitive`, whatever lowering the notebook registered (again if it
    registered another since). The given cell must run unchanged, so its lowering is only
    measured (primitive_state) and kept for dtypes the kernel does not sum; everything the
    tests compile binds the primitive as a custom_call, whose `axis` attribute is its axes."""
    import jax
    from jax._src.interpreters import mlir

    from kernels import reduce_sum
    cpu = mlir._platform_specific_lowerings["cpu"]   # JAX's lowering table (not evidence)
    if primitive in _kernel_entries and cpu.get(primitive) is _kernel_entries[primitive]:
        return
    before = cpu.get(primitive)
    notebook = before or mlir._lowerings.get(primitive)

    def rule(ctx, x, **params):
        if notebook is None or ctx.avals_in[0].dtype in reduce_sum.DTYPES:
            return reduce_sum.lowering(ctx, x, **params)
        return notebook.rule(ctx, x, **params)

    mlir.register_lowering(primitive, rule, platform="cpu")
    _before_kernel[primitive], _kernel_entries[primitive] = before, cpu[primitive]
    jax.clear_caches()   # a program compiled with the notebook's lowering would hide the kernel


@contextlib.contextmanager
def _notebook_lowering(primitive):
    """The notebook's own CPU lowering of `primitive` while the block runs, when the grader's
    kernel has taken it; the kernel's again afterwards, whatever happens."""
    import jax
    from jax._src.interpreters import mlir

    cpu = mlir._platform_specific_lowerings["cpu"]   # JAX's lowering table (not evidence)
    ours = _kernel_entries.get(primitive)
    if ours is None or cpu.get(primitive) is not ours:
        yield
        return
    before = _before_kernel[primitive]
    try:
        if before is None:
            cpu.pop(primitive, None)
        else:
            cpu[primitive] = before
        jax.clear_caches()
        yield
    finally:
        cpu[primitive] = ours
        jax.clear_caches()


def _weights(shape, dtype):
    """Poison weights shaped like an operand: 2 * autograder.shared.poison.values, never 1 or 0."""
    import jax.numpy as jnp

    from autograder.shared import poison
    shape = tuple(int(d) for d in shape)
    return jnp.asarray(2 * poison.values(int(np.prod(shape, dtype=np.int64))).reshape(shape), dtype)


# The poisons follow the data: each is the sum (or its transpose) with every element of its
# operand weighted by a poison weight, computed with jnp. A piece whose operand was multiplied
# by zero, or whose result is, still gives zero and changes nothing downstream.

def _poison_impl(x, *, axis, **_):
    import jax.numpy as jnp
    return jnp.sum(x * _weights(np.shape(x), x.dtype), axis=axis)


def _poison_jvp(primals, tangents, *, axis, **_):
    from jax.interpreters import ad
    x, t = primals[0], ad.instantiate_zeros(tangents[0])
    return _poison_impl(x, axis=axis), _poison_impl(t, axis=axis)


def _poison_transpose(ct, x, *, axis, **_):
    import jax
    import jax.numpy as jnp
    from jax.interpreters import ad
    aval = x.aval if ad.is_undefined_primal(x) else jax.typeof(x)
    ct = ad.instantiate_zeros(ct) if type(ct) is ad.Zero else ct
    return (jnp.broadcast_to(jnp.expand_dims(ct, axis), aval.shape) * _weights(aval.shape, aval.dtype),)


def _poison_batch(args, dims, *, axis, **_):
    import jax.numpy as jnp
    x = jnp.moveaxis(args[0], dims[0], 0)
    return _poison_impl(x, axis=tuple(a + 1 for a in axis)), 0


def _reuse_compiles() -> None:
    """Keep compiled executables on disk for this process (a directory of its own under
    TMPDIR), so that after each jax.clear_caches() the same programs are loaded again instead
    of compiled again (the poisoned runs recompile every eager operation; the poison's own
    programs differ, so they are compiled). Only speed changes: an executable is reused only
    for the identical program text and compile options."""
    import tempfile

    import jax
    from jax._src import compilation_cache

    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if jax.config.jax_compilation_cache_dir:   # a batch's (autograder/shared/xla_cache.py)
        return
    jax.config.update("jax_compilation_cache_dir", tempfile.mkdtemp(prefix="reduce-sum-rules-xla-"))
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    compilation_cache.reset_cache()   # read the settings again at the next compile


@contextlib.contextmanager
def _rule_swapped(primitive, piece: str):
    """One piece of `primitive` swapped for a poison while the block runs, JAX's caches
    cleared on the way in and out (a cached trace or executable would hide the swap, or
    keep it afterwards); whatever happens, the tables are put back as they were."""
    import jax
    from jax._src.interpreters import ad, batching, mlir

    undo: list = []

    def put(table: dict, value) -> None:
        had, old = primitive in table, table.get(primitive)
        table[primitive] = value
        undo.append(lambda: table.__setitem__(primitive, old) if had else table.pop(primitive, None))

    try:
        if piece == "jvp":
            put(ad.primitive_jvps, _poison_jvp)
        elif piece == "transpose":
            put(ad.primitive_transposes, _poison_transpose)
        elif piece == "batching":
            table = batching.fancy_primitive_batchers
            had, old = primitive in table, table.get(primitive)
            undo.append(lambda: table.__setitem__(primitive, old) if had else table.pop(primitive, None))
            batching.primitive_batchers[primitive] = _poison_batch
        elif piece == "primitive":
            had, old = "impl" in vars(primitive), vars(primitive).get("impl")   # the instance's (not evidence)
            undo.append(lambda: vars(primitive).__setitem__("impl", old) if had
                        else vars(primitive).pop("impl", None))
            vars(primitive)["impl"] = _poison_impl   # the instance's own impl (not evidence)
            entry = mlir.LoweringRuleEntry(mlir.lower_fun(_poison_impl, multiple_results=False), True)
            put(mlir._lowerings, entry)
            for table in list(mlir._platform_specific_lowerings.values()):
                if primitive in table:
                    put(table, entry)
        else:
            raise ValueError(f"unknown piece {piece!r}")
        jax.clear_caches()
        yield
    finally:
        for step in reversed(undo):
            step()
        jax.clear_caches()


def rule_dependence(fn: Callable, *args, primitive,
                    pieces: tuple[str, ...] = ("jvp", "transpose", "batching", "primitive")):
    """Where the values of `fn(*args)` come from, for a primitive `primitive` with an `axis`
    parameter (a sum over axis): evaluate fn(*args) as it is (the value: flat outputs), then
    once per piece with that piece of the primitive swapped for a poison (the same sum, or
    its transpose, with every operand element weighted by 2 * autograder.shared.poison.values, so a
    piece fed zeros or whose result is multiplied by zero changes nothing): "jvp", "transpose",
    "batching" (the rule registered in ad.primitive_jvps, ad.primitive_transposes,
    batching.primitive_batchers) and "primitive" (its impl and every lowering registered
    for it). Returns an evidence.Report: poisoned[piece] a Run of the flat outputs (no sizes:
    the poison is not copied out), or None and errors[piece] = "Error: message" when the
    poisoned evaluation raised.
    `fn` is any path (eager or jitted; JAX's caches are cleared around each swap); the
    tables, impl and lowerings are put back whatever happens."""
    import jax

    from autograder.shared.errors import describe
    from autograder.shared.evidence import Report, Run

    def flat(outputs):
        return [np.asarray(leaf) for leaf in jax.tree.leaves(outputs)]

    _reuse_compiles()
    value, poisoned, errors = flat(fn(*args)), {}, {}
    for piece in pieces:
        try:
            with _rule_swapped(primitive, piece):
                poisoned[piece] = Run(flat(fn(*args)), [])
        except BaseException as exc:  # student code may raise anything under the swap
            poisoned[piece] = None
            errors[piece] = describe(exc)
    return Report(calls=[], value=value, poisoned=poisoned, opcodes=[], errors=errors)


def rules(primitive) -> dict[str, bool]:
    """{"JVP rule": bool, "transpose rule": bool, "batching rule": bool}; a primitive that
    is not a jax.extend.core.Primitive has none."""
    from autograder.witness import inspection
    if not isinstance(primitive, inspection.jex_core.Primitive):
        return {"JVP rule": False, "transpose rule": False, "batching rule": False}
    return inspection.registered_rules(primitive)


def given_primitive(primitive, custom_reduce_sum, x, axis: tuple) -> tuple[dict, int]:
    """(primitive_state of `primitive` on x over `axis`, from then on lowering to the grader's
    kernel; how many equations of it the jaxpr of custom_reduce_sum(x, axis) holds)."""
    from autograder.witness.observe import count_eqns
    _reuse_compiles()
    state = primitive_state(primitive, x, axis, lower_to_kernel=True)
    return state, count_eqns(lambda v: custom_reduce_sum(v, axis), x, primitive=primitive)
