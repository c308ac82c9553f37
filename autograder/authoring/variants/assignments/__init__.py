"""Each assignment's variants, one module per assignment: SOURCE (the answer of
solutions/<name>/ rewritten) and variants(code) -> list[generate.Variant]."""
import importlib
import pkgutil

NAMES = tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)))


def load(name: str):
    return importlib.import_module(f"{__name__}.{name}")


def variants(name: str) -> list:
    from autograder.shared import catalogue, paths
    module = load(name)
    return module.variants(catalogue.parse(name, paths.solutions(name) / module.SOURCE).typed)
