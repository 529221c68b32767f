"""Writing a repository's facts file (`memevo share`), and what it would offer.

Chosen facts of the repository are added at the end, pending local edits and deletions replace
or drop their items; every other line stays. A text the redaction would alter is refused by
name — secrets never enter the file. A file waiting for the user's review is not written to
(its unreviewed content would become the user's); what is written is the user's own content,
trusted as written. Never through a symbolic link (core/sharing/facts_file.py `writable`).
"""

from __future__ import annotations

import difflib
from typing import Any

from .. import atomic
from ..clock import Clock
from ..errors import InvalidInput
from ..memories import live as memories
from ..privacy import redaction
from ..store.database import Store
from . import facts_file as sharefile
from .facts import FileState, Mapped, apply, file_state, forget_labels, mapping, set_file_state, write_mapping
from .facts_file import FILE, HEADER, FileProblem, Parsed, parse, path_in, read, render_item
from .trust import set_trust


def status(store: Store, repo: str, folder: str) -> dict[str, Any]:
    """What `share` would offer: the repository's facts not shared yet, and local edits and
    deletions of shared facts not yet in the file; and whether the file waits for review."""
    known_rows = mapping(store, repo, folder)
    shared_ids = {str(r[0]) for r in store.query("SELECT memory_id FROM shared_facts WHERE repo = ?", [repo])}
    unshared = [
        m.as_json()
        for m in memories.live(store)
        if m.category == "project" and m.scope == repo and m.id not in shared_ids
    ]
    live = memories.find(store, [m.memory_id for m in known_rows.values()])
    changed: list[dict[str, Any]] = []
    for share_id, known in sorted(known_rows.items()):
        current = live.get(known.memory_id)
        if current is None:
            changed.append(
                {"share_id": share_id, "id": known.memory_id, "file": known.file_text, "local": None}
            )
        elif current.text != known.file_text:
            changed.append(
                {"share_id": share_id, "id": known.memory_id, "file": known.file_text, "local": current.text}
            )
    state = file_state(store, repo, folder)
    return {
        "repo": repo,
        "unshared": unshared,
        "pending": changed,
        "problem": state.problem,
        "waiting_review": state.waiting is not None,
    }


def _refuse_secrets(memory_id: str, text: str) -> None:
    if redaction.redact_secrets(text) != text:
        raise InvalidInput(
            f"fact {memory_id} holds what looks like a secret ({redaction.redact_secrets(text)[:120]!r}); "
            f"it is not written to {FILE} — edit it first (`memevo edit {memory_id}`); nothing was written"
        )


def share(
    store: Store,
    repo: str,
    folder: str,
    clock: Clock,
    ids: list[str] | None = None,
    everything: bool = False,
    pending: bool = False,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Write chosen facts (ids, or every unshared one) and, when asked, the pending local
    changes to the facts file. Returns the diff written (or that would be)."""
    read_first = apply(store, repo, folder, clock)  # the file's own changes come in first
    if read_first["problem"]:
        raise FileProblem(read_first["problem"])
    if read_first["review"]:
        raise InvalidInput(
            f"{path_in(folder)} has content you have not reviewed: run `memevo share --review` "
            "first; nothing was written"
        )
    state = status(store, repo, folder)
    offered = {m["id"]: m for m in state["unshared"]}
    if everything:
        chosen = list(offered.values())
    else:
        unknown = [i for i in ids or [] if i not in offered]
        if unknown:
            raise InvalidInput(
                f"not an unshared project fact of this repository: {', '.join(unknown)} "
                "(`memevo share` lists them); nothing was written"
            )
        chosen = [offered[i] for i in ids or []]
    changes = state["pending"] if pending else []
    for memory in chosen:
        _refuse_secrets(memory["id"], memory["text"])
    for change in changes:
        if change["local"] is not None:
            _refuse_secrets(change["id"], change["local"])
    got = read(folder)
    before = got[0] if got else HEADER
    after = _rewritten(parse(before), chosen, changes)
    diff = "".join(
        difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{FILE}", f"b/{FILE}")
    )
    result: dict[str, Any] = {
        "file": str(path_in(folder)),
        "shared": [m["id"] for m in chosen],
        "pending_written": [c["id"] for c in changes],
        "diff": diff,
        "dry_run": dry_run,
    }
    if dry_run or (after == before and got is not None) or (got is None and not chosen):
        return result
    atomic.write_text(sharefile.writable(folder), after)  # never through a symbolic link
    rows = mapping(store, repo, folder)
    for memory in chosen:
        rows[memory["id"]] = Mapped(memory["id"], memory["text"], False)
    for change in changes:
        if change["local"] is None:
            rows.pop(change["share_id"], None)
        else:
            rows[change["share_id"]] = Mapped(change["id"], change["local"], False)
    reread = read(folder)
    with store.transaction() as con:  # the user's own content: trusted as written
        write_mapping(con, repo, folder, rows)
        sha = reread[1] if reread else None
        set_file_state(con, repo, folder, FileState(sha), clock.now_ms())
        if sha is not None:
            set_trust(con, repo, folder, sha, clock.now_ms())
    forget_labels()
    return result


def _rewritten(parsed: Parsed, chosen: list[dict[str, Any]], changes: list[dict[str, Any]]) -> str:
    """The file with the pending changes in their items, hand-added items given their ids,
    and the chosen facts added at the end."""
    by_id = {item.share_id: item for item in parsed.items}
    replaced: dict[int, list[str]] = {}
    dropped: set[int] = set()
    for change in changes:
        item = by_id.get(change["share_id"])
        if item is None:
            continue
        if change["local"] is None:
            dropped.update(range(item.first, item.last + 1))
        else:
            replaced[item.first] = render_item(item.share_id, change["local"])
            dropped.update(range(item.first + 1, item.last + 1))
    for item in parsed.items:  # an item added by hand gets its id written, so it stays stable
        if not item.had_id and item.first not in replaced and item.first not in dropped:
            replaced[item.first] = render_item(item.share_id, item.text)
            dropped.update(range(item.first + 1, item.last + 1))
    out: list[str] = []
    for index, line in enumerate(parsed.lines):
        if index in replaced:
            out += replaced[index]
        elif index not in dropped:
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    if chosen and out:
        out.append("")
    for memory in chosen:
        out += render_item(memory["id"], memory["text"])
    return "\n".join(out) + "\n"
