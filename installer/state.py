"""What the installer did, in the data dir (install.json): which clients are registered, which
the user removed on purpose (`uninstall --only`: never re-added by a repair) and which the
user asked us to stop repairing. The tray's watcher reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core import atomic, paths


def path() -> Path:
    return paths.data_dir() / "install.json"


def load() -> dict[str, Any]:
    try:
        data = json.loads(path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"clients": {}}
    if not isinstance(data, dict) or not isinstance(data.get("clients"), dict):
        return {"clients": {}}
    return data


def save(data: dict[str, Any]) -> None:
    atomic.write_text(path(), json.dumps(data, indent=2, sort_keys=True) + "\n", mode=0o600)


def client(name: str) -> dict[str, Any]:
    return dict(load()["clients"].get(name) or {})


def update_client(name: str, **fields: Any) -> None:
    data = load()
    entry = dict(data["clients"].get(name) or {})
    entry.update(fields)
    data["clients"][name] = entry
    save(data)


def registered_clients() -> list[str]:
    """Clients whose registration the watcher keeps: registered, not removed, still repaired."""
    return [
        name
        for name, entry in load()["clients"].items()
        if entry.get("registered") and not entry.get("removed") and entry.get("repair", True)
    ]


def mark_setup_run() -> None:
    """Setup ran (even with no client installed): the tray app stops offering the wizard."""
    import time

    data = load()
    data["setup_at"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    save(data)


def forget() -> None:
    path().unlink(missing_ok=True)
