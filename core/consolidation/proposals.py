"""Consolidation findings as proposals the user answers, through learning's confirmation.

Each finding becomes a side job (core/learning/jobs.py) of the pseudo-client CLIENT, its id
the finding's key (its members and their texts), waiting as `ready`: the tray's confirmation
dialog shows it, `memevo pending` lists it and `memevo pending accept|discard` answers it,
and a headless client's chat puts it to the user, whose own reply answers it (as for a
learned proposal, a model never answers it for the user). Nothing changes until the user
chooses. The choices: `merge` (the side model's merged text, or the user's own edit in the
dialog, into the first member; the others go to the trash) when a merged text exists,
`keep:<id>` for each member (that memory stays as it is, the others go to the trash) and
`discard` (all stay; the key is remembered, so the same cluster is not proposed again until
one of its members or their texts change). The trash and each memory's versions keep what
was there before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..clock import Clock
from ..errors import InvalidInput
from ..learning import jobs
from ..memories import live as memories
from ..store.database import Store
from .find import Finding, Member

ORIGIN = "consolidate"
CLIENT = "memevo"  # the jobs' client: no client's session owns them
MAX_NEW = 5  # proposals one pass adds
MAX_OPEN = 10  # a pass adds none while this many wait for the user
KEEP = "keep:"


def is_consolidation(proposal: dict[str, Any] | None) -> bool:
    return bool(proposal) and (proposal or {}).get("origin") == ORIGIN


def mergeable_by_hand(proposal: dict[str, Any]) -> bool:
    """Near-duplicates without a merged text (no side model wrote one): the tray's dialog still
    offers a merge, into the first member, with a text the user chooses or writes there."""
    return proposal.get("kind") == "duplicate" and not proposal.get("merged_text")


def declined(store: Store, keys: list[str]) -> set[str]:
    if not keys:
        return set()
    rows = store.query("SELECT key FROM consolidation_declined WHERE list_contains(?, key)", [keys])
    return {str(r[0]) for r in rows}


def open_count(store: Store) -> int:
    rows = store.query(
        "SELECT count(*) FROM side_jobs WHERE client = ? AND status IN ('ready', 'shown')", [CLIENT]
    )
    return int(rows[0][0]) if rows else 0


def known_jobs(store: Store, keys: list[str]) -> set[str]:
    """Keys already proposed (waiting, answered, or kept as a tombstone)."""
    if not keys:
        return set()
    rows = store.query("SELECT id FROM side_jobs WHERE list_contains(?, id)", [keys])
    return {str(r[0]) for r in rows}


def ordered(finding: Finding, found: dict[str, memories.Memory]) -> list[memories.Memory]:
    """The member offered first: a pinned one, then (duplicates) the most confident or
    (contradictions) the newest — a contradiction is most often the newer word."""
    members = [found[m.id] for m in finding.members if m.id in found]
    if finding.kind == "contradiction":
        return sorted(members, key=lambda m: (not m.pinned, -m.created_ms, m.id))
    return sorted(members, key=lambda m: (not m.pinned, -m.confidence, -m.created_ms, m.id))


def proposal(
    finding: Finding, members: list[memories.Memory], merged: str | None, day: str
) -> dict[str, Any]:
    first = members[0]
    options = (["merge"] if merged else []) + [f"{KEEP}{m.id}" for m in members] + ["discard"]
    return {
        "origin": ORIGIN,
        "kind": finding.kind,
        "conflict": finding.conflict,
        "score": round(finding.score, 3),
        "key": finding.key,
        "members": [
            {"id": m.id, "text": m.text, "category": m.category, "scope": m.scope or "global"}
            for m in members
        ],
        "action": "merge" if merged else "keep",
        "target": first.id,
        "target_text": first.text,
        "text": merged or first.text,
        "category": first.category,
        "day": day,
        **({"merged_text": merged} if merged else {}),
        "options": options,
    }


def propose(
    store: Store,
    clock: Clock,
    findings: list[Finding],
    merge_text: Callable[[list[memories.Memory]], str | None] | None = None,
    limit: int = MAX_NEW,
) -> dict[str, Any]:
    """Jobs for the findings not proposed before, not declined, at most `limit` and never past
    MAX_OPEN waiting. merge_text: writes a duplicate cluster's merged text (the side model), or
    None where there is none."""
    keys = [f.key for f in findings]
    refused, asked = declined(store, keys), known_jobs(store, keys)
    room = max(0, min(limit, MAX_OPEN - open_count(store)))
    made: list[str] = []
    skipped = {"declined": 0, "proposed_before": 0, "no_room": 0}
    for finding in findings:
        if finding.key in refused:
            skipped["declined"] += 1
            continue
        if finding.key in asked:
            skipped["proposed_before"] += 1
            continue
        if len(made) >= room:
            skipped["no_room"] += 1
            continue
        found = memories.find(store, [m.id for m in finding.members])
        members = ordered(finding, found)
        if len(members) < 2 or any(found[m.id].text != m.text for m in finding.members if m.id in found):
            continue  # changed while the pass ran: the next pass sees it as it is now
        merged = None
        if merge_text is not None and finding.kind == "duplicate":
            merged = merge_text(members)
        now = clock.now_ms()
        if _create(
            store, finding.key, proposal(finding, members, merged, clock.local_day(now)), now, members
        ):
            made.append(finding.key)
    return {"found": len(findings), "proposed": made, "skipped": skipped}


def _create(
    store: Store, key: str, made: dict[str, Any], now_ms: int, members: list[memories.Memory]
) -> bool:
    scopes = {m.scope for m in members}
    repo = scopes.pop() if len(scopes) == 1 else None
    return jobs.create(store, key, CLIENT, key, None, None, now_ms, repo, proposal=made)


# -- the user's answer (claimed exactly once by learning/resolve.py) ---------------------------------
def apply(
    store: Store, clock: Clock, made: dict[str, Any], decision: str, edited_text: str | None = None
) -> dict[str, Any]:
    """The chosen decision, applied once (the caller marks the job done in the same call).
    The result's `message` is Chinese, for the chat and the command line; its fields (action,
    memory, deleted, kept, origin) let the tray word it in the UI's language. Refused when a
    member is gone or its text changed since the proposal was made."""
    wanted = {str(m["id"]): str(m["text"]) for m in made.get("members", [])}
    if decision == "discard":
        with store.transaction() as con:
            con.execute(
                "INSERT INTO consolidation_declined VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                [str(made["key"]), clock.now_ms()],
            )
        return {
            "action": "discard",
            "kept": list(wanted),
            "origin": ORIGIN,
            "message": "保留了这几条记忆，都没有改动；它们不变时不会再提议。",
        }
    found = memories.find(store, list(wanted))
    changed = [i for i, text in wanted.items() if i not in found or found[i].text != text]
    if changed:
        raise InvalidInput(
            f"memory #{changed[0]} changed since this was proposed; nothing was done (the next "
            "consolidation looks again)"
        )
    if decision == "merge":
        keep = str(made["target"])
        text = memories.check_text(
            (edited_text or "").strip() or str(made.get("merged_text") or made.get("text") or "")
        )
        others = [i for i in wanted if i != keep]
        memory = found[keep]
        for other in others:
            memory = memories.merge_manual(store, keep, other, text, clock)
        return {
            "action": "merge",
            "memory": memory.as_json(),
            "deleted": others,
            "origin": ORIGIN,
            "message": f"合并为记忆 #{keep}：{memory.text}\n其余 {len(others)} 条已移到回收站（可恢复）。",
        }
    keep = decision.removeprefix(KEEP)
    if not decision.startswith(KEEP) or keep not in wanted:
        raise InvalidInput(f"decision {decision!r} was not offered")
    others = [i for i in wanted if i != keep]
    memories.delete(store, others, clock, reason=f"consolidated: kept {keep}")
    return {
        "action": "keep",
        "memory": found[keep].as_json(),
        "deleted": others,
        "origin": ORIGIN,
        "message": f"保留记忆 #{keep}：{found[keep].text}\n其余 {len(others)} 条已移到回收站（可恢复）。",
    }


def members_of(pool_ids: list[str], texts: list[str], live: dict[str, memories.Memory]) -> list[Member]:
    return [
        Member(i, t, float(live[i].confidence), live[i].pinned) for i, t in zip(pool_ids, texts, strict=True)
    ]
