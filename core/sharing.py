"""A repository's facts in the repository: `.memevo/facts.md`, reviewed and merged like code.

The file is Markdown, one fact per list item, each item ending in `<!-- memevo:ID -->`: a
stable id that survives edits of the text. An item without one is a fact added by hand (its id
is derived from its text until `memevo share` writes one). Anything else outside items —
headings, blank lines, whole-line HTML comments — is kept as it is; a paragraph that is no
item, a duplicate id, or a text memevo would not store is an error naming its line, and
nothing is read from the file until it is fixed (nothing lost: the facts read before stay).

Reading (`apply`): the file's facts are the repository's facts, created (marked as coming from
the repository: an origin row) or matched by id through shared_facts, which keeps the text the
file had when last read — the base against which both sides' changes are told apart: an item
whose text changed in the file replaces the local text (the local one kept in history); an
item gone from the file sends its fact to the trash; a local edit of a fact the file did not
change is left alone and offered back (`pending`), never written without being asked.

Writing (`share`): chosen facts of the repository are added at the end, pending local edits
and deletions replace or drop their items; every other line stays. A text the redaction would
alter is refused by name — secrets never enter the file.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import atomic, memories, origins, redaction
from .clock import Clock
from .errors import InvalidInput
from .store import Store

FILE = ".memevo/facts.md"
MAX_BYTES = 1024 * 1024  # a facts file larger than this is refused (a team's facts are ~KBs)
HEADER = (
    "# Project facts (memevo)\n"
    "\n"
    "<!-- Written by `memevo share`, read by every teammate's memevo at session start.\n"
    "     One fact per item; keep each item's memevo:ID comment with it (an item without one\n"
    "     is a new fact). Deleting an item retires the fact for everyone. -->\n"
)
ORIGIN = {"client": "repository", "proposer": "share"}
_ID_TAIL = re.compile(r"\s*<!--\s*memevo:([A-Za-z0-9_-]{1,40})\s*-->\s*$")
_ITEM = re.compile(r"^[-*] (.*)$")


@dataclass(frozen=True)
class Item:
    share_id: str
    text: str
    first: int  # 0-based line index of its first line
    last: int  # and of its last (inclusive)
    had_id: bool


@dataclass
class Parsed:
    lines: list[str]
    items: list[Item] = field(default_factory=list)


class FileProblem(InvalidInput):
    """The facts file cannot be read; the message names the file and line."""


def path_in(folder: str | Path) -> Path:
    return Path(folder) / FILE


def derived_id(text: str) -> str:
    return "h" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def parse(text: str, where: str = FILE) -> Parsed:
    """The items of a facts file. Linear in its length."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    parsed = Parsed(lines)
    seen: dict[str, int] = {}
    in_comment = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if in_comment:
            in_comment = "-->" not in line
            i += 1
            continue
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            i += 1
            continue
        match = _ITEM.match(line)
        if not match:
            raise FileProblem(
                f"{where} line {i + 1}: not a fact item (each fact is a '- ' list item; "
                f"continuation lines are indented): {stripped[:80]!r}; nothing was read from the file"
            )
        first = i
        body = [match.group(1)]
        while i + 1 < len(lines) and lines[i + 1].startswith("  ") and lines[i + 1].strip():
            i += 1
            body.append(lines[i].strip())
        joined = "\n".join(part.rstrip() for part in body)
        tail = _ID_TAIL.search(joined)
        fact = joined[: tail.start()] if tail else joined
        fact = fact.strip()
        if "<!--" in fact or "-->" in fact:
            raise FileProblem(
                f"{where} line {first + 1}: a malformed memevo id comment; nothing was read from the file"
            )
        if not fact:
            raise FileProblem(
                f"{where} line {first + 1}: an item with no text; nothing was read from the file"
            )
        try:
            fact = memories.check_text(fact)
        except InvalidInput as exc:
            raise FileProblem(f"{where} line {first + 1}: {exc}; nothing was read from the file") from None
        if redaction.redact_secrets(fact) != fact:
            raise FileProblem(
                f"{where} line {first + 1}: the fact holds what looks like a secret; remove it "
                "from the file (and rotate it); nothing was read from the file"
            )
        share_id = tail.group(1) if tail else derived_id(fact)
        if share_id in seen:
            raise FileProblem(
                f"{where} line {first + 1}: the id {share_id} is also on line {seen[share_id] + 1}; "
                "nothing was read from the file"
            )
        seen[share_id] = first
        parsed.items.append(Item(share_id, fact, first, i, tail is not None))
        i += 1
    return parsed


def render_item(share_id: str, text: str) -> list[str]:
    parts = text.split("\n")
    lines = ["- " + parts[0], *("  " + part for part in parts[1:])]
    lines[-1] += f" <!-- memevo:{share_id} -->"
    return lines


def read(folder: str | Path) -> tuple[str, str] | None:
    """(text, sha) of the repository's facts file, None when there is none."""
    path = path_in(folder)
    try:
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise FileProblem(f"{path}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_BYTES:
        raise FileProblem(f"{path}: larger than {MAX_BYTES // 1024} KB; nothing was read from it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FileProblem(f"{FILE} line {line}: not UTF-8 text; nothing was read from the file") from None
    return text, hashlib.sha256(data).hexdigest()


# -- the store's side ------------------------------------------------------------------------


def _mapping(store: Store, repo: str) -> dict[str, tuple[str, str]]:
    rows = store.query("SELECT share_id, memory_id, file_text FROM shared_facts WHERE repo = ?", [repo])
    return {str(r[0]): (str(r[1]), str(r[2])) for r in rows}


def _set_mapping(store: Store, repo: str, share_id: str, memory_id: str, text: str) -> None:
    with store.transaction() as con:
        con.execute("DELETE FROM shared_facts WHERE repo = ? AND share_id = ?", [repo, share_id])
        con.execute("INSERT INTO shared_facts VALUES (?, ?, ?, ?)", [repo, share_id, memory_id, text])


def _drop_mapping(store: Store, repo: str, share_id: str) -> None:
    with store.transaction() as con:
        con.execute("DELETE FROM shared_facts WHERE repo = ? AND share_id = ?", [repo, share_id])


def _file_state(store: Store, repo: str) -> tuple[str | None, str | None]:
    row = store.query("SELECT sha, problem FROM shared_files WHERE repo = ?", [repo])
    return (str(row[0][0]) if row[0][0] else None, row[0][1]) if row else (None, None)


def _set_file_state(store: Store, repo: str, sha: str | None, problem: str | None) -> None:
    with store.transaction() as con:
        con.execute("DELETE FROM shared_files WHERE repo = ?", [repo])
        con.execute(
            "INSERT INTO shared_files VALUES (?, ?, ?, ?)", [repo, sha, int(time.time() * 1000), problem]
        )


def _live(store: Store, memory_id: str) -> memories.Memory | None:
    found = memories.find(store, [memory_id])
    return found.get(memory_id)


def _in_trash(store: Store, memory_id: str) -> bool:
    return bool(store.query("SELECT count(*) FROM trash WHERE id = ?", [memory_id])[0][0])


def apply(store: Store, repo: str, folder: str, clock: Clock, force: bool = False) -> dict[str, Any]:
    """Read the repository's facts file into the store (see the module's doc)."""
    report: dict[str, Any] = {"repo": repo, "created": [], "updated": [], "deleted": [], "problem": None}

    def refused(exc: FileProblem) -> dict[str, Any]:  # kept with the file's last good state; nothing read
        _set_file_state(store, repo, _file_state(store, repo)[0], str(exc))
        report["problem"] = str(exc)
        return report

    try:
        got = read(folder)
    except FileProblem as exc:
        return refused(exc)
    if got is None:  # no file (or a branch without it): nothing is read, nothing retired
        return report
    text, sha = got
    if not force and _file_state(store, repo) == (sha, None):
        report["unchanged"] = True
        return report
    try:
        parsed = parse(text)
    except FileProblem as exc:
        return refused(exc)
    mapping = _mapping(store, repo)
    for item in parsed.items:
        _apply_item(store, repo, clock, item, mapping.pop(item.share_id, None), report)
    for share_id, (memory_id, _) in mapping.items():  # gone from the file: retired everywhere
        if _live(store, memory_id) is not None:
            memories.delete(store, [memory_id], clock, f"deleted from {FILE}")
            report["deleted"].append(memory_id)
        _drop_mapping(store, repo, share_id)
    _set_file_state(store, repo, sha, None)
    return report


def _apply_item(
    store: Store, repo: str, clock: Clock, item: Item, known: tuple[str, str] | None, report: dict[str, Any]
) -> None:
    if known is not None:
        memory_id, base = known
        if item.text == base:  # the file did not change it: a local edit stays, offered back
            return
        live = _live(store, memory_id)
        if live is None and _in_trash(store, memory_id):
            live = memories.restore(store, memory_id)
        if live is not None:
            if live.text != item.text:
                memories.replace_text(store, memory_id, item.text, clock)
                report["updated"].append(memory_id)
            _set_mapping(store, repo, item.share_id, memory_id, item.text)
            return
    same = memories.same_text(store, "project", item.text, repo)
    if same is not None:
        memory = same
    else:
        memory = memories.create(store, "project", item.text, clock, repo)
        origins.record(
            store, memory.id, clock.now_ms(), {**ORIGIN, "words": f"{FILE} line {item.first + 1}"}, "create"
        )
        report["created"].append(memory.id)
    _set_mapping(store, repo, item.share_id, memory.id, item.text)


def status(store: Store, repo: str) -> dict[str, Any]:
    """What `share` would offer: the repository's facts not shared yet, and local edits and
    deletions of shared facts not yet in the file."""
    mapping = _mapping(store, repo)
    shared_ids = {memory_id for memory_id, _ in mapping.values()}
    unshared = [
        m.as_json()
        for m in memories.live(store)
        if m.category == "project" and m.scope == repo and m.id not in shared_ids
    ]
    changed: list[dict[str, Any]] = []
    for share_id, (memory_id, base) in sorted(mapping.items()):
        live = _live(store, memory_id)
        if live is None:
            changed.append({"share_id": share_id, "id": memory_id, "file": base, "local": None})
        elif live.text != base:
            changed.append({"share_id": share_id, "id": memory_id, "file": base, "local": live.text})
    _, problem = _file_state(store, repo)
    return {"repo": repo, "unshared": unshared, "pending": changed, "problem": problem}


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
    state = status(store, repo)
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
    parsed = parse(before)
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
    added = [(memory["id"], memory["text"]) for memory in chosen]
    if added and out:
        out.append("")
    for memory_id, text in added:
        out += render_item(memory_id, text)
    after = "\n".join(out) + "\n"
    diff = "".join(
        difflib.unified_diff(before.splitlines(True), after.splitlines(True), f"a/{FILE}", f"b/{FILE}")
    )
    result: dict[str, Any] = {
        "file": str(path_in(folder)),
        "shared": [m for m, _ in added],
        "pending_written": [c["id"] for c in changes],
        "diff": diff,
        "dry_run": dry_run,
    }
    if dry_run or (after == before and got is not None) or (got is None and not added):
        return result
    path = path_in(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, after)
    for memory_id, text in added:
        _set_mapping(store, repo, memory_id, memory_id, text)
    for change in changes:
        if change["local"] is None:
            _drop_mapping(store, repo, change["share_id"])
        else:
            _set_mapping(store, repo, change["share_id"], change["id"], change["local"])
    reread = read(folder)
    _set_file_state(store, repo, reread[1] if reread else None, None)
    return result
