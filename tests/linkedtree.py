"""Run a structure tool over the source tree as the `memevo` package it installs as.

The repo root is the `memevo` namespace (pyproject.toml maps it), which tools cannot see from
the checkout: this builds a throw-away folder whose `memevo/` links to the six source folders,
so `mypy -p memevo.core` and import-linter resolve every module to its file here.

    python tests/linkedtree.py mypy                 # mypy --strict over cli, core, desktop, installer, mcpserver
    python tests/linkedtree.py lint-imports         # the import contracts in pyproject.toml
    python tests/linkedtree.py graph                # folders' arrows, back-arrows, loops, big files
    python tests/linkedtree.py static               # ruff, ruff format, mypy, import contracts: CI's step
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE_FOLDERS = ("cli", "core", "desktop", "hooks", "installer", "mcpserver", "resources")
TYPED_PACKAGES = ("memevo.cli", "memevo.core", "memevo.desktop", "memevo.installer")
# The intended direction, top to bottom; hooks are the bottom (stdlib only, nothing of ours).
LAYERS = ("cli", "mcpserver", "desktop", "installer", "core", "hooks")
BIG_FILE_LINES = 400


@contextmanager
def linked_tree(repo: Path = REPO) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="memevo-tree-") as tmp:
        package = Path(tmp) / "memevo"
        package.mkdir()
        for folder in SOURCE_FOLDERS:
            if (repo / folder).is_dir():
                (package / folder).symlink_to(repo / folder, target_is_directory=True)
        yield Path(tmp)


def dev_cache() -> Path | None:
    """The machine's cache for test runs, shared by every clone (MEMEVO_DEV_CACHE, which
    tests/setup-and-test.sh sets): what a clean clone would otherwise rebuild each time (mypy's
    cache, the provisioned model, pip's and npm's caches). Unset: each clone keeps its own in .cache/."""
    value = os.environ.get("MEMEVO_DEV_CACHE")
    return Path(value) if value else None


def kept_tree(repo: Path = REPO) -> Path:
    """The same linked folder at a fixed place (in the machine's dev cache, else .cache/ in the
    repo, never committed), so mypy's cache stays valid from one run to the next, and from one
    clone to the next: mypy sees the same paths, finds each file's hash unchanged and checks
    only what changed. A fresh machine starts cold."""
    shared = dev_cache()
    root = shared / "linked-tree" if shared else repo / ".cache" / "linked-tree"
    package = root / "memevo"
    package.mkdir(parents=True, exist_ok=True)
    for folder in SOURCE_FOLDERS:
        link = package / folder
        if (repo / folder).is_dir() and not (
            link.is_symlink() and link.resolve() == (repo / folder).resolve()
        ):
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(repo / folder, target_is_directory=True)
    return root


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(root), "MYPYPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}


def run_mypy(repo: Path = REPO) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("mypy")
    assert tool, "mypy is a test extra"
    args = [a for p in TYPED_PACKAGES for a in ("-p", p)]
    shared = dev_cache()
    cache = shared / "mypy" if shared else repo / ".cache" / "mypy"
    cache.mkdir(parents=True, exist_ok=True)
    with _held(cache.with_suffix(".lock")):  # two clones' runs take turns with the shared tree
        root = kept_tree(repo)
        return subprocess.run(
            [tool, "--config-file", str(repo / "pyproject.toml"), "--cache-dir", str(cache), *args],
            capture_output=True,
            text=True,
            cwd=root,
            env=_env(root),
            timeout=900,
        )


@contextmanager
def _held(path: Path) -> Iterator[None]:
    if os.name == "nt":  # pragma: no cover - one developer at a time there
        yield
        return
    import fcntl

    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_lint_imports(repo: Path = REPO) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("lint-imports")
    assert tool, "import-linter is a test extra"
    with linked_tree(repo) as root:
        return subprocess.run(
            [tool, str(repo / "pyproject.toml"), "--no-cache"],
            capture_output=True,
            text=True,
            cwd=root,
            env=_env(root),
            timeout=600,
        )


def graph_report(repo: Path = REPO) -> str:
    """The figures the architecture notes quote: arrows between folders, the ones that run
    back up the layers, import loops between files, and files over BIG_FILE_LINES lines."""
    import grimp

    with linked_tree(repo) as root:
        sys.path.insert(0, str(root))
        try:
            graph = grimp.build_graph("memevo", cache_dir=None)
        finally:
            sys.path.remove(str(root))
    modules = sorted(m for m in graph.modules if m.count(".") >= 1)
    edges = {
        (a, b) for a in modules for b in graph.find_modules_directly_imported_by(a) if b in graph.modules
    }
    folder = lambda m: m.split(".")[1]  # noqa: E731
    between: dict[tuple[str, str], int] = {}
    for a, b in edges:
        if folder(a) != folder(b):
            between[(folder(a), folder(b))] = between.get((folder(a), folder(b)), 0) + 1
    lines = [f"{len(modules)} modules, {len(edges)} imports between them", "", "arrows between folders:"]
    back = []
    for (a, b), n in sorted(between.items()):
        up = a in LAYERS and b in LAYERS and LAYERS.index(b) < LAYERS.index(a)
        hooks = a == "hooks" and b != "hooks"
        mark = "  <- BACK" if up else ("  <- hooks not alone" if hooks else "")
        if (a, b) == ("core", "cli") and n == 1 and ("memevo.cli", "memevo.cli.main") in edges:
            mark = "  (the memevo.cli forwarder, allowed by name)"
        if "<-" in mark:
            back.append((a, b))
        lines.append(f"  {a} -> {b}: {n}{mark}")
    lines.append(f"back-arrows: {len(back)}")
    for a, b in sorted(edges):
        if (folder(a), folder(b)) in back:
            lines.append(f"  {a} -> {b}")
    loops = _loops(modules, edges)
    lines.append(f"import loops between files: {len(loops)}")
    lines += [f"  {' <-> '.join(sorted(loop))}" for loop in loops]
    big = []
    for folder_name in SOURCE_FOLDERS:
        for path in sorted((repo / folder_name).rglob("*.py")):
            count = len(path.read_text(encoding="utf-8").splitlines())
            if count > BIG_FILE_LINES:
                big.append(f"  {path.relative_to(repo)}: {count}")
    lines.append(f"files over {BIG_FILE_LINES} lines: {len(big)}")
    lines += big
    return "\n".join(lines)


def _loops(modules: list[str], edges: set[tuple[str, str]]) -> list[set[str]]:
    """Strongly connected groups of more than one file (Tarjan, iterative)."""
    succ: dict[str, list[str]] = {m: [] for m in modules}
    for a, b in edges:
        if a in succ and b in succ:
            succ[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for start in modules:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                group = set()
                while True:
                    top = stack.pop()
                    on.discard(top)
                    group.add(top)
                    if top == node:
                        break
                if len(group) > 1:
                    found.append(group)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def run_static(repo: Path = REPO) -> int:
    """CI's static step (tests/setup-and-test.sh runs it beside pytest): the checks the
    `static`-marked tests in tests/test_layout.py make, each said with its outcome."""
    failed = 0
    ruff = shutil.which("ruff")
    assert ruff, "ruff is a test extra"
    steps: list[tuple[str, Callable[[], subprocess.CompletedProcess[str]]]] = [
        (
            "ruff check",
            lambda: subprocess.run([ruff, "check", "."], capture_output=True, text=True, cwd=repo),
        ),
        (
            "ruff format --check",
            lambda: subprocess.run(
                [ruff, "format", "--check", "."], capture_output=True, text=True, cwd=repo
            ),
        ),
        ("mypy --strict", lambda: run_mypy(repo)),
        ("import contracts", lambda: run_lint_imports(repo)),
    ]
    for name, step in steps:
        started = time.monotonic()
        done = step()
        took = time.monotonic() - started
        broken = name == "import contracts" and "0 broken." not in done.stdout
        if done.returncode != 0 or broken:
            failed += 1
            print(f"static: {name} FAILED ({took:.1f} s)\n{done.stdout}{done.stderr}")
        else:
            print(f"static: {name} passed ({took:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "graph"
    repo = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else REPO
    if what == "static":
        raise SystemExit(run_static(repo))
    if what == "graph":
        print(graph_report(repo))
    else:
        done = run_mypy(repo) if what == "mypy" else run_lint_imports(repo)
        print(done.stdout + done.stderr)
        raise SystemExit(done.returncode)
