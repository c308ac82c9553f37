"""What a student reads of an error (issue 39): XLA's status codes, error numbers and the
CpuCallback wrapper's traceback never reach them; what their code did does."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.shared import checks, errors

RAW = [*errors.RAW, "E0102", "site-packages"]


def _raw(text: str) -> list[str]:
    return [r for r in RAW if r in text]


def _raised(fn, *args) -> BaseException:
    with pytest.raises(Exception) as info:
        jax.block_until_ready(fn(*args))
    return info.value


def test_an_error_in_a_host_function_reads_as_that_error_and_where():
    def host_half(a):
        raise ValueError("negative input")
    f = jax.jit(lambda x: jax.pure_callback(host_half, jax.ShapeDtypeStruct(x.shape, x.dtype), x))
    text = errors.describe(_raised(f, jnp.ones(3)))
    assert text == "ValueError: negative input (raised in your host function host_half)", text


def test_a_wrong_result_of_a_host_function_reads_as_jax_s_check():
    f = jax.jit(lambda x: jax.pure_callback(lambda a: np.ones(4, np.float32), jax.ShapeDtypeStruct(x.shape, x.dtype), x))
    text = errors.describe(_raised(f, jnp.ones(3)))
    assert text.startswith("RuntimeError: Incorrect output shape for return value #0: Expected: (3,), Actual: (4,)"), text
    assert "JAX's check of what your host function returned" in text and not _raw(text)


def test_xla_s_codes_are_translated():
    compiled = jax.jit(lambda x: x * 2).lower(jnp.ones(3)).compile()
    exc = _raised(lambda: compiled.runtime_executable().execute_sharded([jax.device_put(np.ones(4, np.float32))]))
    text = errors.describe(exc)
    assert text == "an XLA error: the compiled program's input 0 is f32[3], but it was given f32[4]", text


@pytest.mark.parametrize("raw, meaning", [
    ("INVALID_ARGUMENT: [execute] Failed to decode all FFI handler operands (bad operands at: 0)",
     "the FFI handler could not decode the call's operands at 0"),
    ("INVALID_ARGUMENT: Duplicate FFI handler registration for rms_norm on platform Host (canonical host) "
     "with different bundle addresses.", "the FFI target rms_norm is already registered with another handler"),
])
def test_known_xla_messages_say_what_they_mean(raw, meaning):
    text = errors.explain("JaxRuntimeError", raw)
    assert text.startswith(f"an XLA error: {meaning}") and not _raw(text), text


def test_feedback_scrubs_what_was_formatted_elsewhere_and_names_the_section():
    exc = checks.verdict(AssertionError(
        "The compiled program could not be run: running it raised JaxRuntimeError: INTERNAL: CpuCallback error "
        'calling callback: Traceback (most recent call last):\n  File "/x/site-packages/jax/a.py", line 3, in f\n'
        "ValueError: boom"), "The lowering", "5.8")
    text = checks.feedback(exc)
    assert not _raw(text), text
    assert "ValueError: boom" in text and text.endswith(
        "Read section 5.8 of the chapter (Implementing lowering rules for backends).")


def test_validate_refuses_what_a_student_should_not_read():
    from autograder.authoring import readable
    failed = "        ❌ Test case failed\n        {}\n"
    good = failed.format("The derivative: f differs from the reference at 1 of 2 entries: at x[1] = 2, got 1, "
                         "expected 0.4227843 (largest error 0.577). Read section 5.4 of the chapter (Side-effect-free "
                         "calls with jax.pure_callback).")
    assert readable.problems(good) == []
    bad = failed.format("The lowering: f differs from the reference at 3 of 3 entries (largest error 2); "
                        "it raised JaxRuntimeError: INVALID_ARGUMENT: E0102: RuntimeProgramInputMismatch: x")
    assert len(readable.problems(bad)) == 6, readable.problems(bad)   # codes, no got/expected, no section
