"""Each assignment's mutants, one module per assignment: PIECES (generate.Piece: the
functions a mutant changes), CXX_PIECES (cxx.CxxPiece: statements of its C++ kernels, if
any), SOURCE (the answer file of solutions/<name>/ mutated: the reference unless it is
written where a mutant cannot reach, a host function as a lambda) and oracle(env) -> str:
why the answer whose notebook ran into `env` is wrong ("" when it is not), decided without
the grader (oracle.py runs it)."""
import importlib
import pkgutil

NAMES = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)))


def load(name: str):
    return importlib.import_module(f"{__name__}.{name}")


def source(name: str) -> str:
    """The answer the mutants change (its module's SOURCE in solutions/<name>/), typed."""
    from autograder.shared import catalogue, paths
    return catalogue.parse(name, paths.solutions(name) / load(name).SOURCE).typed


def mutants(name: str) -> list:
    """Every mutant of the assignment: of its Python pieces, then of its C++ statements."""
    from autograder.authoring.mutants import cxx, generate
    module, code = load(name), source(name)
    return generate.mutants(code, module.PIECES) + cxx.mutants(code, module.CXX_PIECES)
