"""Where each learned change of a memory came from: which client and session, who proposed it
(the side judge, or the client's own model over MCP) and the user's words it came from — or,
for a fact read from a repository's `.memevo/facts.md` (core/sharing/facts.py), that file: client
"repository", proposer "share", the file and line as its words. Nobody proposed those; the
user trusted the file.

One row per learned change (create, reinforce, merge, replace); `memevo history ID` shows them
beside the superseded texts, each said by `describe`. The words are kept as the proposal held
them (redacted); a purge removes them with the memory's other rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..clock import iso
from ..store.database import Store

WORDS_KEPT = 400  # characters of the user's words kept per change
SIDE = "side"  # the side judge (the user's own OpenAI-compatible endpoint)
CLIENT = "client"  # the client's own model, through memory_propose
CONSOLIDATE = "consolidate"  # memevo's own consolidation pass
REPOSITORY = "repository"  # the client of a fact read from a repository's facts file
SHARE = "share"  # and its proposer: `memevo share`'s file format, read (core/sharing/facts.py)
USER = "user"  # nobody proposed it: a row recorded without a proposer is the user's own doing


@dataclass(frozen=True)
class Origin:
    memory_id: str
    ts_ms: int
    client: str
    session: str | None
    proposer: str
    action: str
    words: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "at": iso(self.ts_ms),
            "client": self.client,
            "session": self.session,
            "proposer": self.proposer,
            "action": self.action,
            "words": self.words,
            "by": describe(self.client, self.proposer, self.action, self.words),
        }


def describe(client: str, proposer: str, action: str = "", words: str | None = None) -> str:
    """How `memevo history` says where a change came from. A text the repository's file
    replaced says so and names the file (its words: the file and line); only the side judge's
    own proposals are said to be its (a row with no proposer is the user's)."""
    if client == REPOSITORY or proposer == SHARE:
        if action == "replace":
            return f"changed by the repository's shared facts file ({words or '.memevo/facts.md'})"
        return "read from the repository's shared facts file (not proposed; you trusted the file)"
    if proposer == CLIENT:
        return "proposed by the client's model"
    if proposer == CONSOLIDATE:
        return "proposed by memevo's consolidation"
    if proposer == SIDE:
        return "proposed by the side judge"
    return "added by you"


def record(store: Store, memory_id: str, now_ms: int, origin: dict[str, Any], action: str) -> None:
    words = origin.get("words")
    with store.transaction() as con:
        con.execute(
            "INSERT INTO origins VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                memory_id,
                now_ms,
                str(origin.get("client") or "unknown")[:40],
                str(origin["session"])[:200] if origin.get("session") else None,
                str(origin.get("proposer") or USER)[:20],
                action,
                str(words)[:WORDS_KEPT] if words else None,
            ],
        )


def of(store: Store, memory_id: str) -> list[Origin]:
    """Newest first."""
    rows = store.query(
        "SELECT memory_id, ts_ms, client, session, proposer, action, words FROM origins "
        "WHERE memory_id = ? ORDER BY ts_ms DESC",
        [memory_id],
    )
    return [Origin(str(r[0]), int(r[1]), str(r[2]), r[3], str(r[4]), str(r[5]), r[6]) for r in rows]
