"""The user's trust in a repository's facts file (core/sharing/facts.py reads only trusted content).

Trusting means having been shown the facts: `review` gives the file's facts and, against what
was last read from this folder, the items added, changed and removed (everything is added the
first time); `trust` records the content's hash for the repository and folder — refused if the
file changed since it was shown — and reads it at once. The same content trusted in another
folder of the repository counts here too (the user saw exactly these facts); a different file
in another folder claiming the same identity gets its own review. `untrust` forgets the trust
in every folder of the repository: the facts read before stay (still labelled as the
repository's) but are no longer refreshed, and the next review shows what changed since.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..clock import Clock
from ..errors import InvalidInput
from ..store.database import Store
from .facts import apply, file_state, mapping, set_file_state, trusted
from .facts_file import FILE, parse, path_in, read


def _ever_trusted(store: Store, repo: str, folder: str) -> bool:
    return bool(store.query("SELECT 1 FROM shared_trust WHERE repo = ? AND folder = ?", [repo, folder]))


def set_trust(con: Any, repo: str, folder: str, sha: str, now_ms: int) -> None:
    con.execute("DELETE FROM shared_trust WHERE repo = ? AND folder = ?", [repo, folder])
    con.execute("INSERT INTO shared_trust VALUES (?, ?, ?, ?)", [repo, folder, sha, now_ms])


def review(store: Store, repo: str, folder: str) -> dict[str, Any]:
    """What trusting the file now would read: its facts, and the items added, changed and
    removed since the content last read from this folder (everything added, the first time).
    Raises FileProblem for a file that cannot be read."""
    got = read(folder)
    result: dict[str, Any] = {"repo": repo, "folder": folder, "file": str(path_in(folder)), "sha": None}
    result |= {"trusted": False, "ever_trusted": _ever_trusted(store, repo, folder)}
    result |= {"facts": [], "added": [], "changed": [], "removed": []}
    if got is None:
        return result
    text, sha = got
    parsed = parse(text)
    base = mapping(store, repo, folder)
    result |= {"sha": sha, "trusted": trusted(store, repo, sha)}
    for item in parsed.items:
        fact = {"share_id": item.share_id, "text": item.text, "line": item.first + 1}
        result["facts"].append(fact)
        known = base.pop(item.share_id, None)
        if known is None:
            result["added"].append(fact)
        elif known.file_text != item.text:
            result["changed"].append(fact | {"before": known.file_text})
    result["removed"] = [{"share_id": s, "text": m.file_text} for s, m in sorted(base.items())]
    return result


def trust(store: Store, repo: str, folder: str, clock: Clock, sha: str | None) -> dict[str, Any]:
    """Trust the file's content (sha: the content the user was shown; a file changed since is
    refused, to be shown again) and read it now."""
    shown = review(store, repo, folder)
    if shown["sha"] is None:
        raise InvalidInput(f"there is no {FILE} in {folder}; nothing to trust")
    if sha is not None and sha != shown["sha"]:
        raise InvalidInput(
            f"{shown['file']} changed since it was shown to you; review it again "
            "(`memevo share --review`); nothing was trusted"
        )
    with store.transaction() as con:
        set_trust(con, repo, folder, shown["sha"], clock.now_ms())
    return apply(store, repo, folder, clock, force=True) | {"trusted_sha": shown["sha"]}


def untrust(store: Store, repo: str) -> dict[str, Any]:
    """Forget the trust of the repository's file, in every folder it was trusted in. The facts
    read from it stay (the user's memory, still labelled as the repository's) but are no
    longer refreshed; a later review shows what changed since. The content is not announced
    as waiting (the user just said no to it); a changed file is."""
    folders = [str(r[0]) for r in store.query("SELECT folder FROM shared_trust WHERE repo = ?", [repo])]
    kept = store.query(
        "SELECT DISTINCT s.memory_id FROM shared_facts s JOIN memories m ON m.id = s.memory_id "
        "WHERE s.repo = ? AND s.from_file",
        [repo],
    )
    with store.transaction() as con:
        con.execute("DELETE FROM shared_trust WHERE repo = ?", [repo])
        con.execute(
            "UPDATE shared_files SET declined = coalesce(waiting, sha), waiting = NULL, waiting_ms = NULL, "
            "sha = NULL WHERE repo = ?",
            [repo],
        )
    return {"repo": repo, "folders": folders, "kept": sorted(str(r[0]) for r in kept)}


def decline(store: Store, repo: str, folder: str, clock: Clock, sha: str) -> dict[str, Any]:
    """The user was shown the content and said no: it stays unread, and is not announced again
    (a changed file is)."""
    state = file_state(store, repo, folder)
    with store.transaction() as con:
        set_file_state(con, repo, folder, replace(state, waiting=sha, declined=sha), clock.now_ms())
    return {"repo": repo, "folder": folder, "declined": sha}


def waiting(store: Store) -> list[dict[str, Any]]:
    """Every repository folder whose facts file waits for the user's review (and was not
    declined), with what to say."""
    rows = store.query(
        "SELECT repo, folder, waiting, waiting_ms FROM shared_files WHERE waiting IS NOT NULL "
        "AND waiting IS DISTINCT FROM declined ORDER BY waiting_ms, folder"
    )
    return [
        {
            "repo": str(r[0]),
            "folder": str(r[1]),
            "sha": str(r[2]),
            "since_ms": r[3],
            "message": review_note(r[1]),
        }
        for r in rows
    ]


def review_note(folder: str) -> str:
    return (
        f"{Path(folder).name or folder} ({folder}) has a shared facts file waiting for your review: "
        "run `memevo share --review` in it"
    )


def trusted_folders(store: Store) -> list[str]:
    return [str(r[0]) for r in store.query("SELECT DISTINCT folder FROM shared_trust ORDER BY folder")]
