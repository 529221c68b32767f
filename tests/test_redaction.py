"""Redaction a reviewer can check: a corpus of realistic secrets and ordinary developer sentences,
the logs, and everything the side API is sent."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from memevo.core.learning import judge
from memevo.core.privacy.redaction import RedactingFilter
from memevo.core.recall.textfilter import REDACTED, judge_input, redact_secrets

CORPUS = json.loads((Path(__file__).parent / "data" / "redaction-corpus.json").read_text(encoding="utf-8"))


def _leaked(text: str, secret: str, redacted: str) -> bool:
    """The secret, or any 8 characters of it not found elsewhere in the text, survived."""
    if secret in redacted:
        return True
    elsewhere = text.replace(secret, "\0")
    return any(
        secret[i : i + 8] in redacted and secret[i : i + 8] not in elsewhere
        for i in range(max(1, len(secret) - 7))
    )


def test_the_corpus_is_big_and_varied() -> None:
    secrets = [secret for entry in CORPUS["secrets"] for secret in entry["secrets"]]
    assert len(secrets) >= 60
    assert len({entry["kind"] for entry in CORPUS["secrets"]}) >= 30
    assert len(CORPUS["ordinary"]) >= 60
    assert any("密码" in entry["text"] for entry in CORPUS["secrets"])
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in text) for text in CORPUS["ordinary"]) >= 20


def test_no_secret_leaks_and_no_ordinary_sentence_is_damaged() -> None:
    leaks = [
        f"{entry['kind']}: {redact_secrets(entry['text'])!r}"
        for entry in CORPUS["secrets"]
        for secret in entry["secrets"]
        if _leaked(entry["text"], secret, redact_secrets(entry["text"]))
    ]
    damaged = [
        f"{text!r} -> {redact_secrets(text)!r}" for text in CORPUS["ordinary"] if redact_secrets(text) != text
    ]
    report = "\n".join(["leaked:", *leaks, "damaged:", *damaged])
    assert (len(leaks), len(damaged)) == (0, 0), report


def test_the_judge_is_never_sent_a_corpus_secret() -> None:
    for entry in CORPUS["secrets"]:
        judged = judge_input(entry["text"]) or ""
        for secret in entry["secrets"]:
            assert not _leaked(entry["text"], secret, judged), entry["kind"]


def test_only_the_secret_goes() -> None:
    assert (
        redact_secrets("DB_USER=app DB_PASS=Xk9mq2Lp ./run.sh") == f"DB_USER=app DB_PASS={REDACTED} ./run.sh"
    )
    assert (
        redact_secrets("postgres://payments:S3cr3tPw@db.internal:5432/pay")
        == f"postgres://payments:{REDACTED}@db.internal:5432/pay"
    )
    assert redact_secrets("跳板机密码 Jump@2024x 记一下") == f"跳板机密码 {REDACTED} 记一下"
    assert redact_secrets('{"api_key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"}') == f'{{"api_key": "{REDACTED}"}}'


# -- a password named by its keyword goes whole, whatever characters it has ----------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("记住：VPN 密码是 Qw,er!2024，连公司内网用", f"记住：VPN 密码是 {REDACTED}，连公司内网用"),
        ("记住：堡垒机密码是 it's-Secret9", f"记住：堡垒机密码是 {REDACTED}"),
        ("记住：数据库密码是 pass;word99", f"记住：数据库密码是 {REDACTED}"),
        ("记住：Jenkins 的 admin 密码为 pass<>word", f"记住：Jenkins 的 admin 密码为 {REDACTED}"),
        ("记住：服务器 root 密码是 Tr0ub4dor&3", f"记住：服务器 root 密码是 {REDACTED}"),
        ("密码是 Xy7`pq9z", f"密码是 {REDACTED}"),
        ("密码是 ab>cd1234", f"密码是 {REDACTED}"),
        ("VPN 口令：Qw,er!2024，别外传", f"VPN 口令：{REDACTED}，别外传"),
        ("测试账号 test01 密码 ab;cd1234 记一下", f"测试账号 test01 密码 {REDACTED} 记一下"),
        ("密码：abc123, 用户名是 bob", f"密码：{REDACTED}, 用户名是 bob"),
        ("the password is Qw,er!2024, then log in", f"the password is {REDACTED}, then log in"),
        ("password: pass;word99", f"password: {REDACTED}"),
        ("passwd = it's-Secret9", f"passwd = {REDACTED}"),
        ("<td>password: Xk9,mq2</td>", f"<td>password: {REDACTED}</td>"),
        ("(password: abc,123)", f"(password: {REDACTED})"),
        ("wifi password 是 Tr0ub4dor&3", f"wifi password 是 {REDACTED}"),
        (
            "jdbc:mysql://db/app?user=root&password=R,oot#Z&useSSL=false",
            f"jdbc:mysql://db/app?user=root&password={REDACTED}&useSSL=false",
        ),
        ("Server=db;Password=St;r0ng!;Encrypt=True;", f"Server=db;Password={REDACTED};Encrypt=True;"),
    ],
)
def test_a_password_after_its_keyword_goes_whole(text: str, expected: str) -> None:
    assert redact_secrets(text) == expected
    assert redact_secrets(expected) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("记住：wifi 密码是 correct horse battery staple", f"记住：wifi 密码是 {REDACTED}"),
        ("wifi 密码是 correct horse battery staple，在前台贴着", f"wifi 密码是 {REDACTED}，在前台贴着"),
        ("密码：correct horse battery staple\n下一行", f"密码：{REDACTED}\n下一行"),
        ("wifi password 是 correct horse battery staple", f"wifi password 是 {REDACTED}"),
        ("密码是 abc123 (测试用)", f"密码是 {REDACTED} (测试用)"),
    ],
)
def test_a_passphrase_after_a_chinese_keyword_goes_to_the_end_of_its_clause(text: str, expected: str) -> None:
    assert redact_secrets(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "记住：redis 用 redis-cli -a Sup3rS3cret 连接 staging",
            f"记住：redis 用 redis-cli -a {REDACTED} 连接 staging",
        ),
        ("redis-cli -h cache -p 6379 -a pa,ss;w0rd ping", f"redis-cli -h cache -p 6379 -a {REDACTED} ping"),
        ("mysql -uroot -pPa,ss;w0rd orders", f"mysql -uroot -p{REDACTED} orders"),
        ("sshpass -p pa,ss;w0rd ssh deploy@10.0.3.7", f"sshpass -p {REDACTED} ssh deploy@10.0.3.7"),
        ("./migrate --password pa<ss>w0rd --dry-run", f"./migrate --password {REDACTED} --dry-run"),
        ("./migrate --password=pa&ss'w0rd", f"./migrate --password={REDACTED}"),
        ("PGPASSWORD=pass;word99 psql -h db", f"PGPASSWORD={REDACTED} psql -h db"),
    ],
)
def test_command_line_passwords_go_whole(text: str, expected: str) -> None:
    assert redact_secrets(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "密码是怎么存的",
        "wifi 密码是多少",
        "密码为空时报错",
        "改密码的接口",
        "密码是 MD5 加密存的",
        "密码是 bcrypt hash 过的",
        "密码是 6 到 16 位",
        "password is required",
        "the password is correct",
        "the password field",
        "password is, I think, fine",
        "password: <your password here>",
        "password: {{ db_password }}",
        '{"password":null,"user":"app"}',
        "{password:null,user:app}",
        'redis-cli -h cache -a "$REDIS_PASSWORD" ping',
        "redis-cli ping && ls -a build",
        "redis-cli -h cache -p 6379 ping",
    ],
)
def test_a_password_keyword_without_a_value_changes_nothing(text: str) -> None:
    assert redact_secrets(text) == text


def test_private_key_blocks_closed_or_cut_off() -> None:
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY-----"
    assert redact_secrets(f"key:\n{block}\nthanks") == f"key:\n{REDACTED}\nthanks"
    assert (
        redact_secrets("half a key -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq") == f"half a key {REDACTED}"
    )
    certificate = "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----"
    assert redact_secrets(certificate) == certificate  # public


def test_redacting_twice_changes_nothing() -> None:
    for entry in CORPUS["secrets"]:
        once = redact_secrets(entry["text"])
        assert redact_secrets(once) == once


# -- the logs --------------------------------------------------------------------------------------------------
def test_log_records_are_redacted(tmp_path: Path) -> None:
    logger = logging.getLogger("memevo.test-redaction")
    handler = logging.FileHandler(tmp_path / "service.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    handler.addFilter(RedactingFilter())
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("connecting with %s", "postgres://app:Pg7Secret99@db/pay")
        logger.info("side job: %(words)s", {"words": "测试库的密码是 Pa55w0rd! 记一下"})
        try:
            raise RuntimeError("token: ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")
        except RuntimeError:
            logger.exception("failed with a key in the exception")
        logger.warning("%s %s", "one argument short")  # a broken record is still written, redacted
    finally:
        logger.removeHandler(handler)
        handler.close()
    written = (tmp_path / "service.log").read_text(encoding="utf-8")
    for secret in ("Pg7Secret99", "Pa55w0rd!", "ghp_A1b2", "A1b2C3d4E5f6G7h8I9j0"):
        assert secret not in written
    assert written.count(REDACTED) >= 3 and "Traceback" in written and "one argument short" in written


# -- what the side API is sent ------------------------------------------------------------------------------
def _capture(answer: dict[str, Any]) -> tuple[httpx.AsyncClient, list[str]]:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.content.decode("utf-8"))
        return httpx.Response(200, json={"choices": [{"message": {"content": json.dumps(answer)}}]})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler)), sent


ENDPOINT = judge.Endpoint("http://side.invalid/v1", "model", "sk-test-local-only-0000000000")


@pytest.mark.parametrize("secret", ["Pg7Secret99", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"])
def test_decide_sends_the_nearest_memories_redacted(secret: str) -> None:
    client, sent = _capture({"action": "create", "target": None, "text": None})
    stored = f"预发库连接串是 postgres://app:{secret}@db/pay" if "_" not in secret else f"对账用 {secret}"

    async def call() -> judge.Decision:
        async with client:
            return await judge.decide(client, ENDPOINT, f"新的说法：DB_PASS={secret}", [("m1", stored)])

    assert asyncio.run(call()).action == "create"
    body = json.loads(sent[0])
    user = body["messages"][1]["content"]
    assert secret not in sent[0] and REDACTED in user and "id=m1" in user


def test_judge_sends_words_and_context_redacted() -> None:
    client, sent = _capture({"remember": False, "text": "", "category": "rule"})

    async def call() -> judge.Verdict:
        async with client:
            return await judge.judge(
                client, ENDPOINT, "token 是 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "密码：Zq8vN2pLx"
            )

    assert not asyncio.run(call()).remember
    assert "9f8e7d6c5b4a" not in sent[0] and "Zq8vN2pLx" not in sent[0]


# -- the injection log's prompt excerpts (core/service/injection_log.py) -------------------------------------------
def test_the_injection_logs_prompt_excerpt_is_redacted_flat_and_short() -> None:
    from memevo.core.service.injection_log import EXCERPT_CHARS, excerpt

    token = "sk-proj-" + "Zt3kQ9wLx2Vb7Nc4Hd8Rf1Jm6Ps5Ty0Ga"
    said = f"deploy with\n\n  key {token}\tplease \x1b[31mnow\u202e"
    kept = excerpt(said)
    assert token[:12] not in kept and REDACTED in kept
    assert "\n" not in kept and "\x1b" not in kept and "\u202e" not in kept and "  " not in kept
    assert kept.startswith("deploy with key ")
    long = excerpt("长" * 5000)
    assert long == "长" * EXCERPT_CHARS + "…"
    # a secret that starts inside the excerpt and runs past its end is redacted whole, and the
    # marker is never cut in two
    edge = excerpt("a" * (EXCERPT_CHARS - 3) + " " + token + " tail")
    assert token[:6] not in edge and edge.endswith(REDACTED + "…")
    assert excerpt("short prompt") == "short prompt"


def test_the_injection_logs_tool_call_excerpt_names_the_tool_and_what_it_does() -> None:
    from memevo.core.service.hookops import tool_call

    assert tool_call("Bash", {"command": "git push --force", "description": "x"}) == "Bash: git push --force"
    assert tool_call("Edit", '{"file_path": "/repo/a.py", "old_string": "x"}') == "Edit: /repo/a.py"
    assert tool_call("mcp__db__query", {"sql": "select 1"}) == "mcp__db__query: select 1"
    assert tool_call(None, None) == "tool"
    assert len(tool_call("Bash", {"command": "y" * 100_000})) < 500  # bounded before the log
