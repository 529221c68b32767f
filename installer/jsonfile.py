"""Reading and writing the clients' JSON files without ever losing a byte of theirs.

A file that is not valid JSON is never touched (the caller reports it). A file we change is
copied to `<name>.bak-<timestamp>` first and written atomically; a file whose content would
not change is not written at all, so a second setup changes no byte."""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import atomic
from . import messages as m


class ClientFileError(Exception):
    """A client file we must leave alone (invalid JSON, not an object, unreadable); its text is
    a Message (installer/messages.py) where the file's state has a code, so str() of it keeps
    the code."""


def load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ClientFileError(f"{path} cannot be read ({exc}); left untouched") from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ClientFileError(
            m.Message(m.NOT_JSON, path=path, line=exc.lineno, column=exc.colno, why=exc.msg)
        ) from exc
    if not isinstance(data, dict):
        raise ClientFileError(f"{path} holds a JSON {type(data).__name__}, not an object; left untouched")
    return data


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@dataclass
class Writer:
    """Writes client files for one setup/uninstall run: backs each up once, before its first change."""

    stamp: str = field(default_factory=lambda: time.strftime("%Y%m%d-%H%M%S"))
    backed_up: dict[Path, Path] = field(default_factory=dict)
    written: list[Path] = field(default_factory=list)

    def save(self, path: Path, data: dict[str, Any]) -> bool:
        """Write `data` if it differs from the file's content; True when written. A symlinked
        file (dotfiles) is written through the link, so the link stays a link."""
        if path.exists() and _same(path, data):
            return False
        target = Path(os.path.realpath(path))
        if target.exists():
            check_writable(path, target)  # before the backup: a refused file gets none
        if target.exists() and target not in self.backed_up:
            self.backed_up[target] = _backup(target, self.stamp)
        atomic.write_text(target, dumps(data))
        self.written.append(path)
        return True


def check_writable(path: Path, target: Path) -> None:
    """A client file its owner made read-only is a decision to respect, not to route around
    (the atomic rename would only need the folder's permission); an immutable one can't be
    written at all. Either way: left untouched, with what to do."""
    if not target.stat().st_mode & stat.S_IWUSR:
        raise ClientFileError(m.Message(m.READ_ONLY, path=path))
    try:
        with open(target, "ab"):  # opening for append writes nothing; an immutable file refuses it
            pass
    except OSError as exc:
        raise ClientFileError(
            f"{path} cannot be changed ({exc.strerror or exc}); left untouched — if it is locked "
            f"(`lsattr {path}` shows an i), unlock it with `chattr -i {path}`, then run `memevo setup --repair`"
        ) from exc


def _backup(path: Path, stamp: str) -> Path:
    """`<name>.bak-<stamp>`, never overwriting an earlier backup (a second run in the same second)."""
    candidate = unused_path(path.with_name(f"{path.name}.bak-{stamp}"))
    shutil.copy2(path, candidate)
    return candidate


def unused_path(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`… when it is taken: a backup never replaces an earlier one."""
    candidate, counter = path, 1
    while candidate.exists():
        counter += 1
        candidate = path.with_name(f"{path.name}-{counter}")
    return candidate


def _same(path: Path, data: dict[str, Any]) -> bool:
    try:
        return bool(json.loads(path.read_text(encoding="utf-8")) == data)
    except (OSError, ValueError):
        return False
