"""The service while its store is damaged: it runs on, says why, and hooks get the last texts.

`ping` says why (the tray's icon, `memevo service status`), hooks answer from the cached texts
(the rules as last written, and a line naming the remedy), every other request fails with the
damage and its remedy (the unusable store raises it), until `memevo repair` stops the service.
"""

from __future__ import annotations

from typing import Any

from .. import paths
from ..errors import StoreDamaged
from .context import ServiceContext

DAMAGED_NOTICE = (
    "[memevo] The memory store is damaged: what memevo injects now is its last saved copy, and "
    "nothing new is remembered until the user runs `memevo repair` in a terminal."
)


def mark(ctx: ServiceContext, damage: StoreDamaged) -> None:
    ctx.store_error = ctx.engine_error = str(damage)
    ctx.damaged = True


def answer_from_cache(op: str, params: dict[str, Any]) -> dict[str, Any]:
    flavor = str(params.get("flavor") or "default")
    folder = paths.data_dir() / "cache"

    def cached(name: str) -> str:
        try:
            return (folder / name).read_text(encoding="utf-8")
        except OSError:
            return ""

    if op == "hook_session_start":
        text = cached(f"session-start-{flavor}.txt")
        return {"context": f"{text}\n\n{DAMAGED_NOTICE}" if text else DAMAGED_NOTICE}
    if op == "hook_prompt" and params.get("kind") != "plugin" and str(params.get("prompt") or "").strip():
        return {"context": cached(f"prompt-reminder-{flavor}.txt") or None}
    return {"context": None}
