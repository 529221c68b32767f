"""Where memevo keeps its state. One environment variable (MEMEVO_HOME) moves all of it."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "MEMEVO_HOME"
DEFAULT_DIRNAME = ".memory-self-evolution"


def data_dir() -> Path:
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    return Path.home() / DEFAULT_DIRNAME


def store_path() -> Path:
    return data_dir() / "memevo.duckdb"


def config_path() -> Path:
    return data_dir() / "config.json"


def backups_dir() -> Path:
    return data_dir() / "backups"


def log_dir() -> Path:
    return data_dir() / "logs"


def ensure_data_dir() -> Path:
    path = data_dir()
    path.mkdir(parents=True, exist_ok=True)
    return path
