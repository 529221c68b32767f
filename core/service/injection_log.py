"""Heartbeats and the injection log: queued by requests, written off the request path in batches.

Each injection keeps a short excerpt of what it answered (the prompt, or the tool call), so the
log can say why memories were injected. The request only slices the text (bounded, O(1) in
the prompt's length); the redaction and the cut to EXCERPT_CHARS run on the books' thread.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from ..clock import Clock
from ..privacy.redaction import redact_secrets
from ..privacy.values import REDACTED
from ..store.database import Store

log = logging.getLogger("memevo.service")
FLUSH_EVERY_S = 0.25
EXCERPT_CHARS = 200  # what the log keeps of a prompt: enough to recognise it, never the whole
# The slice redacted before the cut: a secret that starts inside the excerpt is seen whole
# (redaction reads a value from at most 512 characters), so its tail is never kept half-redacted.
_RAW_CHARS = EXCERPT_CHARS + 1024
_SQL = {
    "hook": (
        "INSERT INTO hook_events VALUES (?, ?, ?, 1, ?) ON CONFLICT (client, event) DO UPDATE SET "
        "last_ms = excluded.last_ms, count = hook_events.count + 1, last_service_ms = excluded.last_service_ms"
    ),
    "injection": (
        "INSERT INTO injections (ts_ms, client, session, event, prompt_id, memory_ids, chars, prompt, why) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    ),
}


class Bookkeeper:
    def __init__(self, store: Callable[[], Store], clock: Clock) -> None:
        self.store, self.clock = store, clock
        self._queue: queue.Queue[tuple[str, tuple[Any, ...]]] = queue.Queue()
        self._closing = threading.Event()
        threading.Thread(target=self._run, name="memevo-books", daemon=True).start()

    def record_hook(self, client: str, event: str, elapsed_ms: float) -> None:
        self._queue.put(("hook", (client, event, self.clock.now_ms(), elapsed_ms)))

    def log_injection(
        self,
        client: str,
        session: str | None,
        event: str,
        prompt_id: str | None,
        ids: list[str],
        chars: int,
        asked: str | None = None,
        why: dict[str, Any] | None = None,
    ) -> None:
        """asked: the prompt or tool call answered (None: a session start or a stop have none);
        why: what each injected memory passed the gate with (JSON-able, written as JSON here)."""
        raw = None if asked is None else asked[:_RAW_CHARS]
        self._queue.put(
            ("injection", (self.clock.now_ms(), client, session, event, prompt_id, ids, chars, raw, why))
        )

    def flush(self) -> None:
        batch: list[tuple[str, tuple[Any, ...]]] = []
        while True:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        if not batch:
            return
        # redacted before the transaction: the store's write lock is not held for it
        batch = [(kind, _excerpted(row) if kind == "injection" else row) for kind, row in batch]
        try:
            with self.store().transaction() as con:
                for kind, row in batch:
                    con.execute(_SQL[kind], list(row))
        except Exception:
            log.warning("could not write %d heartbeat/injection records", len(batch), exc_info=True)

    def _run(self) -> None:
        while not self._closing.wait(FLUSH_EVERY_S):
            self.flush()

    def close(self) -> None:
        self._closing.set()
        self.flush()


def _excerpted(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """The row as stored: the prompt's excerpt and the receipt (`why`, as JSON) last."""
    *head, raw, why = row
    try:
        asked = None if raw is None else excerpt(raw)
    except Exception:  # the row is kept without its excerpt rather than lost
        log.warning("could not make the injection's prompt excerpt", exc_info=True)
        asked = None
    try:
        receipt = None if why is None else json.dumps(why, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        log.warning("could not write the injection's receipt", exc_info=True)
        receipt = None
    return (*head, asked, receipt)


def excerpt(text: str) -> str:
    """The first EXCERPT_CHARS characters of a prompt as the log keeps them: secrets redacted
    first (core/privacy/redaction.py), control and layout characters and runs of white space made one
    space (the CLI prints it on a terminal), "…" when cut. A redaction marker is never cut in
    two. Linear in the (already bounded) text."""
    flat = one_line(redact_secrets(text[:_RAW_CHARS]))
    if len(flat) <= EXCERPT_CHARS:
        return flat
    cut = EXCERPT_CHARS
    marker = flat.rfind(REDACTED, max(0, cut - len(REDACTED) + 1), cut + len(REDACTED))
    if 0 <= marker < cut < marker + len(REDACTED):
        cut = marker + len(REDACTED)
    return flat[:cut].rstrip() + "…"


def one_line(text: str) -> str:
    """Control and layout characters and runs of white space made one space (purge looks for a
    memory's text in the excerpts made this way)."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())
