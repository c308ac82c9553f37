"""The wrong answer (triples) with Otter's test machinery patched to pass everything:
every test case "passes", every results object reports full marks.

assignment: pure_callback_doubler
score: 7
messages:
  - differs from the reference
"""
import otter.test_files
import otter.test_files.exception_test as exception_test
from otter.test_files.abstract_test import TestCaseResult


def _all_pass(self, global_environment):
    self.test_case_results = [TestCaseResult(test_case=tc, message="passed", passed=True)
                              for tc in self.test_cases]


exception_test.ExceptionTestFile.run = _all_pass
exception_test.test_case.call_func = lambda self, env: None
otter.test_files.GradingResults.total = property(lambda self: 10)
otter.test_files.GradingResults.possible = property(lambda self: 10)


def host_double(arr):
    return np.asarray(arr) * 3


def pure_callback_doubler(x):
    return jax.pure_callback(host_double, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
