"""The MCP server through the official SDK client over stdio, against a real service."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_service import FACT, RULES, _populate

pytestmark = pytest.mark.usefixtures("provisioned_model")
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mcp_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with servicerun.populated(tmp_path_factory.mktemp("mcp-home"), _populate) as home:
        yield home


async def _session_calls(
    home: Path, calls: list[tuple[str, dict[str, Any]]], client: str = "claude", browser: str = "true"
) -> tuple[list[str], list[Any]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memevo.cli", "mcp", "--client", client],
        # no CLAUDE_CODE_SESSION_ID: a server no client named a chat to (as when run by hand)
        env={k: v for k, v in os.environ.items() if k != "CLAUDE_CODE_SESSION_ID"}
        | {"MEMEVO_HOME": str(home), "BROWSER": browser},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        results = [await session.call_tool(name, args) for name, args in calls]
    return [t.name for t in tools.tools], results


def _run(
    home: Path, calls: list[tuple[str, dict[str, Any]]], client: str = "claude", browser: str = "true"
) -> tuple[list[str], list[Any]]:
    return asyncio.run(_session_calls(home, calls, client, browser))


def _text(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def test_open_says_so_when_no_browser_could_open_the_snapshot(mcp_home: Path, tmp_path: Path) -> None:
    """On a machine with no browser (`BROWSER` fails, as over SSH or in a container) the page
    is still written, and the answer says it was not opened instead of claiming it was."""
    _, (opened,) = _run(mcp_home, [("memory_list", {"open": True})], browser="false")
    page = mcp_home / "memories.html"
    assert page.exists() and f"已刷新 {page}" in _text(opened)
    assert "已刷新并打开" not in _text(opened) and "没有能打开它的浏览器" in _text(opened)
    seen = tmp_path / "seen-url"
    recorder = tmp_path / "browser.sh"
    recorder.write_text(f'#!/bin/sh\necho "$1" > {seen}\n', encoding="utf-8")
    recorder.chmod(0o700)
    _, (opened,) = _run(mcp_home, [("memory_list", {"open": True})], browser=f"{recorder} %s")
    assert "已刷新并打开" in _text(opened)
    assert seen.read_text(encoding="utf-8").strip() == f"file://{page}"


def test_exactly_eight_tools_with_their_schemas(mcp_home: Path) -> None:
    names, _ = _run(mcp_home, [])
    assert sorted(names) == [
        "memory_config",
        "memory_consolidate",
        "memory_list",
        "memory_propose",
        "memory_read",
        "memory_resolve",
        "memory_search",
        "memory_update",
    ]


def test_search_finds_by_meaning_with_ids_confidence_and_scope(mcp_home: Path) -> None:
    query = "支付页新流程的灰度开关叫什么"
    _, (found, rules_only, read) = _run(
        mcp_home,
        [
            ("memory_search", {"query": query}),
            ("memory_search", {"query": query, "category": "rule", "limit": 1}),
            ("memory_read", {"category": "project"}),
        ],
    )
    first = _text(found).splitlines()[0]
    assert first.startswith("#") and FACT in first and "置信度" in first and "范围 global" in first
    assert FACT not in _text(rules_only) and len(_text(rules_only).splitlines()) == 1
    assert "范围 global" in _text(read)


def test_list_read_and_open_the_snapshot(mcp_home: Path) -> None:
    _, (listed, read, opened) = _run(
        mcp_home,
        [("memory_list", {}), ("memory_read", {"category": "rule"}), ("memory_list", {"open": True})],
    )
    assert "rule: 2 条有效" in _text(listed)
    assert RULES[0] in _text(read) and FACT not in _text(read)
    page = mcp_home / "memories.html"
    assert "已刷新并打开" in _text(opened) and page.exists()
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert (
        RULES[0] in page.read_text(encoding="utf-8")
        and "http" not in page.read_text(encoding="utf-8").split("<body>")[1]
    )


def test_bad_input_comes_back_as_tool_errors(mcp_home: Path) -> None:
    _, results = _run(
        mcp_home,
        [
            ("memory_read", {"category": "nonsense"}),
            ("memory_update", {"action": "delete", "ids": ["nope1", "nope2"]}),
            ("memory_update", {"action": "replace", "id": "nope", "text": "足够长的新正文文字"}),
            ("memory_update", {"action": "merge", "id": "x"}),
            ("memory_resolve", {"sessionID": "nope", "decision": "discard"}),
            ("memory_config", {"key": "recallTopK", "value": 0}),
            ("memory_config", {"key": "noSuchKey", "value": 1}),
        ],
    )
    for result in results:
        assert result.is_error, _text(result)
    assert "unknown sessionID" in _text(results[4])


def test_update_and_config_change_nothing_the_user_did_not_confirm(mcp_home: Path) -> None:
    """memory_update proposes a rewrite (the user confirms it) and hands deletes and merges to the
    user as commands; memory_config changes only showRecall (tests/test_only_user_confirms.py
    covers each in detail)."""
    _, (read,) = _run(mcp_home, [("memory_read", {"category": "rule"})])
    ids = [line.split()[0].lstrip("#") for line in _text(read).splitlines() if line.startswith("#")]
    first, second = ids[0], ids[1]
    _, results = _run(
        mcp_home,
        [
            ("memory_update", {"action": "replace", "id": first, "text": "短"}),
            ("memory_update", {"action": "replace", "id": first, "text": "回答问题一律使用简体中文"}),
            (
                "memory_update",
                {
                    "action": "merge",
                    "id": first,
                    "id2": second,
                    "text": "回答问题一律使用简体中文，改完代码等我确认再提交",
                },
            ),
            ("memory_update", {"action": "delete", "ids": [first, "missing-id"]}),
            ("memory_config", {"key": "recallTopK", "value": "4"}),
            ("memory_config", {}),
        ],
    )
    assert results[0].is_error  # out of range: nothing proposed
    # a proposal; no prompt of this client was seen, so its chat is not known: it waits for
    # `memevo pending`, never asked in a chat no reply could answer
    assert "memevo pending accept" in _text(results[1]) and not results[1].is_error, _text(results[1])
    assert "MEMORY_CONFIRM_V1" not in _text(results[1])
    assert results[2].is_error and "没有改动任何记忆" in _text(results[2])
    assert results[3].is_error and f"memevo delete {first} missing-id" in _text(results[3])
    assert results[4].is_error and "memevo config recallTopK" in _text(results[4])
    assert json.loads(_text(results[5]))["recallTopK"] == 3
    assert (
        not (mcp_home / "config.json").exists()
        or json.loads((mcp_home / "config.json").read_text(encoding="utf-8")) == {}
    )
    _, (after,) = _run(mcp_home, [("memory_read", {"category": "rule"})])
    assert _text(after) == _text(read)  # nothing deleted, merged or rewritten


def test_snapshot_escapes_memory_text(data_dir: Path, clock) -> None:  # type: ignore[no-untyped-def]
    from memevo.core.memories import html_page as snapshot
    from memevo.core.memories import live as memories
    from memevo.core.store.database import Store

    with Store.open() as store:
        memories.create(store, "project", "<script>alert(1)</script> 是一条测试记忆", clock)
        (data_dir / "memories.md").write_text("old", encoding="utf-8")
        page = snapshot.write(store).read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert not (data_dir / "memories.md").exists()


def test_the_skill_file() -> None:
    skill = REPO / "resources" / "skills" / "memory-self-evolution-manage" / "SKILL.md"
    text = skill.read_text(encoding="utf-8")
    front = text.split("---")[1]
    assert "name: memory-self-evolution-manage" in front and "description:" in front
    assert "open=true" in text
    # every tool the server offers is in the skill, but those the hooks' own turns use
    offered = set(
        re.findall(r"def (memory_\w+)\(", (REPO / "mcpserver" / "server.py").read_text(encoding="utf-8"))
    )
    internal = {"memory_resolve", "memory_propose", "memory_config"}  # hook answers; settings
    assert {"memory_list", "memory_search", "memory_consolidate"} <= offered
    assert sorted(tool for tool in offered - internal if f"`{tool}`" not in text) == []


# -- memory_propose: the client's own model proposes (no side API in this home) -----------------------------
def _config(home: Path, *args: str) -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "memevo.cli", "config", *args],
        env=os.environ | {"MEMEVO_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr


def _pending(home: Path) -> list[dict[str, Any]]:
    """`memevo pending --json`: what waits for the user."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "memevo.cli", "pending", "--json"],
        env=os.environ | {"MEMEVO_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout)["pending"])


PROPOSAL = {
    "text": "提交信息（commit message）一律用英文写",
    "category": "rule",
    "words": "以后提交信息都用英文写",
}


def test_a_proposal_waits_for_the_user_and_the_model_cannot_answer_it(mcp_home: Path) -> None:
    """Headless, confirm on: nothing is written until the user answers; with no chat of this
    client seen (no prompt hook ran) it is not asked in a chat but left for `memevo pending`,
    and the model can neither answer it with memory_resolve nor switch confirmation off
    (tests/test_only_user_confirms.py has the user's reply in the chat landing it)."""
    _, (asked, refused) = _run(
        mcp_home, [("memory_propose", PROPOSAL), ("memory_config", {"key": "confirm", "value": False})]
    )
    text = _text(asked)
    assert "memevo pending accept" in text and not asked.is_error, text
    assert "MEMORY_CONFIRM_V1" not in text
    assert refused.is_error and "memevo config confirm" in _text(refused)
    [session] = [p["sessionID"] for p in _pending(mcp_home) if p["text"] == PROPOSAL["text"]]
    _, (again, resolved, read) = _run(
        mcp_home,
        [
            ("memory_propose", PROPOSAL),  # another MCP process: another session, its own proposal
            ("memory_resolve", {"sessionID": session, "decision": "create_rule"}),
            ("memory_read", {"category": "rule"}),
        ],
    )
    assert "memevo pending accept" in _text(again)
    assert resolved.is_error and "只能由用户自己确认" in _text(resolved), _text(resolved)
    assert PROPOSAL["text"] not in _text(read)


def test_a_flood_from_several_mcp_servers_stays_within_the_caps(mcp_home: Path) -> None:
    """Three MCP server processes (three sessions) propose ten memories each, at once: each
    session gets its cap, all of them together the day's cap, the rest a refusal."""
    _config(mcp_home, "proposalsPerSession", "3")
    status = servicerun.ping(mcp_home)
    assert status is not None
    before = status["learning"]["proposals_today"]
    _config(mcp_home, "proposalsPerDay", str(before + 7))

    async def flood(index: int) -> list[Any]:
        calls = [
            (
                "memory_propose",
                PROPOSAL | {"text": f"第 {index}-{n} 条：部署前先在 staging 环境跑第 {n} 组冒烟测试"},
            )
            for n in range(10)
        ]
        return (await _session_calls(mcp_home, calls))[1]

    async def all_of_them() -> list[list[Any]]:
        return list(await asyncio.gather(*(flood(i) for i in range(3))))

    try:
        results = asyncio.run(all_of_them())
    finally:
        _config(mcp_home, "--unset", "proposalsPerSession")
        _config(mcp_home, "--unset", "proposalsPerDay")
    queued = [[not r.is_error for r in session] for session in results]
    assert all(sum(session) <= 3 for session in queued), queued
    assert sum(map(sum, queued)) == 7, queued  # 3 + 3 + 1, whichever session came last
    refusals = [_text(r) for session in results for r in session if r.is_error]
    assert refusals and all("上限" in t for t in refusals), refusals[:3]
