"""The tray's `memevo sync`: every syncMinutes once a sync remote is set (`memevo sync REMOTE`,
or the panel's Sharing tab), and by hand from the menu (enabled only once a remote is set). The
sync (git over the network, seconds to minutes) runs on a worker of its own through the
service's operation, so the menu's own reads never wait behind it."""

from __future__ import annotations

import logging
from typing import Any

from .i18n import tr
from .worker import OffUi

log = logging.getLogger("memevo.desktop")
REVIEW_SHOWN = 3  # a notification names this many; `memevo sync` lists them all


class SyncSchedule:
    def __init__(self, host: Any, notify: Any) -> None:
        from .qt import QTimer

        self.host = host
        self.notify = notify  # Notifier.notify(key, title, message)
        self.worker = OffUi("memevo-sync-work")
        self.timer = QTimer()
        self.timer.timeout.connect(lambda: self.run(by_hand=False))
        self.last: dict[str, Any] | None = None  # the last sync's report (tests read it)
        self.restart()

    def restart(self) -> None:
        """(Re)read syncMinutes: the timer runs at that interval, or not at all for 0."""
        from ..core import config as config_mod

        minutes = int(config_mod.load()["syncMinutes"])
        self.timer.stop()
        if minutes > 0:
            self.timer.start(minutes * 60_000)

    def ready(self) -> bool:
        """A sync remote is set (a stat): the menu's Sync memories now is enabled only then."""
        from ..core.sync import remote as syncgit

        return syncgit.is_set_up()

    def run(self, by_hand: bool = True) -> bool:
        """Start a sync unless none is set up or one is running; True when one started."""
        from ..core.sync import remote as syncgit

        if not syncgit.is_set_up():
            if by_hand:
                self.notify(
                    "sync:none",
                    tr("memevo sync"),
                    tr(
                        "No sync remote yet: set one in the panel's Sharing tab (a git remote you own), or run “memevo sync REMOTE” once in a terminal."
                    ),
                )
            return False
        if self.worker.busy:
            return False
        self.worker.run(lambda: self.host.handle("sync", {}), self._done, self._failed)
        return True

    def _done(self, report: dict[str, Any]) -> None:
        self.last = report
        for conflict in report.get("conflicts", []):
            self.notify(
                f"sync:{conflict['file']}",
                tr("memevo sync: a conflict"),
                tr("{file} could not be merged: {why}. The memory here is kept as it is.").format(
                    file=conflict["file"], why=conflict["why"]
                ),
            )

        review = report.get("review") or []
        if review:  # applied from another machine, and the user should know (core/sync/remote.py)
            shown = "; ".join(f"#{item['id']} {item['what']}" for item in review[:REVIEW_SHOWN])
            more = len(review) - REVIEW_SHOWN
            self.notify(
                f"sync-review:{','.join(item['id'] for item in review)}",
                tr("memevo sync: from your other machines"),
                tr("{items}{more}. Undo with “memevo unpin”, “memevo delete” or “memevo restore”.").format(
                    items=shown, more=tr(" and {n} more").format(n=more) if more > 0 else ""
                ),
            )

    def _failed(self, exc: Exception) -> None:
        log.warning("sync: %s", exc)
        self.notify(f"sync-failed:{exc}", tr("memevo sync failed"), str(exc))
