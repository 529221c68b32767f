"""The CodeBuddy IDE's and its VS Code / JetBrains plugin's conversations (`memevo backfill`).

Read as documented publicly (a reader of this history and tools that copy its sessions), not
verified against a live IDE here. The extension keeps plain JSON under its data folder
("CodeBuddyExtension/Data", see `data_roots`), at some depth (`<uid>/CodeBuddyIDE/<uid>/history`
for the IDE, `<uid>/VSCode/<uid>/history` for the plugin):

    history/<md5 of the workspace folder>/index.json      {"conversations": [{"id", "createdAt",
                                                           "lastMessageAt", …}], "current"}
    history/<md5>/<conversation>/index.json                {"messages": [{"id", "role", "type"}]}
    history/<md5>/<conversation>/messages/<id>.json        {"role", "message": "<JSON text>", …}

where the decoded `message` holds `content`, a string or a list of {"type": "text", "text"}.
Only messages the index gives the user's role are opened, and kept unless the file says another
role; the IDE wraps the user's words in `<user_query>` beside blocks of its own (what the user
is, the project, the open file), which are dropped. `Public/` (the login state) is never entered.

Bounded as transcripts.py is: folders are found at most MAX_DEPTH deep among MAX_DIRS folders,
no symbolic link is followed while searching, and a file is read only when it resolves inside
its own conversation or workspace folder and is below its size limit. A file that is not what
its place says (not JSON, not the expected shape) is skipped; the rest of its conversation
still counts.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..repos import identity as repos
from .message_words import words_of

APP = "CodeBuddyExtension"
MAX_DEPTH = 6  # the IDE's history is 4 folders below Data; the plugin's the same
MAX_DIRS = 10_000  # folders looked into while searching for `history`
MAX_ENTRIES = 20_000  # entries of one folder looked at
MAX_HISTORY = 64  # `history` folders (one per account and client)
MAX_CONVERSATIONS = 20_000  # conversation folders looked at, before the newest are chosen
MAX_INDEX_BYTES = 4 * 1024 * 1024
MAX_MESSAGE_BYTES = 1024 * 1024
MAX_MESSAGES = 5000  # user messages opened in one conversation
SKIPPED = {"Public"}  # the login state: never entered
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
# Blocks the IDE adds around the user's words: what it knows of the user, the project and the
# open file, and its reminders. Never the user's typing.
WRAPPERS = (
    "user_info",
    "project_context",
    "project_layout",
    "system_reminder",
    "system-reminder",
    "additional_data",
    "currently_opened_file",
)


def data_roots(
    home: Path, environ: Mapping[str, str] | None = None, platform: str | None = None
) -> list[Path]:
    """The extension's data folders this OS may hold, whether or not they exist.

    macOS: ~/Library/Application Support/CodeBuddyExtension/Data. Windows: under %LOCALAPPDATA%
    (where CodeBuddy's own CLI and a tool that copies these sessions find it) and %APPDATA%
    (where a public reader of this history looks). Linux is not confirmed: ~/.local/share (where
    CodeBuddy's own CLI looks for the extension's data; $XDG_DATA_HOME too), $XDG_CONFIG_HOME or
    ~/.config (where the public reader looks), and ~/.codebuddy/CodeBuddyExtension/Data."""
    env = os.environ if environ is None else environ
    system = sys.platform if platform is None else platform
    if system == "darwin":
        bases = [home / "Library" / "Application Support"]
    elif system.startswith("win"):
        bases = [
            Path(env["LOCALAPPDATA"]) if env.get("LOCALAPPDATA") else home / "AppData" / "Local",
            Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData" / "Roaming",
        ]
    else:
        bases = [home / ".local" / "share"]
        if env.get("XDG_DATA_HOME"):
            bases.append(Path(env["XDG_DATA_HOME"]))
        bases.append(Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config")
        bases.append(home / ".codebuddy")
    roots: list[Path] = []
    for base in bases:
        root = base.expanduser() / APP / "Data"
        if root not in roots:
            roots.append(root)
    return roots


def loose_history(home: Path, platform: str | None = None) -> list[Path]:
    """A `history` folder right under ~/.codebuddy (Linux only, where the place is not known):
    read only when it holds this layout."""
    system = sys.platform if platform is None else platform
    return [] if system == "darwin" or system.startswith("win") else [home / ".codebuddy" / "history"]


def history_folders(
    home: Path, environ: Mapping[str, str] | None = None, platform: str | None = None
) -> list[Path]:
    """Every `history` folder under the data folders (resolved), breadth first, bounded."""
    found: list[Path] = []
    for loose in loose_history(home, platform):
        if _real_dir(loose):
            found.append(loose.resolve())
    budget = [MAX_DIRS]
    for root in data_roots(home, environ, platform):
        if not _real_dir(root, follow=True):
            continue
        for folder in _search(root.resolve(), budget):
            if folder not in found:
                found.append(folder)
            if len(found) >= MAX_HISTORY:
                return found
    return found


def _search(root: Path, budget: list[int]) -> Iterator[Path]:
    """Folders named `history` at most MAX_DEPTH below root, no link followed, `budget[0]`
    folders looked into at most (shared by the roots)."""
    queue: deque[tuple[Path, int]] = deque([(root, 0)])
    while queue and budget[0] > 0:
        folder, depth = queue.popleft()
        budget[0] -= 1
        for entry in _entries(folder):
            if entry.name in SKIPPED or entry.name.startswith("."):
                continue
            if entry.name == "history":
                yield Path(entry.path)
            elif depth + 1 < MAX_DEPTH:
                queue.append((Path(entry.path), depth + 1))


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The real folders in `folder` (no links), at most MAX_ENTRIES entries looked at."""
    found: list[os.DirEntry[str]] = []
    try:
        with os.scandir(folder) as listing:
            for count, entry in enumerate(listing):
                if count >= MAX_ENTRIES:
                    break
                try:
                    if entry.is_dir(follow_symlinks=False):
                        found.append(entry)
                except OSError:
                    continue
    except OSError:
        return []
    return found


def conversations(
    home: Path, environ: Mapping[str, str] | None = None, platform: str | None = None
) -> list[tuple[float, Path]]:
    """(time of its last change, folder) of every conversation with an index file."""
    found: list[tuple[float, Path]] = []
    looked = 0
    for history in history_folders(home, environ, platform):
        for workspace in _entries(history):
            if workspace.name.startswith("."):
                continue
            for conversation in _entries(Path(workspace.path)):
                looked += 1
                if looked > MAX_CONVERSATIONS:
                    return found
                if conversation.name.startswith("."):  # a copy being written, by another tool
                    continue
                folder = Path(conversation.path)
                when = _changed(folder)
                if when is not None:
                    found.append((when, folder))
    return found


def _changed(conversation: Path) -> float | None:
    """When a conversation last changed (its index, or its messages folder), None when it has
    no index of its own."""
    index = _inside(conversation / "index.json", conversation)
    if index is None:
        return None
    try:
        when = index.stat().st_mtime
        messages = conversation / "messages"
        if _real_dir(messages):
            when = max(when, messages.stat().st_mtime)
    except OSError:
        return None
    return when


def signature(conversation: Path) -> str:
    """What a re-run compares to know a conversation has nothing new: its index's size and
    time, and its messages folder's time (a message added changes both)."""
    try:
        info = (conversation / "index.json").stat()
        messages = conversation / "messages"
        folder = messages.stat().st_mtime_ns if _real_dir(messages) else 0
    except OSError:
        return ""
    return f"{info.st_size}:{info.st_mtime_ns}:{folder}"


# -- the workspace folder, known by its md5 ----------------------------------------------------------
def hashes_of(folder: str) -> set[str]:
    """The md5s the IDE may have named this folder by: as written, resolved, without a trailing
    separator, and a Windows drive letter in either case (VS Code writes it in lower case)."""
    forms = {folder, folder.rstrip("/\\") or folder}
    if Path(folder).is_absolute():
        with contextlib.suppress(OSError, RuntimeError, ValueError):
            forms.add(str(Path(folder).resolve()))
    for form in list(forms):
        if len(form) >= 2 and form[1] == ":" and form[0].isalpha():
            forms |= {form[0].lower() + form[1:], form[0].upper() + form[1:]}
    return {hashlib.md5(form.encode("utf-8"), usedforsecurity=False).hexdigest() for form in forms}


def workspaces(folders: Iterable[str]) -> dict[str, str]:
    """md5 → folder, for these folders and the repositories holding them (a session of another
    client may have run in a subfolder of the workspace the IDE had open)."""
    found: dict[str, str] = {}
    for folder in folders:
        top = repos.folder_of(folder)
        for candidate in (folder, top) if top and top != folder else (folder,):
            for key in hashes_of(candidate):
                found.setdefault(key, candidate)
    return found


# -- reading one conversation ----------------------------------------------------------------------
@dataclass(frozen=True)
class Said:
    """One message of the user's: their words, the conversation's time as its index gives it
    (None: unknown), and the workspace folder when its md5 was recognised."""

    session: str
    text: str
    when: Any
    cwd: str | None


class Reader:
    """Reads conversations, knowing the workspace folders by md5; each workspace's index is
    read once however many of its conversations are read."""

    def __init__(self, folders: Iterable[str] = ()) -> None:
        self.known = workspaces(folders)
        self.times: dict[Path, dict[str, Any]] = {}

    def said(self, conversation: Path) -> Iterator[Said]:
        workspace = conversation.parent
        cwd = self.known.get(workspace.name.lower())
        when = self._times(workspace).get(conversation.name)
        index = _json_file(conversation / "index.json", conversation, MAX_INDEX_BYTES)
        listed = index.get("messages") if isinstance(index, dict) else None
        if not isinstance(listed, list):
            return
        opened = 0
        for item in listed:
            if not isinstance(item, dict) or item.get("role") != "user":
                continue
            ident = item.get("id")
            if not isinstance(ident, str) or not _SAFE_ID.match(ident):
                continue
            opened += 1
            if opened > MAX_MESSAGES:
                return
            text = _user_words(_json_file(conversation / "messages" / f"{ident}.json", conversation))
            if text:
                yield Said(conversation.name, text, when, cwd)

    def _times(self, workspace: Path) -> dict[str, Any]:
        """conversation id → its createdAt (else lastMessageAt), from the workspace's index."""
        if workspace not in self.times:
            index = _json_file(workspace / "index.json", workspace, MAX_INDEX_BYTES)
            listed = index.get("conversations") if isinstance(index, dict) else None
            times: dict[str, Any] = {}
            for item in listed if isinstance(listed, list) else []:
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    times[item["id"]] = item.get("createdAt") or item.get("lastMessageAt")
            self.times[workspace] = times
        return self.times[workspace]


def _user_words(record: Any) -> str | None:
    if not isinstance(record, dict) or record.get("role") not in (None, "user"):
        return None
    message = record.get("message")
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except (ValueError, RecursionError):
            return None
    if not isinstance(message, dict) or message.get("role") not in (None, "user"):
        return None
    text = words_of(message.get("content"), ("text",))
    if text is None:  # tool results, images: no words of the user's
        return None
    return clean(text) or None


def clean(text: str) -> str:
    """The user's words in a message as the IDE stores it: the content of its `<user_query>`
    blocks when there is one, without the blocks the IDE adds (an unclosed one runs to the end)."""
    queries = _blocks(text, "user_query")
    if queries:
        text = "\n".join(queries)
    for tag in WRAPPERS:
        text = _without(text, tag)
    return text.strip()


def _blocks(text: str, tag: str) -> list[str]:
    opening, closing = f"<{tag}>", f"</{tag}>"
    found: list[str] = []
    at = text.find(opening)
    while at >= 0:
        start = at + len(opening)
        end = text.find(closing, start)
        if end < 0:
            found.append(text[start:])
            break
        found.append(text[start:end])
        at = text.find(opening, end + len(closing))
    return found


def _without(text: str, tag: str) -> str:
    opening, closing = f"<{tag}", f"</{tag}>"
    kept: list[str] = []
    at = search = 0
    while True:
        start = text.find(opening, search)
        if start < 0:
            kept.append(text[at:])
            break
        if text[start + len(opening) : start + len(opening) + 1] not in (">", " ", "\n", "\t"):
            search = start + 1  # another tag whose name begins with this one's
            continue
        kept.append(text[at:start])
        end = text.find(closing, start)
        if end < 0:
            break
        at = search = end + len(closing)
    return "".join(kept)


# -- files -----------------------------------------------------------------------------------------
def _real_dir(path: Path, follow: bool = False) -> bool:
    try:
        return path.is_dir() and (follow or not path.is_symlink())
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> Path | None:
    """The file `path` leads to, when it is a regular file inside `folder`."""
    try:
        real = path.resolve()
        if real.is_relative_to(folder.resolve()) and real.is_file():
            return real
    except (OSError, RuntimeError):
        return None
    return None


def _json_file(path: Path, folder: Path, limit: int = MAX_MESSAGE_BYTES) -> Any:
    """The JSON in a file inside `folder` below `limit` bytes; None for anything else."""
    real = _inside(path, folder)
    if real is None:
        return None
    try:
        if real.stat().st_size > limit:
            return None
        with open(real, "rb") as handle:
            data = handle.read(limit + 1)
        return json.loads(data) if len(data) <= limit else None
    except (OSError, ValueError, RecursionError):
        return None
