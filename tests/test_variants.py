"""make variants (autograder/authoring/variants/): forty rewrites or more of each assignment's
answer, each a valid Python answer of its own, and every form of the prelude computes what
the piece it wraps computes (layouts, loops, guards, host forms, batching loops)."""
import ast
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.authoring.variants import assignments, generate

SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 0, 3), (2, 3, 4)]


@pytest.fixture(scope="module")
def forms() -> dict:
    env: dict = {}
    exec(compile(generate.PRELUDE, "<prelude>", "exec"), env)
    return env


@pytest.mark.parametrize("name", assignments.NAMES)
def test_forty_variants_or_more_each_a_python_answer(name):
    variants = assignments.variants(name)
    assert len(variants) >= 40 and len({v.name for v in variants}) == len(variants)
    for v in variants:
        ast.parse(v.code)
        assert v.code.startswith(generate.PRELUDE)


@pytest.mark.parametrize("form", ["flipped", "transposed", "fortran_order", "rows", "column", "rolled", "padded_to_8",
                                  "padded_to_1024", "gathered_and_scattered", "lax_map", "lax_map_batch_size_4",
                                  "fori_loop_at_set", "fori_loop_dynamic_update", "while_loop", "scan", "scan_unroll_2",
                                  "blocks_of_1024_lax_map", "vmap_leading_axis", "vmap_every_axis", "split_in_three",
                                  "lax_map_over_indices"])
def test_each_traced_form_computes_what_the_piece_does(forms, form):
    """Two arrays in, a tuple out, under jit and eagerly, at every shape (0-d and empty)."""
    piece = forms["_v_traced"](form)(lambda a, b: (a * 2 + b, jnp.sin(a) - b))
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        a, b = (rng.uniform(-3, 3, shape).astype(np.float32) for _ in range(2))
        for run in (piece, jax.jit(piece)):
            got = run(a, b)
            np.testing.assert_allclose(got[0], a * 2 + b, rtol=1e-6, err_msg=f"{form} {shape}")
            np.testing.assert_allclose(got[1], np.sin(a) - b, rtol=1e-5, atol=1e-6, err_msg=f"{form} {shape}")
            assert got[0].shape == shape


def test_the_guards_pass_what_gammaln_gives():
    from jax.scipy.special import gammaln
    env: dict = {}
    exec(compile(generate.PRELUDE, "<prelude>", "exec"), env)
    x = jnp.array([0.5, 3.0, np.inf, np.nan, 1e30], jnp.float32)
    for guard in env["_V_GUARDS"]:
        np.testing.assert_array_equal(env["_v_traced"](guard)(gammaln)(x), gammaln(x), err_msg=guard)


@pytest.mark.parametrize("form", ["chunked", "threaded_chunks", "private_copy", "out_buffer", "fortran_order",
                                  "flattened", "flipped"])
def test_each_host_form_returns_what_the_host_function_does(forms, form):
    host = forms["_v_host"](form)(lambda a: np.asarray(a) * np.float32(3) + 1)
    for shape in SHAPES:
        a = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
        got = host(a)
        assert got.dtype == np.float32 and got.shape == shape
        np.testing.assert_array_equal(got, a * 3 + 1)


@pytest.mark.parametrize("loop", ["lax_map", "lax_map_batch_size_4", "fori_loop_at_set", "fori_loop_dynamic_update",
                                  "while_loop", "scan", "scan_unroll_2", "lax_map_over_indices", "unstacked"])
def test_each_batching_loop_binds_one_example_at_a_time(forms, loop):
    """A batching rule of lax's cumsum (one operand, parameters): the batch moved to the front."""
    rule = forms["_v_batch"](jax.lax.cumsum_p, loop)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for bd in range(3):
        out, out_bd = rule([x], [bd], axis=1, reverse=False)
        assert out_bd == 0
        np.testing.assert_array_equal(out, np.cumsum(np.moveaxis(x, bd, 0), axis=2))
