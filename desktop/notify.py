"""Native notifications, never more than one per event: each carries a key (a job id, a
problem's text, a repaired client) and a key is shown once for the life of the tray app.
Routine recalls never notify."""

from __future__ import annotations

from collections.abc import Callable


class Notifier:
    def __init__(self, show: Callable[[str, str], None], remember: int = 500) -> None:
        self._show = show
        self._seen: dict[str, None] = {}  # insertion-ordered, so the oldest keys go first
        self._remember = remember
        self.shown: list[tuple[str, str]] = []  # (title, message), newest last — the panel and tests read it
        self.last_key: str | None = None  # the notification on screen: a click is about this one

    def notify(self, key: str, title: str, message: str) -> bool:
        if key in self._seen:
            return False
        self._seen[key] = None
        if len(self._seen) > self._remember:
            self._seen.pop(next(iter(self._seen)))
        self.shown = [*self.shown[-49:], (title, message)]
        self.last_key = key
        self._show(title, message)
        return True

    def forget(self, key: str) -> None:
        """The event may happen again (a problem fixed and back): let it notify again."""
        self._seen.pop(key, None)
