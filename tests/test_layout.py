"""Shape of the project: one memevo namespace, core without Qt, lint and types clean."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import linkedtree
import pytest
from deadlines import HANG_S

REPO = Path(__file__).resolve().parents[1]
QT_MODULES = ("PySide6", "shiboken6", "qasync", "PyQt5", "PyQt6")


def test_core_never_imports_qt() -> None:
    offenders = []
    for path in sorted((REPO / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in QT_MODULES]
    assert offenders == []


# The source folders and the package each one is installed as (pyproject.toml maps memevo to
# the repo root; setup.py finds every package under these folders).
SOURCE_FOLDERS = ("cli", "core", "desktop", "hooks", "installer", "mcpserver", "resources")
# What a build never sees in a fresh clone: VCS data, caches, earlier build output.
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git", ".cache", "build", "dist", "*.egg-info", ".venv", "node_modules", ".*_cache"
)


def _shipped_source(tree: Path) -> set[str]:
    """What must ship, as wheel paths: every module of the five folders, every resource file."""
    wanted = set()
    for folder in SOURCE_FOLDERS:
        for path in (tree / folder).rglob("*"):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            if path.suffix == ".py" or folder == "resources":
                wanted.add("memevo/" + path.relative_to(tree).as_posix())
    return wanted


def test_wheel_holds_the_whole_program_and_nothing_else(tmp_path: Path) -> None:
    """Build the wheel as `pip install .` does, from a copy of the tree (a fresh clone: no
    build/ left from an earlier build to leak stale files), bytecode and all, and compare."""
    tree = tmp_path / "src"
    shutil.copytree(REPO, tree, ignore=NOT_IN_A_CLONE)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            "dist",
            str(tree),
        ],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = zipfile.ZipFile(next((tmp_path / "dist").glob("memory_self_evolution-*.whl")))
    names = set(wheel.namelist())
    dist_info = {n for n in names if n.split("/")[0].endswith(".dist-info")}
    shipped = names - dist_info
    wanted = _shipped_source(tree)
    assert not wanted - shipped, f"missing from the wheel: {sorted(wanted - shipped)}"
    assert not shipped - wanted, f"in the wheel but not in the source folders: {sorted(shipped - wanted)}"
    assert len({n.split("/")[0] for n in dist_info}) == 1, sorted(dist_info)
    for module in ("core/encoder/provision.py", "core/recall/engine.py", "core/service/server.py"):
        assert f"memevo/{module}" in shipped
    assert "memevo/hooks/clients/claude.py" in shipped and "memevo/core/learning/learn.py" in shipped
    entry_points = wheel.read(next(n for n in dist_info if n.endswith("entry_points.txt"))).decode()
    assert "memevo = memevo.cli.main:main" in entry_points


def test_every_module_imports_as_memevo_from_this_install(tmp_path: Path) -> None:
    """The install the suite runs against (editable here) finds every module under memevo.*,
    from any folder (not only from the repo root)."""
    modules = sorted(
        ".".join(["memevo", *Path(name).with_suffix("").parts[1:]]).removesuffix(".__init__")
        for name in _shipped_source(REPO)
        if name.endswith(".py")
    )
    probe = (
        "import importlib.util, sys\n"
        "missing = [m for m in sys.argv[1:] if importlib.util.find_spec(m) is None]\n"
        "print(missing)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, *modules], capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", f"not importable: {result.stdout}"


def test_bare_generic_names_are_not_importable(tmp_path: Path) -> None:
    probe = "import importlib.util as u; print([n for n in ('core', 'hooks', 'desktop') if u.find_spec(n)])"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert result.stdout.strip() == "[]"


@pytest.mark.static  # CI runs these as their own step too (tests/linkedtree.py static)
@pytest.mark.parametrize(
    "command",
    [["ruff", "check", "."], ["ruff", "format", "--check", "."]],
    ids=["ruff-lint", "ruff-format"],
)
def test_lint_and_format(command: list[str]) -> None:
    tool = shutil.which(command[0])
    assert tool, f"{command[0]} is a test extra; install with the README's test command"
    result = subprocess.run([tool, *command[1:]], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.static  # CI runs these as their own step too (tests/linkedtree.py static)
def test_types_strict_over_every_package() -> None:
    """mypy --strict over app, core, desktop and installer, the checkout seen as `memevo`."""
    result = linkedtree.run_mypy()
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.static  # CI runs these as their own step too (tests/linkedtree.py static)
def test_import_contracts_hold() -> None:
    """The layers in pyproject.toml: app -> desktop -> installer -> core, hooks alone, no Qt
    below desktop. import-linter reads the real imports, lazy ones inside functions too."""
    result = linkedtree.run_lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 3 kept, 0 broken." in result.stdout


def test_import_contracts_catch_an_upward_import(tmp_path: Path) -> None:
    """The contracts can fail: a copy of the tree where core imports the tray app breaks them."""
    tree = tmp_path / "src"
    shutil.copytree(REPO, tree, ignore=NOT_IN_A_CLONE)
    (tree / "core" / "upward.py").write_text("from ..desktop import tray\n", encoding="utf-8")
    result = linkedtree.run_lint_imports(tree)
    assert result.returncode != 0
    assert "memevo.core is not allowed to import memevo.desktop" in result.stdout


def test_no_product_file_is_over_500_lines() -> None:
    """One subject per file: a file past this holds several, and is split by subject."""
    over = {
        str(path.relative_to(REPO)): n
        for folder in SOURCE_FOLDERS
        if folder != "resources"
        for path in sorted((REPO / folder).rglob("*.py"))
        if "__pycache__" not in path.parts and (n := len(path.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert over == {}
