"""The tray's Clients submenu: per client, its registration status (with repair and
stop-repairing) and when each of its hooks last fired; and the repair notifications."""

from __future__ import annotations

from typing import Any

from .i18n import tr


def registration_state(client: str) -> str:
    from ..installer import state
    from ..installer.clients import client_status, files, needs_repair

    if not files(client).installed:
        return "not-installed"
    entry = state.client(client)
    if entry.get("removed"):
        return "removed"
    if not entry.get("registered"):
        return "not-registered"
    report = client_status(client)
    if any(v.startswith("broken") for v in report.values()):
        return "missing"
    if needs_repair(report):
        return "stale" if "missing" not in report.values() else "missing"
    return "ok" if entry.get("repair", True) else "not-repairing"


def status_label(client: str, state_name: str) -> str:
    from ..installer.clients import DISPLAY_NAMES

    # tr() needs literal strings for extraction: spell each one out.
    texts = {
        "ok": tr("registered"),
        "missing": tr("registration missing"),
        "stale": tr("registration out of date"),
        "removed": tr("removed (uninstall --only)"),
        "not-installed": tr("not installed"),
        "not-registered": tr("not registered — run setup"),
        "not-repairing": tr("registered; repairs stopped"),
    }
    return tr("{client}: {state}").format(client=DISPLAY_NAMES[client], state=texts[state_name])


def read(host: Any) -> dict[str, Any]:
    """Off the UI thread: each client's registration state (its files) and the hooks' last
    activity (the store); `fill` builds the submenu from it."""
    from ..installer.clients import CLIENTS

    return {
        "states": {client: registration_state(client) for client in CLIENTS},
        "activity": host.handle("hook_activity", {"limit": 1})["hooks"],
    }


def fill(menu: Any, found: dict[str, Any], repair: Any, toggle_repairs: Any) -> None:
    """Rebuild the submenu from what `read` found (on the UI thread, no I/O)."""
    menu.clear()
    for client, state_name in found["states"].items():
        sub = menu.addMenu(status_label(client, state_name))
        if state_name in ("missing", "stale", "not-registered", "ok"):
            sub.addAction(tr("Repair now")).triggered.connect(lambda _c=False, c=client: repair(c))
        if state_name == "ok":
            sub.addAction(tr("Stop repairing this client")).triggered.connect(
                lambda _c=False, c=client: toggle_repairs(c, False)
            )
        if state_name == "not-repairing":
            sub.addAction(tr("Repair it again when it changes")).triggered.connect(
                lambda _c=False, c=client: toggle_repairs(c, True)
            )
    menu.addSeparator()
    activity = found["activity"]
    if not activity:
        menu.addAction(tr("No client hook has fired yet")).setEnabled(False)
    for row in activity:
        label = tr("{client} · {event}: {last} ({count} times)").format(
            client=row["client"],
            event=row["event"],
            last=row["last"][:19].replace("T", " "),
            count=row["count"],
        )
        menu.addAction(label).setEnabled(False)
