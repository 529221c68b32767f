"""A user's history as their clients keep it on disk: session transcripts in Claude Code's,
the CodeBuddy Code CLI's and Cursor's real formats, and the CodeBuddy IDE's conversation folders
(`write_codebuddy_ide`, not part of `realistic`), for `memevo backfill`.

`realistic(home, repos)` writes 36 sessions over six weeks in three repositories: eight lasting
preferences (`PREFERENCES`), each said in two to five sessions in changing words and both
languages, two project facts said again, and many one-off task instructions, some of which
look durable (「这次先别提交」, "from now on in this file …"). The assistant's rows repeat a
preference-like sentence too (never the user's words), and the transcripts carry the rows that
are not the user's typing: tool results, slash commands, meta and subagent rows.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from pathlib import Path
from typing import Any

# (what a memory of it would say, the user's wordings across sessions)
PREFERENCES: list[tuple[str, list[str]]] = [
    ("回答用中文", ["以后回答都用中文。", "记住，回答一律用中文", "请用中文回答我，以后都这样。"]),
    (
        "don't commit automatically",
        [
            "Never commit automatically, I'll commit myself.",
            "Don't commit automatically, I always commit myself.",
            "again: never commit automatically.",
        ],
    ),
    (
        "commit messages in English",
        ["提交信息一律用英文写。", "commit message 以后都用英文写", "记住提交信息用英文"],
    ),
    (
        "run pytest -q before saying done",
        [
            "Always run pytest -q before you say it's done.",
            "always run pytest -q before telling me it's done",
        ],
    ),
    (
        "use pnpm, not npm",
        ["这个项目以后都用 pnpm，不要用 npm。", "别再用 npm 了，我们统一用 pnpm", "记住用 pnpm 不要用 npm"],
    ),
    ("4-space indentation", ["Python 代码一律用 4 个空格缩进。", "缩进统一用 4 个空格，别用 tab"]),
    ("no emojis in replies", ["Never put emojis in your replies.", "no emojis in replies, please, always."]),
    ("ask before deleting files", ["删除文件之前一定要先问我。以后都这样。", "以后删文件前先问我"]),
]
FACTS: list[tuple[str, list[str], str]] = [
    (
        "pay_new_flow_v2",
        ["支付页新流程的灰度开关是 pay_new_flow_v2。", "记住支付页新流程的灰度开关是 pay_new_flow_v2"],
        "shop",
    ),
    (
        "staging-db-02",
        [
            "The staging database is pg-staging-02, never write to it from tests.",
            "remember: staging db is pg-staging-02, never write to it from tests",
        ],
        "shop",
    ),
]
TASKS = [
    "帮我把这个函数改成 async 的",
    "这次先别提交，我看一下 diff",
    "fix the failing test in test_orders.py",
    "can you look at why the login page is slow",
    "把 README 里的安装步骤更新一下",
    "from now on in this file use dataclasses",
    "看一下这个报错：KeyError: 'user_id'",
    "rename getUser to fetchUser everywhere",
    "add a retry to the http client, 3 times",
    "这里的日志太多了，删掉一些",
    "let's split this module into two",
    "先跑一下测试看看",
    "write a migration that adds an index on orders.created_at",
    "这个接口返回 500，帮我查一下",
    "now add type hints to the new functions",
    "把这个常量挪到 config.py 里",
    "please check the CI logs for the flaky test",
    "以后这个函数就叫 load_orders 吧",
]
ASSISTANT = "I will always run the linter before committing, and never push to main."
SECRET = "my token is ghp_0123456789abcdefghijklmnopqrstuvwxyzAB, always use it for the API"


def make_repos(home: Path) -> dict[str, Path]:
    """The three repositories the history's sessions ran in, with their remotes, written as git
    would (no git process needed: memevo reads a repository's identity from its config)."""
    found = {}
    for name in ("shop", "blog", "infra"):
        repo = home / "code" / name
        (repo / ".git").mkdir(parents=True, exist_ok=True)
        (repo / ".git" / "config").write_text(
            f'[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:ann/{name}.git\n',
            encoding="utf-8",
        )
        found[name] = repo
    return found


def realistic(home: Path, repos: dict[str, Path], seed: int = 7) -> dict[str, Any]:
    """Write the history; returns what it holds (sessions written, the preferences)."""
    rng = random.Random(seed)
    names = sorted(repos)
    sessions: list[list[str]] = [[] for _ in range(36)]
    for _, wordings in PREFERENCES:
        for wording in wordings:
            sessions[rng.randrange(36)].append(wording)
    for _, wordings, _ in FACTS:
        for wording in wordings:
            sessions[rng.randrange(12)].append(wording)  # the first sessions: all in `shop` below
    for index, prompts in enumerate(sessions):
        for _ in range(rng.randint(3, 6)):
            prompts.insert(rng.randrange(len(prompts) + 1), rng.choice(TASKS))
        if index == 5:
            prompts.append(SECRET)
    for index, prompts in enumerate(sessions):
        repo = repos["shop"] if index < 12 else repos[names[index % len(names)]]
        day = f"2026-{10 + index // 30:02d}-{1 + index % 28:02d}"
        writer = (write_claude, write_codebuddy, write_cursor)[index % 3]
        writer(home, repo, f"s{index:02d}-{uuid.UUID(int=index).hex[:8]}", day, prompts)
    return {
        "sessions": len(sessions),
        "preferences": [p for p, _ in PREFERENCES],
        "facts": [f for f, _, _ in FACTS],
    }


def _folder(cwd: Path) -> str:
    return str(cwd).replace("/", "-")


def _lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def write_claude(home: Path, cwd: Path, session: str, day: str, prompts: list[str]) -> Path:
    """Claude Code: ~/.claude/projects/<cwd with / as ->/<session>.jsonl."""
    rows: list[dict[str, Any]] = [
        {"type": "summary", "summary": "work", "leafUuid": "x"},
        {
            "type": "user",
            "isMeta": True,
            "sessionId": session,
            "cwd": str(cwd),
            "message": {
                "role": "user",
                "content": "<local-command-caveat>Caveat: the messages below…</local-command-caveat>",
            },
            "timestamp": f"{day}T09:00:00.000Z",
        },
        _claude_user(session, cwd, day, "<command-name>/clear</command-name>"),
    ]
    for n, prompt in enumerate(prompts):
        rows.append(_claude_user(session, cwd, day, prompt, n))
        rows.append(
            {
                "type": "assistant",
                "sessionId": session,
                "cwd": str(cwd),
                "message": {"role": "assistant", "content": [{"type": "text", "text": ASSISTANT}]},
                "timestamp": f"{day}T09:{n:02d}:30.000Z",
            }
        )
        rows.append(
            {
                "type": "user",
                "sessionId": session,
                "cwd": str(cwd),
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": ASSISTANT}],
                },
                "timestamp": f"{day}T09:{n:02d}:40.000Z",
            }
        )
    rows.append(
        {**_claude_user(session, cwd, day, "以后回答都用中文。"), "isSidechain": True}
    )  # a subagent's
    path = home / ".claude" / "projects" / _folder(cwd) / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_lines(rows), encoding="utf-8")
    return path


def _claude_user(session: str, cwd: Path, day: str, text: str, n: int = 0) -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": str(cwd),
        "sessionId": session,
        "version": "2.1.3",
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": str(uuid.uuid4()),
        "timestamp": f"{day}T09:{n:02d}:00.000Z",
    }


def write_codebuddy(home: Path, cwd: Path, session: str, day: str, prompts: list[str]) -> Path:
    """The CodeBuddy Code CLI: ~/.codebuddy/projects/<cwd with / as ->/<session>.jsonl, agent items."""
    rows: list[dict[str, Any]] = []
    for n, prompt in enumerate(prompts):
        rows.append(
            {
                "id": str(uuid.uuid4()),
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": prompt}],
                "sessionId": session,
                "cwd": str(cwd),
                "timestamp": f"{day}T10:{n:02d}:00.000Z",
            }
        )
        rows.append(
            {
                "id": str(uuid.uuid4()),
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": ASSISTANT}],
                "sessionId": session,
                "timestamp": f"{day}T10:{n:02d}:30.000Z",
            }
        )
    rows.append(  # the CLI's own continuation after a Stop hook: never the user's words
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Stop hook: 以后回答都用中文"}],
            "sessionId": session,
        }
    )
    path = home / ".codebuddy" / "projects" / _folder(cwd) / f"{session}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_lines(rows), encoding="utf-8")
    return path


def write_cursor(home: Path, cwd: Path, session: str, day: str, prompts: list[str]) -> Path:
    """Cursor: ~/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl, the user's words in
    <user_query>. Cursor writes no cwd or time in the rows: the file's time is the day."""
    rows: list[dict[str, Any]] = []
    for prompt in prompts:
        text = f"<timestamp>{day}</timestamp>\n<user_query>\n{prompt}\n</user_query>"
        rows.append({"role": "user", "message": {"content": [{"type": "text", "text": text}]}})
        rows.append({"role": "assistant", "message": {"content": [{"type": "text", "text": ASSISTANT}]}})
        rows.append({"type": "turn_ended"})
    path = (
        home
        / ".cursor"
        / "projects"
        / _folder(cwd).strip("-")
        / "agent-transcripts"
        / session
        / f"{session}.jsonl"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_lines(rows), encoding="utf-8")
    return path


IDE_WRAPPING = (
    "<user_info>\nOS Version: linux\nShell: bash\nWorkspace Folder: {cwd}\n</user_info>\n"
    "<project_context>\n<project_layout>\n{cwd}/\n  README.md\n</project_layout>\n</project_context>\n"
    "<additional_data>\n<currently_opened_file>\nPath: {cwd}/README.md\n</currently_opened_file>\n"
    "</additional_data>\n<user_query>\n{prompt}\n</user_query>"
)


def ide_data(home: Path) -> Path:
    """Where the extension keeps its data on Linux when $XDG_CONFIG_HOME is not set."""
    return home / ".config" / "CodeBuddyExtension" / "Data"


def ide_conversation(session: str) -> str:
    """A conversation's id as the IDE writes them: 32 lower-case hex digits."""
    return hashlib.md5(session.encode("utf-8")).hexdigest()


def write_codebuddy_ide(
    home: Path,
    cwd: Path | str,
    session: str,
    day: str,
    prompts: list[str],
    data: Path | None = None,
    client: str = "CodeBuddyIDE",
) -> Path:
    """The CodeBuddy IDE (client "CodeBuddyIDE") or its VS Code plugin ("VSCode"):
    <Data>/<uid>/<client>/<uid>/history/<md5 of the workspace folder>/, with the workspace's
    index.json listing its conversations and <conversation>/index.json + messages/<id>.json,
    whose `message` is JSON in a string. The user's words come wrapped in <user_query> beside
    the IDE's own blocks; the assistant's messages and a tool result are there too."""
    uid = "a1b2c3d4e5f6"
    workspace = (
        (data or ide_data(home)) / uid / client / uid / "history" / hashlib.md5(str(cwd).encode()).hexdigest()
    )
    conversation = ide_conversation(session)
    folder = workspace / conversation
    (folder / "messages").mkdir(parents=True, exist_ok=True)
    listed: list[dict[str, str]] = []

    def message(role: str, body: dict[str, Any]) -> None:
        ident = uuid.uuid4().hex
        listed.append({"id": ident, "role": role, "type": "normal"})
        record = {"role": role, "message": json.dumps(body, ensure_ascii=False), "id": ident, "extra": "{}"}
        (folder / "messages" / f"{ident}.json").write_text(
            json.dumps(record, ensure_ascii=False), encoding="utf-8"
        )

    for prompt in prompts:
        wrapped = IDE_WRAPPING.format(cwd=cwd, prompt=prompt)
        message("user", {"role": "user", "content": [{"type": "text", "text": wrapped}]})
        message("assistant", {"role": "assistant", "content": ASSISTANT})
        message("user", {"role": "user", "content": [{"type": "tool_result", "content": ASSISTANT}]})
    (folder / "index.json").write_text(json.dumps({"messages": listed, "requests": []}), encoding="utf-8")
    index = workspace / "index.json"
    known = json.loads(index.read_text(encoding="utf-8")) if index.exists() else {"conversations": []}
    known["conversations"].append(
        {
            "id": conversation,
            "type": "chat",
            "name": prompts[0][:20] if prompts else "",
            "createdAt": f"{day}T08:00:00.000Z",
            "lastMessageAt": f"{day}T08:30:00.000Z",
        }
    )
    known["current"] = conversation
    index.write_text(json.dumps(known, ensure_ascii=False), encoding="utf-8")
    return folder


# what each preference and fact is known by in a candidate, in any of its wordings
KNOWN_BY: list[tuple[str, ...]] = [
    ("中文",),
    ("commit", "automatically"),
    ("英文",),
    ("pytest",),
    ("pnpm",),
    ("空格",),
    ("emoji",),
    ("删",),
]
FACTS_BY: list[tuple[str, ...]] = [("pay_new_flow_v2",), ("staging",)]


def score(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """Of `memevo backfill --json`'s candidates: how many preferences and facts it proposes, and
    how many candidates are neither (noise) or a second one of the same (duplicates)."""

    def matches(c: dict[str, Any], names: tuple[str, ...]) -> bool:
        return all(n.lower() in c["text"].lower() for n in names)

    wanted = KNOWN_BY + FACTS_BY
    hits = [sum(matches(c, names) for c in candidates) for names in wanted]
    noise = [c["text"] for c in candidates if not any(matches(c, names) for names in wanted)]
    return {
        "preferences": f"{sum(1 for h in hits[: len(KNOWN_BY)] if h)}/{len(KNOWN_BY)}",
        "facts": f"{sum(1 for h in hits[len(KNOWN_BY) :] if h)}/{len(FACTS_BY)}",
        "candidates": len(candidates),
        "duplicates": sum(max(0, h - 1) for h in hits),
        "noise": noise,
    }


if __name__ == "__main__":
    # python3 tests/history.py FOLDER [SEED]: a user's HOME with the history (and git repositories)
    # then: HOME=FOLDER MEMEVO_HOME=FOLDER/.memevo memevo backfill --json | python3 tests/history.py --score
    import sys

    if sys.argv[1] == "--score":
        print(json.dumps(score(json.load(sys.stdin)["candidates"]), ensure_ascii=False, indent=1))
        raise SystemExit(0)
    root = Path(sys.argv[1])
    found = make_repos(root)
    print(json.dumps(realistic(root, found, int(sys.argv[2]) if len(sys.argv) > 2 else 7)))
