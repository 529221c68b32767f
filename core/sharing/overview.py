"""Every repository folder memevo knows on this machine, with its shared facts file's state, for
the panel's Sharing tab (desktop/sharing_view.py) and the problems Status and the tray show.

A folder is known when a session ran there (repo_folders) or its facts file was read, written,
reviewed or trusted (shared_files, shared_trust). Read only: nothing here reads a file into the
store (`share_status` and `share_read` do); the file is only stat'ed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..memories import live as memories
from ..store.database import Store
from .facts import file_state, mapping
from .facts_file import FILE, path_in

TEAMMATE_EDITS_SHOWN = 50  # facts whose text a file gave, per folder


def remedy(problem: str) -> str:
    """What to do about a facts file memevo refused (its message names the file and the line)."""
    what = "at the line named" if " line " in problem else "as the message says"
    return (
        f"fix {FILE} {what} (or put back the committed one: `git checkout -- {FILE}`), then run "
        "`memevo share` in the repository or choose Read again in the panel's Sharing tab; "
        "nothing is read from the file until then, and the facts read before stay"
    )


def problems(store: Store) -> list[dict[str, Any]]:
    """Every folder whose facts file memevo refused to read, the message naming its line, and
    the remedy."""
    rows = store.query(
        "SELECT repo, folder, problem FROM shared_files WHERE problem IS NOT NULL ORDER BY folder"
    )
    return [
        {
            "repo": str(r[0]),
            "folder": str(r[1]),
            "file": str(path_in(str(r[1]))),
            "problem": str(r[2]),
            "remedy": remedy(str(r[2])),
        }
        for r in rows
    ]


def known_folders(store: Store) -> list[tuple[str, str]]:
    """(repo, folder) of every repository folder memevo knows that is still there."""
    rows = store.query(
        "SELECT repo, folder FROM repo_folders UNION SELECT repo, folder FROM shared_files "
        "UNION SELECT repo, folder FROM shared_trust ORDER BY repo, folder"
    )
    found: list[tuple[str, str]] = []
    for repo, folder in rows:
        try:
            if (Path(str(folder)) / ".git").exists():
                found.append((str(repo), str(folder)))
        except OSError:
            continue
    return found


def _teammate_edits(store: Store, repo: str, folder: str) -> set[str]:
    """Of this folder's facts, those whose text a read of the file replaced (a teammate's edit)."""
    rows = store.query(
        "SELECT DISTINCT o.memory_id FROM origins o JOIN shared_facts s ON s.memory_id = o.memory_id "
        "WHERE s.repo = ? AND s.folder = ? AND o.client = 'repository' AND o.action = 'replace'",
        [repo, folder],
    )
    return {str(r[0]) for r in rows}


def overview(store: Store, extra: list[tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """Each known folder (and `extra` ones): its file's state — "none" (no file), "problem",
    "waiting" (for the user's review), "declined", "trusted", "untrusted" (never reviewed) — the
    facts read from it, local changes not yet written, unshared project facts, and the facts
    whose text came from the file (a teammate's edit among them marked)."""
    folders = known_folders(store)
    for pair in extra or []:
        if pair not in folders:
            folders.append(pair)
    live = memories.live(store)
    by_id = {m.id: m for m in live}
    shared_ids = {str(r[0]) for r in store.query("SELECT DISTINCT memory_id FROM shared_facts")}
    out: list[dict[str, Any]] = []
    for repo, folder in folders:
        state = file_state(store, repo, folder)
        rows = mapping(store, repo, folder)
        exists = path_in(folder).is_file() or path_in(folder).is_symlink()
        trusted = bool(
            state.sha
            and store.query(
                "SELECT 1 FROM shared_trust WHERE repo = ? AND sha = ? LIMIT 1", [repo, state.sha]
            )
        )
        if state.problem:
            kind = "problem"
        elif not exists:
            kind = "none"
        elif state.waiting and state.waiting != state.declined:
            kind = "waiting"
        elif state.declined and not trusted:
            kind = "declined"
        elif trusted:
            kind = "trusted"
        else:
            kind = "untrusted"
        pending = []
        for share_id, known in sorted(rows.items()):
            current = by_id.get(known.memory_id)
            if current is None or current.text != known.file_text:
                pending.append(
                    {
                        "share_id": share_id,
                        "id": known.memory_id,
                        "file": known.file_text,
                        "local": current.text if current else None,
                    }
                )
        edited = _teammate_edits(store, repo, folder)
        from_file = [
            {"id": m.memory_id, "text": m.file_text, "edited": m.memory_id in edited}
            for m in rows.values()
            if m.from_file and m.memory_id in by_id and by_id[m.memory_id].text == m.file_text
        ]
        from_file.sort(key=lambda f: (not f["edited"], f["text"]))
        unshared = [
            {"id": m.id, "text": m.text}
            for m in live
            if m.category == "project" and m.scope == repo and m.id not in shared_ids
        ]
        out.append(
            {
                "repo": repo,
                "folder": folder,
                "file": str(path_in(folder)),
                "exists": exists,
                "state": kind,
                "problem": state.problem,
                "remedy": remedy(state.problem) if state.problem else None,
                "facts": len(rows),
                "pending": pending,
                "unshared": unshared,
                "from_file": from_file[:TEAMMATE_EDITS_SHOWN],
                "from_file_count": len(from_file),
                "teammate_edits": len(edited),
            }
        )
    return out
