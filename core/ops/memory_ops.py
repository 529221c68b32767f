"""The operations on memories and config, shared by the CLI, the service, MCP and the panel.

Each is registered in the one operation table (core/ops/table.py), which says whether it writes;
they run the same in the service (the store held open) and in a CLI command when no service
runs (the store opened for that command, see `call_local`).
"""

from __future__ import annotations

import threading
from typing import Any

from .. import config as config_mod
from ..clock import Clock, SystemClock, iso
from ..errors import InvalidInput, NotFound
from ..importers import legacy
from ..memories import confidence as conf
from ..memories import (
    cues,
    maintenance,
    origins,
    purge,
    receipts,  # noqa: F401 - registers "why"
)
from ..memories import history as memory_history
from ..memories import live as memories
from ..memories import text as memory_text
from ..memories import trash as memory_trash
from ..repos import staleness
from ..sharing import operations as shareops  # noqa: F401 - registers share, share_status, share_read
from ..store.database import Store
from . import repo_ops  # noqa: F401 - registers repo_folders
from .table import Context, Operation, StoreAccess, dispatch, operation

__all__ = ["Context", "LocalAccess", "StoreAccess", "call_local", "dispatch"]


# -- reading -----------------------------------------------------------------------------------
@operation("counts")
def op_counts(ctx: Context) -> dict[str, Any]:
    store = ctx.reader()
    empty = {c: {"live": 0, "deprecated": 0} for c in memory_text.CATEGORIES}
    return {"counts": memories.counts(store) if store else empty}


@operation("read")
def op_read(ctx: Context, category: str, offset: int = 0, limit: int | None = 50) -> dict[str, Any]:
    cat = memory_text.check_category(category)
    _check_count("offset", offset, minimum=0)
    if limit is not None:
        _check_count("limit", limit, minimum=1)
    store = ctx.reader()
    rows = memories.ranked(store, cat, offset=offset, limit=limit) if store else []
    total = sum(memories.counts(store)[cat].values()) if store else 0
    return {
        "category": cat,
        "total": total,
        "offset": offset,
        "memories": [m.as_json() for m in rows],
    }


MAX_COUNT = 1_000_000_000


def _check_count(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_COUNT:
        raise InvalidInput(
            f"{name} must be a whole number from {minimum} to {MAX_COUNT:,}, got {value!r}"[:200]
        )


@operation("history")
def op_history(ctx: Context, id: str) -> dict[str, Any]:
    """A memory's superseded texts, newest first, with the dates each was valid."""
    store = ctx.reader()
    if store is None:
        raise NotFound(f"no memory with id {id}")
    memory, versions = memory_history.history(store, id)
    return {
        "id": id,
        "memory": memory.as_json() if memory else None,
        "versions": [v.as_json() for v in versions],
        "cues": cues.of(store, id) if memory else None,  # what recall matches beside the text
        "origins": [o.as_json() for o in origins.of(store, id)],  # who proposed each learned change
    }


@operation("trash")
def op_trash(ctx: Context) -> dict[str, Any]:
    store = ctx.reader()
    return {"trash": [t.as_json() for t in memories.trash_list(store)] if store else []}


@operation("hook_activity")
def op_hook_activity(ctx: Context, limit: int = 20, client: str | None = None) -> dict[str, Any]:
    """When each client's hooks last fired, and the latest injections (for health and the panel)."""
    store = ctx.reader()
    if store is None:
        return {"hooks": [], "injections": [], "texts": {}}
    hooks = store.query(
        "SELECT client, event, last_ms, count, last_service_ms FROM hook_events ORDER BY client, event"
    )
    injections = store.query(
        "SELECT ts_ms, client, session, event, prompt_id, memory_ids, chars, prompt FROM injections "
        "WHERE ? IS NULL OR client = ? ORDER BY seq DESC LIMIT ?",
        [client, client, limit],
    )
    return {
        "hooks": [
            {"client": c, "event": e, "last": iso(t), "count": int(n), "service_ms": round(ms or 0, 1)}
            for c, e, t, n, ms in hooks
        ],
        "injections": [
            {
                "ts": iso(t),
                "client": c,
                "session": s,
                "event": e,
                "prompt_id": p,
                "memory_ids": list(ids),
                "chars": n,
                # what it answered, redacted and cut (core/service/injection_log.py); None: a session
                # start or a stop have no prompt, and rows logged before memevo kept it have none
                "prompt": asked,
            }
            for t, c, s, e, p, ids, n, asked in injections
        ],
        # the injected memories' texts (the panel shows them; a deleted one is absent)
        "texts": {
            k: m.text for k, m in memories.find(store, sorted({i for r in injections for i in r[5]})).items()
        },
    }


@operation("pending")
def op_pending(ctx: Context) -> dict[str, Any]:
    """Learned proposals waiting for the user's confirmation, oldest first (`memevo pending`)."""
    from ..learning import jobs
    from ..learning.stop import describe

    store = ctx.reader()
    waiting = jobs.pending(store) if store else []
    return {
        "pending": [
            {
                "sessionID": job.id,
                "client": job.client,
                "session": job.session,
                "status": job.status,
                "created": iso(job.created_ms),
                "words": job.words,
                "action": (job.proposal or {}).get("action"),
                "category": (job.proposal or {}).get("category"),
                "text": _proposed_text(job.proposal or {}),
                "target": (job.proposal or {}).get("target"),
                "describe": describe(job.proposal or {}),
                "options": list((job.proposal or {}).get("options") or []),
                # who proposed it: "client" (the client's own model) or "side" (the side judge)
                "proposer": str((job.proposal or {}).get("origin") or "side"),
                "verified_words": (job.proposal or {}).get("verified_words", True),
            }
            for job in waiting
        ]
    }


def _proposed_text(proposal: dict[str, Any]) -> str:
    """The text the memory would have: the merged or replacing text where there is one."""
    return str(proposal.get("merged_text") or proposal.get("replace_text") or proposal.get("text") or "")


# -- writing -----------------------------------------------------------------------------------
@operation("add", writes=True)
def op_add(ctx: Context, category: str, text: str, scope: str | None = None) -> dict[str, Any]:
    """scope: a repository's path (the caller resolves "here"), or None / "global".

    A text a memory of the category already holds (as create stores it; global or of this
    repository) reinforces that memory instead of writing it twice, as learning does; a
    deprecated one only when the reinforce revives it, else a new one is written."""
    store = ctx.writer()
    cat, body = memory_text.check_category(category), memories.check_text(text)
    repo = memories.check_scope(scope)
    same = memories.same_text(store, cat, body, repo)
    if same is not None and _live_after_reinforce(same, ctx.clock):
        memory, gained = memories.reinforce(store, same.id, ctx.clock)
        return {"memory": memory.as_json(), "action": "reinforce", "gained": conf.as_float(gained)}
    return {"memory": memories.create(store, cat, body, ctx.clock, repo).as_json(), "action": "create"}


def _live_after_reinforce(memory: memories.Memory, clock: Clock) -> bool:
    """A live memory stays live; a deprecated one comes back only if today's reinforce lifts it."""
    now = clock.now_ms()
    award = conf.apply_award(memory.standing, conf.Tier.REINFORCE, now, clock.local_day(now))
    return not award.standing.deprecated


@operation("scope", writes=True)
def op_scope(ctx: Context, id: str, scope: str) -> dict[str, Any]:
    """Make a memory global ("global") or belong to one repository (its absolute path)."""
    return {"memory": memories.set_scope(ctx.writer(), id, scope).as_json()}


@operation("reinforce", writes=True)
def op_reinforce(ctx: Context, id: str) -> dict[str, Any]:
    memory, gained = memories.reinforce(ctx.writer(), id, ctx.clock)
    return {"memory": memory.as_json(), "gained": conf.as_float(gained)}


@operation("award_recall", writes=True)
def op_award_recall(ctx: Context, ids: list[str]) -> dict[str, Any]:
    gained = memories.award_recall(ctx.writer(), ids, ctx.clock)
    return {"gained": {k: conf.as_float(v) for k, v in gained.items()}}


@operation("pending_resolve", writes=True)
def op_pending_resolve(ctx: Context, sessionID: str, decision: str = "") -> dict[str, Any]:
    """`memevo pending accept|discard`: the user answers a waiting proposal from a terminal,
    whichever client's session it came from (the tray's dialog and the user's own reply in the
    chat answer it there; a model's memory_resolve never does). A unique prefix of the sessionID
    is enough; no decision: the proposal's own. Exactly once (resolve.resolve claims the job)."""
    from ..learning import jobs, resolve

    store = ctx.writer()
    wanted = str(sessionID).strip().lower()
    if len(wanted) < 4:
        raise InvalidInput(
            "name a proposal by its sessionID (at least its first 4 characters; see `memevo pending`)"
        )
    matches = [job for job in jobs.pending(store) if job.id.startswith(wanted)]
    if not matches:
        raise InvalidInput(f"no waiting proposal has the sessionID {sessionID} (see `memevo pending`)")
    if len(matches) > 1:
        raise InvalidInput(f"{sessionID} names {len(matches)} waiting proposals; give more of the sessionID")
    job = matches[0]
    assert job.proposal is not None  # jobs.pending: ready or shown, with a proposal
    chosen = str(decision) or resolve.default_decision(job.proposal)
    return {"sessionID": job.id, **resolve.resolve(store, ctx.clock, job.client, job.id, chosen)}


@operation("still_true", writes=True)
def op_still_true(ctx: Context, id: str) -> dict[str, Any]:
    """A stale memory the user says still holds (`memevo still-true`, the panel's Still true):
    its repository is checked again, and names still missing stop counting (core/repos/staleness.py)."""
    store = ctx.writer()
    found_again, before = staleness.still_true(store, id, ctx.clock)
    # before: what undo_still_true needs to put the staleness back (None: the evidence, not
    # the user's word, made it fresh — nothing to undo)
    return {"memory": memories.get(store, id).as_json(), "found_again": found_again, "before": before}


@operation("undo_still_true", writes=True)
def op_undo_still_true(ctx: Context, id: str, before: dict[str, Any]) -> dict[str, Any]:
    """Undo still_true (the panel's Undo): the memory stale again with the same reason, given
    the `before` its result carried. Refused when its staleness changed since."""
    store = ctx.writer()
    staleness.stale_again(store, id, before)
    return {"memory": memories.get(store, id).as_json()}


@operation("delete", writes=True)
def op_delete(ctx: Context, ids: list[str]) -> dict[str, Any]:
    if not ids:
        raise InvalidInput("name at least one memory id")
    deleted, missing = memories.delete(ctx.writer(), ids, ctx.clock)
    return {"deleted": deleted, "missing": missing}


@operation("restore", writes=True)
def op_restore(ctx: Context, id: str) -> dict[str, Any]:
    return {"memory": memory_trash.restore(ctx.writer(), id).as_json()}


@operation("replace", writes=True)
def op_replace(ctx: Context, id: str, text: str) -> dict[str, Any]:
    return {"memory": memories.replace_text(ctx.writer(), id, text, ctx.clock).as_json()}


@operation("merge", writes=True)
def op_merge(ctx: Context, id: str, id2: str, text: str) -> dict[str, Any]:
    return {"memory": memories.merge_manual(ctx.writer(), id, id2, text, ctx.clock).as_json(), "trashed": id2}


@operation("pin", writes=True)
def op_pin(ctx: Context, id: str) -> dict[str, Any]:
    return {"memory": memories.set_pinned(ctx.writer(), id, True, ctx.clock).as_json()}


@operation("unpin", writes=True)
def op_unpin(ctx: Context, id: str) -> dict[str, Any]:
    return {"memory": memories.set_pinned(ctx.writer(), id, False, ctx.clock).as_json()}


@operation("restore_version", writes=True)
def op_restore_version(ctx: Context, id: str, version: int) -> dict[str, Any]:
    _check_count("version", version, minimum=1)
    return {"memory": memory_history.restore_version(ctx.writer(), id, version, ctx.clock).as_json()}


@operation("move", writes=True)
def op_move(ctx: Context, id: str, category: str) -> dict[str, Any]:
    return {"memory": memories.move(ctx.writer(), id, category).as_json()}


@operation("purge", writes=True)
def op_purge(ctx: Context, id: str) -> dict[str, Any]:
    return {"purged": purge.purge(ctx.writer(), id).as_json()}


@operation("maintenance", writes=True, reload_all=True)
def op_maintenance(ctx: Context, force: bool = False) -> dict[str, Any]:
    store = ctx.writer()
    config = config_mod.load()
    report = (
        maintenance.run(store, ctx.clock, config)
        if force
        else maintenance.run_if_due(store, ctx.clock, config)
    )
    # The repositories are looked at after the day's transaction (git runs with the store let go),
    # here and not in maintenance.run, which a session start may run in the hook's path.
    anchors = staleness.check_all(store, ctx.clock) if report is not None else None
    return {
        "ran": report is not None,
        "report": report.as_json() if report else None,
        "anchors": anchors.as_json() if anchors else None,
    }


@operation("side_call")
def op_side_call(ctx: Context) -> dict[str, Any]:
    """One side API call a command or the panel is about to make itself (backfill's wording):
    counted in the day's calls, as learning's are, and refused once sideDailyLimit is reached."""
    from ..learning import jobs

    limit = int(config_mod.load()["sideDailyLimit"])
    day = ctx.clock.local_day(ctx.clock.now_ms())
    return {"counted": jobs.count_call(ctx.writer(), day, limit), "limit": limit}


@operation("notes_known")
def op_notes_known(ctx: Context, shas: list[str], texts: list[str]) -> dict[str, Any]:
    """Which candidate statements of `memevo import-notes` were imported before (or exist)."""
    from ..importers import notes

    if len(shas) != len(texts):
        raise InvalidInput("shas and texts must pair up")
    return {"known": notes.known(ctx.reader(), list(shas), list(texts))}


@operation("import_notes", writes=True)
def op_import_notes(ctx: Context, items: list[dict[str, Any]]) -> dict[str, Any]:
    from ..importers import notes

    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise InvalidInput("items must be a list of {text, category, scope, source}")
    return notes.import_items(ctx.writer(), items, ctx.clock)


@operation("import_legacy", writes=True, reload_all=True)
def op_import_legacy(ctx: Context) -> dict[str, Any]:
    return {"import": legacy.run(ctx.writer(), ctx.clock).as_json()}


# -- config (no store) ---------------------------------------------------------------------------
@operation("snapshot")
def op_snapshot(ctx: Context) -> dict[str, Any]:
    """Regenerate memories.html now."""
    from ..memories import html_page as snapshot

    return {"path": str(snapshot.write(ctx.reader()))}


@operation("config_show")
def op_config_show(ctx: Context) -> dict[str, Any]:
    loaded = config_mod.load()
    keys = {}
    for key in config_mod.SCHEMA:
        if not key.public:
            continue
        keys[key.name] = {
            "value": loaded.values[key.name],
            "set_by_user": key.name in loaded.user_set,
            "default": key.default,
            "help": key.help,
        }
    return {"config": keys, "problems": loaded.problems, "unknown_keys": sorted(loaded.extra)}


@operation("config_set", texts=True)
def op_config_set(ctx: Context, key: str, value: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"key": key, "value": config_mod.set_key(key, value)}
    if key == "model":
        result["note"] = (
            "every memory is re-encoded with the new model and its background mean is built on next use; "
            "the recall minimums are calibrated per model: run `memevo verify` on your cases"
        )
    return result


_OFF_LOCK = threading.Lock()


@operation("repository_off", texts=True)
def op_repository_off(ctx: Context, repo: str, off: bool = True) -> dict[str, Any]:
    """Switch memevo off (or on again) in one repository: its identity in offRepositories."""
    if not isinstance(repo, str) or not repo.strip():
        raise InvalidInput("which repository? (run it inside one, or name it)")
    with _OFF_LOCK:  # two switches at once both land
        listed = list(config_mod.load().values["offRepositories"])
        changed = (repo not in listed) if off else (repo in listed)
        if off and changed:
            listed.append(repo)
        elif changed:
            listed.remove(repo)
        if changed:
            config_mod.set_key("offRepositories", listed, own_command=True)
    return {"repo": repo, "off": bool(off), "changed": changed, "off_repositories": listed}


@operation("off_repositories")
def op_off_repositories(ctx: Context) -> dict[str, Any]:
    """The repositories memevo is off in (`memevo off`)."""
    return {"off_repositories": list(config_mod.load().values["offRepositories"])}


@operation("config_unset", texts=True)
def op_config_unset(ctx: Context, key: str) -> dict[str, Any]:
    config_mod.unset_key(key)
    return {"key": key, "value": config_mod.BY_NAME[key].default}


class LocalAccess(StoreAccess):
    """Opens the store for one command: read-only for reads (several readers may share it)."""

    def __init__(self, lock_wait_s: float | None = None) -> None:
        self.lock_wait_s = lock_wait_s
        self.store: Store | None = None

    def get(self, write: bool) -> Store | None:
        from ..store import database as store_mod

        if self.store is not None and (not write or not self.store.read_only):
            return self.store
        self.close()
        if write:
            self.store = Store.open(lock_wait_s=self.lock_wait_s)
        else:
            self.store = store_mod.open_existing(read_only=True, lock_wait_s=self.lock_wait_s)
        return self.store

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None


class LocalContext(Context):
    """A CLI command with no service running: after a write or a config change it rewrites the
    hooks' fallback texts itself (no service keeps them current), so the next session start
    has the rules even before any service runs."""

    def after(self, op: Operation, result: dict[str, Any]) -> None:
        from ..privacy import side_api_key as secrets
        from ..service import fallback_texts

        fallback_texts.write(self.access.get(write=False), secrets.has_api_key(quiet=True))


def call_local(name: str, params: dict[str, Any], clock: Clock | None = None) -> dict[str, Any]:
    access = LocalAccess()
    try:
        return dispatch(LocalContext(access, clock or SystemClock()), name, params)
    finally:
        access.close()
