"""The readable subset: what a notebook's code may use in the assignments whose answers are
Python that runs in the student's process (gammaln_callback, pure_callback_doubler,
reduce_sum_rules), checked by reading the source, never by running it.

Why: in those assignments everything the grader learns about the answer's structure is
reported by the witness, the student's own process, and any Python there can reach the
witness's pipes and answer the grader's questions itself (solutions/adversarial/
protocol_takeover_*). Reaching them takes what no answer to these tasks needs: the
process's file descriptors (sys, os, io, a file path such as /proc/self/fd/N handed to a
NumPy or JAX function that writes files), the interpreter's frames and internals (dunder
and private attributes, frame and generator attributes, gc, inspect, ctypes), or code built
at run time (eval, exec, getattr, __import__, IPython's shell and magics). The runner reads
every code cell here, before the notebook runs, and refuses to credit a notebook outside
the subset (autograder.runner), with the first reason found.

A policy is an allowlist of modules (imports of anything else are refused) plus the
denied names below, which hold for every assignment. It is checked on the cells as
IPython would run them (magics and shell escapes become get_ipython() calls, refused).
Hand-written rather than RestrictedPython: that library's protection is its run-time
guards, which would change how the student's code runs; what is needed here is a static
verdict on unchanged code.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

# Builtins that run code built from strings, reach objects by computed names, or open files.
DENIED_BUILTINS = frozenset({
    "eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "globals", "locals",
    "vars", "breakpoint", "input", "help", "memoryview", "get_ipython", "exit", "quit",
})
# Attributes that reach files, the interpreter's frames or code, or native memory, on any
# object (NumPy's and JAX's file functions included: a path can name a pipe).
DENIED_ATTRIBUTES = frozenset({
    # files through NumPy and JAX (jax.numpy re-exports NumPy's)
    "tofile", "fromfile", "save", "savez", "savez_compressed", "savetxt", "load", "loadtxt",
    "genfromtxt", "fromregex", "memmap", "DataSource", "dump", "dumps", "info", "lib",
    "ctypeslib", "f2py", "distutils", "testing", "show_config", "show_runtime",
    "profiler", "config", "monitoring", "distributed", "compilation_cache", "tools",
    # native memory
    "ctypes",
    # frames and code
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "ag_frame",
    "ag_code", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "tb_frame",
    "tb_next", "co_code", "co_consts", "co_names", "func_globals",
})
# Standard modules that reach the process (files, descriptors, frames, other code, attribute
# access by string), denied as attribute names too: public modules re-export some of them
# (jax.interpreters.os, jax.version.subprocess, numpy.ma.core.builtins, measured). Not
# `signal` and `select`: jax.scipy.signal and jnp.select are ordinary answers.
DENIED_MODULES = frozenset({
    "os", "sys", "io", "subprocess", "builtins", "inspect", "pathlib", "ctypes", "gc", "socket",
    "traceback", "types", "weakref", "importlib", "shutil", "threading",
    "multiprocessing", "pickle", "marshal", "code", "codeop", "pty", "tempfile", "glob", "mmap",
    "fcntl", "posix", "resource", "atexit", "runpy", "pkgutil", "site", "sysconfig",
    "platform", "logging", "asyncio", "concurrent", "urllib", "http", "socketserver", "ssl",
    "sqlite3", "shelve", "dbm", "zipfile", "tarfile", "gzip", "bz2", "lzma", "fileinput",
    "linecache", "tokenize", "dis", "pdb", "bdb", "faulthandler", "tracemalloc", "operator",
    "copyreg", "warnings", "string", "jaxlib",
})


@dataclass(frozen=True)
class Policy:
    modules: tuple[str, ...]   # importable modules; a listed module's submodules too

    def allows(self, dotted: str) -> bool:
        """`dotted` (a module, or a name imported from one) is a listed module or inside one."""
        return any(dotted == m or dotted.startswith(m + ".") for m in self.modules)


def _ipython_source(source: str) -> str:
    """The cell as IPython runs it (`%magic`, `!cmd` and `?` become get_ipython() calls)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:
        return source
    return TransformerManager().transform_cell(source)


class _Reader(ast.NodeVisitor):
    def __init__(self, policy: Policy):
        self.policy = policy
        self.problems: list[tuple[int, str]] = []

    def _deny(self, node: ast.AST, what: str) -> None:
        self.problems.append((getattr(node, "lineno", 0), what))

    def _module(self, node: ast.AST, dotted: str) -> None:
        parts = dotted.split(".")
        if not self.policy.allows(dotted) or any(p.startswith("_") or p in DENIED_ATTRIBUTES or p in DENIED_MODULES
                                                 for p in parts):
            self._deny(node, f"it imports {dotted}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self._deny(node, "it uses a relative import")
            return
        for alias in node.names:
            if alias.name == "*":
                self._deny(node, f"it imports * from {node.module}")
            else:
                self._module(node, f"{node.module}.{alias.name}")

    def visit_Name(self, node: ast.Name) -> None:
        self._name(node, node.id)
        if node.id in DENIED_BUILTINS:
            self._deny(node, f"it uses {node.id}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            self._deny(node, f"it uses the attribute {node.attr}")
        elif node.attr in DENIED_ATTRIBUTES or node.attr in DENIED_MODULES:
            self._deny(node, f"it uses the attribute {node.attr}")
        self.generic_visit(node)

    def visit_FunctionDef(self, node) -> None:
        self._name(node, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._name(node, node.name)
        self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> None:
        self._name(node, node.arg)
        self.generic_visit(node)

    def visit_Global(self, node) -> None:
        for name in node.names:
            self._name(node, name)

    visit_Nonlocal = visit_Global

    def _name(self, node: ast.AST, name: str) -> None:
        if name.startswith("__") and name.endswith("__"):
            self._deny(node, f"it uses the name {name}")


def problems(sources: list[tuple[int, str]], policy: Policy) -> list[str]:
    """Why the code cells `sources` ([(cell index, source)]) fall outside `policy`, one
    sentence part per finding ("cell 3, line 2: it imports os"); [] when they do not."""
    found = []
    for index, source in sources:
        try:
            tree = ast.parse(_ipython_source(source))
        except SyntaxError:
            continue   # a cell that does not parse fails when it runs, with Python's message
        reader = _Reader(policy)
        reader.visit(tree)
        found += [f"cell {index + 1}, line {line}: {what}" for line, what in sorted(reader.problems)]
    return found
