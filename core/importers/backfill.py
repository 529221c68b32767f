"""`memevo backfill`: candidate memories from what the user already said, found on this machine
with the local encoder and no model call.

The pain memevo exists for is the same preference said again in every session; that repetition
is in the history (transcripts.py reads it). A statement of the user's becomes a candidate when
- it was said in two or more sessions (near-duplicates: cosine ≥ SAME, or ≥ NEAR with most of
  their words shared) and reads as lasting (durable words, a correction, or three sessions), or
- it says itself that it is to last (记住, 以后, 一律, from now on, always, never …) and does not
  read as a one-off task instruction.
Each candidate carries its evidence (sessions, days, repositories, the user's words verbatim,
secrets redacted) and a proposed group: a rule, or a project fact of the repository it was said
in. What is a memory already, was imported or accepted before, or was skipped is not proposed.
Nothing here writes: the user's yes goes through `import_notes`, as `memevo import-notes`'s.
A long scan reports how far it is, and stops between two steps when the user cancels (Cancelled).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import atomic, paths
from .. import config as config_mod
from ..memories.text import MAX_TEXT, text_width
from ..messages import Message, define
from ..privacy.redaction import redact_secrets
from ..recall.textfilter import strip_code_and_logs
from . import transcripts
from .transcripts import Cancelled as Cancelled  # what a cancelled scan raises, for the callers
from .transcripts import Prompt, repo_of

# Why a candidate is proposed: said in English on a terminal, by its code in the panel.
WHY_SESSIONS = "backfill.why-sessions"
WHY_DURABLE = "backfill.why-durable"
WHY_CORRECTION = "backfill.why-correction"
define(
    {
        WHY_SESSIONS: "said in {count} sessions",
        WHY_DURABLE: "says it is to last",
        WHY_CORRECTION: "a correction of the assistant",
    }
)

SAME = 0.93  # cosine at which two statements say the same, whatever their words
NEAR = 0.88  # cosine at which they say the same when most of their words are shared too
SHARED_WORDS = 0.6
KNOWN = 0.92  # cosine to an existing memory at which a candidate is that memory already
MAX_STATEMENTS = 6000  # the newest statements encoded (the work is quadratic in them)
MIN_WIDTH, MAX_WIDTH = 8, 200
MAX_CANDIDATES = 200
EXAMPLES = 3
ENCODE_CHUNK = 256  # statements encoded between two looks at progress and Cancel

_SPLIT = re.compile(r"(?<=[。！？；!?;])|(?<=[.!?;])\s+|\n+")
DURABLE = re.compile(
    r"记住|记一下|以后|今后|往后|下次|每次|一律|总是|始终|永远|不要再|别再|默认|统一|务必|"
    r"\b(from now on|remember|always|never|by default|every time|each time|going forward|"
    r"in (all )?future|from here on)\b",
    re.IGNORECASE,
)
# Words of a standing instruction: with a repetition they make a candidate.
INSTRUCTION = re.compile(
    r"\b(always|never|must|don't|do not|prefer|avoid|make sure|no more)\b"
    r"|不要|别|必须|一律|总是|禁止|应该|应当|避免|统一|默认|一定要",
    re.IGNORECASE,
)
RULE_WORDS = re.compile(
    r"\b(always|never|must|should|don't|do not|prefer|avoid|make sure|please|use|keep|reply|write)\b"
    r"|请|不要|别|必须|一律|总是|禁止|应该|应当|避免|尽量|统一|用中文|用英文|回答|回复",
    re.IGNORECASE,
)
CORRECTION = re.compile(
    r"不对|错了|不是这样|又忘了|我说过|说过了|跟你说过|again|i (already )?(said|told you)|that's wrong|"
    r"not like that|stop doing",
    re.IGNORECASE,
)
# A one-off task: what to do now, to this file, this time. Durable words do not make it last.
TASK = re.compile(
    r"^(帮我|帮忙|请帮|麻烦|给我|看一下|看看|试试|把这|这个|这里|刚才|现在|先)|这次|这一次|本次|"
    r"^(can you|could you|please (fix|look|check|add|change|update|help)|fix|look at|let's|now )|"
    r"\bthis (file|function|bug|test|time|one|module|method|class|page)\b|\bin this (file|module|repo)\b|"
    r"这个(函数|文件|接口|模块|类|方法|变量|测试|报错|页面)|"
    r"^(write|add|rename|remove|delete|update|refactor|implement|create|move|split|run|check|debug)\b|"
    r"^(把|给|将|帮|写|加|改|删|查|跑|看|试|更新|实现|重构|修)",
    re.IGNORECASE,
)
_IDENT = re.compile(
    r"[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]+|`[^`]+`|\b[\w-]+\.[a-z]{1,4}\b"
    r"|\b[a-z]+(?:-[a-z0-9]+)*-\d+\b"
)
# A sentence that only points back ("以后都这样", "always do that"): it belongs to the one before.
REFERS_BACK = re.compile(
    r"^(以后|今后|往后|下次)?(也|都|也都)?(这样|如此|照这样|按这个来)[。！!.]*$"
    r"|^(and )?(always|from now on|every time)( do (that|this)| like (that|this))?[.!]*$",
    re.IGNORECASE,
)
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
REDACTED = ("[已隐去]", "REDACTED")

# (stage, done, total): "encoding" statements, "grouping" statements, "comparing" with memories
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Watch:
    progress: Progress | None = None
    cancelled: Callable[[], bool] | None = None


_WATCH: ContextVar[Watch | None] = ContextVar("memevo_backfill_watch", default=None)


@contextmanager
def watched(progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> Iterator[None]:
    """The panel runs the service's `backfill_scan` in process, on its own worker thread: the
    operation's parameters are JSON, so the view's progress and Cancel reach `run` on that thread
    through a context variable instead."""
    token = _WATCH.set(Watch(progress, cancelled))
    try:
        yield
    finally:
        _WATCH.reset(token)


@dataclass
class Statement:
    text: str
    client: str
    session: str
    day: str
    repo: str | None

    @property
    def words(self) -> set[str]:
        """Latin words, and Chinese as character pairs (single characters are shared far too
        much)."""
        latin = {w.lower() for w in re.findall(r"[A-Za-z0-9_]+", self.text)}
        pairs = {run[i : i + 2] for run in _CJK_RUN.findall(self.text) for i in range(max(1, len(run) - 1))}
        return latin | pairs


@dataclass
class Candidate:
    text: str
    category: str
    scope: str | None
    sessions: int
    first_day: str
    last_day: str
    repos: list[str]
    words: list[str]
    why: list[str]
    clients: list[str] = field(default_factory=list)

    @property
    def sha(self) -> str:
        return key_of(self.text)

    def as_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "category": self.category,
            "scope": self.scope or "global",
            "sha": self.sha,
            "source": f"backfill: said in {self.sessions} session(s), {self.first_day}..{self.last_day}",
            "evidence": {
                "sessions": self.sessions,
                "first_day": self.first_day,
                "last_day": self.last_day,
                "repositories": self.repos,
                "clients": self.clients,
                "words": self.words,
                "why": [str(w) for w in self.why],
                # the same reasons as data, for a reader in another language (the panel)
                "reasons": [
                    {"code": w.code, **w.params} if isinstance(w, Message) else {"code": "", "text": w}
                    for w in self.why
                ],
            },
        }


def key_of(text: str) -> str:
    """A candidate's key (as import-notes keys what it imported): its text's hash."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def statements(prompts: Sequence[Prompt], off: Sequence[str] = ()) -> list[Statement]:
    """Each prompt cut into statements worth a memory: code and logs out, secrets redacted, each
    MIN_WIDTH..MAX_WIDTH columns; the newest MAX_STATEMENTS. Prompts of a repository memevo is
    off in (`off`) are not read."""
    repos: dict[str | None, str | None] = {}
    found: list[Statement] = []
    for prompt in prompts:
        if prompt.cwd not in repos:
            repos[prompt.cwd] = repo_of(prompt.cwd)
        if repos[prompt.cwd] in off:
            continue
        cleaned = redact_secrets(strip_code_and_logs(prompt.text))
        parts: list[str] = []
        for part in _SPLIT.split(cleaned):
            part = part.strip(" \t-*•>")
            if parts and REFERS_BACK.match(part):
                parts[-1] = f"{parts[-1]}{'' if parts[-1][-1:] in '。！？' else ' '}{part}"
            elif part:
                parts.append(part)
        for part in parts:
            if any(mark in part for mark in REDACTED):  # a memory of a hidden secret says nothing
                continue
            if MIN_WIDTH <= text_width(part) <= MAX_WIDTH and len(part) <= MAX_TEXT:
                found.append(Statement(part, prompt.client, prompt.session, prompt.day, repos[prompt.cwd]))
    found.sort(key=lambda s: s.day, reverse=True)
    return found[:MAX_STATEMENTS]


def find(
    prompts: Sequence[Prompt],
    encode: Callable[[list[str]], np.ndarray],
    memory_texts: Sequence[str] = (),
    known: Callable[[list[str]], set[str]] | None = None,
    progress: Progress | None = None,
    off: Sequence[str] = (),
    cancelled: Callable[[], bool] | None = None,
) -> list[Candidate]:
    """The candidates in these prompts. `encode`: unit vectors of texts; `memory_texts`: the
    memories there are (a candidate close to one is not proposed); `known`: which candidate
    keys were imported, accepted or skipped before; `cancelled()` true between two chunks of
    the work raises Cancelled."""
    said = statements(prompts, off)
    if not said:
        return []
    vectors = _encoded([s.text for s in said], encode, "encoding", progress, cancelled)
    clusters = _clusters(said, vectors, progress, cancelled)
    found: list[tuple[Candidate, np.ndarray]] = []
    for members in clusters:
        candidate = _candidate([said[i] for i in members])
        if candidate is not None:
            found.append((candidate, vectors[members[0]]))
    if found and memory_texts:
        existing = _encoded(list(memory_texts), encode, "comparing", progress, cancelled)
        found = [(c, v) for c, v in found if float(np.max(existing @ v)) < KNOWN]
    candidates = [c for c, _ in found]
    if known is not None and candidates:
        done = known([c.sha for c in candidates])
        candidates = [c for c in candidates if c.sha not in done]
    candidates.sort(key=lambda c: (-c.sessions, c.category != "rule", c.last_day), reverse=False)
    return candidates[:MAX_CANDIDATES]


def _encoded(
    texts: list[str],
    encode: Callable[[list[str]], np.ndarray],
    stage: str,
    progress: Progress | None,
    cancelled: Callable[[], bool] | None,
) -> np.ndarray:
    """The texts' vectors, a chunk at a time: the bulk of a long scan's time is here."""
    parts: list[np.ndarray] = []
    for start in range(0, len(texts), ENCODE_CHUNK):
        if cancelled is not None and cancelled():
            raise Cancelled
        if progress is not None:
            progress(stage, start, len(texts))
        parts.append(np.asarray(encode(texts[start : start + ENCODE_CHUNK]), dtype=np.float32))
    return np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)


def _clusters(
    said: list[Statement],
    vectors: np.ndarray,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[list[int]]:
    """Greedy: each statement not yet placed gathers those that say the same; the first (newest)
    leads. Quadratic in the statements, in blocks."""
    n = len(said)
    placed = np.zeros(n, dtype=bool)
    words = [s.words for s in said]
    groups: list[list[int]] = []
    block = 512
    for start in range(0, n, block):
        if cancelled is not None and cancelled():
            raise Cancelled
        if progress is not None:
            progress("grouping", start, n)
        sims = vectors[start : start + block] @ vectors.T
        for offset, row in enumerate(sims):
            i = start + offset
            if placed[i]:
                continue
            members = [i]
            placed[i] = True
            for j in np.nonzero((row >= NEAR) & ~placed)[0]:
                if row[j] >= SAME or _shared(words[i], words[int(j)]) >= SHARED_WORDS:
                    members.append(int(j))
                    placed[j] = True
            groups.append(members)
    return groups


def _shared(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, min(len(a), len(b)))


def _candidate(members: list[Statement]) -> Candidate | None:
    lead = members[0]
    sessions = {(m.client, m.session) for m in members}
    durable = any(DURABLE.search(m.text) for m in members)
    corrected = any(CORRECTION.search(m.text) for m in members)
    task = all(TASK.search(m.text) for m in members)
    why: list[str] = []
    if len(sessions) >= 2:
        why.append(Message(WHY_SESSIONS, count=len(sessions)))
    if durable:
        why.append(Message(WHY_DURABLE))
    if corrected:
        why.append(Message(WHY_CORRECTION))
    instruction = any(INSTRUCTION.search(m.text) for m in members)
    repeated = len(sessions) >= 2 and (durable or corrected or instruction) and not task
    stated = durable and not task and (RULE_WORDS.search(lead.text) is not None or len(sessions) >= 2)
    if not (repeated or stated):
        return None
    text = _representative(members)
    repos = sorted({m.repo for m in members if m.repo})
    category = "project" if _IDENT.search(text) and len(repos) <= 1 else "rule"
    scope = repos[0] if category == "project" and len(repos) == 1 else None
    days = sorted(m.day for m in members)
    words: list[str] = []
    for m in members:
        if m.text not in words:
            words.append(m.text)
        if len(words) >= EXAMPLES:
            break
    return Candidate(
        text,
        category,
        scope,
        len(sessions),
        days[0],
        days[-1],
        repos,
        words,
        why,
        sorted({m.client for m in members}),
    )


def _representative(members: list[Statement]) -> str:
    """The wording said most often; of equals, the one with durable words, then the newest
    (members come newest first)."""
    counts: dict[str, int] = {}
    for m in members:
        counts[m.text] = counts.get(m.text, 0) + 1
    best = members[0].text
    for text in counts:  # in order of first appearance: newest first
        if _preference(text, counts) > _preference(best, counts):
            best = text
    return best


def _preference(text: str, counts: dict[str, int]) -> tuple[int, bool, bool, int]:
    """Said most often, then saying it is to last, then not a correction, then saying more."""
    return (
        counts[text],
        DURABLE.search(text) is not None,
        CORRECTION.search(text) is None,
        min(text_width(text), 60),
    )


# -- what the user answered before ------------------------------------------------------------------
def state_path() -> Path:
    return paths.data_dir() / "backfill.json"


def load_state() -> dict[str, Any]:
    """{"skipped": [keys], "files": {path: signature}}: what the user skipped (never proposed
    again) and each transcript file as the last review left it (a re-run reads only what is new)."""
    try:
        data = json.loads(state_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"skipped": [], "files": {}}
    skipped = data.get("skipped") if isinstance(data, dict) else None
    files = data.get("files") if isinstance(data, dict) else None
    return {
        "skipped": [s for s in skipped or [] if isinstance(s, str)],
        "files": {k: v for k, v in (files or {}).items() if isinstance(k, str) and isinstance(v, str)},
    }


def regroup(item: dict[str, Any]) -> None:
    """The review's other group, in place: a project fact of its one repository, or a rule."""
    item["category"] = "project" if item["category"] == "rule" else "rule"
    repos = item["evidence"]["repositories"]
    item["scope"] = repos[0] if item["category"] == "project" and len(repos) == 1 else "global"


def reworded(accepted: Sequence[dict[str, Any]]) -> list[str]:
    """The keys of accepted candidates kept in other words than found (edited, or the side
    model's wording): recorded with the skipped ones, so the words found are not proposed again
    beside the memory that now says them differently."""
    return [c["sha"] for c in accepted if key_of(c["text"]) != c["sha"]]


def save_state(skipped: Sequence[str], files: dict[str, str]) -> None:
    state = load_state()
    keep = list(dict.fromkeys([*state["skipped"], *skipped]))
    atomic.write_text(state_path(), json.dumps({"skipped": keep, "files": files}), mode=0o600)


def run(
    store: Any, encoder: Any, given: Sequence[dict[str, Any]], progress: Progress | None = None
) -> dict[str, Any]:
    """The candidates in `given` (prompts as Prompt.as_json), against this store's memories and
    what was imported before (import-notes' record); reads only. Progress and Cancel: `progress`,
    else what `watched` set on this thread."""
    from ..memories import live as memories
    from . import notes

    read = [_prompt(p) for p in given[: transcripts.MAX_PROMPTS]]
    prompts = [p for p in read if p is not None]
    texts = [m.text for m in sorted(memories.live(store), key=lambda m: -m.confidence)[:MAX_STATEMENTS]]

    def known(keys: list[str]) -> set[str]:
        return set(notes.known(store, keys, [""] * len(keys)))

    off = config_mod.load().values["offRepositories"]
    watch = _WATCH.get() or Watch()
    found = find(prompts, encoder.encode, texts, known, progress or watch.progress, off, watch.cancelled)
    return {"prompts": len(prompts), "candidates": [c.as_json() for c in found]}


def _prompt(item: Any) -> Prompt | None:
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return None
    cwd = item.get("cwd")
    return Prompt(
        str(item.get("client") or ""),
        str(item.get("session") or ""),
        item["text"][: transcripts.MAX_PROMPT_CHARS],
        str(item.get("day") or "")[:10],
        cwd if isinstance(cwd, str) else None,
    )
