"""The browser client's ES modules (src/blink/web/js, and each game's own at
src/blink/games/<name>/web, served at /games/<name>/): every import names a file that exists,
and the import graph has no cycle.

A cycle between modules works in a browser only as long as no module touches an imported name
while the modules are still being evaluated; one top-level call added later breaks the page with
a ReferenceError that no Python test sees. So the graph is kept acyclic, and this test says
which modules form the cycle.

Imports are read from the source text: static ``import ... from "./x.js"``, ``import "./x.js"``,
``export ... from "./x.js"``, and dynamic ``import("./x.js")``; comments are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "src" / "blink" / "web"
JS = WEB / "js"
GAMES = WEB.parent / "games"
COMPUTED = {"/js/games.js": 1}
"""The one dynamic import of a computed name: games.js imports each game's module by the URL
GET /api/options names."""

_STATIC = re.compile(
    r"(?:^|(?<=[;}\n]))\s*(?:import|export)\s*(?:[\w$*{}\s,]+?\s*from\s*)?([\"'])([^\"'\n]+)\1"
)
_DYNAMIC = re.compile(r"\bimport\s*\(")
_DYNAMIC_LITERAL = re.compile(r"\bimport\s*\(\s*([\"'])([^\"'\n]+)\1\s*\)")
_SCRIPT = re.compile(r"<script\b[^>]*\bsrc=[\"']([^\"']+\.js)[\"']")
# After these (the last character of code before a `/`), a `/` starts a regular expression.
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}
_REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete"}


def _quoted_end(src: str, i: int) -> int:
    """The index after the string or regex literal opening at ``src[i]``."""
    quote, j, in_class = src[i], i + 1, False
    while j < len(src):
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n" and quote != "`":
            return j  # an unterminated literal ends with its line
        if quote == "/" and c == "[":
            in_class = True
        elif quote == "/" and c == "]":
            in_class = False
        elif c == quote and not in_class:
            return j + 1
        j += 1
    return j


def _template_end(src: str, i: int) -> tuple[int, bool]:
    """Scan template text from ``src[i]``: (index after it, whether it stopped at ``${``)."""
    j = i
    while j < len(src):
        c = src[j]
        if c == "\\":
            j += 2
        elif c == "`":
            return j + 1, False
        elif src.startswith("${", j):
            return j + 2, True
        else:
            j += 1
    return j, False


def _regex_allowed(code: str) -> bool:
    stripped = code.rstrip()
    last = stripped[-1:]
    if last in _REGEX_BEFORE:
        return True
    word = re.search(r"[\w$]+$", stripped)
    return bool(word) and word.group(0) in _REGEX_AFTER_WORDS


def strip_comments(src: str) -> str:
    """``src`` without its comments; strings, template literals and regular expressions kept."""
    out: list[str] = []
    holes: list[int] = []  # brace depth at each open `${` of a template literal
    depth, i = 0, 0
    while i < len(src):
        c, two = src[i], src[i : i + 2]
        if two == "//":
            end = src.find("\n", i)
            i = len(src) if end < 0 else end
        elif two == "/*":
            end = src.find("*/", i + 2)
            out.append(" ")
            i = len(src) if end < 0 else end + 2
        elif c in "\"'" or (c == "/" and _regex_allowed("".join(out[-40:]))):
            end = _quoted_end(src, i)
            out.append(src[i:end])
            i = end
        elif c == "`" or (c == "}" and holes and holes[-1] == depth):
            if c == "}":
                holes.pop()
            end, hole = _template_end(src, i + 1)
            out.append(src[i:end])
            i = end
            if hole:
                holes.append(depth)
        else:
            depth += {"{": 1, "}": -1}.get(c, 0)
            out.append(c)
            i += 1
    return "".join(out)


def imports_of(src: str) -> tuple[list[str], int]:
    """The module specifiers ``src`` imports (static and dynamic, in order of appearance), and
    how many dynamic imports name no string literal (those cannot be checked)."""
    code = strip_comments(src)
    found = [(m.start(2), m.group(2)) for m in _STATIC.finditer(code)]
    literal = [(m.start(2), m.group(2)) for m in _DYNAMIC_LITERAL.finditer(code)]
    computed = len(_DYNAMIC.findall(code)) - len(literal)
    return [spec for _, spec in sorted(found + literal)], computed


def resolve(module: Path, spec: str, web: Path) -> Path | None:
    """The file a specifier names: relative to the module, or from the site's root for
    ``/js/x.js``; None for a bare name or a URL (the client has no bundler to resolve those)."""
    if spec.startswith(("./", "../")):
        return (module.parent / spec).resolve()
    if spec.startswith("/") and not spec.startswith("//"):
        return (web / spec.lstrip("/")).resolve()
    return None


def module_graph(js: Path, web: Path) -> tuple[dict[str, list[str]], list[str]]:
    """The import graph of the ``.js`` files in ``js`` (names relative to ``js``) and the
    problems found on the way: imports of missing files, bare names, computed dynamic imports."""
    graph: dict[str, list[str]] = {}
    problems: list[str] = []
    for path in sorted(js.glob("*.js")):
        name = path.name
        specs, computed = imports_of(path.read_text(encoding="utf-8"))
        if computed:
            problems.append(f"{name}: {computed} dynamic import(s) of a computed name")
        edges: list[str] = []
        for spec in specs:
            target = resolve(path, spec, web)
            if target is None:
                problems.append(f"{name}: imports {spec!r}, which the browser cannot resolve")
            elif not target.is_file():
                problems.append(f"{name}: imports {spec!r}, which does not exist")
            elif target.parent == js.resolve() and target.name not in edges:
                edges.append(target.name)
        graph[name] = edges
    return graph, problems


def cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """One cycle per back edge of a depth-first search (each as a path that ends where it
    starts); none when the graph is acyclic."""
    found: list[list[str]] = []
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = "open"
        path.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == "open":
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def site_files() -> dict[Path, str]:
    """Every module of the client and of the games' browser folders, with its URL."""
    files = {p.resolve(): f"/js/{p.name}" for p in sorted(JS.glob("*.js"))}
    for folder in sorted(GAMES.glob("*/web")):
        for p in sorted(folder.glob("*.js")):
            files[p.resolve()] = f"/games/{folder.parent.name}/{p.name}"
    return files


def site_graph() -> tuple[dict[str, list[str]], list[str]]:
    """The import graph of every module of the site (by URL) and the problems found: imports
    of missing files, bare names, computed dynamic imports other than :data:`COMPUTED`."""
    files = site_files()
    graph: dict[str, list[str]] = {}
    problems: list[str] = []
    for path, url in files.items():
        specs, computed = imports_of(path.read_text(encoding="utf-8"))
        if computed != COMPUTED.get(url, 0):
            problems.append(f"{url}: {computed} dynamic import(s) of a computed name")
        edges: list[str] = []
        for spec in specs:
            target = resolve(path, spec, WEB)
            if target is None:
                problems.append(f"{url}: imports {spec!r}, which the browser cannot resolve")
            elif target not in files:
                problems.append(f"{url}: imports {spec!r}, which does not exist")
            elif files[target] not in edges:
                edges.append(files[target])
        graph[url] = edges
    return graph, problems


# --- the client's modules ----------------------------------------------------------------------


def test_every_import_of_the_client_exists() -> None:
    graph, problems = site_graph()
    assert not problems, "\n".join(problems)
    assert "/js/app.js" in graph and any(u.startswith("/games/") for u in graph)


def test_a_game_module_imports_the_client_by_its_site_path() -> None:
    # Served at /games/<name>/, a game's module reaches the client's modules as /js/x.js (the
    # same URL, so the same module instance, as the client's own imports of them).
    for path, url in site_files().items():
        if url.startswith("/games/"):
            specs, _ = imports_of(path.read_text(encoding="utf-8"))
            assert all(s.startswith(("./", "/js/")) for s in specs), (url, specs)


def test_every_page_script_exists() -> None:
    missing = []
    for page in sorted(WEB.glob("*.html")):
        for src in _SCRIPT.findall(page.read_text(encoding="utf-8")):
            target = resolve(page, src, WEB)
            if target is None or not target.is_file():
                missing.append(f"{page.name}: <script src={src!r}>")
    assert not missing, "missing scripts: " + ", ".join(missing)


def test_the_client_modules_form_no_cycle() -> None:
    graph, _ = site_graph()
    assert len(graph) > 5 and "/js/app.js" in graph
    found = cycles(graph)
    assert not found, "import cycles in src/blink/web/js: " + "; ".join(
        " -> ".join(c) for c in found
    )


# --- the reader itself -------------------------------------------------------------------------


def test_reader_finds_every_form_of_import() -> None:
    src = """import { a, b as c } from "./one.js";
import * as ns from './two.js';
import def, {
  x,
  y,
} from "./three.js";
import "./four.js";
export { z } from "./five.js";
export * from "./six.js";
export const s = "from './nope.js'";
const late = () => import("./seven.js");
"""
    assert imports_of(src) == (
        ["./one.js", "./two.js", "./three.js", "./four.js", "./five.js", "./six.js", "./seven.js"],
        0,
    )


def test_reader_skips_comments_and_keeps_strings() -> None:
    src = """// import { gone } from "./line.js";
/* import { gone } from "./block.js";
   import("./block2.js") */
const url = "http://example.org/x"; import { kept } from "./kept.js";
const re = /\\/play\\/"/; const tpl = `a ${b ? `//` : ""} c`;
import { after } from "./after.js";
const n = name(x); const lazy = import(n);
"""
    assert imports_of(src) == (["./kept.js", "./after.js"], 1)


def test_reader_names_cycles_and_missing_files(tmp_path: Path) -> None:
    js = tmp_path / "js"
    js.mkdir()
    (js / "a.js").write_text('import { b } from "./b.js";\nimport "./gone.js";\n')
    (js / "b.js").write_text('import { c } from "./c.js";\n')
    (js / "c.js").write_text('export const c = () => import("./a.js");\n')
    (js / "d.js").write_text('import { b } from "./b.js";\nimport x from "lodash";\n')
    graph, problems = module_graph(js, tmp_path)
    assert problems == [
        "a.js: imports './gone.js', which does not exist",
        "d.js: imports 'lodash', which the browser cannot resolve",
    ]
    assert cycles(graph) == [["a.js", "b.js", "c.js", "a.js"]]
    (js / "c.js").write_text("export const c = 1;\n")
    graph, _ = module_graph(js, tmp_path)
    assert cycles(graph) == []


@pytest.mark.parametrize("spec", ["./app.js", "/js/app.js"])
def test_resolve_relative_and_rooted(spec: str) -> None:
    assert resolve(JS / "lobby.js", spec, WEB) == (JS / "app.js").resolve()
