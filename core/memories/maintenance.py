"""The daily maintenance: once per local day, shared by every client and session via the store.

It runs on the first session start of a day. A failed run records nothing, so the next
session retries it. decayDays is read when the run happens, so a change applies from the
next day's first session.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from .. import config as config_mod
from ..clock import Clock
from ..learning import jobs as side_jobs
from ..store import applied, backups
from ..store.database import Store, one
from . import confidence as conf
from . import cues
from .live import Memory, _save_standing
from .row import _COLUMNS
from .trash import purge_expired_trash

log = logging.getLogger("memevo.maintenance")

STATE_KEY = "maintenance_day"


@dataclass(frozen=True)
class Report:
    day: str
    decayed: int
    newly_deprecated: int
    clamped: int
    trash_purged: int
    zombies: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "day": self.day,
            "decayed": self.decayed,
            "newly_deprecated": self.newly_deprecated,
            "clamped": self.clamped,
            "trash_purged": self.trash_purged,
            "zombies": self.zombies,
        }


def is_due(store: Store, clock: Clock) -> bool:
    return store.get_state(STATE_KEY) != clock.local_day(clock.now_ms())


def run_if_due(store: Store, clock: Clock, config: config_mod.Config | None = None) -> Report | None:
    if not is_due(store, clock):
        return None
    return run(store, clock, config or config_mod.load())


def run(store: Store, clock: Clock, config: config_mod.Config) -> Report:
    now = clock.now_ms()
    today = clock.local_day(now)
    decay_days = config_mod.decay_days(config)
    decayed = deprecated = 0
    with store.transaction() as con:
        if store.get_state(STATE_KEY) == today:  # another caller finished it while we waited
            return Report(today, 0, 0, 0, 0)
        clamped = _clamp_legacy(con)
        for row in con.execute(f"SELECT {_COLUMNS} FROM memories WHERE NOT deprecated").fetchall():
            memory = Memory.from_row(row)
            if memory.pinned:  # a pinned memory never decays
                continue
            if not conf.is_due_for_decay(memory.standing, now, decay_days):
                continue
            after = conf.apply_decay(memory.standing, now)
            _save_standing(con, memory.id, after)
            decayed += 1
            deprecated += after.deprecated
        deprecated += _deprecate_low(con)
        purged = purge_expired_trash(con, now)
        cues.drop_orphans(con)
        side = side_jobs.daily_cleanup(con, now, today, clock.local_day)
        applied.cleanup(con, now)
        store.set_state(con, STATE_KEY, today)
    backups.take_daily_quietly(store, today)  # the copy `memevo repair` restores from (7 kept)
    if side["never_shown"]:
        log.info(
            "%d proposals from earlier days were never shown; kept for their session's next answer",
            side["never_shown"],
        )
    return Report(today, decayed, deprecated, clamped, purged, side["zombies"])


def _clamp_legacy(con: Any) -> int:
    """Imported memories may carry confidence above 1.00; the first daily run caps them."""
    row = one(con.execute("SELECT count(*) FROM memories WHERE confidence > ?", [conf.CAP]))
    con.execute("UPDATE memories SET confidence = ? WHERE confidence > ?", [conf.CAP, conf.CAP])
    return int(row[0]) if row else 0


def _deprecate_low(con: Any) -> int:
    """Imported (or unpinned) memories at or below 0.40 that were never flagged are deprecated
    now; a pinned memory never is."""
    limit = conf.DEPRECATED_AT_OR_BELOW
    where = "NOT deprecated AND confidence <= ? AND id NOT IN (SELECT memory_id FROM pins)"
    row = one(con.execute(f"SELECT count(*) FROM memories WHERE {where}", [limit]))
    con.execute(f"UPDATE memories SET deprecated = TRUE WHERE {where}", [limit])
    return int(row[0]) if row else 0
