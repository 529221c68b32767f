"""Credentials in URLs and DSNs, in Authorization / Cookie headers, and on command lines."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

from .values import STOP, VALUE_MAX, Span, placeholder, randomish, value_span

# -- credentials in URLs, headers, command lines ----------------------------------------------------------
_SCHEME = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://")
_WORD_END = re.compile(r"[\s\"'`<>]")
_PORT_PATH = re.compile(r"\d+(?:/|$)")


def url_credentials(text: str) -> Iterable[Span]:
    for scheme in _SCHEME.finditer(text):
        start = scheme.end()
        window = text[start : start + VALUE_MAX]
        end = _WORD_END.search(window)
        word = window[: end.start()] if end else window
        at = word.find("@")
        if at < 0:
            continue
        authority_end = min((i for i in (word.find(c) for c in "/?#") if i >= 0), default=len(word))
        if "@" in word[:authority_end]:
            userinfo = word[: word[:authority_end].rfind("@")]  # RFC 3986
        else:
            userinfo = word[:at]  # an unencoded "/" in the password
            if "/" in userinfo.split(":", 1)[0]:
                continue
        colon = userinfo.find(":")
        if colon < 0:
            if randomish(userinfo, 20):  # a token as the user name
                yield start, start + len(userinfo)
            continue
        password = userinfo[colon + 1 :]
        if password and not _PORT_PATH.match(password) and not placeholder(password):
            yield start + colon + 1, start + len(userinfo)


_AUTH_HEADER = re.compile(
    r"(?i)(?<![A-Za-z0-9_\-])(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:(?:basic|bearer|token|digest|negotiate|ntlm|apikey|api-key|hmac|sso-key|aws4-hmac-sha256)[ \t]+)?"
)
_COOKIE_HEADER = re.compile(r"(?i)(?<![A-Za-z0-9_\-])(?:set-)?cookie[\"']?[ \t]*:[ \t]*")
_SCHEME_TOKEN = re.compile(r"(?i)(?<![A-Za-z0-9_])(bearer|basic)[ \t]+([A-Za-z0-9._~+/=\-]{8,1024})")
_LINE_REST = re.compile(r"[^\r\n\"']{1,2048}")


def headers(text: str) -> Iterable[Span]:
    covered = 0  # a header inside the last value is part of it: each character is read once
    for header in _AUTH_HEADER.finditer(text):
        rest = _LINE_REST.match(text, header.end())
        if not rest or header.start() < covered:
            continue
        value = rest.group(0).strip()
        if value and value[0].isascii() and value.split()[0].lower() not in STOP and not placeholder(value):
            covered = rest.start() + len(rest.group(0).rstrip())
            yield rest.start(), covered
    covered = 0
    for header in _COOKIE_HEADER.finditer(text):
        rest = _LINE_REST.match(text, header.end())
        if rest and header.start() >= covered and "=" in rest.group(0) and rest.group(0)[0].isascii():
            covered = rest.start() + len(rest.group(0).rstrip())
            yield rest.start(), covered
    for match in _SCHEME_TOKEN.finditer(text):
        value = match.group(2).rstrip(".,")
        if match.group(1).lower() == "basic":
            if _basic_credentials(value) or randomish(value, 16):
                yield match.start(2), match.start(2) + len(value)
        elif randomish(value, 16) or (len(value) >= 12 and any(c.isdigit() for c in value)):
            yield match.start(2), match.start(2) + len(value)


def _basic_credentials(value: str) -> bool:
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


_FLAG = re.compile(
    r"(?<![A-Za-z0-9_\-])--(?:password|passwd|pass|token|secret|api-key|apikey|access-key|secret-key|"
    r"client-secret|auth-token|access-token|private-key-passphrase|passphrase)(?:=|[ \t]+)"
)
_MYSQL_P = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:mysql|mysqldump|mysqladmin|mariadb)(?:[ \t][^\r\n]{0,200}?)?[ \t]-p(?=[^\s\-])"
)
_SEPARATE_P = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:sshpass|docker[ \t]+login)(?:[ \t][^\r\n]{0,200}?)?[ \t](?:-p|--password)[ \t]+"
)
_CURL_USER = re.compile(r"(?<![A-Za-z0-9_\-])(?:-u|--user)[ \t]+[\"']?[^\s:\"']{1,128}:")
# redis-cli's -a is the password (its -p is the port); the command ends at | ; &
_REDIS_A = re.compile(r"(?<![A-Za-z0-9_\-])redis-cli(?:[ \t][^\r\n|;&]{0,200}?)?[ \t]-a[ \t]+")


def command_lines(text: str) -> Iterable[Span]:
    """A flag's value is a whole word: `-pPa,ss;w0rd` goes as a whole."""
    for flag in _FLAG.finditer(text):
        span = value_span(text, flag.end(), "token")
        if span and not placeholder(text[span[0] : span[1]]):
            yield span
    for pattern in (_MYSQL_P, _SEPARATE_P, _CURL_USER, _REDIS_A):
        for match in pattern.finditer(text):
            span = value_span(text, match.end(), "token")
            if span and not placeholder(text[span[0] : span[1]]):
                yield span
