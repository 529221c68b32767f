"""The manage skill, copied into a client's personal skill folder.

Our copy carries a marker file; uninstall removes a skill folder only when the marker is
there, so a skill of the same name the user wrote is never deleted. Copies are refreshed
file by file and only when their bytes differ (a second setup changes nothing)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..core import atomic
from .jsonfile import unused_path

SKILL_NAME = "memory-self-evolution-manage"
MARKER = ".memevo-owned"


def source() -> Path:
    from .. import resources

    return Path(resources.__file__).resolve().parent / "skills" / SKILL_NAME


def _wanted() -> dict[str, bytes]:
    root = source()
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    files[MARKER] = b"Installed by memevo (memory-self-evolution); `memevo uninstall` removes this folder.\n"
    return files


class SkillNotOurs(Exception):
    pass


def install(skills_dir: Path) -> bool:
    """True when anything was written. The Node tool's copy (same name, no marker) is moved
    to the data dir's backups first; anything else of that name is left alone."""
    target = skills_dir / SKILL_NAME
    if target.exists() and not (target / MARKER).exists():
        if not is_node_tool_copy(target):
            raise SkillNotOurs(f"{target} exists and is not memevo's; left untouched")
        _move_aside(target)
    changed = False
    wanted = _wanted()
    for relative, data in wanted.items():
        path = target / relative
        if not path.exists() or path.read_bytes() != data:
            atomic.write_bytes(path, data)
            changed = True
    for stale in [p for p in target.rglob("*") if p.is_file() and str(p.relative_to(target)) not in wanted]:
        stale.unlink()  # a file an older version of ours shipped
        changed = True
    return changed


def is_node_tool_copy(folder: Path) -> bool:
    """The Node tool installed this very skill name; its SKILL.md names it in the front matter."""
    try:
        head = (folder / "SKILL.md").read_text(encoding="utf-8")[:400]
    except (OSError, UnicodeDecodeError):
        return False
    return f"name: {SKILL_NAME}" in head


def _move_aside(folder: Path) -> Path:
    import time

    from ..core import paths

    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = unused_path(paths.backups_dir() / "skills" / f"{folder.parent.parent.name}-{stamp}")
    backup.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(folder), str(backup))
    return backup


def remove(skills_dir: Path) -> bool:
    target = skills_dir / SKILL_NAME
    if not (target / MARKER).exists():
        return False
    shutil.rmtree(target)
    return True


def status(skills_dir: Path) -> str:
    target = skills_dir / SKILL_NAME
    if not target.exists():
        return "missing"
    if not (target / MARKER).exists():
        return "foreign"
    wanted = _wanted()
    same = all((target / r).exists() and (target / r).read_bytes() == d for r, d in wanted.items())
    return "ok" if same else "stale"
