"""Otter's test-file and result classes, imported without Otter's package __init__ files.

`import otter.test_files` first runs otter/__init__.py, which imports Otter's whole
command-line API (nbconvert, jupytext, ...), and otter.run's __init__ imports pandas:
about 7 s of a cold start, for classes that need none of it. The runner (and make bench's
bare floor, to be comparable) registers those packages in sys.modules without running
their __init__ (importlib.util.module_from_spec), then imports the modules it needs as
usual. A process that already imported Otter whole keeps it. Same classes, same pickles.
"""
import importlib.util
import sys


def _package_without_init(name: str) -> None:
    if name in sys.modules:
        return
    module = importlib.util.module_from_spec(importlib.util.find_spec(name))
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)


for _name in ("otter", "otter.run", "otter.run.run_autograder"):
    _package_without_init(_name)

from otter.run.run_autograder.autograder_config import AutograderConfig  # noqa: E402
from otter.test_files import ExceptionTestFile, GradingResults  # noqa: E402
from otter.test_files.abstract_test import TestCaseResult  # noqa: E402

__all__ = ["AutograderConfig", "ExceptionTestFile", "GradingResults", "TestCaseResult"]
