"""Where memevo keeps its state. One environment variable (MEMEVO_HOME) moves all of it."""

from __future__ import annotations

import os
from pathlib import Path

from ..hooks import wire
from . import envvars

HOME_ENV = envvars.HOME.name
DEFAULT_DIRNAME = wire.DEFAULT_FOLDER  # the wire's: hooks find the same folder


def data_dir() -> Path:
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    return Path.home() / DEFAULT_DIRNAME


def data_dir_problem() -> str | None:
    """Why the data dir cannot hold memevo's state (a file stands where it or a folder above it
    should be), or None. Nothing is created to find out."""
    path = data_dir()
    for candidate in (path, *path.parents):
        if candidate.exists():
            if candidate.is_dir():
                return None
            named = f"{HOME_ENV} ({path})" if os.environ.get(HOME_ENV) else f"the data dir ({path})"
            return f"{named} cannot be used: {candidate} is a file, not a folder" + (
                f"; point {HOME_ENV} at a folder, or unset it" if os.environ.get(HOME_ENV) else ""
            )
    return None


def store_path() -> Path:
    return data_dir() / "memevo.duckdb"


def config_path() -> Path:
    return data_dir() / "config.json"


def backups_dir() -> Path:
    return data_dir() / "backups"


def log_dir() -> Path:
    return data_dir() / "logs"


USER_ONLY_UMASK = 0o077


def user_only() -> None:
    """Every file and folder memevo creates from here on is the user's alone (0600 / 0700):
    prompts, learned words and memories sit in the store, its WAL and the logs. Called first
    thing by every entry point (CLI, service, tray, MCP server, hooks)."""
    os.umask(USER_ONLY_UMASK)


def ensure_data_dir() -> Path:
    path = data_dir()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def tighten_data_dir() -> int:
    """An install made before these rules (0755 folder, 0644 files) becomes user-only: run at
    each service start. Returns how many entries were changed. Links are not followed."""
    root = data_dir()
    if not root.is_dir():
        return 0
    changed = 0
    for entry in [root, *root.rglob("*")]:
        try:
            info = entry.lstat()
        except OSError:
            continue
        if entry.is_symlink() or not info.st_mode & 0o077:
            continue
        wanted = info.st_mode & 0o700 | (0o700 if entry.is_dir() else 0)
        try:
            os.chmod(entry, wanted & 0o777)
            changed += 1
        except OSError:
            continue
    return changed
