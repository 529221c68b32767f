"""Shape of the project: one memevo namespace, core without Qt, lint and types clean."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

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


def test_wheel_holds_one_memevo_package(tmp_path: Path) -> None:
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
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("memory_self_evolution-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"memevo", next(t for t in top if t.endswith(".dist-info"))}
    for package in ("core", "desktop", "hooks", "installer", "resources"):
        assert f"memevo/{package}/__init__.py" in names
    assert "memevo/core/cli.py" in names
    entry_points = (
        zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    )
    assert "memevo = memevo.core.cli:main" in entry_points


def test_bare_generic_names_are_not_importable(tmp_path: Path) -> None:
    probe = "import importlib.util as u; print([n for n in ('core', 'hooks', 'desktop') if u.find_spec(n)])"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "command",
    [["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy"]],
    ids=["ruff-lint", "ruff-format", "mypy-core"],
)
def test_lint_format_and_types(command: list[str]) -> None:
    tool = shutil.which(command[0])
    assert tool, f"{command[0]} is a test extra; install with the README's test command"
    result = subprocess.run([tool, *command[1:]], capture_output=True, text=True, cwd=REPO, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
