"""Hostile text: the input filter, redaction and every hook adapter's payload handling hold
against any input. Work is bounded by construction, so the checks are structural (how much
text reaches each step) plus 1 MB adversarial inputs that must simply complete: a pattern that
backtracks super-linearly would take minutes to hours on them, not milliseconds."""

from __future__ import annotations

import io
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir
from memevo.cli.bench.hostile_text import adversarial_inputs
from memevo.core.recall import textfilter
from memevo.core.recall.textfilter import (
    JUDGE_MAX_CHARS,
    MAX_INPUT_CHARS,
    REDACTED,
    SCAN_CHARS,
    SCAN_LINES,
    judge_input,
    recall_input,
    redact_secrets,
    scan_lines,
    strip_code_and_logs,
)

set_hypothesis_home_dir(tempfile.mkdtemp(prefix="memevo-hypothesis-"))  # not a .hypothesis/ in the repo
HOOKS = Path(__file__).resolve().parents[1] / "hooks"
ADVERSARIAL = adversarial_inputs()

PIECES = [
    " ", "  ", "\t", "\n", "\r\n", "\u3000", "\u2028", "a", "A1", "x = 1", ";", "{", "}", "(", ")", "```", "~~~",
    "`", "~", "import ", "def ", "    ", "2026-11-29 12:00:01 ERROR ", "File \"a.py\", line 3", "at a.B(", "password",
    "PASSWORD", "=", ":", "：", " is ", "是", "密码", "口令", "密钥", "token", "key", "secret", "api_key",
    "Authorization: Bearer ", "Basic ", "Cookie: ", "https://", "://", "@", "/", "?", "&", "user:pw@", "sk-",
    "sk_live_", "ghp_", "eyJ", ".", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "PuTTY-User-Key-File-2: ", "LTAI", "AKID", "mysql -p", "--password ", "\"", "'", "「", REDACTED, "中文",
    "\u202e", "\x00", "\ud800", "🙂", "9f8e7d6c5b4a3928", "Xk9fLmQ2rT7vBn3s",
]  # fmt: skip
# runs of pieces, some repeated many times: whitespace runs, long lines, many short lines
hostile = st.lists(
    st.tuples(st.sampled_from(PIECES), st.sampled_from([1, 1, 1, 2, 3, 50, 400])).map(lambda p: p[0] * p[1]),
    max_size=40,
).map("".join)
any_text = st.one_of(st.text(max_size=2000), hostile)
FAST = settings(max_examples=100, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
# hypothesis' failure report touches a deprecated typing alias; keep the report readable
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _in_order(pieces: list[str], text: str) -> bool:
    position = 0
    for piece in pieces:
        found = text.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return True


# -- the filter and redaction ----------------------------------------------------------------------------
@FAST
@given(any_text)
def test_filter_never_raises_and_its_output_is_bounded(text: str) -> None:
    lines = scan_lines(text)
    assert len(lines) <= 2 * SCAN_LINES + 1
    stripped = strip_code_and_logs(text)
    assert len(stripped) <= min(len(text), 2 * SCAN_CHARS)
    for result in (recall_input(text), judge_input(text)):
        assert result is None or (result.strip() and len(result) <= MAX_INPUT_CHARS)


@FAST
@given(any_text)
def test_redaction_only_replaces_secrets(text: str) -> None:
    redacted = redact_secrets(text)
    # every character that is not a marker is the input's, in order: nothing is added or moved
    assert _in_order(redacted.split(REDACTED), text)


def test_the_filter_reads_a_bounded_window_whatever_the_input() -> None:
    for name, text in ADVERSARIAL.items():
        lines = scan_lines(text)
        read = [line for line in lines if line is not None]
        assert len(lines) <= 2 * SCAN_LINES + 1, name
        assert sum(len(line) for line in read) <= 2 * SCAN_CHARS, name


def test_redaction_gets_bounded_input_on_the_judge_path(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []

    def measured(text: str) -> str:
        sizes.append(len(text))
        return redact_secrets(text)

    monkeypatch.setattr(textfilter, "redact_secrets", measured)
    for text in ADVERSARIAL.values():
        judge_input(text)
    assert sizes and max(sizes) <= JUDGE_MAX_CHARS


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_megabyte_inputs_complete(name: str) -> None:
    text = ADVERSARIAL[name]
    assert len(text) == 1 << 20
    recall_input(text)
    judge_input(text)
    redact_secrets(strip_code_and_logs(text))  # the answer kept for context


@pytest.mark.parametrize(
    "name", ["spaces_then_word", "unclosed_pem", "many_pem_begins", "assignments", "zh_keywords", "auth_headers",
             "url_credentials", "base64_words", "token_prefixes", "mixed_scripts"]
)  # fmt: skip
def test_redaction_of_a_whole_text_completes(name: str) -> None:
    """Log records are redacted whole (no window). 256 KB: milliseconds to a second for linear
    patterns, hours for a quadratic one."""
    text = ADVERSARIAL[name][: 1 << 18]
    redacted = redact_secrets(text)
    assert _in_order(redacted.split(REDACTED)[:3], text)


def test_a_paste_around_the_question_still_leaves_the_question() -> None:
    code = "const total = items.reduce((a, b) => a + b, 0);\n" * 20_000
    assert recall_input("这段代码为什么这么慢\n" + code) == "这段代码为什么这么慢"
    assert recall_input(code + "这段代码为什么这么慢") == "这段代码为什么这么慢"
    fenced = "```js\n" + code + "```\n这段代码为什么这么慢"
    assert recall_input(fenced) == "这段代码为什么这么慢"  # the closing fence is paired across the middle
    assert recall_input("这段代码为什么这么慢```js\n" + code) == "这段代码为什么这么慢"  # never closed
    assert (
        recall_input("~~~\n" + code + "~~~\n" + "```\nx\n```\n这段代码为什么这么慢") == "这段代码为什么这么慢"
    )
    assert recall_input(" " * 120_000) is None


# -- the hook adapters (stdlib only, run inside each client) --------------------------------------------------
@pytest.fixture(scope="module")
def adapters() -> Iterator[dict[str, Any]]:
    sys.path.insert(0, str(HOOKS))
    try:
        import client_table
        import clients
        import hookio

        yield {"hookio": hookio, **{name: clients.load(name) for name in client_table.CLIENTS}}
    finally:
        sys.path.remove(str(HOOKS))
        top = ("hookio", "clients", "client_table", "wire")
        for name in [m for m in sys.modules if m in top or m.startswith("clients.")]:
            del sys.modules[name]


def _scalar() -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), any_text)


payloads = st.dictionaries(
    st.sampled_from(
        ["prompt", "user_prompt", "session_id", "conversation_id", "prompt_id", "generation_id", "agent_id",
         "hook_event_name", "cursor_version", "stop_hook_active", "loop_count", "x"]
    ),
    st.one_of(_scalar(), st.lists(_scalar(), max_size=3), st.dictionaries(st.text(max_size=5), _scalar(), max_size=3)),
    max_size=8,
)  # fmt: skip


@FAST
@given(payload=payloads, event=st.one_of(st.sampled_from(["SessionStart", "UserPromptSubmit", "Stop",
                                                          "sessionStart", "beforeSubmitPrompt", "stop", "PreToolUse",
                                                          "beforeShellExecution"]), st.text()),
       context=st.one_of(st.none(), any_text))  # fmt: skip
def test_every_adapter_reads_any_payload(adapters: dict[str, Any], payload: dict[str, Any], event: str,
                                         context: str | None) -> None:  # fmt: skip
    for name, adapter in adapters.items():
        if isinstance(adapter, ModuleType):
            continue
        kind = adapter.event_kind(event, payload)
        assert kind in (None, "session_start", "prompt", "stop", "action"), name  # action: a tool call
        for key in (adapter.session_key(payload), adapter.prompt_id(payload)):
            assert key is None or isinstance(key, str)
        text = adapter.prompt_text(payload)
        assert isinstance(text, str)
        assert adapter.prompt_kind(payload, text) in ("user", "other", "plugin")
        assert adapter.silent_reason(payload, {"CURSOR_VERSION": ""}) in (None, "running under Cursor")
        assert set(adapter.stop_flags(payload)) == {"continuation", "subagent"}
        for rendered_kind in ("session_start", "prompt", "stop"):
            out = adapter.render(
                rendered_kind, {"context": context, "notice": context, "system_message": context}
            )
            assert out == "" or isinstance(json.loads(out), dict)


@FAST
@given(st.one_of(st.binary(max_size=3000), any_text.map(lambda t: t.encode("utf-8", "surrogatepass")),
                 payloads.map(lambda p: json.dumps(p).encode())))  # fmt: skip
def test_payload_parsing_never_raises(adapters: dict[str, Any], raw: bytes) -> None:
    hookio = adapters["hookio"]
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw))
    try:
        payload, problem = hookio.read_payload()
    finally:
        sys.stdin = saved
    assert (payload is None) != (problem is None)
    assert payload is None or isinstance(payload, dict)


def test_a_megabyte_prompt_is_classified_quickly_by_every_adapter(adapters: dict[str, Any]) -> None:
    for text in ADVERSARIAL.values():
        for key in ("prompt", "user_prompt"):
            payload = {key: text, "session_id": "s"}
            for adapter in adapters.values():
                if not isinstance(adapter, ModuleType):
                    assert adapter.prompt_kind(payload, adapter.prompt_text(payload)) in (
                        "user",
                        "other",
                        "plugin",
                    )
