"""Whether a memory's repository still has what the memory names (core/repos/anchors.py).

Kept per memory (table `anchors`, migration 14): the names its text gives, for each whether
it was ever found ("seen") and whether it was found at the last check, when that check ran,
and — for a stale memory — since when and why.

A memory is stale as soon as one of its names that was found once is found no more (a flag
renamed while its file stays, a file deleted while its flag is still named elsewhere): the
reason names what is gone. A name never found (a plan, a typo, a word that only looks like a
name) is no evidence either way, so a memory without such names is never stale. Only memories that belong
to a repository are checked, against that repository: a global memory (every rule not scoped
by hand) is never made stale by one repository. A repository whose folder is gone is not
checked at all (the checkout moved; the code did not), and a name not looked up in time is
"unknown", never "gone". A memory is fresh again once every name it lost is found again.
git runs there only through core/repos/safegit.py (a repository's config can name programs), and a
repository another user owns is not looked into at all: its names stay unknown.

A repository is named by the remote its config claims (core/repos/identity.py), so every folder here
whose config names that remote is one of its folders — a second clone, an old checkout, but
also a downloaded folder whose `.git/config` claims the user's project. So no one folder
decides: a name counts as found when any of the repository's folders still present here has
it, and as gone only when every one of them was looked into and lacks it. A folder therefore
can keep another's facts fresh but never make them stale. Only the MAX_FOLDERS latest seen are
looked into; a repository with more here, or with a folder another user owns (not looked
into), has no name judged gone — its facts can turn fresh, never stale.

Names are noted in the transaction that writes a text (memories.py calls `note`); rows a
bulk path wrote without noting are noted by the next check.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from ..clock import Clock
from ..memories import scopes
from ..store.database import Store, one
from . import anchors, safegit
from . import identity as repos_mod

log = logging.getLogger("memevo.staleness")
REPO_BUDGET_S = 5.0  # one repository's check, all its memories together
PASS_BUDGET_S = 30.0  # every repository's (the daily maintenance, `memevo maintenance --force`)
MAX_REASON_NAMES = 2
WRITE_BATCH = 100
# The folders of one repository looked into (the latest seen first); a repository with more
# on this machine never has a name judged gone (see the module's doc).
MAX_FOLDERS = 8


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass
class Noted:
    """A memory's names as kept: [{"kind", "value", "seen", "found"}], found None: unknown."""

    names: list[dict[str, Any]]
    stale_ms: int | None = None
    stale_reason: str | None = None

    @classmethod
    def fresh(cls, text: str, before: Noted | None = None) -> Noted:
        """The names of a (new) text; a name the text had before keeps what was known of it,
        so an edit that leaves a stale name in place leaves the memory stale."""
        known = {(n["kind"], n["value"]): n for n in (before.names if before else [])}
        names = [
            dict(
                known.get((a.kind, a.value))
                or {"kind": a.kind, "value": a.value, "seen": False, "found": None}
            )
            for a in anchors.extract(text)
        ]
        noted = cls(names)
        if before is not None and _stale(names):
            noted.stale_ms, noted.stale_reason = before.stale_ms, before.stale_reason
        return noted


def _stale(names: list[dict[str, Any]]) -> bool:
    """One name it confirmed is gone: the memory says something that is no longer so."""
    return any(n.get("seen") and n.get("found") is False for n in names)


def note(con: Any, memory_id: str, text: str) -> None:
    """In the transaction that writes `text` as the memory's: its names, kept. Pure text work
    (linear, bounded); the repository is looked at later, off any request (check_repo)."""
    sha = text_sha(text)
    row = one(
        con.execute(
            "SELECT text_sha, anchors, stale_ms, stale_reason FROM anchors WHERE memory_id = ?", [memory_id]
        )
    )
    if row is not None and row[0] == sha:
        return
    before = _from_row(row[1:]) if row is not None else None
    noted = Noted.fresh(text, before)
    con.execute(
        "INSERT INTO anchors VALUES (?, ?, ?, NULL, ?, ?) ON CONFLICT (memory_id) DO UPDATE SET "
        "text_sha = excluded.text_sha, anchors = excluded.anchors, checked_ms = NULL, "
        "stale_ms = excluded.stale_ms, stale_reason = excluded.stale_reason",
        [memory_id, sha, json.dumps(noted.names, ensure_ascii=False), noted.stale_ms, noted.stale_reason],
    )


def _from_row(row: tuple[Any, ...]) -> Noted:
    try:
        names = [n for n in json.loads(str(row[0])) if isinstance(n, dict) and {"kind", "value"} <= n.keys()]
    except ValueError:
        names = []
    return Noted(names, row[1], row[2])


# -- checking ------------------------------------------------------------------------------------
@dataclass
class Report:
    repos: int = 0
    checked: int = 0
    stale: list[str] = field(default_factory=list)  # became stale in this check
    fresh: list[str] = field(default_factory=list)  # stale before, fresh again
    timed_out: list[str] = field(default_factory=list)  # repositories not checked to the end
    not_owned: list[str] = field(default_factory=list)  # another user's folder: not looked into

    @property
    def changed(self) -> list[str]:
        return self.stale + self.fresh

    def merge(self, other: Report) -> None:
        self.repos += other.repos
        self.checked += other.checked
        self.stale += other.stale
        self.fresh += other.fresh
        self.timed_out += other.timed_out
        self.not_owned += other.not_owned

    def as_json(self) -> dict[str, Any]:
        return {
            "repositories": self.repos,
            "checked": self.checked,
            "became_stale": self.stale,
            "fresh_again": self.fresh,
            "timed_out": self.timed_out,
            "not_owned": self.not_owned,
        }


def check_repo(store: Store, repo: str, clock: Clock, budget_s: float = REPO_BUDGET_S) -> Report:
    """Look up the names of every live memory of `repo` in it, within budget_s. The store is
    read, then let go while git runs, then written in one short transaction."""
    report = Report()
    present = _folders(store, repo)
    if not present:
        return report
    here = [folder for folder in present[:MAX_FOLDERS] if safegit.owned_by_user(folder)]
    for folder in present[:MAX_FOLDERS]:
        if folder not in here:
            # Said once a folder, not once a name: every name there is unknown (the Prober
            # would answer None for each without looking).
            _say_not_owned(repo, folder)
    if len(here) < len(present[:MAX_FOLDERS]):
        report.not_owned.append(repo)
    if not here:  # nothing can be looked up: nothing is checked or written
        return report
    # a name missing from every folder looked into is gone only when those are all the
    # folders the repository has here: one left out (another user's, past MAX_FOLDERS) may
    # still hold it
    everywhere = len(here) == len(present)
    rows = store.query(
        "SELECT m.id, m.text, a.text_sha, a.anchors, a.stale_ms, a.stale_reason FROM memories m "
        "JOIN scopes s ON s.memory_id = m.id LEFT JOIN anchors a ON a.memory_id = m.id "
        "WHERE s.repo = ? AND NOT m.deprecated ORDER BY m.id",
        [repo],
    )
    deadline = time.monotonic() + budget_s
    probers = [anchors.Prober(folder, deadline) for folder in here]
    results: list[tuple[str, str, Noted, bool, tuple[Any, Any]]] = []
    for memory_id, text, sha, names_json, stale_ms, reason in rows:
        kept = _from_row((names_json, stale_ms, reason)) if names_json is not None else None
        noted = kept if kept is not None and sha == text_sha(text) else Noted.fresh(text, kept)
        was_stale = noted.stale_ms is not None
        complete = True
        for name in noted.names:
            found = _look_up(probers, anchors.Anchor(name["kind"], name["value"]), everywhere)
            if found is None:
                complete = False
                continue
            name["found"] = found
            name["seen"] = bool(name.get("seen") or found)
        results.append((memory_id, text_sha(text), noted, was_stale, (names_json, stale_ms)))
        if not complete and any(p.timed_out for p in probers):
            break
    if any(p.timed_out for p in probers):
        report.timed_out.append(repo)
    now = clock.now_ms()
    # Written a batch a transaction: a hook waiting for the store waits for one batch at most.
    for start in range(0, len(results), WRITE_BATCH):
        with store.transaction() as con:
            for memory_id, sha, noted, was_stale, read in results[start : start + WRITE_BATCH]:
                if _save(con, repo, clock, now, memory_id, sha, noted, was_stale, read, report):
                    report.checked += 1
    report.repos = 1
    if report.changed:
        log.info("anchors of %s: stale %s, fresh again %s", repo, report.stale, report.fresh)
    return report


def _look_up(probers: list[anchors.Prober], anchor: anchors.Anchor, everywhere: bool) -> bool | None:
    """Found in any of the repository's folders: True; looked up in every one of them (and
    they are all it has here) and missing from each: False; else unknown (None)."""
    missing = everywhere
    for prober in probers:  # the latest seen first: where a name is found most likely
        found = prober.found(anchor)
        if found:
            return True
        missing = missing and found is False
    return False if missing else None


_SAID_NOT_OWNED: set[tuple[str, str]] = set()  # (repository, folder) this process has logged


def _say_not_owned(repo: str, folder: str) -> None:
    """A warning the first time a repository is skipped for its owner, debug after that: the
    check runs at every session start there, and the reason does not change between them."""
    first = (repo, folder) not in _SAID_NOT_OWNED
    _SAID_NOT_OWNED.add((repo, folder))
    log.log(
        logging.WARNING if first else logging.DEBUG,
        "anchors of %s not checked: %s",
        repo,
        safegit.not_owned_message(folder),
    )


def _save(
    con: Any,
    repo: str,
    clock: Clock,
    now: int,
    memory_id: str,
    sha: str,
    noted: Noted,
    was_stale: bool,
    read: tuple[Any, Any],
    report: Report,
) -> bool:
    # The store was let go while git ran: the text may have been rewritten, or the user's Still
    # true, its undo or another check may have written this row since it was read; what was
    # found here is from before that, so such a memory is left to the next check.
    current = one(
        con.execute(
            "SELECT m.text, a.anchors, a.stale_ms FROM memories m "
            "LEFT JOIN anchors a ON a.memory_id = m.id WHERE m.id = ?",
            [memory_id],
        )
    )
    if current is None or text_sha(str(current[0])) != sha or (current[1], current[2]) != read:
        return False
    if _stale(noted.names):
        if not was_stale:
            noted.stale_ms, noted.stale_reason = now, _reason(noted.names, repo, clock, now)
            report.stale.append(memory_id)
    elif was_stale:
        noted.stale_ms = noted.stale_reason = None
        report.fresh.append(memory_id)
    con.execute(
        "INSERT INTO anchors VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (memory_id) DO UPDATE SET "
        "text_sha = excluded.text_sha, anchors = excluded.anchors, checked_ms = excluded.checked_ms, "
        "stale_ms = excluded.stale_ms, stale_reason = excluded.stale_reason",
        [
            memory_id,
            sha,
            json.dumps(noted.names, ensure_ascii=False),
            now,
            noted.stale_ms,
            noted.stale_reason,
        ],
    )
    return True


def _reason(names: list[dict[str, Any]], repo: str, clock: Clock, now_ms: int) -> str:
    gone = [str(n["value"]) for n in names if n.get("seen") and n.get("found") is False]
    shown = ", ".join(gone[:MAX_REASON_NAMES]) + (
        f" (+{len(gone) - MAX_REASON_NAMES})" if len(gone) > MAX_REASON_NAMES else ""
    )
    return f"{shown} not found in {scopes.name(repo)} since {clock.local_day(now_ms)}"


def _folders(store: Store, repo: str) -> list[str]:
    """Every folder the repository lives in on this machine (core/repos/identity.py), latest first."""
    with store.reading() as con:
        return repos_mod.folders(con, repo)


def repos(store: Store) -> list[str]:
    """The repositories live memories belong to."""
    rows = store.query(
        "SELECT DISTINCT s.repo FROM scopes s JOIN memories m ON m.id = s.memory_id "
        "WHERE NOT m.deprecated ORDER BY s.repo"
    )
    return [str(r[0]) for r in rows]


def repos_of(store: Store, ids: list[str]) -> list[str]:
    if not ids:
        return []
    rows = store.query("SELECT DISTINCT repo FROM scopes WHERE list_contains(?, memory_id)", [list(set(ids))])
    return sorted(str(r[0]) for r in rows)


def check_all(store: Store, clock: Clock, budget_s: float = PASS_BUDGET_S) -> Report:
    """Every repository in turn, all of them within budget_s (each within REPO_BUDGET_S)."""
    report = Report()
    deadline = time.monotonic() + budget_s
    for repo in repos(store):
        left = deadline - time.monotonic()
        if left <= 0:
            report.timed_out.append(repo)
            continue
        report.merge(check_repo(store, repo, clock, min(left, REPO_BUDGET_S)))
    return report


# -- reading -----------------------------------------------------------------------------------------
def state(store: Store, ids: list[str]) -> dict[str, dict[str, Any]]:
    """What is known of these memories' names: {id: {"anchors", "checked_ms", "stale"}}."""
    if not ids:
        return {}
    rows = store.query(
        "SELECT memory_id, anchors, checked_ms, stale_ms, stale_reason FROM anchors WHERE list_contains(?, memory_id)",
        [list(set(ids))],
    )
    result: dict[str, dict[str, Any]] = {}
    for memory_id, names_json, checked_ms, stale_ms, reason in rows:
        noted = _from_row((names_json, stale_ms, reason))
        result[str(memory_id)] = {
            "anchors": noted.names,
            "checked_ms": checked_ms,
            "stale": reason if stale_ms is not None else None,
        }
    return result


# -- the user's word ---------------------------------------------------------------------------------
def still_true(store: Store, memory_id: str, clock: Clock) -> tuple[bool, dict[str, Any] | None]:
    """The user says a stale memory still holds. Its repository is checked again first (the
    names may be back: then it is fresh on the evidence, (True, None)). If they are still
    missing, the user's word wins: the missing names stop counting as evidence (as if never
    found), so the memory is fresh until one of them is found and lost again (False, the row as
    it was just before the user's word: what `stale_again` puts back). NotFound: no such memory."""
    from ..errors import NotFound

    if not store.query("SELECT 1 FROM memories WHERE id = ?", [memory_id]):
        raise NotFound(f"no memory with id {memory_id}")
    repo = store.query("SELECT repo FROM scopes WHERE memory_id = ?", [memory_id])
    if repo:
        check_repo(store, str(repo[0][0]), clock)
    with store.transaction() as con:
        row = one(
            con.execute(
                "SELECT text_sha, anchors, stale_ms, stale_reason FROM anchors WHERE memory_id = ?",
                [memory_id],
            )
        )
        if row is None or row[2] is None:
            return True, None
        con.execute(
            "UPDATE anchors SET anchors = ?, stale_ms = NULL, stale_reason = NULL WHERE memory_id = ?",
            [json.dumps(_kept(_from_row(row[1:]).names), ensure_ascii=False), memory_id],
        )
    # JSON-safe: it travels in the operation's result, and back in the undo's request.
    return False, {"text_sha": row[0], "anchors": row[1], "stale_ms": row[2], "stale_reason": row[3]}


def _kept(names: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The names as the user's word leaves them: a lost one no longer counts as ever found."""
    return [dict(n, seen=False) if n.get("seen") and n.get("found") is False else dict(n) for n in names]


def stale_again(store: Store, memory_id: str, before: Any) -> None:
    """Undo `still_true`: the anchors row as it was before the user's word (`before`, what
    still_true returned), stale again with the same reason. Only over the row still_true left
    (a later check that found nothing new leaves it so): a row changed since — the text
    rewritten, a name found again, stale again on new evidence — is refused (InvalidInput),
    so an undo never overwrites what happened after. NotFound: no such memory."""
    from ..errors import InvalidInput, NotFound

    fields = ("text_sha", "anchors", "stale_ms", "stale_reason")
    sha, names_json, stale_ms, reason = (
        (before.get(k) for k in fields) if isinstance(before, dict) else [None] * 4
    )
    if not (
        isinstance(sha, str)
        and isinstance(names_json, str)
        and isinstance(stale_ms, int)
        and not isinstance(stale_ms, bool)
        and isinstance(reason, str)
    ):
        raise InvalidInput(
            "before must be the anchors row still_true returned (text_sha, anchors, stale_ms, stale_reason)"
        )
    try:
        names = json.loads(names_json)
    except ValueError:
        names = None
    if not isinstance(names, list):
        raise InvalidInput("before's anchors must be a JSON list of names")
    with store.transaction() as con:
        if one(con.execute("SELECT 1 FROM memories WHERE id = ?", [memory_id])) is None:
            raise NotFound(f"no memory with id {memory_id}")
        row = one(
            con.execute("SELECT text_sha, anchors, stale_ms FROM anchors WHERE memory_id = ?", [memory_id])
        )
        left = _kept(_from_row((names_json, None, None)).names)
        if (
            row is None
            or row[0] != sha
            or row[2] is not None
            or _from_row((row[1], None, None)).names != left
        ):
            raise InvalidInput(
                f"the staleness of memory #{memory_id} changed since it was kept as true; nothing was done"
            )
        con.execute(
            "UPDATE anchors SET anchors = ?, stale_ms = ?, stale_reason = ? WHERE memory_id = ?",
            [names_json, stale_ms, reason, memory_id],
        )
