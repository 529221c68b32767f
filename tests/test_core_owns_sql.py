"""Core owns all SQL: no module outside core/ holds a query or imports a private name of core.

The desktop, the installer, the command line and the hooks call named core functions or
operations; the tables and their columns are core's business. Read from the source with `ast`,
so a query in a comment or a docstring's prose does not count, and one in any string does."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The memevo package's folders other than core/ (packaging/ and tests/ are tools, not shipped).
OUTSIDE_CORE = ("cli", "desktop", "hooks", "installer", "mcpserver")

# Files that still hold SQL, each with the reason; the list is to be emptied.
# Modules outside core still allowed SQL while it moves into core: none left.
NOT_YET_MOVED: set[str] = set()

# A statement's opening words, upper case as this code base writes SQL, each followed by what
# makes it SQL rather than prose ("SELECT a memory" in a label does not match).
_STATEMENT = re.compile(
    r"""^\s*\(?\s*(?:
        SELECT\s+(?:DISTINCT\s+)?(?:\*|\d|\?|[\w.]+\s*(?:,|\(|\bFROM\b|\bAS\b|$)|\{)
      | SELECT\s[\s\S]*\bFROM\s
      | INSERT\s+(?:OR\s+\w+\s+)?INTO\s+\w
      | UPDATE\s+\w+\s+SET\s
      | DELETE\s+FROM\s+\w
      | CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?(?:UNIQUE\s+)?
            (?:TABLE|INDEX|VIEW|SEQUENCE|MACRO|TYPE|SCHEMA)\b
      | DROP\s+(?:TABLE|INDEX|VIEW|SEQUENCE|MACRO|TYPE|SCHEMA)\b
      | ALTER\s+TABLE\s+\w
      | WITH\s+(?:RECURSIVE\s+)?\w+(?:\s*\([^)]*\))?\s+AS\s*\(
      | (?:PRAGMA|ATTACH|DETACH|CHECKPOINT|VACUUM|EXPORT\s+DATABASE|IMPORT\s+DATABASE)\b
      | (?:SELECT|INSERT\s+INTO|DELETE\s+FROM)\s*$  # the rest added on
    )""",
    re.VERBOSE,
)
# Pieces of a query built up in parts (a WHERE clause, a condition list).
_FRAGMENT = re.compile(
    r"""\b(?:FROM|JOIN)\s+\w+\s+(?:WHERE|GROUP\s+BY|ORDER\s+BY|LIMIT)\b
      | ^\s*(?:FROM|JOIN)\s+\w+
      | \bIN\s*\(\s*SELECT\s
      | \bWHERE\s[^\n]*(?:\?|\bIS\s+(?:NOT\s+)?NULL\b)
      | ^\s*(?:AND|OR|WHERE)\s+\(?\w+\s*(?:=|<|>|<=|>=|<>|!=)\s*\?
      | \bORDER\s+BY\s+\w+(?:\s+(?:ASC|DESC))?\s*(?:,|LIMIT\b|$)
      | \bGROUP\s+BY\s+\w+
      | \bON\s+CONFLICT\b""",
    re.VERBOSE,
)


def is_sql(text: str) -> bool:
    return bool(_STATEMENT.search(text) or _FRAGMENT.search(text))


def _literal_text(node: ast.AST) -> str | None:
    """A string literal's text; an f-string's with `{}` for each replacement field."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in node.values
        )
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _in_core(module: str) -> bool:
    return module == "memevo.core" or module.startswith("memevo.core.")


def _absolute(module_name: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    parts = module_name.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def problems(source: str, module_name: str, is_package: bool = False) -> list[str]:
    """What in `source` (the module `module_name`) breaks the rule, one line each."""
    tree = ast.parse(source)
    skip = _docstrings(tree) | {  # an f-string is read whole, not again piece by piece
        id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values
    }
    found: list[str] = []
    core_names: set[str] = set()  # names bound to core modules (or their members) by imports
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _absolute(module_name, is_package, node)
            if not _in_core(target):
                continue
            for alias in node.names:
                core_names.add(alias.asname or alias.name)
                if _private(alias.name) or any(_private(p) for p in target.split(".")):
                    found.append(f"line {node.lineno}: imports {alias.name} from {target}, private to core")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _in_core(alias.name):
                    core_names.add(alias.asname or alias.name.split(".")[0])
                    if any(_private(p) for p in alias.name.split(".")):
                        found.append(f"line {node.lineno}: imports {alias.name}, private to core")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in core_names
        ):
            found.append(f"line {node.lineno}: uses {node.value.id}.{node.attr}, private to core")
        if id(node) in skip:
            continue
        text = _literal_text(node)
        if text is not None and is_sql(text):
            found.append(f"line {node.lineno}: SQL {text.strip()[:70]!r}")
    return sorted(set(found), key=lambda line: int(line.split(":")[0].split()[1]))


def _modules() -> Iterator[tuple[str, str, bool]]:
    for folder in OUTSIDE_CORE:
        for path in sorted((REPO / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            relative = path.relative_to(REPO)
            parts = ["memevo", *relative.with_suffix("").parts]
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            yield relative.as_posix(), ".".join(parts), is_package


def test_no_sql_and_no_private_core_names_outside_core() -> None:
    seen = 0
    report = []
    for relative, module_name, is_package in _modules():
        seen += 1
        if relative in NOT_YET_MOVED:
            continue
        report += [
            f"{relative} {line}" for line in problems((REPO / relative).read_text(), module_name, is_package)
        ]
    assert seen > 20, "the source folders were not found"
    assert not report, "outside core/: call a named core function instead\n" + "\n".join(report)


def test_not_yet_moved_files_still_exist_and_still_need_it() -> None:
    """An entry whose file is gone, or holds no SQL any more, is taken off the list."""
    modules = {relative: (name, pkg) for relative, name, pkg in _modules()}
    for relative in NOT_YET_MOVED:
        assert relative in modules, f"{relative} is gone: take it off NOT_YET_MOVED"
        name, pkg = modules[relative]
        assert problems((REPO / relative).read_text(), name, pkg), (
            f"{relative} holds no SQL now: take it off NOT_YET_MOVED"
        )


# -- the checker itself catches what it should, and only that ---------------------------------
@pytest.mark.parametrize(
    "snippet",
    [
        "rows = store.query(\"SELECT id FROM side_jobs WHERE status IN ('applied', 'refused')\")",
        'store.query(f"SELECT {cols} FROM memories WHERE {where} ORDER BY id LIMIT ?", params)',
        'n = store.query("SELECT count(*) FROM memories")[0][0]',
        'con.execute("INSERT INTO memories SELECT * FROM bench_rows")',
        'con.execute("UPDATE memories SET confidence = ? WHERE id = ?", [c, i])',
        'con.execute("DELETE FROM trash WHERE deleted_ms < ?", [t])',
        'con.execute("CREATE TABLE bench_rows AS SELECT 1")',
        'sql = "WITH recent AS (SELECT id FROM memories) SELECT * FROM recent"',
        'clauses.append("id NOT IN (SELECT memory_id FROM scopes)")',
        'where += " AND (confidence < ? OR confidence = ?)"',
        'sql = "SELECT " + columns + " FROM memories"',
        "from ..core.memories import _COLUMNS, Memory",
        "from ..core import _private_helper",
        "from memevo.core.store.database import _connect",
        "from ..core import memories\nx = memories._COLUMNS",
    ],
)
def test_the_checker_flags_sql_and_private_names(snippet: str) -> None:
    assert problems(snippet, "memevo.desktop.example"), snippet


@pytest.mark.parametrize(
    "snippet",
    [
        'label = tr("Select a memory from the list, then update it")',
        'tr("UPDATE available: restart memevo")',
        'message = "Delete from the trash for good?"',
        'help = "With the side API off, nothing is learned"',
        "from ..core.memories import Memory\nfrom ..core import listing\nlisting.listed_page(s, q, 5)",
        "from ..core import memories\nx = memories.__name__",
        "from .memtable import _state",  # private to desktop, not to core
        'def f():\n    """SELECT id FROM memories WHERE 1 = 1: docstrings are prose."""',
    ],
)
def test_the_checker_leaves_prose_and_public_names_alone(snippet: str) -> None:
    assert not problems(snippet, "memevo.desktop.example"), problems(snippet, "memevo.desktop.example")


def test_relative_imports_resolve_from_nested_packages() -> None:
    """installer/clients/base.py reaches core with three dots; a package's __init__ with two."""
    assert problems("from ...core.memories import _COLUMNS", "memevo.installer.clients.base")
    assert problems("from ..core.memories import _COLUMNS", "memevo.installer", is_package=True)
    assert not problems("from ..core.memories import _COLUMNS", "memevo.installer.clients.base")
