"""Time as the confidence rules see it: epoch milliseconds and the user's local day.

Everything that depends on "now" takes a Clock, so tests can walk a memory through
60 days of decay without waiting.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone
from typing import Protocol

DAY_MS = 86_400_000


class Clock(Protocol):
    def now_ms(self) -> int: ...

    def local_day(self, ms: int) -> str: ...


class SystemClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def local_day(self, ms: int) -> str:
        return time.strftime("%Y-%m-%d", time.localtime(ms / 1000))


class FakeClock:
    """A settable clock in a fixed UTC offset, for tests and benchmarks."""

    def __init__(self, start: datetime | None = None, utc_offset_hours: int = 8) -> None:
        self.tz = timezone(timedelta(hours=utc_offset_hours))
        moment = start or datetime(2026, 1, 1, 9, 0, tzinfo=self.tz)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=self.tz)
        self._ms = int(moment.timestamp() * 1000)

    def now_ms(self) -> int:
        return self._ms

    def local_day(self, ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, tz=self.tz).strftime("%Y-%m-%d")

    def advance(self, days: float = 0, hours: float = 0, minutes: float = 0) -> None:
        self._ms += int((days * 24 * 60 + hours * 60 + minutes) * 60_000)


def iso(ms: int) -> str:
    """Render a timestamp for people and JSON: local time with its offset."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone().isoformat(timespec="seconds")
