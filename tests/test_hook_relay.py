"""The relay hook: the hook sends stdin's bytes, the client's adapter runs in the service
(core/service/relay.py), the hook prints what comes back. Its output is byte for byte what the hook
answers on its own; anything wrong with the relay (an older or stale service, garbage, a service
that dies or hangs mid-request) ends in the hook's own answer, within the same deadline, exit 0."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from deadlines import HANG_S
from hookgolden import CASES, CLAUDE_ROWS, CURSOR_ROWS, REPLY, write_transcript
from hookrun import HOOK, MALFORMED_STDIN, FakeService, run_hook


def _log_lines(data_dir: Path) -> list[str]:
    """hooks.log without timestamps (or timings)."""
    path = data_dir / "logs" / "hooks.log"
    if not path.exists():
        return []
    lines = [line.split(" ", 2)[2] for line in path.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if " took " not in line]


def _asked(service: FakeService) -> list[tuple[str, dict[str, Any]]]:
    return [(r["op"], r["params"]) for r in service.requests]


def _both_ways(
    data_dir: Path,
    client: str,
    event: str,
    stdin: bytes | str,
    reply: dict[str, Any],
    relays: bool | None = True,
    **kw: Any,
) -> tuple[Any, ...]:
    """(relayed, alone): each (stdout, requests, log lines), against the same fake service.
    relays: whether the relayed run went through hook_relay once (None: not checked)."""
    out = []
    for relay in (True, False):
        log = data_dir / "logs" / "hooks.log"
        if log.exists():
            log.unlink()
        service = FakeService(data_dir, reply, relay=relay)
        try:
            result = run_hook(client, event, stdin, **kw)
        finally:
            service.close()
        assert result.returncode == 0 and result.stderr == b""
        if relays is not None:
            assert service.relayed == (1 if relay and relays else 0)
        out.append((result.stdout, _asked(service), _log_lines(data_dir)))
    return tuple(out)


@pytest.mark.parametrize(
    ("client", "event", "payload", "expected", "stdout"), CASES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_relayed_output_is_byte_identical_to_the_hook_alone(
    data_dir: Path, client: str, event: str, payload: dict, expected: dict, stdout: dict | None
) -> None:
    relayed, alone = _both_ways(data_dir, client, event, json.dumps(payload, ensure_ascii=False), REPLY)
    assert relayed == alone
    assert relayed[0] == (json.dumps(stdout, ensure_ascii=False).encode() if stdout else b"")


@pytest.mark.parametrize(
    ("client", "event", "payload", "env"),
    [
        ("claude", "UserPromptSubmit", {"session_id": "s", "prompt": "x"}, {"CURSOR_VERSION": "2.1.0"}),
        ("claude", "UserPromptSubmit", {"session_id": "s", "prompt": "x", "cursor_version": "2"}, {}),
        (
            "cursor",
            "beforeSubmitPrompt",
            {"conversation_id": "c", "prompt": "x"},
            {"CURSOR_VERSION": "2.1.0"},
        ),
        ("claude", "UserPromptSubmit", {"session_id": "s", "prompt": "MEMORY_CONFIRM_V1 好"}, {}),
        ("claude", "UserPromptSubmit", {"session_id": "s", "prompt": "/review 支付页"}, {}),
        (
            "claude",
            "PreToolUse",
            {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}},
            {},
        ),
        ("claude", "PreToolUse", {"session_id": "s"}, {}),  # not a tool call: nothing asked
        ("cursor", "beforeShellExecution", {"conversation_id": "c", "command": "  "}, {}),
        ("cursor", "stop", {"conversation_id": "c", "status": "error"}, {}),
        ("claude", "Notification", {"session_id": "s"}, {}),  # unknown: the hook alone, both times
        ("claude", "Anything", {"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "x"}, {}),
        ("nosuchclient", "Stop", {"session_id": "s"}, {}),
    ],
)
def test_environment_silence_and_odd_events_match(
    data_dir: Path, client: str, event: str, payload: dict, env: dict[str, str]
) -> None:
    stdin = json.dumps(payload, ensure_ascii=False)
    for reply in (REPLY, {"context": None}):
        relayed, alone = _both_ways(data_dir, client, event, stdin, reply, relays=None, env=env)
        assert relayed == alone


def test_the_previous_answer_is_read_from_the_transcripts_as_before(data_dir: Path, tmp_path: Path) -> None:
    claude = write_transcript(tmp_path / "claude.jsonl", CLAUDE_ROWS)
    cursor = write_transcript(tmp_path / "cursor.jsonl", CURSOR_ROWS)
    reply = {"context": "继续", "notice": "N"}
    for client, event, payload, env in (
        ("claude", "Stop", {"session_id": "s", "transcript_path": claude}, {}),
        ("cursor", "stop", {"conversation_id": "c"}, {"CURSOR_TRANSCRIPT_PATH": cursor}),
        ("codebuddy", "Stop", {"session_id": "s", "transcript_path": claude, "client": "cli"}, {}),
        ("workbuddy", "Stop", {"session_id": "s", "last_assistant_message": "x" * 9000}, {}),
    ):
        relayed, alone = _both_ways(data_dir, client, event, json.dumps(payload), reply, env=env)
        assert relayed == alone
        assert relayed[1][0][1]["last_assistant_message"]


def test_a_transcript_path_relative_to_the_hooks_folder(data_dir: Path, tmp_path: Path) -> None:
    """The service runs in another folder: a relative path is the hook's, as when it read it."""
    write_transcript(tmp_path / "session.jsonl", CLAUDE_ROWS)
    service = FakeService(data_dir, {"context": None})
    try:
        subprocess.run(
            [sys.executable, "-I", "-S", str(HOOK), "claude", "Stop"],
            input=json.dumps({"session_id": "s", "transcript_path": "session.jsonl"}).encode(),
            capture_output=True,
            cwd=tmp_path,
            timeout=HANG_S,
        )
    finally:
        service.close()
    assert service.relayed == 1
    assert (
        service.requests[0]["params"]["last_assistant_message"] == "开关叫 pay_new_flow_v2，在测试环境打开。"
    )


@pytest.mark.parametrize(
    "stdin",
    [
        *MALFORMED_STDIN.values(),
        b'{"a": 1} {"b": 2}',
        b"banner from a shell profile\r\n" + json.dumps({"session_id": "s", "prompt": "你好"}).encode(),
        b"\xef\xbb\xbf" + json.dumps({"session_id": "s", "prompt": "你好"}).encode(),
        b"[" * 100_000,
    ],
)
def test_garbage_payloads_log_and_print_the_same(data_dir: Path, stdin: bytes) -> None:
    relayed, alone = _both_ways(data_dir, "claude", "UserPromptSubmit", stdin, {"context": "有内容"})
    assert relayed == alone
    assert relayed[2] or stdin.startswith(b"\xef\xbb\xbf")  # the reason, in hooks.log either way


# -- services that do not answer the relay as they should ------------------------------------------------
class Scripted:
    """Answers hook_* as FakeService does (recorded); each hook_relay goes to `on_relay`."""

    def __init__(
        self,
        data_dir: Path,
        on_relay: Callable[[socket.socket, dict[str, Any]], None],
        reply: dict[str, Any] | None = None,
        tcp: bool = False,
        other: bytes | None = None,
    ) -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        self.on_relay, self.reply = on_relay, reply or REPLY
        self.other = other or (json.dumps({"v": 1, "ok": True, "result": self.reply}) + "\n").encode()
        self.requests: list[dict[str, Any]] = []
        self.relays = 0
        self.token = "f00d" * 12 if tcp else None
        if tcp:
            self.sock = socket.create_server(("127.0.0.1", 0))
            port = self.sock.getsockname()[1]
            endpoint = {"port": port, "token": self.token, "pid": os.getpid()}
            (data_dir / "service-endpoint.json").write_text(json.dumps(endpoint) + "\n", encoding="utf-8")
        else:
            self.path = data_dir / "memevo.sock"
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(str(self.path))
            self.sock.listen(16)
        self.tcp = tcp
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(10)
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
            request = json.loads(data)
            assert request.get("token") == self.token
            if request["op"] == "hook_relay":
                self.relays += 1
                self.on_relay(conn, request)
            else:
                self.requests.append(request)
                conn.sendall(self.other)
            conn.close()

    def close(self) -> None:
        self.stopping.set()
        self.sock.close()
        self.thread.join(5)
        if not self.tcp:
            self.path.unlink(missing_ok=True)


def _relay_answer(conn: socket.socket, request: dict[str, Any], reply: dict[str, Any]) -> None:
    from memevo.core.service import relay

    result = relay.answer(lambda op, params: reply, request["params"])
    conn.sendall((json.dumps({"v": 1, "ok": True, "result": result}) + "\n").encode())


PROMPT = json.dumps({"session_id": "s", "prompt_id": "p", "prompt": "帮我看看支付页"}, ensure_ascii=False)
EXPECTED = json.dumps(
    {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": REPLY["context"]},
        # showRecall's block and memevo's word on an answer it carried out, both for the user
        "systemMessage": f"{REPLY['system_message']}\n\n{REPLY['user_notice']}",
    },
    ensure_ascii=False,
).encode()


@pytest.mark.parametrize(
    "answer",
    [
        b"garbage\n",
        b"\xff\xfe\x00\n",
        b'{"v": 1, "ok": true, "result": {"relay": "1:prompt:zz:"}}\n',
        b'{"v": 1, "ok": true, "result": {"relay": "2:prompt::"}}\n',
        b'{"v": 1, "ok": true, "result": {"relay": "1:prompt:7b7d"}}\n',
        b'{"v": 1, "ok": true, "result": {"relay": "1:prompt:7b7d::"}}\n',
        b'{"v": 1, "ok": true, "result": {"relay": "1:prompt:7b7d:ff"}}\n',  # a log line not UTF-8
        b'{"v": 1, "ok": true, "result": {"relay": "1:prompt:7b',  # cut, no newline
        b'{"v": 1, "ok": true, "result": {"context": "an old service"}}\n',
        b'{"v": 1, "ok": false, "code": "InvalidInput", "error": "unknown op \\"relay\\": \\"1:x:7b7d:\\""}\n',
        b"",  # closed without a word
    ],
)
def test_a_garbled_relay_answer_ends_in_the_hooks_own_answer(data_dir: Path, answer: bytes) -> None:
    service = Scripted(data_dir, lambda conn, request: conn.sendall(answer))
    try:
        result = run_hook("claude", "UserPromptSubmit", PROMPT)
    finally:
        service.close()
    assert (result.returncode, result.stderr) == (0, b"")
    assert service.relays == 1 and [r["op"] for r in service.requests] == ["hook_prompt"]
    assert result.stdout == EXPECTED


def test_the_relay_over_loopback_tcp_with_the_token(data_dir: Path) -> None:
    service = Scripted(data_dir, lambda conn, request: _relay_answer(conn, request, REPLY), tcp=True)
    try:
        result = run_hook("claude", "UserPromptSubmit", PROMPT, env={"MEMEVO_TRANSPORT": "tcp"})
    finally:
        service.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, EXPECTED, b"")
    assert service.relays == 1 and service.requests == []


def test_a_service_that_dies_mid_request_leaves_the_cached_answer(data_dir: Path) -> None:
    """It read the request and went away (socket and all): the hook falls back as when it found
    no service — the cached text, and a new service started (here: one was just started)."""
    (data_dir / "cache").mkdir(parents=True)
    (data_dir / "cache" / "session-start-claude.txt").write_text("缓存的规则", encoding="utf-8")
    (data_dir / "service.spawned").write_text("1", encoding="utf-8")
    holder: dict[str, Scripted] = {}

    def die(conn: socket.socket, request: dict[str, Any]) -> None:
        holder["service"].sock.close()
        holder["service"].path.unlink()
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset

    holder["service"] = service = Scripted(data_dir, die)
    try:
        result = run_hook("claude", "SessionStart", json.dumps({"session_id": "s"}))
    finally:
        service.close()
    assert (result.returncode, result.stderr) == (0, b"")
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "缓存的规则"
    assert service.requests == []
    assert any("falling back" in line for line in _log_lines(data_dir))


def test_a_connection_cut_mid_request_is_asked_again_by_the_hook(data_dir: Path) -> None:
    service = Scripted(data_dir, lambda conn, request: conn.close())
    try:
        result = run_hook("claude", "UserPromptSubmit", PROMPT)
    finally:
        service.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, EXPECTED, b"")
    assert service.relays == 1 and len(service.requests) == 1


def test_a_stale_service_still_gets_the_cached_answer_and_a_new_service(data_dir: Path) -> None:
    """After an upgrade in place: the old service answers `stale` to the relay and to the hook's
    own request alike; the hook answers from the cache and starts the new service, as before."""
    (data_dir / "cache").mkdir(parents=True)
    (data_dir / "cache" / "session-start-claude.txt").write_text("缓存的规则", encoding="utf-8")
    (data_dir / "service.spawned").write_text("1", encoding="utf-8")
    stale = b'{"v": 1, "ok": false, "code": "stale", "error": "mismatch", "service_build": "0.0.1"}\n'
    service = Scripted(data_dir, lambda conn, request: conn.sendall(stale), other=stale)
    try:
        result = run_hook("claude", "SessionStart", json.dumps({"session_id": "s"}))
    finally:
        service.close()
    assert (result.returncode, result.stderr) == (0, b"")
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "缓存的规则"
    assert service.relays == 1 and [r["op"] for r in service.requests] == ["hook_session_start"]
    assert _log_lines(data_dir) == ["claude session_start: service unavailable (Stale: 0.0.1); falling back"]


@pytest.mark.parametrize(
    ("client", "event", "payload", "limit"),
    [
        ("cursor", "beforeShellExecution", {"conversation_id": "c", "command": "git push"}, 1.5),
        ("cursor", "beforeSubmitPrompt", {"conversation_id": "c", "prompt": "你好"}, 3.5),
    ],
)
@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
def test_a_hung_service_costs_the_same_deadline_and_is_asked_once(
    data_dir: Path, client: str, event: str, payload: dict, limit: float
) -> None:
    service = FakeService(data_dir, hang=True)
    try:
        started = time.monotonic()
        result = run_hook(client, event, json.dumps(payload))
        elapsed = time.monotonic() - started
    finally:
        service.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert limit <= elapsed < limit + 1.5
    assert service.relayed == 1 and len(service.requests) == 1  # never asked twice
    assert any("TimeoutError: timed out; answering from cache" in line for line in _log_lines(data_dir))


@pytest.mark.quiet  # asserts the product's own deadline: no other test's load
def test_under_cursor_the_claude_hook_is_silent_without_asking_a_hung_service(data_dir: Path) -> None:
    """Cursor runs Claude Code's hooks too: the Claude hook answers nothing there, at once,
    whatever state the service is in (it is never asked)."""
    service = FakeService(data_dir, hang=True)
    try:
        started = time.monotonic()
        result = run_hook(
            "claude",
            "UserPromptSubmit",
            json.dumps({"session_id": "s", "prompt": "你好，帮我看看这个函数"}),
            env={"CURSOR_VERSION": "2.1.0"},
        )
        elapsed = time.monotonic() - started
    finally:
        service.close()
    assert (result.returncode, result.stdout) == (0, b"")
    assert elapsed < 3  # the hook's deadline is 6 s: it never waited for the hung service
    assert service.relayed == 0 and service.requests == []


def test_a_hung_service_leaves_the_cached_reminder(data_dir: Path) -> None:
    (data_dir / "cache").mkdir(parents=True)
    (data_dir / "cache" / "prompt-reminder-default.txt").write_text("缓存的提醒", encoding="utf-8")
    service = FakeService(data_dir, hang=True)
    try:
        result = run_hook(
            "cursor", "beforeSubmitPrompt", json.dumps({"conversation_id": "c", "prompt": "你好"})
        )
    finally:
        service.close()
    assert json.loads(result.stdout) == {"continue": True, "additional_context": "缓存的提醒"}


# -- sizes ------------------------------------------------------------------------------------------------
def test_a_payload_over_the_relay_limit_is_answered_by_the_hook(data_dir: Path) -> None:
    from memevo.hooks import relay as hook

    prompt = "2026-11-29 10:00:00 ERROR boom\n" * (hook.RELAY_MAX // 30 + 1)  # above the limit
    service = FakeService(data_dir, {"context": "ok"})
    try:
        result = run_hook(
            "claude",
            "UserPromptSubmit",
            json.dumps({"session_id": "s", "prompt": prompt}, ensure_ascii=False),
            timeout=HANG_S,
        )
    finally:
        service.close()
    assert (
        result.returncode == 0
        and json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == "ok"
    )
    assert service.relayed == 0 and service.requests[0]["params"]["prompt"] == prompt


def test_a_payload_over_the_stdin_limit_is_refused_as_before(data_dir: Path) -> None:
    service = FakeService(data_dir, {"context": "ok"})
    try:
        result = run_hook("claude", "UserPromptSubmit", b"{" + b" " * (32 * 1024 * 1024 + 1), timeout=HANG_S)
    finally:
        service.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert service.relayed == 0 and service.requests == []
    assert any("stdin larger than" in line for line in _log_lines(data_dir))


def test_the_service_bounds_what_it_relays() -> None:
    from memevo.core.errors import InvalidInput
    from memevo.core.service import relay

    asked: list[str] = []

    def dispatch(op: str, params: dict[str, Any]) -> dict[str, Any]:
        asked.append(op)
        return {"context": "x"}

    for params in (
        {},
        {"client": "claude", "event": "Stop"},
        {"client": "claude", "event": "Stop", "payload": "not hex"},
        {"client": "claude", "event": "Stop", "payload": "00" * (relay.MAX_PAYLOAD_HEX // 2 + 1)},
        {"client": 1, "event": "Stop", "payload": ""},
    ):
        with pytest.raises(InvalidInput):
            relay.answer(dispatch, params)
    assert asked == []


def test_the_services_errors_reach_the_log_as_the_hooks_did() -> None:
    from memevo.core.errors import StoreBusy
    from memevo.core.service import relay

    def refuse(op: str, params: dict[str, Any]) -> dict[str, Any]:
        raise StoreBusy("the store is busy")

    def crash(op: str, params: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("boom")

    payload = json.dumps({"session_id": "s", "prompt": "x"}).encode().hex()
    params = {"client": "claude", "event": "UserPromptSubmit", "payload": payload, "environ": {}}
    assert relay.answer(refuse, params)["relay"] == relay.frame(
        "prompt", "", ["claude prompt: RuntimeError: the store is busy; nothing injected"]
    )
    assert relay.answer(crash, params)["relay"] == relay.frame(
        "prompt", "", ["claude prompt: RuntimeError: hook_prompt failed: 'boom'; nothing injected"]
    )


def test_a_session_start_the_service_fails_still_gives_the_cached_rules(data_dir: Path) -> None:
    """The rules are owed at every session start: a service that refuses or crashes on it
    answers as a hung one does, from the cached text (its global rules)."""
    from memevo.core.errors import StoreBusy
    from memevo.core.service import relay

    cached = "memevo 记下的用户规则：\n1. 回答用中文"
    (data_dir / "cache").mkdir(parents=True, exist_ok=True)
    (data_dir / "cache" / "session-start-codebuddy.txt").write_text(cached, encoding="utf-8")

    def refuse(op: str, params: dict[str, Any]) -> dict[str, Any]:
        raise StoreBusy("the store is busy")

    payload = json.dumps({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"})
    params = {
        "client": "codebuddy",
        "event": "SessionStart",
        "payload": payload.encode().hex(),
        "environ": {},
    }
    reply = relay.answer(refuse, params)["relay"]
    want = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": cached}}
    kind, out, logs = reply.split(":")[1:]
    assert kind == "session_start" and json.loads(bytes.fromhex(out)) == want
    assert [bytes.fromhex(line).decode() for line in logs.split(".")] == [
        "codebuddy session_start: RuntimeError: the store is busy; answering from cache"
    ]


EXECUTOR = Path(__file__).with_name("exit_race_executor.js")
CODEBUDDY_START = {"session_id": "s", "hook_event_name": "SessionStart", "source": "startup", "client": "CLI"}


def _executor_outputs(command: str, runs: int, env: dict[str, str]) -> list[str]:
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run(
        [node, str(EXECUTOR), command, json.dumps(CODEBUDDY_START), str(runs)],
        capture_output=True,
        text=True,
        env=os.environ | env,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    outputs: list[str] = json.loads(done.stdout)
    return outputs


@pytest.mark.skipif(shutil.which("node") is None or sys.platform != "linux", reason="needs node, on Linux")
def test_a_client_that_reads_the_output_at_exit_gets_all_of_it(data_dir: Path, tmp_path: Path) -> None:
    """CodeBuddy's CLI takes a hook's output at its `exit` event (tests/exit_race_executor.js,
    its executor's logic, with children exiting around it as at a session's start). A hook
    that exits as soon as it has printed loses its output there, often; ours exits only once
    the client has read it, so every run's session start arrives whole."""
    env = {"MEMEVO_HOME": str(data_dir), "MEMEVO_HEADLESS": "1"}
    service = FakeService(data_dir, REPLY)
    try:
        expected = run_hook("codebuddy", "SessionStart", json.dumps(CODEBUDDY_START), env=env).stdout.decode()
        assert "additionalContext" in expected
        hasty = tmp_path / "hasty_hook.py"  # prints the same and exits at once, as the hook did
        hasty.write_text(
            f"import os, sys\nsys.stdout.write({expected!r})\nsys.stdout.flush()\nos._exit(0)\n",
            encoding="utf-8",
        )
        lost = _executor_outputs(f"{shlex.quote(sys.executable)} -I -S {shlex.quote(str(hasty))}", 60, env)
        assert lost.count(expected) < len(lost), "the executor lost nothing: it no longer shows the race"
        ours = f"{shlex.quote(sys.executable)} -I -S {shlex.quote(str(HOOK))} codebuddy SessionStart"
        outputs = _executor_outputs(ours, 30, env)
    finally:
        service.close()
    assert outputs == [expected] * 30


# -- the hot path and what it mirrors ---------------------------------------------------------------------
def test_the_relay_imports_neither_json_nor_socket_nor_an_adapter(data_dir: Path) -> None:
    service = FakeService(data_dir, REPLY)
    try:
        result = subprocess.run(
            [sys.executable, "-I", "-S", "-X", "importtime", str(HOOK), "claude", "UserPromptSubmit"],
            input=PROMPT.encode(),
            capture_output=True,
            env=os.environ | {"MEMEVO_HEADLESS": "1"},
            timeout=HANG_S,
        )
    finally:
        service.close()
    assert result.stdout == EXPECTED and service.relayed == 1
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.decode().splitlines() if "|" in line}
    assert "_socket" in imported
    assert not imported & {
        "json",
        "socket",
        "re",
        "hookio",
        "handler",
        "clients",
        "clients.claude",
        "subprocess",
    }


def test_the_relay_sends_every_variable_an_adapter_reads() -> None:
    """Each adapter module reads only variables its client's row relays (the variables that
    mute a client are read by the relay hook itself, and by the default adapter)."""
    from memevo.hooks import client_table

    checked = 0
    for path in (HOOK.parent / "clients").glob("*.py"):
        read = set(re.findall(r"environ(?:\.get\(|\[)\s*[\"']([A-Z0-9_]+)", path.read_text(encoding="utf-8")))
        if path.stem in client_table.CLIENTS:
            assert read <= set(client_table.CLIENTS[path.stem].environ), path.stem
            checked += len(read)
        else:
            assert not read, path.stem
    assert checked


def test_the_wire_reads_paths_as_os_path_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wire (what the relay hook imports) reimplements expanduser and abspath without `os`."""
    from memevo.core import __version__
    from memevo.hooks import wire

    assert wire.build() == __version__
    for user_home in ("/home/ann", "/home/ann/", "/", None):
        if user_home is None:
            monkeypatch.delenv("HOME")
        else:
            monkeypatch.setenv("HOME", user_home)
        for home in ("~/elsewhere", "~", "/abs/data", "", "rel/data", "~root/x", "~/中文 空格"):
            monkeypatch.setenv("MEMEVO_HOME", home)
            expected = (
                os.path.expanduser(home)
                if home
                else os.path.join(os.path.expanduser("~"), wire.DEFAULT_FOLDER)
            )
            assert wire.data_dir() == expected, (user_home, home)
    for path in ("/a/b/../c/./d", "x/y", ".", "..", "/", "//a//b/", "a/../../b"):
        assert wire.abspath(path) == os.path.abspath(path), path


def test_the_hand_built_request_is_json() -> None:
    from memevo.hooks import relay as hook

    odd = 'a"b\\c\n\t\x00\x1f 中文 \u2028'
    raw = bytes(range(256))
    line = hook._request(odd, odd, raw, "t0k")
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    request = json.loads(line)
    assert request["op"] == "hook_relay" and request["token"] == "t0k" and request["v"] == 1
    assert request["params"]["client"] == request["params"]["event"] == odd
    assert bytes.fromhex(request["params"]["payload"]) == raw


def test_the_service_loads_the_hooks_adapters_under_memevo_only(tmp_path: Path) -> None:
    """One adapter per client, loaded by the service as memevo.hooks.clients.*: no bare
    `clients`, `hookio` or `handler` module, nothing added to sys.path."""
    probe = (
        "import sys, json\n"
        "before = list(sys.path)\n"
        "from memevo.core.service import relay\n"
        "relay.warm()\n"
        "payload = json.dumps({'session_id': 's', 'prompt': 'x'}).encode().hex()\n"
        "out = relay.answer(lambda op, p: {'context': 'C'}, "
        "{'client': 'workbuddy', 'event': 'UserPromptSubmit', 'payload': payload})\n"
        "bare = [m for m in sys.modules if m.split('.')[0] in ('clients', 'hookio', 'handler', 'relay')]\n"
        "ours = sorted(m for m in sys.modules if m.startswith('memevo.hooks'))\n"
        "print(json.dumps([bare, ours, sys.path == before, out]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S
    )
    assert result.returncode == 0, result.stderr
    bare, ours, same_path, out = json.loads(result.stdout)
    assert bare == [] and same_path
    assert {"memevo.hooks.clients.claude", "memevo.hooks.clients.workbuddy", "memevo.hooks.handler"} <= set(
        ours
    )
    assert out["relay"].startswith("1:prompt:")
