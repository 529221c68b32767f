"""The memories view's undo: what the last actions can put back, each named ("delete #3f2a…"),
and a check that undoing is still right. An undo is stale when its memory changed since — the
side judge merged into it, another edit, a restore from the trash — and then it is dropped with
every older one (they assumed the state it would have put back), never run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .i18n import tr

DEPTH = 20
SHOWN = 36  # characters of the label on the button (the tooltip has all of it)
IN_TRASH = "in-trash"  # an expectation's field: the memory is in the trash (undoing a delete)


@dataclass
class Undo:
    label: str
    steps: list[tuple[str, dict[str, Any]]]  # service ops that put things back, in order
    # (memory id, field, value) as the action left it: if the memory changed since, undoing
    # would overwrite that change — refused instead. Field IN_TRASH: it is still in the trash.
    expect: list[tuple[str, str, Any]] | None = None


class ChangedSince(Exception):
    pass


def check(host: Any, undo: Undo) -> None:
    """On the view's worker: raises ChangedSince when undoing would not put back what it says."""
    from ..core.memories import live as memories

    trash: set[str] | None = None
    for memory_id, field_name, value in undo.expect or []:
        if field_name == IN_TRASH:
            if trash is None:
                trash = {t.memory.id for t in memories.trash_list(host.store)}
            if memory_id not in trash:
                raise ChangedSince(tr("#{id} is no longer in the trash").format(id=memory_id))
            continue
        current = memories.find(host.store, [memory_id]).get(memory_id)
        if current is None or getattr(current, field_name) != value:
            raise ChangedSince(tr("#{id} changed since").format(id=memory_id))


def button_text(stack: list[Undo]) -> tuple[str, str]:
    """(the Undo button's text, its tooltip): what the next click undoes."""
    if not stack:
        return tr("Undo"), tr("Nothing to undo")
    label = stack[-1].label
    shown = label if len(label) <= SHOWN else label[: SHOWN - 1] + "…"
    return tr("Undo: {what}").format(what=shown), tr("Undo: {what}").format(what=label)


def id_list(ids: list[str]) -> str:
    return " ".join(f"#{i}" for i in ids)
