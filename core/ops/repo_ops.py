"""Operations about the repositories memevo has seen on this machine."""

from __future__ import annotations

from typing import Any

from ..repos import identity
from .table import Context, operation


@operation("repo_folders")
def op_repo_folders(ctx: Context) -> dict[str, Any]:
    """The folders repositories were seen in (sessions there, `memevo` run there), the latest
    first: `memevo backfill` and the panel match the CodeBuddy IDE's workspaces against them."""
    store = ctx.reader()
    if store is None:
        return {"folders": []}
    with store.reading() as con:
        return {"folders": identity.every_folder(con)}
