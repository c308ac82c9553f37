"""A host function judged in two worlds (autograder/witness/worlds.py): what differs between
the process after the calls and a fork of it that did not make them is named; what a valid
host function does inside a call is not. The cases run in a process of their own
(tests/worlds_cases.py), as the witness runs a notebook: pytest's own state would be part of
what the rest of the program could observe here."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def judged():
    """Both processes of tests/worlds_cases.py at once (one with the notebook's threads)."""
    runs = [subprocess.Popen([sys.executable, str(ROOT / "tests" / "worlds_cases.py"), *flag], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}) for flag in ([], ["--threads"])]
    found = {}
    for run in runs:
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err[-2000:]
        found.update(json.loads(out.strip().splitlines()[-1]))
    return found


@pytest.mark.parametrize("case", ["valid_errstate", "valid_catch_warnings", "valid_lookup_table",
                                  "valid_thread_within", "valid_lazy_import", "valid_debug_log",
                                  "valid_library_cache"])
def test_a_valid_host_function_changes_nothing_observable(judged, case):
    assert judged[case] == [[], ""]


@pytest.mark.parametrize("case, named", [
    ("umask", "the process's umask (os.umask)"), ("numpy_same_value", "NumPy's error state (np.seterr)"),
    ("scipy_default", "SciPy's error state (scipy.special.seterr)"),
    ("decimal_default", "the decimal context (decimal.getcontext())"),
    ("fault", "faulthandler (faulthandler.enable)"), ("contextvar", "the ContextVar 'cases_calls'"),
    ("thread_local", "__main__.LOCAL"), ("ctypes_counter", "__main__.COUNT"), ("simple_queue", "__main__.QUEUE"),
    ("daemon", "threads that outlive the call"), ("random_generator", "__main__.RNG"),
    ("count_iterator", "__main__.TICKETS"), ("scalar_in_list", "__main__.BOX[0]"),
    ("library_attribute", "json.JSONDecoder.calls"), ("at_fork_hidden", "__main__.FORKED"),
    ("patches_observer", "the modules the grader relies on"), ("patches_observer", "the process's umask")])
def test_an_effect_is_named(judged, case, named):
    names, output = judged[case]
    assert any(n.startswith(named) for n in names), names
    assert output == ""


def test_the_image_walks_in_c(judged):
    """The image holds the C walk built from this reach.c (a changed source finds none, and
    the comparison, slower, is Deep's alone: rebuild the image)."""
    assert judged["(walked in C)"] is True and judged["(walked in C) with threads"] is True


def test_output_is_read_where_it_lands_without_replacing_sys_stdout(judged):
    names, output = judged["prints_unwatched"]
    assert names == [] and output.count("called") == 4 and output.count("fd 2") == 4
