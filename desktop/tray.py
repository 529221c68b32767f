"""The tray icon: its menu and native notifications, over the memory service that the program
(desktop/app.py) hosts in the Qt event loop. The model loads on a worker thread, so the menu
answers at once.

The icon's state is recomputed every second from cheap sources (config file, host
attributes); what needs the store or the clients' files (pending count, the Clients submenu,
side failures, the toggles' writes) is done on the tray's worker and shown when it answers,
so the UI loop — which also runs the service's — never waits on the database (the app keeps
this thread off the store: Store.keep_off)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..core.errors import StoreDamaged
from ..core.service.host import ServiceHost
from .i18n import plural, tr
from .learning_texts import confirm_label
from .notify import Notifier
from .tray_state import (  # noqa: F401 - part of this module's API (tests, the app)
    MENU_LINE_PX,
    STATE_COLORS,
    _icon,
    learning_off_text,
    menu_line,
    recent_side_failures,
    tray_state,
)

log = logging.getLogger("memevo.desktop")

if TYPE_CHECKING:
    pass


class Tray:
    def __init__(self, host: ServiceHost, quit_event: asyncio.Event, confirmations: Any = None) -> None:
        from .qt import QMenu, QSystemTrayIcon

        self.host = host
        self.confirmations = confirmations
        self.notifier = Notifier(self._show_message)
        from .sync_timer import SyncSchedule

        self.sync = SyncSchedule(host, self.notifier.notify)  # `memevo sync` by hand and on its timer
        self.icon = QSystemTrayIcon(_icon(STATE_COLORS["loading"]))
        self.menu = QMenu()
        self.status_action = self._action("memevo: starting…", enabled=False)
        self.panel_action = self._action(tr("Open panel"), lambda: self.open_panel())
        self.pending_action = self._action(tr("No proposals waiting"), self.show_pending, enabled=False)
        self.pause_action = self._action(tr("Pause memory"), self.toggle_pause)
        self.confirm_action = self._action(confirm_label(), self.toggle_confirm)
        self.confirm_action.setCheckable(True)
        self.settings_action = self._action(tr("Settings…"), lambda: self.open_panel("settings"))
        # `memevo off`: how many repositories memevo leaves alone; the list is in the Status tab
        self.off_action = self._action(tr("On in every repository…"), lambda: self.open_panel("status"))
        self.setup_action = self._action(tr("Set up clients…"), lambda: self.open_wizard())
        self.sync_action = self._action(tr("Sync memories now"), lambda: self.sync.run())
        self.clients_menu = QMenu(tr("Clients"))
        self.quit_action = self._action(
            tr("Quit memevo (until you start it again)"), lambda: self.quit(quit_event)
        )
        self.panel: Any = None
        self.wizard: Any = None
        self.repairs = 0
        self.copied: str | None = None  # the last command put on the clipboard (tests read it)
        self.registration_problems: dict[str, str] = {}  # client display name → why (the icon shows it)
        from .worker import OffUi

        self.worker = OffUi("memevo-tray-work")
        for action in (self.status_action, None, self.panel_action, self.pending_action, None):
            self.menu.addSeparator() if action is None else self.menu.addAction(action)
        for action in (
            self.pause_action,
            self.confirm_action,
            self.settings_action,
            self.off_action,
            self.setup_action,
            self.sync_action,
        ):
            self.menu.addAction(action)

        self.menu.addMenu(self.clients_menu)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.menu.setToolTipsVisible(True)  # the status line's whole text
        self.menu.aboutToShow.connect(self.refresh_menu)
        self.menu.aboutToShow.connect(self._fit_status_line)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)
        self.icon.messageClicked.connect(self._on_message_clicked)
        self.state = "loading"
        self.tooltip = ""
        self.refresh()
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.icon.show()

    def _action(self, text: str, slot: Any = None, enabled: bool = True) -> Any:
        from .qt import QAction

        action = QAction(text, self.menu)
        action.setEnabled(enabled)
        if slot is not None:
            action.triggered.connect(lambda _checked=False: slot())
        return action

    def _show_message(self, title: str, message: str) -> None:
        self.icon.showMessage(title, message)

    def _on_activated(self, reason: Any) -> None:
        from .qt import QSystemTrayIcon

        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.open_panel()

    # -- what the icon and menu show ----------------------------------------------------------------------
    def refresh(self) -> None:
        self.refresh_icon()
        self.refresh_menu()

    def refresh_icon(self) -> None:
        """Cheap: the config file and the host's attributes, no store query."""
        state, tooltip = tray_state(self.host)
        if self.registration_problems and state not in ("problem", "paused"):
            client, why = next(iter(self.registration_problems.items()))
            state = "problem"
            tooltip = tr(
                "memevo: {client}'s registration is broken: {why}. Fix it, then choose Repair now under Clients."
            ).format(client=client, why=why)
        if state != self.state:
            self.icon.setIcon(_icon(STATE_COLORS[state]))
        self.state = state
        self.tooltip = tooltip
        if self.menu.isVisible():
            self._fit_status_line()
        else:  # fitted as the menu opens: measuring text would load the fonts into an idle tray
            self.status_action.setText(tooltip.split("\n", 1)[0])
        self.status_action.setToolTip(tooltip)  # all of it on hover, and on the icon
        self.icon.setToolTip(tooltip)
        if state == "problem" and not self.registration_problems:  # those notify from on_repair_failed
            self.notifier.notify(f"problem:{tooltip}", tr("memevo needs attention"), tooltip)

    def _fit_status_line(self) -> None:
        self.status_action.setText(menu_line(self.tooltip, self.menu))  # the menu stays narrow

    def refresh_menu(self) -> None:
        """The config's switches now (a small file); the pending count and the clients' states
        from the worker (store and client files), filled in as the menu stays open."""
        from ..core import config as config_mod

        config = config_mod.load()
        self.pause_action.setText(tr("Resume memory") if not config["enabled"] else tr("Pause memory"))
        self.confirm_action.setChecked(bool(config["confirm"]))
        ready = self.sync.ready()  # a stat: no remote set, nothing to sync
        self.sync_action.setEnabled(ready)
        self.sync_action.setToolTip(
            "" if ready else tr("No sync remote yet: set one in the panel's Sharing tab.")
        )
        off = len(config["offRepositories"])
        self.off_action.setText(
            plural(off, tr("Off in {count} repository…"), tr("Off in {count} repositories…"))
            if off
            else tr("On in every repository…")
        )
        self.worker.run(self._read_menu, self._fill_menu, lambda exc: log.warning("tray menu: %s", exc))

    def _read_menu(self) -> tuple[int | None, Any]:
        """On the worker: the pending count (None: the store is damaged; the icon says so) and
        what the Clients submenu shows."""
        from ..core.learning import jobs
        from . import clients_menu

        try:
            pending: int | None = len(jobs.pending(self.host.store))
        except StoreDamaged:
            pending = None
        try:
            clients = clients_menu.read(self.host)
        except StoreDamaged:
            clients = None
        return pending, clients

    def _fill_menu(self, found: tuple[int | None, Any]) -> None:
        from . import clients_menu

        pending, clients = found
        if pending is not None:  # none waiting: nothing to open, so not clickable
            self.pending_action.setText(
                tr("Pending proposals ({count})").format(count=pending)
                if pending
                else tr("No proposals waiting")
            )
            self.pending_action.setEnabled(bool(pending))
        if clients is not None:
            clients_menu.fill(
                self.clients_menu, clients, self.repair_client, self.set_repairs, self.copy_command
            )

    # -- self-repair of the clients' registration ----------------------------------------------------------
    def repair_client(self, client: str) -> None:
        """Repair now (menu): the same code as setup, off the UI thread (it may run `claude`);
        the client's state is read again after it, and the notification says that state."""
        from ..installer import client_state, jsonfile, state
        from ..installer import messages as m
        from ..installer.clients import register_client

        def work() -> tuple[Any, client_state.ClientState]:
            outcome = register_client(client, jsonfile.Writer())
            if outcome.hooks_ok:
                state.update_client(client, registered=True, removed=False)
            return outcome, client_state.read(client)

        def done(found: tuple[Any, client_state.ClientState]) -> None:
            outcome, after = found
            if outcome.problems:
                self.on_repair_failed(client, m.joined(outcome.problems))
            elif outcome.changed:
                self.on_repaired(client, outcome.lines, after)
            elif after.command:  # nothing memevo can do alone: say what the user runs, once
                self.registration_problems.pop(after.display, None)
                self.notifier.notify(
                    f"command:{client}:{after.command}",
                    tr("{client} needs one command").format(client=after.display),
                    tr(
                        "memevo cannot register its MCP server in {client} by itself. Run this in a terminal (Clients → {client} → Copy the command): {command}"
                    ).format(client=after.display, command=after.command),
                )
            # else: nothing needed repairing, nothing changed — nothing to say; the menu shows the state
            self.refresh_menu()

        self.worker.run(work, done, lambda exc: self.on_repair_failed(client, str(exc)))

    def set_repairs(self, client: str, on: bool) -> None:
        """Only from the Clients menu's explicit actions (never from a notification)."""
        from ..installer import watcher

        def work() -> None:
            (watcher.resume_repairing if on else watcher.stop_repairing)(client)

        from ..installer.clients import DISPLAY_NAMES

        name = DISPLAY_NAMES.get(client, client)
        said = (
            tr("memevo repairs {client}'s registration again whenever its files change.")
            if on
            else tr("memevo no longer repairs {client}'s registration; Repair now still works.")
        ).format(client=name)

        def done(_none: Any) -> None:
            self.refresh_menu()
            self._show_message("memevo", said)

        self.worker.run(work, done, lambda exc: log.warning("repairs: %s", exc))

    def copy_command(self, command: str) -> None:
        from .qt import QApplication

        QApplication.clipboard().setText(command)
        self.copied = command

    def on_repaired(self, client: str, lines: list[str], after: Any = None) -> None:
        """Something of ours was put back (the watcher only calls this when a file changed).
        The notification says the client's state in words, not the engine's log lines; a
        click on it changes nothing."""
        from ..installer.clients import DISPLAY_NAMES
        from .client_texts import summary

        self.repairs += 1
        name = DISPLAY_NAMES[client]
        self.registration_problems.pop(name, None)
        message = tr("memevo put its entries back in {client}'s files.").format(client=name)
        if after is not None:
            message += " " + tr("Now: {state}.").format(state=summary(after))
            if after.command:
                message += " " + tr("Run this in a terminal: {command}").format(command=after.command)
        message += " " + tr(
            "To stop this, choose Clients → {client} → Stop repairing this client in this menu."
        ).format(client=name)
        self.notifier.notify(
            f"repair:{client}:{self.repairs}", tr("memevo repaired {client}").format(client=name), message
        )

    def on_repair_failed(self, client: str, why: str) -> None:
        from ..installer.clients import DISPLAY_NAMES
        from .messages import said as say

        name = DISPLAY_NAMES[client]
        said = say(why)  # the installer's reason (a message, or text of a known shape) in the UI language
        self.registration_problems[name] = said
        self.refresh_icon()
        self.notifier.notify(
            f"repair-failed:{client}:{why}", tr("memevo could not repair {client}").format(client=name), said
        )

    def _on_message_clicked(self) -> None:
        """A click on a notification is how people dismiss it: it never changes a setting.
        It opens the panel, where the state of things is shown."""
        if self.notifier.last_key is not None and not self.host.ctx.store_error:
            self.open_panel("status")

    def open_wizard(self) -> Any:
        from .wizard import SetupWizard

        if self.wizard is None or not self.wizard.isVisible():
            self.wizard = SetupWizard()
            self.wizard.backfill_requested.connect(self.open_backfill)
        self.wizard.show()
        self.wizard.raise_()
        self.wizard.activateWindow()
        return self.wizard

    def check_side_failures(self) -> None:
        """A side API that refuses the key or cannot be reached needs the user: say so once.
        The errors are read on the worker."""

        def read() -> list[str]:
            try:
                return recent_side_failures(self.host)
            except StoreDamaged:  # the icon says it
                return []

        def tell(failures: list[str]) -> None:
            for error in failures:
                self.notifier.notify(f"side:{error}", tr("memevo could not learn"), error)

        self.worker.run(read, tell, lambda exc: log.warning("side failures: %s", exc))
        self.check_reviews()

    def check_reviews(self) -> None:
        """A repository's shared facts file waiting for the user's review (it is not read until
        trusted: core/sharing/trust.py): said once per content. Read on the worker."""
        from ..core.service import sharework
        from ..core.sharing import overview
        from ..core.sharing import trust as sharetrust

        def read() -> list[dict[str, Any]]:
            try:
                # a facts file refused since (by `memevo share`, the panel): the icon says it
                sharework.note_problems(overview.problems(self.host.store))
                return sharetrust.waiting(self.host.store)
            except StoreDamaged:  # the icon says it
                return []

        def tell(waiting: list[dict[str, Any]]) -> None:
            for entry in waiting:
                key = f"review:{entry['folder']}:{entry['sha']}"
                self.notifier.notify(key, tr("memevo needs attention"), entry["message"])

        self.worker.run(read, tell, lambda exc: log.warning("shared facts reviews: %s", exc))

    # -- actions -------------------------------------------------------------------------------------------
    def open_panel(self, view: str = "memories") -> Any:
        from .panel import Panel

        if self.host.ctx.store_error:  # the panel has nothing to show: say again what to do
            self._show_message(tr("memevo needs attention"), tray_state(self.host)[1])
            return None
        if self.panel is None:
            self.panel = Panel(self.host, self.confirmations)
        else:
            self.panel.reload_current()
        self.panel.show_view(view)
        self.panel.showNormal()
        self.panel.raise_()
        self.panel.activateWindow()
        return self.panel

    def open_backfill(self) -> Any:
        """The panel's From past sessions tab, its scan started (it writes nothing by itself)."""
        panel = self.open_panel("backfill")
        if panel is not None:
            panel.backfill.start()
        return panel

    def quit(self, quit_event: asyncio.Event) -> None:
        """Quit, and stay quit: hooks and MCP servers do not start memevo again until the user
        does (hooks/wire.py QUIT_FILE; the next start removes it). Rules still reach each
        session from the cached texts; Pause is the switch that keeps memevo running."""
        from ..core import paths
        from ..hooks import wire

        try:
            paths.data_dir().mkdir(parents=True, exist_ok=True)
            (paths.data_dir() / wire.QUIT_FILE).write_text("quit from the tray's menu\n", encoding="utf-8")
        except OSError:
            log.warning("could not note the quit; the next prompt may start memevo again", exc_info=True)
        quit_event.set()

    def toggle_pause(self) -> None:
        """Through the config operations, which also rewrite the hooks' fallback texts from the
        store: on the worker."""
        from ..core import config as config_mod

        if config_mod.load()["enabled"]:
            self._set_config("config_set", {"key": "enabled", "value": False})
        else:
            self._set_config("config_unset", {"key": "enabled"})

    def toggle_confirm(self) -> None:
        self._set_config("config_set", {"key": "confirm", "value": self.confirm_action.isChecked()})

    def _set_config(self, op: str, params: dict[str, Any]) -> None:
        def failed(exc: Exception) -> None:
            self._show_message(tr("memevo needs attention"), str(exc))
            self.refresh()

        self.worker.run(lambda: self.host.handle(op, params), lambda _result: self.refresh(), failed)

    def show_pending(self) -> None:
        """Reopen the waiting proposals in the dialog; without the dialog, the panel's Pending tab."""
        if self.confirmations is None:
            self.open_panel("proposals")
            return
        self.confirmations.dismissed_ids.clear()  # the user asked to see them again
        self.confirmations.reopen_shown()
        self.confirmations.poll()
