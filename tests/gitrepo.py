"""Real git repositories for the tests: the one `git` runner (a fixed author, no shell, bounded),
a repository with files, a commit of everything, and a bare remote to clone from."""

from __future__ import annotations

import subprocess
from pathlib import Path

from deadlines import HANG_S


def git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    return done.stdout


def make_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    commit(root, "start")
    return root


def commit(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


def bare_remote(folder: Path, name: str = "shop") -> Path:
    """`folder/<name>.git`: a bare repository whose main branch has one commit (a README)."""
    seed = folder / f"{name}-seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    (seed / "README.md").write_text("a shop\n")
    commit(seed, "start")
    remote = folder / f"{name}.git"
    git(folder, "clone", "-q", "--bare", str(seed), str(remote))
    return remote
