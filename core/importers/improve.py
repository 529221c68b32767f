"""Better wording for backfill's candidates, from the side model, when the user asks for it
(`memevo backfill --improve`, the panel's *Improve the wording…*).

The candidates stand on their own (backfill.py finds them with no model call); this is an
opt-in pass over them. Only with a side API configured (sideApiBase, sideApiModel, the key),
through learning's own client (core/learning/judge.py: endpoint, timeout, errors). Sent, in
batches of BATCH: each candidate's text, its proposed group, its repositories and the user's
words as evidence, each string redacted here (core/privacy/redaction.py) and cut to
MAX_SENT_CHARS. At most MAX_CALLS calls (and never more than sideDailyLimit); `plan` says how
many before any is made, so the caller can show the count and ask. An answer is taken only
when it is a JSON object naming a candidate of its batch, with a group of rule / project and a
text of MIN_TEXT..MAX_IMPROVED characters that holds no redaction marker; anything else leaves
that candidate as it was. The improved wording is added beside the original (`improved`);
nothing is written: the user still accepts, edits or skips each one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import config as config_mod
from ..errors import InvalidInput
from ..learning import judge
from ..memories import text as memory_text
from ..messages import Message, define
from ..privacy.redaction import redact_secrets
from .backfill import REDACTED
from .transcripts import Cancelled

if TYPE_CHECKING:  # httpx is imported where the client is made, as learning's is
    import httpx

BATCH = 10  # candidates per call
MAX_CALLS = 5  # the most one improvement makes: the strongest 50 candidates (they come first)
IMPROVE_DAILY_LIMIT = "improve.daily-limit"
define({IMPROVE_DAILY_LIMIT: "the day's limit of side API calls (sideDailyLimit) is reached"})
DAILY_LIMIT = Message(IMPROVE_DAILY_LIMIT)  # why a pass stopped there: English here, a code to the panel
MAX_SENT_CHARS = 300  # each text and each of the user's words, as sent
MAX_IMPROVED = 200  # an improved text: as long as a candidate may be

IMPROVE_SYSTEM = """下面是从用户过去和编程助手的会话里找出的候选长期记忆：每条有编号、当前措辞、建议的分组、说过它的仓库，以及用户的原话（已去掉代码和日志，密钥已隐去）。

为每条写出一条简洁、自包含、长期有效的记忆正文：脱离对话也能读懂，保留原话中的名称、路径、标识符和数值，不增加原话没有的信息，不写「用户说」之类的转述，用原话的语言，6 到 200 个字。
并给出分组：rule = 偏好、规范、约定（每个会话都该遵守）；project = 某个仓库的项目事实和查阅信息（开关、目录、地址、约定）。

只输出一个 JSON 对象，不要任何其它文字：
{"items": [{"id": 编号, "text": "记忆正文", "group": "rule" 或 "project"}]}"""


@dataclass(frozen=True)
class Plan:
    """What an improvement would do: `calls` calls for the first `covered` of `candidates`."""

    candidates: int
    calls: int
    covered: int
    endpoint: judge.Endpoint | None
    missing: str | None  # why there is no side API, when there is none

    def as_json(self) -> dict[str, Any]:
        return {
            "candidates": self.candidates,
            "calls": self.calls,
            "covered": self.covered,
            "side_api": self.endpoint.base if self.endpoint else None,
            "model": self.endpoint.model if self.endpoint else None,
            "missing": self.missing,
        }


def plan(count: int, config: config_mod.Config | None = None) -> Plan:
    """How many calls improving `count` candidates takes; none without a side API (`missing`
    then says what is not set). Reads the key from the keyring: off the UI thread."""
    from ..learning.learn import configured_endpoint

    config = config or config_mod.load()
    try:
        endpoint = configured_endpoint(config)
    except judge.JudgeError as exc:
        return Plan(count, 0, 0, None, str(exc))
    calls = min(MAX_CALLS, int(config["sideDailyLimit"]), math.ceil(count / BATCH))
    return Plan(count, calls, min(count, calls * BATCH), endpoint, None)


def request(batch: Sequence[dict[str, Any]]) -> str:
    """What one call sends: the batch's candidates, numbered from 1, every string redacted and cut."""

    def sent(text: str) -> str:
        return redact_secrets(text)[:MAX_SENT_CHARS]

    items = [
        {
            "id": number,
            "text": sent(c["text"]),
            "group": c["category"],
            "repositories": [sent(r) for r in c["evidence"]["repositories"]],
            "words": [sent(w) for w in c["evidence"]["words"]],
        }
        for number, c in enumerate(batch, 1)
    ]
    return json.dumps(items, ensure_ascii=False, indent=1)


def improvements(content: str, batch: Sequence[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The usable answers, by the candidate's place in the batch; whatever is not usable is left out."""
    data = judge.parse_object(content)
    items = data.get("items") if data else None
    found: dict[int, dict[str, Any]] = {}
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        number, text, group = item.get("id"), item.get("text"), item.get("group")
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(batch):
            continue
        if group not in ("rule", "project") or not isinstance(text, str):
            continue
        text = " ".join(memory_text.remove_unsafe(text).split())
        if len(text) > MAX_IMPROVED or any(mark in text for mark in REDACTED):
            continue
        try:
            text = memory_text.check_text(text)
        except InvalidInput:
            continue
        candidate = batch[number - 1]
        repos = candidate["evidence"]["repositories"]
        scope = repos[0] if group == "project" and len(repos) == 1 else "global"
        if (text, group) != (candidate["text"], candidate["category"]):
            found[number - 1] = {"text": text, "category": group, "scope": scope}
    return found


def improve(
    candidates: list[dict[str, Any]],
    planned: Plan,
    step: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    count: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Ask the side model about the first `planned.covered` candidates, `planned.calls` calls at
    most; each usable answer is set as the candidate's `improved` (the list is changed in place).
    `step(calls made, calls)` before each call; `cancelled()` between calls raises Cancelled
    (what came back before stays). A request the endpoint refuses (400, 413, 422) leaves its
    batch as it was and the next goes on; any other failure stops the pass, said in `stopped`.
    `count()` before each call counts it in the day's side API calls (the `side_call` operation);
    False, the day's limit is reached: the pass stops there."""
    import asyncio

    import httpx

    endpoint = planned.endpoint
    if endpoint is None or planned.calls == 0:
        return {"calls": 0, "improved": 0, "stopped": planned.missing}
    batches = [candidates[i : i + BATCH] for i in range(0, planned.covered, BATCH)][: planned.calls]
    made = 0
    improved = 0
    stopped: str | None = None

    async def ask(client: httpx.AsyncClient, batch: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
        return improvements(await judge.chat(client, endpoint, IMPROVE_SYSTEM, request(batch)), batch)

    async def run() -> None:
        nonlocal made, improved, stopped
        async with httpx.AsyncClient() as client:
            for batch in batches:
                if cancelled is not None and cancelled():
                    raise Cancelled
                if step is not None:
                    step(made, len(batches))
                if count is not None and not count():
                    stopped = DAILY_LIMIT
                    return
                made += 1
                try:
                    answers = await ask(client, batch)
                except judge.JudgeError as exc:
                    if exc.refused_this_request:
                        continue
                    stopped = str(exc)
                    return
                for index, better in answers.items():
                    batch[index]["improved"] = better
                    improved += 1

    asyncio.run(run())
    return {"calls": made, "improved": improved, "stopped": stopped}


# -- the review's two wordings ---------------------------------------------------------------------
WORDING = ("text", "category", "scope")


def proposed(candidate: dict[str, Any]) -> dict[str, Any]:
    """The candidate as the review first shows it: the improved wording (and group), when there
    is one, with the scan's own kept as `original`, so the user can go back to it."""
    item = dict(candidate)
    better = candidate.get("improved")
    if isinstance(better, dict):
        item["original"] = {key: candidate[key] for key in WORDING}
        item.update({key: better[key] for key in WORDING})
    return item


def other_wording(item: dict[str, Any]) -> bool:
    """Between the improved wording and the scan's own, in place; False when there is one only."""
    if "original" not in item or "improved" not in item:
        return False
    now = {key: item[key] for key in WORDING}
    back = item["improved"] if now == item["original"] else item["original"]
    item.update({key: back[key] for key in WORDING})
    return True


def uses_improved(item: dict[str, Any]) -> bool:
    better = item.get("improved")
    return isinstance(better, dict) and item["text"] == better["text"]
