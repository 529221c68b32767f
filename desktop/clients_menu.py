"""The tray's Clients submenu: per client, its state as installer/client_state reads it (the
hooks and the MCP server apart), with Repair now, Copy the command where memevo cannot finish
alone, and stop/resume repairing for every registered client; then when each hook last fired.
A client that is not installed is one greyed line, not an empty submenu."""

from __future__ import annotations

import re
from typing import Any

from .client_texts import client_label, part_lines, title
from .i18n import tr


def event_label(event: str) -> str:
    """The hook kinds in words (the store keeps identifiers)."""
    labels = {
        "session_start": tr("session start"),
        "prompt": tr("prompt"),
        "action": tr("tool call"),
        "stop": tr("end of a reply"),
    }
    return labels.get(event, event)


def short(command: str) -> str:
    """`claude mcp add --scope user memory-self-evolution …`: the part a person recognises. A
    moved data folder's `-e MEMEVO_HOME=…` goes with the server's command line into the `…`:
    both are in the tooltip and in what Copy puts on the clipboard."""
    head = re.split(r" (?:-e|--) ", command, maxsplit=1)[0]
    return head + " …" if head != command else command


def read(host: Any) -> dict[str, Any]:
    """Off the UI thread: each client's state (its files) and the hooks' last activity (the
    store); `fill` builds the submenu from it."""
    from ..installer import client_state

    return {
        "states": client_state.read_all(),
        "activity": host.handle("hook_activity", {"limit": 1})["hooks"],
    }


def fill(menu: Any, found: dict[str, Any], repair: Any, toggle_repairs: Any, copy: Any) -> None:
    """Rebuild the submenu from what `read` found (on the UI thread, no I/O)."""
    from ..installer import client_state

    menu.clear()
    for state in found["states"]:
        if not state.registered and state.overall != client_state.NOT_REGISTERED:
            menu.addAction(title(state)).setEnabled(False)  # not installed, removed: nothing to do
            continue
        sub = menu.addMenu(title(state))
        sub.setToolTipsVisible(True)
        for line in part_lines(state):
            sub.addAction(line).setEnabled(False)
        if state.command:  # the whole command on hover and on the clipboard; the menu stays narrow
            copy_action = sub.addAction(
                tr("Copy the command: {command}").format(command=short(state.command))
            )
            copy_action.setToolTip(state.command)
            copy_action.triggered.connect(lambda _c=False, cmd=state.command: copy(cmd))
        if part_lines(state):
            sub.addSeparator()
        sub.addAction(tr("Repair now")).triggered.connect(lambda _c=False, c=state.client: repair(c))
        if state.registered and state.repairing:
            sub.addAction(tr("Stop repairing this client")).triggered.connect(
                lambda _c=False, c=state.client: toggle_repairs(c, False)
            )
        elif state.registered:
            sub.addAction(tr("Repair it again when it changes")).triggered.connect(
                lambda _c=False, c=state.client: toggle_repairs(c, True)
            )
    menu.addSeparator()
    activity = found["activity"]
    if not activity:
        menu.addAction(tr("No client hook has fired yet")).setEnabled(False)
    for row in activity:
        label = tr("{client} · {event}: {last} ({count}×)").format(
            client=client_label(row["client"]),
            event=event_label(row["event"]),
            last=row["last"][:19].replace("T", " "),
            count=row["count"],
        )
        menu.addAction(label).setEnabled(False)
