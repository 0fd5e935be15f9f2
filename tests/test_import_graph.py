"""No import cycle between the modules of ``blink``, counting function-level imports and the
imports for type hints only (under ``if TYPE_CHECKING:``) too.

import-linter's ``acyclic_siblings`` contract (pyproject.toml, run by scripts/test) forbids
cycles between the sibling modules and packages of every package, but not a cycle through a
package's own ``__init__`` (a package that imports one of its modules, which imports the
package back), and it leaves out the imports for type hints. An import for a type hint never
runs, but it ties two modules together all the same: a module that names the type of the
module importing it cannot be read, moved or tested without it. This test builds the whole
module graph from the source with :mod:`ast` and names the modules of the first cycle it
finds.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src" / "blink"


def _modules(root: Path) -> dict[str, Path]:
    """Every module under ``root`` by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """``name`` if it is a module here, else its nearest enclosing module here."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imports(name: str, path: Path, modules: dict[str, Path], types: bool = True) -> set[str]:
    """The modules here that ``name`` imports anywhere in its source (at the top and in
    functions; under ``if TYPE_CHECKING`` too unless ``types`` is false)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {
        id(n)
        for block in ast.walk(tree)
        if not types and isinstance(block, ast.If) and _is_type_checking(block.test)
        for stmt in block.body
        for n in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from package import module`` imports the module; ``from m import name``, m.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        for target in targets:
            known = _known(target, modules)
            if known is not None and known != name:
                out.add(known)
    return out


def import_graph(root: Path = ROOT, types: bool = True) -> dict[str, set[str]]:
    """Each module of the package at ``root`` and the modules of that package it imports
    (for type hints only too, unless ``types`` is false)."""
    modules = _modules(root)
    return {name: _imports(name, path, modules, types) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as its modules in import order, the first one repeated at the end
    (``["a", "b", "a"]``: a imports b, b imports a); ``None`` when there is none."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        on_path = {start}
        todo = [iter(sorted(graph[start]))]
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                todo.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            if nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            if nxt in done or nxt not in graph:
                continue
            path.append(nxt)
            on_path.add(nxt)
            todo.append(iter(sorted(graph[nxt])))
    return None


def test_the_graph_sees_the_imports() -> None:
    graph = import_graph()
    assert "blink.server.app" in graph and "blink.games.classic.engine" in graph
    assert "blink.server.hub" in graph["blink.server.app"]  # a module-level import
    assert "blink.server.app" in graph["blink.cli.serve"]  # a function-level import
    assert (
        "blink.server.room_writes" in graph["blink.server.room.room"]
    )  # from blink.server import m
    # An import for a type hint only (blink.server.conn names the Room it is attached to).
    assert "blink.server.room.room" in graph["blink.server.conn"]
    assert "blink.server.room.room" not in import_graph(types=False)["blink.server.conn"]


def test_find_cycle_names_the_modules_of_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"p": {"p.m"}, "p.m": {"p"}}) == ["p", "p.m", "p"]


def test_no_import_cycle_in_blink() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
