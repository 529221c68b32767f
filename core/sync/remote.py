"""`memevo sync`: a person's memories on every machine, through a git remote they own.

The records (core/sync/records.py) live in a git work tree in the data dir (`sync/`, one file per
memory under `memories/`). A sync, under a file lock:

1. tidy: a merge or commit left half done by a kill is undone (`git merge --abort`, `reset
   --hard`, `clean`): nothing is lost by it, as a base moves only after its commit;
2. reconcile the store with the committed tree (either side changed since the base: taken; both:
   merged), commit, then move the bases;
3. fetch; merge the remote branch by memory — for each file only one side changed, that side's;
   both changed, the records merged — one merge commit; reconcile again (the store takes the
   merged records);
4. push (a push refused because the remote moved meanwhile: from 3 again, at most 3 times).

Only memory records leave the machine: no config, key or session data is ever in the tree, and
a memory whose text (or any old text) looks like it holds a secret is held back. git runs as
the real binary without a shell, hardened (core/repos/safegit.py), with bounded timeouts and no
terminal prompt (an SSH key or credential helper the user set up, never a question). A record
that cannot be read (a broken file in the remote) is a conflict: listed in sync-conflicts.json
and by the command, its memory here left as it was; the file stays in git's history.

Whoever can push to the remote writes what a sync reads, so nothing from it is trusted:

* the remote URL is a plain git URL or path (`check_remote`): no option, no remote helper
  (`ext::`, `fd::`), no ssh host that ssh would take for an option, no control character;
* a remote on this machine (a path, file://, or a URL the user's `insteadOf` makes one) is
  fetched from and pushed to through a hardened upload-pack / receive-pack
  (syncclone.remote_side): git runs that end here, in the remote's folder, and would run its
  hooks, the programs its config names and its housekeeping as the user. A push the remote
  itself refuses ("[remote rejected]": a checked-out branch) fails with git's words, not
  retried;
* every object fetched is checked by git (fsck: a tree entry `..` or `.git` fails the fetch);
* the remote's tree is listed with `ls-tree -z` (names exactly as stored, never quoted), and
  only `memories/ID.json` entries that are plain files, with an id memevo gives and at most
  MAX_RECORD_BYTES, are ever read or written; anything else (a `..`, a nested folder, a
  symlink, a gitlink, a stray file) is ignored and listed as a conflict, and its name shown
  with its control characters escaped. A `memories` that is not a folder (a symlink to
  elsewhere) refuses the whole remote: nothing is read from it or pushed over it until it is
  repaired. git checks out the remote's tree itself only when it holds nothing else
  (a fast-forward); otherwise the merge keeps this tree and writes the accepted files into it;
* files are read and written without following a symlink (lstat, O_NOFOLLOW; a link in the
  way is removed, never written through);
* every record passes the checks a memory written here passes (syncstore.check_content), or it
  is a conflict and the memory here stays as it was;
* a memory the remote deleted moves to the trash here, never out of the store;
* what the remote changed that the user should see is listed under `review`: what changes
  whether, how or where a memory reaches the assistant — a rule new to this machine, a memory
  moved between the rules and the project facts, its scope changed (to another repository,
  or to everywhere), a memory this machine deleted that the remote brought back, a pin set on
  the remote — and a memory moved to the trash because the remote deleted it. These are
  applied, not held: holding them would leave the machines apart (the next sync would take
  them again); a listed item is undone with `memevo move`, `memevo scope`, `memevo unpin`,
  `memevo delete` or `memevo restore`. A text changed on the remote is not listed: that is
  every ordinary sync.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import atomic, paths
from ..clock import Clock
from ..errors import InvalidInput
from ..store.database import Store
from . import records as syncstore
from .clone import (
    BRANCH,
    FOLDER,
    NETWORK_TIMEOUT_S,
    RECORD_NAME,
    REPAIR_HISTORY,
    SyncFailed,
    cat,
    check_remote,
    drop_strays,
    folder_refused,
    git,
    init,
    is_ancestor,
    listing,
    locked,
    read_record,
    real_folder,
    remote_side,
    run,
    said,
    shown,
    tidy,
    work_tree,
    write_file,
)
from .records import Record

log = logging.getLogger(__name__)
PUSH_TRIES = 3
SCOPE_SHOWN = 80  # characters of a scope in a review line


@dataclass
class Report:
    exported: int = 0
    imported: int = 0
    merged: list[str] = field(default_factory=list)
    held_back: list[str] = field(default_factory=list)  # a secret in its text
    kept_here: list[dict[str, str]] = field(default_factory=list)  # {id, why}: fails the checks
    review: list[dict[str, str]] = field(default_factory=list)  # {id, what, text}
    conflicts: list[dict[str, str]] = field(default_factory=list)  # {id, file, why}
    pushed: bool = False
    remote: str | None = None
    # what the remote's tree held that was not read; joined to `conflicts` at the end (the
    # tree's own are read again after each merge, and only the last read counts)
    from_remote: list[dict[str, str]] = field(default_factory=list)
    # this store's first sync with this clone: every rule is new, and listing each one for
    # review would teach the user to skip the list
    first: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "exported": self.exported,
            "imported": self.imported,
            "merged": self.merged,
            "held_back": self.held_back,
            "kept_here": self.kept_here,
            "review": self.review,
            "conflicts": self.conflicts,
            "pushed": self.pushed,
            "remote": self.remote,
        }


def conflicts_path() -> Path:
    return paths.data_dir() / "sync-conflicts.json"


def _read_tree(tree: Path, report: Report, now_ms: int) -> dict[str, Record | None] | None:
    """The committed records (the tree is HEAD after tidy); one that cannot be read or fails
    its checks maps to None and is listed as a conflict (the last read counts). None when
    memories/ is not a real folder: nothing is read through it."""
    report.conflicts = []
    folder = tree / FOLDER
    if not real_folder(folder, create=True):
        report.conflicts.append(folder_refused(tree))
        return None
    found: dict[str, Record | None] = {}
    for name in sorted(os.listdir(folder)):
        match = RECORD_NAME.fullmatch(name)
        if match is None:
            why = "not a memory's file (memories/ID.json): ignored"
            report.conflicts.append({"id": "", "file": f"{FOLDER}/{shown(name)}", "why": why})
            continue
        memory_id = match.group(1)
        try:
            record = syncstore.parse(read_record(folder / name), now_ms)
            if record.id != memory_id:
                raise syncstore.BrokenRecord(f"holds memory {record.id}")
        except (OSError, UnicodeDecodeError, syncstore.BrokenRecord) as exc:
            report.conflicts.append({"id": memory_id, "file": f"{FOLDER}/{name}", "why": shown(str(exc))})
            found[memory_id] = None
            continue
        found[memory_id] = record
    return found


def _reconcile(store: Store, tree: Path, clock: Clock, report: Report) -> dict[str, tuple[str, int] | None]:
    """Bring store and tree together; returns the bases to set once the tree is committed."""
    now = clock.now_ms()
    local, held = syncstore.export_all(store)
    report.held_back = held
    kept = syncstore.unsendable(local, now)
    report.kept_here = [{"id": i, "why": why} for i, why in sorted(kept.items())]
    committed = _read_tree(tree, report, now)
    if committed is None:
        return {}
    bases = syncstore.bases(store)
    later: dict[str, tuple[str, int] | None] = {}
    for memory_id in sorted(set(local) | set(committed) | set(bases)):
        if memory_id in held or memory_id in kept or not syncstore.valid_id(memory_id):
            continue
        mine = local.get(memory_id)
        theirs = committed.get(memory_id)
        base = bases.get(memory_id)
        mine_sha = syncstore.content_sha(mine) if mine is not None else None
        theirs_sha = theirs.sha if theirs is not None else None
        base_sha = base[0] if base else None
        if memory_id in committed and theirs is None:
            # its file cannot be read: the memory here stays as it is, and replaces the file
            # only once it changes here (the file stays in git's history)
            if mine is None or mine_sha == base_sha:
                continue
        elif mine_sha == theirs_sha:
            if base_sha != mine_sha:
                syncstore.set_bases(store, {memory_id: (theirs.sha, theirs.changed_ms) if theirs else None})
            continue
        elif mine_sha == base_sha:  # only the tree changed: the store takes it (with its base)
            if syncstore.write(store, memory_id, theirs, base=True, now_ms=now):
                report.imported += 1
                _review(report, memory_id, mine, theirs)
            continue
        record = Record(mine, now) if mine is not None else None
        # both changed: merged, both take it (deleted in the tree and changed here: the change)
        if theirs is not None and theirs_sha != base_sha:
            record = syncstore.merge(record, theirs)
            syncstore.write(store, memory_id, record, base=False, now_ms=now)
            report.merged.append(memory_id)
            _review(report, memory_id, mine, record)
        write_file(tree, memory_id, record.to_text().encode("utf-8") if record else None)
        report.exported += 1
        later[memory_id] = (record.sha, record.changed_ms) if record else None
    return later


def _review(report: Report, memory_id: str, mine: dict[str, Any] | None, now: Record | None) -> None:
    """What the store took from the remote that the user should see (see the module's doc)."""
    was_pinned = mine is not None and mine.get("pinned_ms") is not None
    if now is None:  # the remote deleted it: it went to the trash here
        if mine is not None and not mine.get("trashed"):
            what = "deleted on the remote: moved to the trash here (`memevo restore ID` brings it back)"
            report.review.append({"id": memory_id, "what": what, "text": str(mine["text"])})
        return
    content = now.content
    if content.get("trashed"):
        return
    whats = []
    if mine is None and content["category"] == "rule" and not report.first:
        whats.append("a new rule from the remote")
    if mine is not None and mine.get("trashed"):  # the user deleted it here
        whats.append("brought back from the trash on the remote (`memevo delete ID` deletes it again)")
    if mine is not None and mine["category"] != content["category"]:  # a fact made a rule, or back
        was = mine["category"]
        whats.append(f"moved from {was} to {content['category']} on the remote (`memevo move ID {was}`)")
    if mine is not None and mine.get("scope") != content.get("scope"):  # applies elsewhere now
        whats.append(
            f"scope changed on the remote: {_scope(mine.get('scope'))} → {_scope(content.get('scope'))}"
        )
    if content.get("pinned_ms") is not None and not was_pinned:
        whats.append("pinned on the remote")
    if whats:
        report.review.append({"id": memory_id, "what": ", ".join(whats), "text": str(content["text"])})


def _scope(scope: str | None) -> str:
    """A scope as the review list names it: the repository's name (from the remote: escaped,
    and cut short, as a record's scope may be long), or everywhere."""
    if not scope:
        return "everywhere"
    name = shown(scope)
    return name if len(name) <= SCOPE_SHOWN else name[: SCOPE_SHOWN - 1] + "…"


def _commit(store: Store, tree: Path, message: str, later: dict[str, tuple[str, int] | None]) -> None:
    drop_strays(tree)
    git(tree, "add", "-A")  # the tree now holds only memevo's records (and its README)
    if git(tree, "status", "--porcelain").strip() or (tree / ".git" / "MERGE_HEAD").exists():
        git(tree, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message)
    syncstore.set_bases(store, later)  # only now: the tree that holds them is committed


def _merge_remote(store: Store, tree: Path, clock: Clock, report: Report) -> bool | None:
    """Fetch and merge the remote branch by memory; False when there is nothing new there, None
    when its memories/ cannot be read at all (nothing is taken from it)."""
    fetched = run(
        tree, ["fetch", "-q", *remote_side(tree, push=False), "origin"], NETWORK_TIMEOUT_S, network=True
    )
    if fetched.returncode != 0:
        if b"fsck" in fetched.stderr:  # a `..` or `.git` entry, a malformed object
            raise SyncFailed(
                f"the remote holds what git refuses to fetch ({said(fetched)}): nothing was taken "
                f"from it; {REPAIR_HISTORY}"
            )
        raise SyncFailed(f"git fetch failed: {said(fetched)}")
    remote_ref = f"refs/remotes/origin/{BRANCH}"
    if not git(tree, "rev-parse", "--verify", "-q", remote_ref, check=False).strip():
        return False
    if is_ancestor(tree, remote_ref, "HEAD"):
        return False  # nothing new there
    theirs = listing(tree, remote_ref)
    report.from_remote += theirs.refused
    if not theirs.readable:
        return None
    if theirs.clean and is_ancestor(tree, "HEAD", remote_ref):
        # only plain files at README.md and memories/ID.json: git may check them out itself
        git(tree, "merge", "-q", "--ff-only", remote_ref)
        return True
    base_rev = git(tree, "merge-base", "HEAD", remote_ref, check=False).strip() or None
    ours, base = listing(tree, "HEAD"), listing(tree, base_rev)
    # this tree stays as it is (nothing of the remote's is checked out); the accepted files
    # are written into it below, and the remote's other entries stay out of the merge
    git(
        tree, "merge", "-q", "-s", "ours", "--no-ff", "--no-commit", "--allow-unrelated-histories", remote_ref
    )
    now = clock.now_ms()
    both: list[str] = []
    for memory_id in sorted(set(ours.records) | set(theirs.records)):
        if memory_id in theirs.refused_ids:
            continue  # the remote's entry is not read: this side's file stays
        mine, other, was = (
            ours.records.get(memory_id),
            theirs.records.get(memory_id),
            base.records.get(memory_id),
        )
        if mine == other or other == was:
            continue
        if mine == was and other is None:  # only the remote changed it: deleted there
            write_file(tree, memory_id, None)
            continue
        both.append(memory_id)
    shas = {s for i in both for s in (ours.records.get(i), theirs.records.get(i)) if s}
    contents = cat(tree, sorted(shas))
    for memory_id in both:
        mine, other, was = (
            ours.records.get(memory_id),
            theirs.records.get(memory_id),
            base.records.get(memory_id),
        )
        file = f"{FOLDER}/{memory_id}.json"
        if any(s is not None and s not in contents for s in (mine, other)):
            report.from_remote.append({"id": memory_id, "file": file, "why": "its blob is missing: not read"})
            continue
        if mine == was and other is not None:  # only the remote changed it: its file, as it is
            write_file(tree, memory_id, contents[other])
            continue
        try:
            mine_record = syncstore.parse(contents[mine].decode("utf-8"), now) if mine else None
            other_record = syncstore.parse(contents[other].decode("utf-8"), now) if other else None
        except (UnicodeDecodeError, syncstore.BrokenRecord) as exc:  # kept as it is here; listed, never lost
            report.from_remote.append(
                {"id": memory_id, "file": file, "why": f"cannot merge: {shown(str(exc))}"}
            )
            continue
        merged = syncstore.merge(mine_record, other_record)
        write_file(tree, memory_id, merged.to_text().encode("utf-8") if merged else None)
        report.merged.append(memory_id)
    _commit(store, tree, "memevo sync: merge", {})
    return True


def sync(store: Store, clock: Clock, remote: str | None = None) -> Report:
    tree = work_tree()
    report = Report()
    if remote is not None:
        check_remote(remote)
    with locked(tree):
        if not (tree / ".git").is_dir() and remote is not None:
            syncstore.forget_bases(store)  # before `git init`: a kill between repeats both
        init(tree, remote)
        tidy(tree)
        report.first = not syncstore.bases(store)
        report.remote = git(tree, "remote", "get-url", "origin", check=False).strip() or None
        if report.remote is None:
            raise InvalidInput(
                "no sync remote yet: run `memevo sync REMOTE` once (a git URL or path you own)"
            )
        check_remote(report.remote)  # one an older memevo stored is held to the same rule
        _commit(store, tree, "memevo sync: this machine's changes", _reconcile(store, tree, clock, report))
        for _ in range(PUSH_TRIES):
            merged = _merge_remote(store, tree, clock, report)
            if merged is None:  # nothing read from the remote, so nothing pushed over it either
                break
            if merged:
                _commit(store, tree, "memevo sync: merged", _reconcile(store, tree, clock, report))
            pushed = run(
                tree,
                ["push", "-q", *remote_side(tree, push=True), "origin", f"HEAD:refs/heads/{BRANCH}"],
                NETWORK_TIMEOUT_S,
                network=True,
            )
            if pushed.returncode == 0:
                report.pushed = True
                break
            refusal = pushed.stderr.decode("utf-8", "replace")
            # "[rejected] (fetch first)": the remote moved meanwhile, so fetch and merge again;
            # "[remote rejected]": the remote refused the push itself (a checked-out branch, a
            # ref it hands to a hook), which no retry changes
            if "[remote rejected]" in refusal or ("rejected" not in refusal and "fetch first" not in refusal):
                raise SyncFailed(f"git push failed: {said(pushed)}")
            time.sleep(0.2)
        report.conflicts = _dedupe(report.conflicts + report.from_remote)
        atomic.write_text(conflicts_path(), json.dumps(report.conflicts, ensure_ascii=False, indent=1) + "\n")
    return report


def _dedupe(items: list[dict[str, str]]) -> list[dict[str, str]]:
    seen: dict[str, dict[str, str]] = {}
    for item in items:
        seen.setdefault(item["file"], item)
    return list(seen.values())


def is_set_up() -> bool:
    """A sync remote was given once (`memevo sync REMOTE`): a stat, for the tray's timer."""
    return (work_tree() / ".git" / "config").is_file()


def current_remote() -> str | None:
    """The sync remote set (`memevo sync REMOTE`, the panel's Sharing tab), None when none is:
    a git run in the clone, off the UI thread. Its text is the user's own (or an older memevo's)."""
    if not is_set_up():
        return None
    return git(work_tree(), "remote", "get-url", "origin", check=False).strip() or None


def conflicts() -> list[dict[str, str]]:
    try:
        return list(json.loads(conflicts_path().read_text("utf-8")))
    except (OSError, ValueError):
        return []
