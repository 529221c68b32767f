"""Client mode: the client's own model proposes a memory through MCP (memory_propose).

It proposes; it never writes by itself. A proposal goes the way a side-judged one goes:
redaction and the text checks; the comparison with the nearest memories (an equal statement
reinforces; a similar one is handed back to the model with the candidates' ids, so that it
chooses reinforce, merge, replace or create); then the user's confirmation as configured.
Each proposal is a side job (jobs.py) with origin "client", created exclusively per session
and text (the same proposal twice is one) and within the per-session and per-day caps.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..memories import cues
from ..memories import live as memories
from ..memories import text as memory_text
from ..recall.textfilter import redact_secrets
from . import resolve

ACTIONS = ("create", "reinforce", "merge", "replace")
WORDS_CHARS = 2000  # the user's words kept with a proposal (the dialog shows them)
ID_CHARS = 64
# A memory this close (cosine of the centred vectors, the side judge's nearest-memory measure)
# is shown to the model as a candidate to reinforce, merge or replace instead of a new memory.
# Between same-language restatements, refinements and contradictions and their memory and the
# best unrelated neighbour (tests/test_propose.py::SIMILAR_PAIRS holds the measured pairs).
SIMILAR_MIN = 0.65
CANDIDATES = 3
# With confirmation off a proposal is written without asking only when its quote can stand for
# the user's words: at least this many meaningful characters (letters, digits, one per Chinese
# character; spaces and punctuation aside) — two characters of a prompt prove nothing —
QUOTE_MIN = 8
# and at least this share of the memory's own length (a long memory from a scrap of a quote is
# the model's words, not the user's),
QUOTE_SHARE = 0.25
# and about the same thing: this share of the shorter one's character pairs is in the other
# (real words quoted beside an unrelated memory are someone else's instruction).
RELATED_SHARE = 0.4


def normalised(text: str) -> str:
    """Case, width, spaces and punctuation removed: 「提交信息用英文。」 equals "提交信息 用英文".
    Linear in the text."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if not unicodedata.category(ch).startswith(("P", "Z", "C")))


def _pairs(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)}


def quote_supports(words: str, text: str) -> bool:
    """Whether the quoted words are substantial enough and related enough to the proposed text
    to stand for it (QUOTE_MIN, QUOTE_SHARE, RELATED_SHARE). Linear in both; no model. Whether
    the user really said them is the service's check (Learner.user_said)."""
    said, made = normalised(words), normalised(text)
    if len(said) < max(QUOTE_MIN, math.ceil(len(made) * QUOTE_SHARE)):
        return False
    quoted, proposed = _pairs(said), _pairs(made)
    return len(quoted & proposed) >= RELATED_SHARE * min(len(quoted), len(proposed))


@dataclass(frozen=True)
class Proposed:
    """A proposal as the tool received it, checked and redacted."""

    text: str
    category: str
    words: str
    scope: str  # "repo" or "global" (project facts only)
    cues: list[str]
    action: str | None
    target: str | None


def check(
    text: Any,
    category: Any,
    words: Any,
    scope: Any = "repo",
    cue_list: Any = None,
    action: Any = None,
    target: Any = None,
) -> Proposed:
    """InvalidInput with a message the model can act on; secrets redacted before anything is
    kept (the client's model saw the raw conversation)."""
    if category not in memory_text.CATEGORIES:
        raise InvalidInput("category must be rule (a preference or convention) or project (a fact)")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(
            "text must be the memory itself: a self-contained statement of 6 to 400 characters"
        )
    body = memories.check_text(redact_secrets(memory_text.remove_unsafe(text[:4000])).strip())
    if not isinstance(words, str) or not words.strip():
        raise InvalidInput("words must quote what the user said that this memory comes from")
    said = redact_secrets(memory_text.remove_unsafe(words[: WORDS_CHARS * 2])).strip()[:WORDS_CHARS]
    if scope not in (None, "repo", "global"):
        raise InvalidInput("scope must be repo (a fact of this repository) or global")
    if cue_list is not None and not isinstance(cue_list, list):
        raise InvalidInput("cues must be a list of short texts")
    if action is not None and action not in ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(ACTIONS)}")
    if target is not None and (not isinstance(target, str) or not target.strip() or len(target) > ID_CHARS):
        raise InvalidInput("target must be the id of a memory this tool named as a candidate")
    if action in ("reinforce", "merge", "replace") and not target:
        raise InvalidInput(f"action {action} needs target: the id of the memory it is about")
    return Proposed(
        body,
        str(category),
        said,
        "global" if scope == "global" else "repo",
        cues.clean(cue_list),
        action,
        target.strip().lstrip("#") if isinstance(target, str) else None,
    )


def job_id(client: str, session: str, proposed: Proposed) -> str:
    """The same text proposed again in one session is the same job, whatever action the model
    chose the first or the second time (a repeated call must not reinforce what it just wrote)."""
    key = "\x1f".join(["client", client, session, normalised(proposed.text)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def proposal(
    proposed: Proposed,
    action: str,
    target: memories.Memory | None,
    repo: str | None,
    day: str,
    verified: bool,
) -> dict[str, Any]:
    """The proposal as the dialog, `memevo pending`, memory_resolve and resolve.apply read it."""
    made: dict[str, Any] = {
        "text": proposed.text,
        "category": target.category if target is not None and action == "reinforce" else proposed.category,
        "action": action,
        "origin": "client",
        "day": day,
        "verified_words": verified,
    }
    if target is not None:
        made["target"] = target.id
        made["target_text"] = target.text
        if action == "merge":
            made["merged_text"] = proposed.text
        if action == "replace":
            made["replace_text"] = proposed.text
    if repo and proposed.category == "project" and proposed.scope == "repo" and action == "create":
        made["scope"] = repo  # a fact of this repository: recalled only here
    if proposed.cues:
        made["cues"] = proposed.cues
    made["options"] = resolve.options(made)
    return made


def edit_job_id(client: str, session: str, target: str, text: str) -> str:
    key = "\x1f".join(["edit", client, session, target, normalised(text)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def edit_proposal(target: memories.Memory, text: str, day: str) -> dict[str, Any]:
    """memory_update's rewrite of a memory, as a proposal the user confirms like any other (the
    dialog shows it as a replace; the choices are that or nothing)."""
    made: dict[str, Any] = {
        "text": text,
        "category": target.category,
        "action": "replace",
        "origin": "client",
        "edit": True,
        "day": day,
        "target": target.id,
        "target_text": target.text,
        "replace_text": text,
    }
    made["options"] = resolve.options(made)
    return made


def candidates_text(found: list[tuple[memories.Memory, float]]) -> str:
    """What the model is told when similar memories exist: their ids and texts, and how to answer."""
    lines = [f"- #{m.id}（{m.category}，相似度 {score:.2f}）：{m.text}" for m, score in found]
    return (
        "已有相近的记忆，请先对比再提交（这次没有记下任何内容）：\n"
        + "\n".join(lines)
        + "\n请再调用一次 memory_propose（有的客户端显示为 mcp__memory-self-evolution__memory_propose），"
        "带上同样的 text、category、words，并加上 action 与 target：\n"
        "- 已有记忆说的就是这件事、没有新信息：action=reinforce，target=它的 id；\n"
        "- 是同一件事、新说法补充了信息：action=merge，target=它的 id，text=合并后的完整正文；\n"
        "- 新说法与它冲突（值变了、规则反过来了）：action=replace，target=它的 id，text=替换后的正文；\n"
        "- 与它们都不是同一件事：action=create。"
    )
