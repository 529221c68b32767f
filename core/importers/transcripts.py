"""The user's own words in the transcripts their clients keep on this machine (`memevo backfill`).

Read, never changed, and only these stores (each client's folder moves with its own variable):
- Claude Code: `~/.claude/projects/<folder>/<session>.jsonl` ($CLAUDE_CONFIG_DIR moves ~/.claude);
  a user row is {"type": "user", "message": {"role": "user", "content": …}, "cwd", "timestamp"}.
- The CodeBuddy Code CLI: `~/.codebuddy/projects/<folder>/<session>.jsonl`
  ($CODEBUDDY_CONFIG_DIR); the same rows as Claude Code's, or agent items
  {"type": "message", "role": "user", "content": [{"type": "input_text", "text"}]}.
- Cursor: `~/.cursor/projects/<folder>/agent-transcripts/<id>/<id>.jsonl`; a user row is
  {"role": "user", "message": {"content": [{"type": "text", "text"}]}} with the words in
  `<user_query>`.
- The CodeBuddy IDE and its plugin: a folder of JSON per conversation under the extension's data
  (codebuddy_ide.py), read as "codebuddy". Its workspace is known only by the md5 of its folder:
  the folders the sessions of Claude Code and the CodeBuddy Code CLI ran in (and the repositories
  holding them), then the folders memevo has seen repositories in (`known`), are tried; a
  conversation none matches counts with no repository.
WorkBuddy's conversation store is not known: not read.

Only what the user typed: the assistant's text, tool results, subagents' and synthetic rows are
skipped, and a prompt is classified by the client's own hook adapter (hooks/clients/), so a
slash command, another tool's continuation or memevo's own question is never taken for the
user's words. Reading is bounded: files over MAX_FILE_BYTES are read from their end, lines over
MAX_LINE_BYTES are skipped, and at most MAX_PROMPTS prompts are kept, newest files first.
A long read reports each file it reads and stops between files when asked to (the panel's Cancel).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...hooks.clients import load as load_adapter
from ..repos import identity as repos
from . import codebuddy_ide
from .message_words import words_of

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_LINE_BYTES = 1024 * 1024
MAX_PROMPTS = 20_000
MAX_PROMPT_CHARS = 4000
MAX_FILES = 5000
MAX_HEAD_BYTES = 256 * 1024  # of a session file, read to find the folder it ran in


class Cancelled(Exception):
    """The user stopped a scan: nothing of it is kept or recorded."""


@dataclass(frozen=True)
class Prompt:
    client: str
    session: str
    text: str
    day: str  # YYYY-MM-DD, from the row's timestamp or the file's
    cwd: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "session": self.session,
            "text": self.text,
            "day": self.day,
            "cwd": self.cwd,
        }


@dataclass(frozen=True)
class TranscriptStore:
    """One client's transcript store: where it is, and how its session files are found."""

    client: str
    root: Path
    pattern: str


def stores(home: Path, environ: dict[str, str] | None = None) -> list[TranscriptStore]:
    env = os.environ if environ is None else environ
    claude = Path(env["CLAUDE_CONFIG_DIR"]).expanduser() if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    codebuddy = (
        Path(env["CODEBUDDY_CONFIG_DIR"]).expanduser()
        if env.get("CODEBUDDY_CONFIG_DIR")
        else home / ".codebuddy"
    )
    return [
        TranscriptStore("claude", claude / "projects", "*/*.jsonl"),
        TranscriptStore("codebuddy", codebuddy / "projects", "*/*.jsonl"),
        TranscriptStore("cursor", home / ".cursor" / "projects", "*/agent-transcripts/*/*.jsonl"),
    ]


def session_files(home: Path, environ: dict[str, str] | None = None) -> list[tuple[str, Path]]:
    """(client, file) of every session file in the stores that exist, newest first; symlinks
    that lead out of a store are not followed. A CodeBuddy IDE conversation is its folder."""
    found: list[tuple[float, str, Path]] = []
    for store in stores(home, environ):
        if not store.root.is_dir():
            continue
        root = store.root.resolve()
        for path in store.root.glob(store.pattern):
            try:
                real = path.resolve()
                if not real.is_relative_to(root) or not real.is_file():
                    continue
                found.append((real.stat().st_mtime, store.client, real))
            except OSError:
                continue
    for when, folder in codebuddy_ide.conversations(home, environ):
        found.append((when, "codebuddy", folder))
    found.sort(key=lambda item: -item[0])
    return [(client, path) for _, client, path in found[:MAX_FILES]]


def signature(path: Path) -> str:
    """What a re-run compares to know a file has nothing new: its size and modification time."""
    if path.is_dir():
        return codebuddy_ide.signature(path)
    try:
        info = path.stat()
    except OSError:
        return ""
    return f"{info.st_size}:{info.st_mtime_ns}"


def prompts_of(client: str, path: Path, ide: codebuddy_ide.Reader | None = None) -> Iterator[Prompt]:
    """The user's own prompts in one session file (or CodeBuddy IDE conversation), in order.
    `ide` knows the IDE's workspaces by their md5."""
    adapter: Any = load_adapter(client)
    if path.is_dir():
        day = _day_of_mtime(path / "index.json")
        for said in (ide or codebuddy_ide.Reader()).said(path):
            prompt = _kept(adapter, client, said.session, said.text, _day(said.when) or day, said.cwd)
            if prompt is not None:
                yield prompt
        return
    fallback_day = _day_of_mtime(path)
    for row in _rows(path):
        text = _user_text(client, row)
        if not text:
            continue
        cwd = row.get("cwd") if isinstance(row.get("cwd"), str) else None
        sid = row.get("sessionId") or row.get("session_id")
        session = sid if isinstance(sid, str) and sid else path.stem
        prompt = _kept(adapter, client, session, text, _day(row.get("timestamp")) or fallback_day, cwd)
        if prompt is not None:
            yield prompt


def _kept(adapter: Any, client: str, session: str, text: str, day: str, cwd: str | None) -> Prompt | None:
    """A prompt when the client's adapter takes it for the user's own words (not a slash
    command, another tool's continuation or memevo's own question)."""
    payload = {"prompt": text, "cwd": cwd}
    if adapter is not None:
        text = adapter.prompt_text(payload) or ""
        if not text.strip() or adapter.prompt_kind(payload, text) != "user":
            return None
    return Prompt(client, session, text[:MAX_PROMPT_CHARS], day, cwd)


def read_all(
    home: Path,
    environ: dict[str, str] | None = None,
    skip: dict[str, str] | None = None,
    step: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    known: Sequence[str] = (),
) -> tuple[list[Prompt], dict[str, str]]:
    """Every user prompt of every store (at most MAX_PROMPTS), and each file's signature. A file
    whose signature is in `skip` (read at an earlier run, unchanged since) is not read again.
    `step(files looked at, files)` before each file; `cancelled()` true between files raises
    Cancelled, so a Cancel waits for one file at most. `known`: folders memevo has seen
    repositories in (the `repo_folders` operation), tried for the CodeBuddy IDE's workspaces
    after the folders the other transcripts name."""
    prompts: list[Prompt] = []
    seen: dict[str, str] = {}
    files = session_files(home, environ)
    ide: codebuddy_ide.Reader | None = None
    for done, (client, path) in enumerate(files):
        if cancelled is not None and cancelled():
            raise Cancelled
        if step is not None:
            step(done, len(files))
        sig = signature(path)
        seen[str(path)] = sig
        if skip and skip.get(str(path)) == sig:
            continue
        if ide is None and path.is_dir():
            named = folders_of(files)
            ide = codebuddy_ide.Reader(named + [f for f in known if f not in named])
        for prompt in prompts_of(client, path, ide):
            prompts.append(prompt)
            if len(prompts) >= MAX_PROMPTS:
                return prompts, seen
    return prompts, seen


def repo_of(cwd: str | None) -> str | None:
    """The repository a session ran in: its identity, when its folder is still there."""
    folder = repos.folder_of(cwd) if cwd else None
    return repos.identity(folder) if folder else None


def folders_of(files: list[tuple[str, Path]]) -> list[str]:
    """The folders the sessions of these files ran in, read or not at this run: the first `cwd`
    in the head of the newest file of each project folder (Cursor's rows name none)."""
    found: list[str] = []
    looked: set[Path] = set()
    for client, path in files:
        if client == "cursor" or path.is_dir() or path.parent in looked:
            continue
        looked.add(path.parent)
        cwd = _first_cwd(path)
        if cwd and cwd not in found:
            found.append(cwd)
    return found


def _first_cwd(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(MAX_HEAD_BYTES)
    except OSError:
        return None
    for line in head.splitlines():
        if b'"cwd"' not in line:
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue  # the last line may be cut
        cwd = row.get("cwd") if isinstance(row, dict) else None
        if isinstance(cwd, str) and cwd.strip():
            return cwd
    return None


# -- reading rows ----------------------------------------------------------------------------------
def _rows(path: Path) -> Iterator[dict[str, Any]]:
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - MAX_FILE_BYTES)
            handle.seek(start)
            first = True
            for line in handle:
                if first and start:  # cut in the middle
                    first = False
                    continue
                first = False
                if len(line) > MAX_LINE_BYTES or b'"user"' not in line:
                    continue
                try:
                    row = json.loads(line)
                except (ValueError, RecursionError):
                    continue
                if isinstance(row, dict):
                    yield row
    except OSError:
        return


def _user_text(client: str, row: dict[str, Any]) -> str | None:
    if row.get("isMeta") or row.get("isSidechain") or row.get("isCompactSummary"):
        return None
    inner = row.get("message")
    message: dict[str, Any] = inner if isinstance(inner, dict) else row
    role = message.get("role") or row.get("role")
    if role != "user" or (row.get("type") not in (None, "user", "message")):
        return None
    text = words_of(message.get("content"), ("text", "input_text"))
    if text is None:  # a tool result row: no words of the user's
        return None
    if client == "cursor":
        text = _between(text, "<user_query>", "</user_query>")
    return text.strip() or None


def _between(text: str, opening: str, closing: str) -> str:
    start = text.find(opening)
    if start < 0:
        return text
    start += len(opening)
    end = text.find(closing, start)
    return text[start:] if end < 0 else text[start:end]


def _day(stamp: Any) -> str | None:
    if isinstance(stamp, str) and len(stamp) >= 10 and stamp[4] == "-" and stamp[7] == "-":
        return stamp[:10]
    if isinstance(stamp, (int, float)) and stamp > 0:
        import time

        return time.strftime("%Y-%m-%d", time.gmtime(stamp / 1000 if stamp > 1e11 else stamp))
    return None


def _day_of_mtime(path: Path) -> str:
    import time

    try:
        return time.strftime("%Y-%m-%d", time.localtime(path.stat().st_mtime))
    except OSError:
        return "1970-01-01"
