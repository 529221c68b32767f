"""Secrets out of everything that leaves the machine: the side API's input and the logs.

`redact_secrets` replaces each secret it finds with REDACTED and leaves every other
character as it was. It looks for:
- private key blocks (PEM, OpenSSH, PGP, PuTTY), closed or cut off;
- provider tokens by their shape (OpenAI/Anthropic `sk-`, Stripe, GitHub, GitLab, npm,
  Hugging Face, SendGrid, Slack, AWS, Google, Alibaba `LTAI`, Tencent `AKID`, JWTs, ...),
  plus the provider patterns of detect-secrets (`detect_secrets.plugins`), run on RE2;
- credentials in URLs and DSNs (`scheme://user:password@host`), connection strings,
  Authorization / Cookie headers, `--password` style flags, `mysql -pSECRET`, `redis-cli -a`,
  `curl -u`;
- a value given to a name that says it is secret: `.env` lines (`DB_PASS=…`), JSON and
  YAML keys (`"api_key": "…"`), query parameters, XML elements; and in prose, English and
  Chinese (`the password is …`, `token 是 …`, `跳板机密码 …`, `密钥：…`); a password is read whole,
  whatever characters it has (`密码是 Qw,er!2024`), and after a Chinese keyword up to the end of its
  clause (`wifi 密码是 correct horse battery staple`);
- a long random-looking token (upper and lower case and digits, high entropy) anywhere.
Ordinary identifiers stay: hex digests and git SHAs, UUIDs, version tags, branch, service
and namespace names, URLs without credentials, a config key named without a value.

Each kind of secret is found by a module of its own: core/privacy/tokens.py (key blocks,
provider tokens, random-looking tokens), core/privacy/credentials.py (URLs, headers, command
lines), core/privacy/keywords.py (a value given to a secret name), core/privacy/detect_secrets_patterns.py
(detect-secrets' patterns, behind core/privacy/prefilter.py); core/privacy/values.py reads and
judges a value for them. This module puts their spans together and replaces them.

Linear time. Any text can arrive here (a log record, a paste), so every pattern written in
these modules either starts with a literal, or starts at the beginning of a run of characters
(a negative lookbehind admits only the first position of the run) and then has one way to
match, with bounded repetition where two quantified parts could trade characters; values
are read from bounded slices. Patterns written elsewhere (detect-secrets) run on RE2,
which guarantees linear time; the few RE2 cannot compile (lookarounds) are left out.
"""

from __future__ import annotations

import logging

from .credentials import command_lines, headers, url_credentials
from .detect_secrets_patterns import third_party_tokens
from .keywords import keyword_values
from .tokens import high_entropy, private_keys, provider_tokens
from .values import REDACTED, Span

# -- putting it together -------------------------------------------------------------------------------------------
_DETECTORS = (
    private_keys,
    provider_tokens,
    url_credentials,
    headers,
    command_lines,
    keyword_values,
    high_entropy,
    third_party_tokens,
)


def secret_spans(text: str) -> list[Span]:
    """Where the secrets are: sorted, merged (start, end) character spans."""
    spans = sorted(span for detect in _DETECTORS for span in detect(text) if span[1] > span[0])
    merged: list[Span] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def redact_secrets(text: str) -> str:
    """Each secret becomes REDACTED; every other character stays as it was."""
    if not text:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in secret_spans(text):
        pieces += [text[last:start], REDACTED]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


class RedactingFilter(logging.Filter):
    """On a handler: every record it writes has its message, exception and stack redacted.
    detect-secrets and RE2 load with the first record one of their patterns may match (once,
    on the thread that logs it); a process whose records never may never pays for them."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format: keep what it has
            message = f"{record.msg!s} {record.args!r}"
        record.msg = redact_secrets(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_secrets(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_secrets(record.stack_info)
        return True
