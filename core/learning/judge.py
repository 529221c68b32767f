"""The two calls to the user's OpenAI-compatible endpoint: judge, then decide.

Contract (any compatible model, or a test server, can play the judge):
- judging answers {"remember": true|false, "text": "…", "category": "rule"|"project"};
- deciding answers {"action": "create"|"reinforce"|"merge"|"replace", "target": "<id or null>",
  "text": "<merged or replacing text, or null>"}.
An answer that is not JSON (JSON inside a code fence is fine) means "do not remember".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..privacy.redaction import redact_secrets

if TYPE_CHECKING:  # httpx (`service_rss_mb`, `service_ready_s`) is imported by the first call to the side API
    import httpx

JUDGE_SYSTEM = """你是一个长期记忆的判别器。用户正在和编程助手对话，你只看到用户当前这一句话（已去掉代码和日志，密钥已隐去）。判断这句话是否包含值得跨会话长期保存的内容。

应当记住（remember=true）：
- 跨任务都适用的偏好和工作规范（例如「回答用中文」「改完代码不要自动 commit」「提交信息用英文」）；
- 长期查阅的信息：文档、链接、仓库、目录、开关、账号等（例如「支付页新流程的灰度开关是 pay_new_flow_v2」）；
- 跨项目通用的技术选型结论。
- 用户明确说「记住」「记一下」时，一律记住，不受下面的限制。

不要记住（remember=false），无论说得多肯定：
- 只在当前任务里成立的内容：方案讨论和分析；
- 对某个功能、工具或产品提的需求（包括对这个记忆插件本身怎么判别、分组、显示的要求）；
- 实验、训练、数据处理里的参数、阶段结论和标注口径；
- 单个 bug、需求或 MR 的细节；为当前任务交代的背景；
- 假设和提问；对话内的澄清；带期限的安排。

如果要记住，写出记忆正文：必须自包含，脱离这段对话也能读懂（说明它是关于什么的），6 到 400 个字，保留原话中的名称、链接和标识符。
分组：rule = 偏好、规范、约定（每个会话都该遵守）；project = 项目事实和查阅信息（相关时才需要）。
范围（只对 project）：消息开头会给出当前仓库名。只属于这个仓库的事实（它的开关、目录、地址、约定）scope = "repo"；跨项目通用的决定和结论（技术选型、工具用法）scope = "global"。

只输出一个 JSON 对象，不要任何其它文字：
{"remember": true 或 false, "text": "记忆正文或空字符串", "category": "rule" 或 "project", "scope": "repo" 或 "global"}"""

LESSON_SYSTEM = """你是一个长期记忆的判别器。编程助手刚结束一轮工作，你看到用户这一轮说的话和助手的最后回复（都已去掉代码和日志，密钥已隐去）。判断这一轮是否查明了以后在这个仓库里还用得上的经验。

应当记住（remember=true），只限这几类：
- 一个确切的报错和它的原因、修法（例如「订单同步报 KeyError: 'user_id' 时，是上游 webhook 少了 user_id，在 sync.py 里用 customer_id 补上」）；
- 这一轮定下的决定（例如「支付回调统一走 /api/v2/callback，旧接口下个版本删除」）；
- 本仓库的坑：看起来该这样、其实要那样的地方。

不要记住（remember=false）：没有查明结论的尝试、只对这一处代码成立的改动说明、一般性的知识、助手自己的计划和总结、用户的偏好（那由别处处理）。拿不准时不要记住。

如果要记住，写出记忆正文：自包含，脱离对话也能读懂，6 到 400 个字，保留报错原文和名称、路径、标识符。

只输出一个 JSON 对象，不要任何其它文字：
{"remember": true 或 false, "text": "记忆正文或空字符串", "category": "project", "scope": "repo" 或 "global"}"""

DECIDE_SYSTEM = """你负责把一条新记忆与已有的相近记忆对比，决定怎么落库。
- create：与已有记忆都不是同一件事，新建；
- reinforce：已有某条记忆说的就是这件事，新说法没有新增信息，只强化它（target 为它的 id，text 为 null）；
- merge：与某条已有记忆是同一件事，新说法补充了信息，合并成一条（target 为它的 id，text 为合并后的完整正文，自包含，6 到 400 个字）；
- replace：新说法与某条已有记忆冲突（例如值变了、规则反过来了），用新正文整条替换（target 为它的 id，text 为替换后的正文）。

只输出一个 JSON 对象，不要任何其它文字：
{"action": "create" 或 "reinforce" 或 "merge" 或 "replace", "target": "记忆 id 或 null", "text": "正文或 null"}"""

_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


class JudgeError(Exception):
    """The endpoint failed (timeout, HTTP error, unusable body). Nothing is written.
    status: the HTTP status when the endpoint answered with an error."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def refused_this_request(self) -> bool:
        """The endpoint refused this request itself (a bad or filtered body), not all requests."""
        return self.status in (400, 413, 422)


@dataclass(frozen=True)
class Verdict:
    remember: bool
    text: str
    category: str
    scope: str = "repo"  # project facts: "repo" (this repository's) or "global"


@dataclass(frozen=True)
class Decision:
    action: str
    target: str | None
    text: str | None


@dataclass(frozen=True)
class Endpoint:
    base: str
    model: str
    key: str
    timeout_s: float = 30.0


def parse_object(content: str) -> dict[str, Any] | None:
    """The JSON object in a model's answer, bare or fenced; None when there is none."""
    text = content.strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def verdict_from(content: str) -> Verdict:
    data = parse_object(content)
    if not data or data.get("remember") is not True:
        return Verdict(False, "", "rule")
    text = data.get("text")
    category = data.get("category")
    if not isinstance(text, str) or not text.strip():
        return Verdict(False, "", "rule")
    scope = "global" if data.get("scope") == "global" else "repo"
    return Verdict(True, text.strip(), category if category in ("rule", "project") else "rule", scope)


def decision_from(content: str, candidates: list[str]) -> Decision:
    """A malformed or impossible decision falls back to create: nothing existing is touched."""
    data = parse_object(content) or {}
    action = data.get("action")
    target = data.get("target")
    text = data.get("text")
    if action not in ("create", "reinforce", "merge", "replace"):
        return Decision("create", None, None)
    if action == "create":
        return Decision("create", None, None)
    if not isinstance(target, str) or target not in candidates:
        return Decision("create", None, None)
    if action in ("merge", "replace") and not (isinstance(text, str) and text.strip()):
        return Decision("create", None, None)
    return Decision(
        str(action), target, text.strip() if isinstance(text, str) and action != "reinforce" else None
    )


async def chat(client: httpx.AsyncClient, endpoint: Endpoint, system: str, user: str) -> str:
    import httpx

    url = endpoint.base.rstrip("/") + "/chat/completions"
    body = {
        "model": endpoint.model,
        "temperature": 0,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }
    headers = {"Authorization": f"Bearer {endpoint.key}"}
    try:
        response = await client.post(url, json=body, headers=headers, timeout=endpoint.timeout_s)
    except httpx.TimeoutException as exc:
        raise JudgeError(f"the side API did not answer within {endpoint.timeout_s:g} s") from exc
    except httpx.HTTPError as exc:
        raise JudgeError(f"the side API could not be reached: {exc.__class__.__name__}") from exc
    if response.status_code == 429:
        raise JudgeError("the side API is rate limiting (429)")
    if response.status_code >= 400:
        raise JudgeError(f"the side API answered HTTP {response.status_code}", response.status_code)
    try:
        content = response.json()["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise JudgeError("the side API's answer is not a chat/completions response") from exc
    return str(content or "")


async def judge(
    client: httpx.AsyncClient,
    endpoint: Endpoint,
    words: str,
    context: str | None = None,
    repo_name: str | None = None,
) -> Verdict:
    """Everything sent is redacted here, whatever the caller did (redacting twice is harmless).
    repo_name: the session's repository, so a fact of it can be told from a global decision."""
    words = redact_secrets(words)
    user = (
        words
        if not context
        else f"（上一条助手回复，仅供理解指代）\n{redact_secrets(context)}\n\n（用户这一句）\n{words}"
    )
    if repo_name:
        user = f"（当前仓库：{redact_secrets(repo_name)}）\n{user}"
    return verdict_from(await chat(client, endpoint, JUDGE_SYSTEM, user))


async def lesson(
    client: httpx.AsyncClient,
    endpoint: Endpoint,
    words: str,
    answer: str,
    repo_name: str | None = None,
) -> Verdict:
    """What a finished turn taught, from the user's words and the assistant's last answer (both
    redacted here); always a project fact."""
    user = f"（用户这一轮说的）\n{redact_secrets(words)}\n\n（助手的最后回复）\n{redact_secrets(answer)}"
    if repo_name:
        user = f"（当前仓库：{redact_secrets(repo_name)}）\n{user}"
    found = verdict_from(await chat(client, endpoint, LESSON_SYSTEM, user))
    return Verdict(found.remember, found.text, "project", found.scope)


async def decide(
    client: httpx.AsyncClient, endpoint: Endpoint, new_text: str, nearest: list[tuple[str, str]]
) -> Decision:
    """The stored memories compared with are redacted like the user's words: a secret the user
    kept in a memory stays on the machine (a merged or replacing text then holds the marker)."""
    listing = "\n".join(f"- id={memory_id}: {redact_secrets(text)}" for memory_id, text in nearest)
    user = f"新记忆：{redact_secrets(new_text)}\n\n已有的相近记忆：\n{listing}"
    return decision_from(await chat(client, endpoint, DECIDE_SYSTEM, user), [i for i, _ in nearest])
