"""`memevo import-notes`: what users already wrote for their tools, as candidate memories.

Read (never changed): ~/.claude/CLAUDE.md, Claude Code's auto memory
(~/.claude/projects/*/memory/MEMORY.md), a repository's CLAUDE.md / AGENTS.md / CODEBUDDY.md,
Cursor's .cursor/rules/*.mdc and .cursorrules, CodeBuddy's .codebuddy/rules/*.md(c). Each is
split into statements (a bullet, or a sentence of a paragraph; headings, code, tables and
front matter left out), each 6–400 characters. A statement is proposed as a rule when it
reads like an instruction, else as a project fact; a project fact from a repository's file
belongs to that repository. Nothing is imported twice: every imported statement's hash is
recorded (migration 9), so one deleted after its import stays deleted.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..clock import Clock
from ..errors import InvalidInput
from ..memories import live as memories
from ..memories import text as memory_text
from ..repos import identity as repos
from ..store.database import Store

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_SENTENCE = re.compile(r"(?<=[。！？!?])\s*|(?<=[.])\s+(?=[A-Z\u4e00-\u9fff])")
_RULE_WORDS = re.compile(
    r"\b(always|never|must|should|shouldn't|don't|do not|prefer|avoid|make sure|ensure)\b"
    r"|请|不要|别|必须|一律|总是|禁止|应该|应当|避免|尽量|统一|用中文|用英文",
    re.IGNORECASE,
)
_IMPERATIVE = re.compile(
    r"^(use|run|write|keep|reply|answer|respond|add|put|name|follow|commit|call|prefer|avoid)\b",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"\*\*|__|`")


@dataclass(frozen=True)
class Candidate:
    text: str
    category: str  # the proposal: rule or project
    scope: str | None  # the repository a project fact belongs to; None: global
    source: str
    repo: str | None = None  # the repository of the file it came from (for "import as a project fact")

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def as_json(self) -> dict[str, Any]:
        return asdict(self) | {"sha": self.sha, "scope": self.scope or "global"}


def sources(home: Path, repo: Path | None) -> list[tuple[Path, str | None]]:
    """(file, the repository its project facts belong to) for each file that exists."""
    found: list[tuple[Path, str | None]] = [(home / ".claude" / "CLAUDE.md", None)]
    for memory in sorted((home / ".claude" / "projects").glob("*/memory/MEMORY.md")):
        found.append((memory, _claude_project(memory.parent.parent.name)))
    if repo is not None:
        key = repos.identity(str(repo))  # the repository's facts, wherever it is cloned
        for name in ("CLAUDE.md", "AGENTS.md", "CODEBUDDY.md", ".cursorrules"):
            found.append((repo / name, key))
        for pattern in (".cursor/rules/*.mdc", ".codebuddy/rules/*.md", ".codebuddy/rules/*.mdc"):
            found += [(path, key) for path in sorted(repo.glob(pattern))]
    return [(path, scope) for path, scope in found if path.is_file()]


def _claude_project(folder_name: str) -> str | None:
    """Claude Code names a project's folder after its path, "/" as "-": the path when it exists."""
    guess = Path("/" + folder_name.lstrip("-").replace("-", "/"))
    if not folder_name.startswith("-") or not guess.is_dir():
        return None
    folder = repos.folder_of(str(guess))
    return repos.identity(folder) if folder else None


def statements(text: str) -> list[str]:
    """One statement each: bullets whole, paragraphs by sentence; no headings, code, tables."""
    out: list[str] = []
    paragraph: list[str] = []
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[0].strip() == "---":  # front matter (.mdc)
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1 :]
    fenced = False

    def flush() -> None:
        if paragraph:
            out.extend(s for s in _SENTENCE.split(" ".join(paragraph)) if s)
            paragraph.clear()

    for raw in lines:
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fenced = not fenced
            flush()
            continue
        if fenced or (raw.startswith(("    ", "\t")) and not _BULLET.match(raw)):
            continue
        if not line or line.startswith(("#", "|", "<!--", ">", "@")) or set(line) <= set("-=*_ "):
            flush()
            continue
        bullet = _BULLET.match(raw)
        if bullet:
            flush()
            out.append(raw[bullet.end() :].strip())
        else:
            paragraph.append(line)
    flush()
    cleaned = [_MARKUP.sub("", s).strip() for s in out]
    return [s for s in cleaned if _fits(s)]


def _fits(text: str) -> bool:
    try:
        memories.check_text(text)
    except InvalidInput:
        return False
    return not text.endswith(":") and not text.endswith("：")


def propose(text: str) -> str:
    return "rule" if _RULE_WORDS.search(text) or _IMPERATIVE.match(text) else "project"


def candidates(home: Path, repo: Path | None) -> list[Candidate]:
    seen: set[str] = set()
    found: list[Candidate] = []
    for path, scope in sources(home, repo):
        try:
            content = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for text in statements(content):
            if text in seen:
                continue
            seen.add(text)
            category = propose(text)
            found.append(
                Candidate(text, category, scope if category == "project" else None, str(path), scope)
            )
    return found


# -- the store's side ----------------------------------------------------------------------------
def known(store: Store | None, shas: list[str], texts: list[str]) -> list[str]:
    """The hashes imported before, or whose text is a memory already (live or in the trash)."""
    if store is None or not shas:
        return []
    rows = store.query("SELECT sha FROM imported_notes WHERE list_contains(?, sha)", [shas])
    done = {str(r[0]) for r in rows}
    same = store.query(
        "SELECT text FROM memories WHERE list_contains(?, text) UNION SELECT text FROM trash WHERE list_contains(?, text)",
        [texts, texts],
    )
    present = {str(r[0]) for r in same}
    return [sha for sha, text in zip(shas, texts, strict=True) if sha in done or text in present]


def import_items(store: Store, items: list[dict[str, Any]], clock: Clock) -> dict[str, Any]:
    """Write the chosen candidates; one already imported (or present) is skipped."""
    written: list[dict[str, Any]] = []
    skipped = 0
    for item in items:
        text = memories.check_text(str(item.get("text", "")))
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if known(store, [sha], [text]):
            skipped += 1
            continue
        scope = item.get("scope")
        category = memory_text.check_category(str(item.get("category", "")))
        memory = memories.create(
            store, category, text, clock, scope if category == "project" and scope != "global" else None
        )
        with store.transaction() as con:
            con.execute(
                "INSERT INTO imported_notes VALUES (?, ?, ?) ON CONFLICT (sha) DO NOTHING",
                [sha, str(item.get("source") or "")[:1000], clock.now_ms()],
            )
        written.append(memory.as_json())
    return {"imported": written, "skipped": skipped}
