"""Progress of long work (model provisioning, rebuilding vectors), for a terminal or a GUI."""

from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO


class Progress(Protocol):
    def stage(self, text: str) -> None: ...

    def update(self, done: float, total: float | None = None) -> None: ...


class Silent:
    def stage(self, text: str) -> None:
        pass

    def update(self, done: float, total: float | None = None) -> None:
        pass


class TerminalBar:
    """A one-line bar on a terminal; plain stage lines when the stream is not a terminal."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self._label = ""
        self._last = 0.0
        self._bar_open = False  # a bar line drawn and not yet ended

    def stage(self, text: str) -> None:
        """Each stage is a whole line: whatever prints next (pip, the command's own output)
        starts on a line of its own instead of running into the label."""
        if self.tty and self._bar_open:
            self.stream.write("\n")
        self._bar_open = False
        self._label = text
        self.stream.write(text + "\n")
        self.stream.flush()

    def update(self, done: float, total: float | None = None) -> None:
        if not self.tty or not total:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and done < total:
            return
        self._last = now
        filled = int(self.width * min(done / total, 1.0))
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r  [{bar}] {100 * done / total:5.1f}%")
        self._bar_open = True
        if done >= total:
            self.stream.write("\n")
            self._bar_open = False
        self.stream.flush()
