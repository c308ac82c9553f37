"""What a student does to hide a copy, done to an answer's code (the demo's derived copies
and the tests): names changed, comments and blank lines changed, functions reordered, a
helper inlined. The layout is otherwise the original's, and the answer keeps working: the
names the shipped notebook gives (the functions the task asks for), parameters (calls may
name them) and names inside f-strings keep theirs, and a function is moved or inlined only
where that cannot change what runs. A cell that does not parse (IPython magics) is left as
it is.
"""
from __future__ import annotations

import ast
import builtins
import functools
import io
import json
import re
import tokenize

from autograder.host.similarity.student_code import CPP, Given, replace_tokens


def _bound(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names the code binds (imports aside: they name modules and their APIs), and
    the parameters among them."""
    names, params = set(), set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.arg):
            params.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
    return names, params


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _in_fstrings(tree: ast.AST) -> set[str]:
    return set().union(*(_reads(v) for v in ast.walk(tree) if isinstance(v, ast.JoinedStr)))


def given_names(sources: list[str]) -> set[str]:
    """The names the shipped notebook's code cells bind, read or look up: the task's own."""
    out = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        bound, params = _bound(tree)
        out |= bound | params | _reads(tree) | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    return out


def renaming(trees: list[ast.Module], keep: set[str]) -> dict[str, str]:
    """New names for what the code binds, but not for the parameters, the names in `keep`,
    Python's builtins and names read inside f-strings."""
    names, fixed = set(), set(keep) | set(dir(builtins)) | {"_"}
    for tree in trees:
        bound, params = _bound(tree)
        names |= bound
        fixed |= params | _in_fstrings(tree)
    return {n: f"{'_' if n.startswith('_') else ''}my_{n.strip('_')}_{i}"
            for i, n in enumerate(sorted(names - fixed))}


def retoken(source: str, names: dict[str, str], comments: bool) -> str:
    """`source` with the names renamed (not attributes, not a call's keywords) and, with
    `comments`, its comments removed, those of C++ held in strings too."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    edits, depth = {}, 0
    for i, t in enumerate(tokens):
        if t.type == tokenize.OP:
            depth += t.string in "([{"
            depth -= t.string in ")]}"
        if t.type == tokenize.NAME and t.string in names:
            after_dot = i and tokens[i - 1].string == "."
            keyword = depth and i + 1 < len(tokens) and tokens[i + 1].string == "="
            if not (after_dot or keyword):
                edits[i] = names[t.string]
        elif comments and t.type == tokenize.COMMENT:
            edits[i] = ""
        elif comments and t.type == tokenize.STRING and CPP.search(t.string):
            edits[i] = re.sub(r"[ \t]*//[^\n\"]*", "", t.string)
    return replace_tokens(source, tokens, edits)


def _span(source: str, node: ast.stmt) -> tuple[int, int]:
    """Character offsets of a top-level statement, its decorators included, whole lines."""
    lines = source.splitlines(keepends=True)
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return sum(map(len, lines[:first - 1])), sum(map(len, lines[:node.end_lineno]))


def reorder(source: str) -> str:
    """Each run of consecutive top-level functions in the reverse order, where no decorator
    or default of the run reads a name the run defines (those run at definition time)."""
    tree = ast.parse(source)
    runs, run = [], []
    for stmt in tree.body + [None]:
        if isinstance(stmt, ast.FunctionDef):
            run.append(stmt)
            continue
        if len(run) > 1:
            at_def = set().union(*(_reads(d) for f in run for d in f.decorator_list + f.args.defaults))
            if not at_def & {f.name for f in run}:
                runs.append(list(run))
        run = []
    for run in reversed(runs):
        spans = [_span(source, f) for f in run]
        pieces = [source[s:e].rstrip("\n") + "\n" for s, e in spans]
        source = source[:spans[0][0]] + "\n\n".join(reversed(pieces)) + source[spans[-1][1]:]
    return source


def _substitute(expr: str, args: dict[str, str]) -> str:
    tokens = list(tokenize.generate_tokens(io.StringIO(expr).readline))
    out, prev = [], None
    for t in tokens:
        if t.type == tokenize.NAME and t.string in args and not (prev and prev.string == "."):
            out.append((t.type, f"({args[t.string]})"))
        elif t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.COMMENT):
            out.append((t.type, t.string))
        prev = t
    return tokenize.untokenize(out).strip()


def inline_helper(source: str, keep: set[str]) -> str:
    """The first top-level helper `def f(a, b): return <expr>` (undecorated, not a name in
    `keep`) inlined: a call with its positional arguments becomes the expression, any other
    use (passed as a callback) `lambda a, b: <expr>`; its definition removed."""
    tree = ast.parse(source)
    for stmt in tree.body:
        if not (isinstance(stmt, ast.FunctionDef) and stmt.name not in keep and not stmt.decorator_list
                and len(stmt.body) == 1 and isinstance(stmt.body[0], ast.Return) and stmt.body[0].value
                and not (stmt.args.vararg or stmt.args.kwarg or stmt.args.kwonlyargs or stmt.args.defaults
                         or stmt.args.posonlyargs)):
            continue
        params = [a.arg for a in stmt.args.args]
        expr = stmt.body[0].value
        if stmt.name in _reads(expr) or any(isinstance(n, (ast.NamedExpr, ast.Lambda, ast.Yield, ast.Await))
                                            for n in ast.walk(expr)):
            continue
        uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == stmt.name]
        if not uses or any(not isinstance(n.ctx, ast.Load) for n in uses):
            continue
        calls = {id(n.func): n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == stmt.name and len(n.args) == len(params) and not n.keywords
                 and not any(isinstance(a, ast.Starred) for a in n.args) and n.lineno == n.end_lineno}
        body = ast.get_source_segment(source, expr)
        if "\n" in body:
            continue
        lines = source.splitlines(keepends=True)
        edits = [(_span(source, stmt), "")]
        for use in uses:
            node = calls.get(id(use), use)
            start = sum(map(len, lines[:node.lineno - 1]))
            if node is use:
                new = f"(lambda {', '.join(params)}: {body})"
            else:
                new = f"({_substitute(body, {p: ast.get_source_segment(source, a) for p, a in zip(params, node.args)})})"
            edits.append(((start + node.col_offset, start + node.end_col_offset), new))
        for (a, b), new in sorted(edits, reverse=True):
            source = source[:a] + new + source[b:]
        return source
    return source


def _recomment(source: str) -> str:
    """A comment of the student's own before each top-level function, no blank lines."""
    out = []
    for line in source.splitlines():
        if re.match(r"(def |class |@)", line) and not (out and out[-1].startswith("@")):
            out.append("# my own version")
        if line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


STEPS = ("names", "order", "inline", "comments")


def cell(source: str, names: dict[str, str], keep: set[str], steps=STEPS) -> str:
    try:
        ast.parse(source)
    except SyntaxError:
        return source
    if "names" in steps:
        source = retoken(source, names, comments=False)
    if "order" in steps:
        source = reorder(source)
    if "inline" in steps:
        source = inline_helper(source, keep)
    if "comments" in steps:
        source = _recomment(retoken(source, {}, comments=True))
    return source


def answer(code: str, keep: set[str], steps=STEPS) -> str:
    """An answer's code (the catalogue's form: cells split by `# %%` lines) disguised by
    `steps` (all of STEPS by default)."""
    from autograder.shared import catalogue
    cells = catalogue.split_cells(code)
    trees = []
    for source, _ in cells:
        try:
            trees.append(ast.parse(source))
        except SyntaxError:
            pass
    names = renaming(trees, keep)
    out = []
    for source, tags in cells:
        source = cell(source, names, keep, steps)
        out.append(source if not out else f"# %%{' tags=' + json.dumps(tags) if tags else ''}\n{source}")
    return "\n".join(out)


@functools.lru_cache(maxsize=None)
def _task_names(assignment: str) -> frozenset[str]:
    from autograder.shared import paths
    return frozenset(given_names(list(Given.of(paths.student_notebook(assignment)).cells)))


def copy(assignment: str, code: str, steps=STEPS) -> str:
    """`code` (an answer of `assignment`) disguised, keeping the names its shipped notebook
    gives."""
    return answer(code, _task_names(assignment), steps)
