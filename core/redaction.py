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

Linear time. Any text can arrive here (a log record, a paste), so every pattern written in
this module either starts with a literal, or starts at the beginning of a run of characters
(a negative lookbehind admits only the first position of the run) and then has one way to
match, with bounded repetition where two quantified parts could trade characters; values
are read from bounded slices. Patterns written elsewhere (detect-secrets) run on RE2,
which guarantees linear time; the few RE2 cannot compile (lookarounds) are left out.
"""

from __future__ import annotations

import base64
import binascii
import functools
import logging
import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REDACTED = "[已隐去]"

Span = tuple[int, int]

_VALUE_MAX = 512  # a value (password, token) is read from at most this many characters


# -- private key blocks ------------------------------------------------------------------------------
_PEM_EDGE = re.compile(r"-----(BEGIN|END)[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d: ")


def _private_keys(text: str) -> Iterable[Span]:
    start = -1
    for edge in _PEM_EDGE.finditer(text):  # one pass: BEGIN opens, END closes
        if edge.group(1) == "BEGIN" and start < 0:
            start = edge.start()
        elif edge.group(1) == "END" and start >= 0:
            yield start, edge.end()
            start = -1
    if start >= 0:
        yield start, len(text)  # cut off: everything after the header goes
    covered = 0
    for putty in _PUTTY.finditer(text):
        if putty.start() < covered:
            continue  # inside the last key: each character is searched once
        end = text.find("Private-MAC:", putty.end())
        line_end = text.find("\n", end) if end >= 0 else -1
        covered = len(text) if line_end < 0 else line_end
        yield putty.start(), covered


# -- provider tokens, by shape ---------------------------------------------------------------------------
_PROVIDER = re.compile(
    r"""(?<![A-Za-z0-9_\-])(?:
        (?P<sk>sk-[A-Za-z0-9_\-]{20,})                                # OpenAI, Anthropic, DeepSeek, Moonshot, …
      | (?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}                     # Stripe secret / restricted key
      | whsec_[A-Za-z0-9]{20,}                                        # Stripe webhook signing secret
      | gh[pousr]_[A-Za-z0-9]{30,} | github_pat_[A-Za-z0-9_]{20,}     # GitHub
      | gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|oas|agent)-[A-Za-z0-9_\-]{20,} | GR1348941[A-Za-z0-9_\-]{20,}
      | npm_[A-Za-z0-9]{30,}                                          # npm
      | hf_[A-Za-z0-9]{30,} | api_org_[A-Za-z0-9]{30,}                # Hugging Face
      | SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}                  # SendGrid
      | xox[abposr]-[A-Za-z0-9\-]{10,} | xapp-\d-[A-Za-z0-9\-]{10,}   # Slack
      | (?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}               # AWS access key id
      | AIza[A-Za-z0-9_\-]{35} | GOCSPX-[A-Za-z0-9_\-]{20,} | ya29\.[A-Za-z0-9_\-]{20,}   # Google
      | LTAI[A-Za-z0-9]{12,30}                                        # Alibaba Cloud AccessKey ID
      | AKID[A-Za-z0-9]{13,40}                                        # Tencent Cloud SecretId
      | AKLT[A-Za-z0-9_\-]{20,}                                       # Volcengine
      | eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}   # JWT
      | pypi-AgE[A-Za-z0-9_\-]{50,}                                   # PyPI
      | shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}                            # Shopify
      | hv[sbr]\.[A-Za-z0-9_\-]{24,}                                  # HashiCorp Vault
      | sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}                            # Square
      | SK[0-9a-fA-F]{32}                                             # Twilio API key
      | [0-9a-f]{32}-us\d{1,2}                                        # Mailchimp
      | do[opr]_v1_[a-f0-9]{64}                                       # DigitalOcean
      | lin_api_[A-Za-z0-9]{40}                                       # Linear
      | PMAK-[a-f0-9]{24}-[a-f0-9]{34}                                # Postman
      | dapi[a-f0-9]{32}                                              # Databricks
      | ATATT3[A-Za-z0-9_=\-]{50,}                                    # Atlassian
      | AGE-SECRET-KEY-1[A-Z0-9]{50,}                                 # age
      | dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9_\-]{20,}           # Doppler
      | \d{8,10}:AA[A-Za-z0-9_\-]{33}                                 # Telegram bot
      | [MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,}   # Discord bot
    )""",
    re.VERBOSE,
)
_WEBHOOK = re.compile(
    r"""(?:
        hooks\.slack\.com/(?:services|workflows|triggers)/
      | discord(?:app)?\.com/api/webhooks/\d+/
      | open\.(?:feishu\.cn|larksuite\.com)/open-apis/bot/v2/hook/
      | chat\.googleapis\.com/v1/spaces/[A-Za-z0-9_\-]{1,64}/messages\?
      | outlook\.office(?:365)?\.com/webhook/
    )([A-Za-z0-9_\-/=&%.]{8,512})""",
    re.VERBOSE,
)


def _provider_tokens(text: str) -> Iterable[Span]:
    for match in _PROVIDER.finditer(text):
        token = match.group(0)
        if match.group("sk") and sum(ch.isdigit() for ch in token) < 2:
            continue  # `sk-learn-pipeline-v2` is a name; real keys are random
        yield match.span()
    for match in _WEBHOOK.finditer(text):
        yield match.span(1)


# -- credentials in URLs, headers, command lines ----------------------------------------------------------
_SCHEME = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://")
_WORD_END = re.compile(r"[\s\"'`<>]")
_PORT_PATH = re.compile(r"\d+(?:/|$)")


def _url_credentials(text: str) -> Iterable[Span]:
    for scheme in _SCHEME.finditer(text):
        start = scheme.end()
        window = text[start : start + _VALUE_MAX]
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
            if _randomish(userinfo, 20):  # a token as the user name
                yield start, start + len(userinfo)
            continue
        password = userinfo[colon + 1 :]
        if password and not _PORT_PATH.match(password) and not _placeholder(password):
            yield start + colon + 1, start + len(userinfo)


_AUTH_HEADER = re.compile(
    r"(?i)(?<![A-Za-z0-9_\-])(?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"(?:(?:basic|bearer|token|digest|negotiate|ntlm|apikey|api-key|hmac|sso-key|aws4-hmac-sha256)[ \t]+)?"
)
_COOKIE_HEADER = re.compile(r"(?i)(?<![A-Za-z0-9_\-])(?:set-)?cookie[\"']?[ \t]*:[ \t]*")
_SCHEME_TOKEN = re.compile(r"(?i)(?<![A-Za-z0-9_])(bearer|basic)[ \t]+([A-Za-z0-9._~+/=\-]{8,1024})")
_LINE_REST = re.compile(r"[^\r\n\"']{1,2048}")


def _headers(text: str) -> Iterable[Span]:
    covered = 0  # a header inside the last value is part of it: each character is read once
    for header in _AUTH_HEADER.finditer(text):
        rest = _LINE_REST.match(text, header.end())
        if not rest or header.start() < covered:
            continue
        value = rest.group(0).strip()
        if value and value[0].isascii() and value.split()[0].lower() not in _STOP and not _placeholder(value):
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
            if _basic_credentials(value) or _randomish(value, 16):
                yield match.start(2), match.start(2) + len(value)
        elif _randomish(value, 16) or (len(value) >= 12 and any(c.isdigit() for c in value)):
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


def _command_lines(text: str) -> Iterable[Span]:
    """A flag's value is a whole word: `-pPa,ss;w0rd` goes as a whole."""
    for flag in _FLAG.finditer(text):
        span = _value_span(text, flag.end(), "token")
        if span and not _placeholder(text[span[0] : span[1]]):
            yield span
    for pattern in (_MYSQL_P, _SEPARATE_P, _CURL_USER, _REDIS_A):
        for match in pattern.finditer(text):
            span = _value_span(text, match.end(), "token")
            if span and not _placeholder(text[span[0] : span[1]]):
                yield span


# -- a value given to a secret name: assignments, JSON/YAML keys, prose ----------------------------------------
_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」", "『": "』"}
_BARE_VALUE = re.compile(
    r"[!#-%(-+\-./0-9:=?@A-Z\[\\\]^_a-z{|}~]{1,512}"
)  # printable ASCII but , ; < > ' " `
_TOKEN = re.compile(r"[!-~]{1,512}")  # printable ASCII, no spaces
_CLAUSE = re.compile(r"[!-~][\t -~]{0,511}")  # and spaces: a line end or a Chinese character ends it
_VALUE_END = re.compile(  # inside a token or clause: where the value has ended after all
    r"[,;.](?=[ \t])"  # the sentence's punctuation: `密码是 abc123, 用户名…`
    r"|[&;,][\"']?[A-Za-z_][A-Za-z0-9_.\-]{0,40}[\"']?[ \t]{0,4}[=:]"  # the next key: `;Encrypt=`, `&useSSL=`
    r"|</[A-Za-z]"  # a closing tag
)
_SPACED_PLACEHOLDER = re.compile(r"<[^<>\r\n]{1,80}>|\$?\{\{[^{}\r\n]{1,80}\}\}")  # <your password>, {{ pw }}
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def _value_span(text: str, pos: int, reading: str = "bare") -> Span | None:
    """The value that starts at pos: quoted up to its closing quote, else read as `reading` says:
    - bare: a run of printable ASCII without spaces and without , ; < > ' " ` (a Chinese
      character ends it): a value given to a secret name, where those characters end it;
    - token: the whole word of printable ASCII (a password, a flag's value): `Qw,er!2024`,
      `it's-Secret9`, `Tr0ub4dor&3` go as a whole;
    - clause: printable ASCII and spaces up to the line's end or the next Chinese character
      (a passphrase after 「密码是」: `correct horse battery staple`).
    A token or clause ends early at the next key (`;Encrypt=…`, `&useSSL=…`), a closing tag, or
    `, ` / `; ` / `. `; trailing punctuation and a closing bracket or quote it did not open are left out."""
    if pos >= len(text) or text.startswith(REDACTED, pos):
        return None
    close = _QUOTES.get(text[pos])
    if close:
        window = text[pos + 1 : pos + 1 + _VALUE_MAX]
        end = window.find(close)
        newline = window.find("\n")
        if end > 0 and (newline < 0 or end < newline):
            return pos + 1, pos + 1 + end
        pos += 1
        if pos >= len(text) or text.startswith(REDACTED, pos):
            return None
    if reading == "bare":
        bare = _BARE_VALUE.match(text, pos)
        value = _trim(bare.group(0)) if bare else ""
    else:
        if _SPACED_PLACEHOLDER.match(text, pos):
            return None
        run = (_CLAUSE if reading == "clause" else _TOKEN).match(text, pos)
        if not run:
            return None
        value = run.group(0)
        stop = _VALUE_END.search(value)
        if stop:
            value = value[: stop.start()]
        while True:  # a clause: words without a letter or digit at its end are punctuation
            value = _trim(value.rstrip(" \t"))
            cut = max(value.rfind(" "), value.rfind("\t"))
            if cut < 0 or any(ch.isalnum() for ch in value[cut + 1 :]):
                break
            value = value[:cut]
    return (pos, pos + len(value)) if value else None


def _trim(value: str) -> str:
    """Without the sentence's trailing punctuation, nor a closing bracket or quote the value did not open."""
    while value:
        last = value[-1]
        unopened = last in _CLOSERS and value.count(last) > value.count(_CLOSERS[last])
        if not (last in ".:,;" or unopened or (last in "\"'`" and value.count(last) % 2)):
            break
        value = value[:-1]
    return value


# the name part may carry a prefix or suffix: DATABASE_PASSWORD, apiKey, x-api-key, AccessKeySecret
_ASSIGNMENT = re.compile(
    r"""(?<![A-Za-z0-9_.\-])
    (?P<name>[A-Za-z0-9_.\-]{0,40}?(?i:pass|pwd|pw|secret|token|key|cred|auth|sig)[A-Za-z0-9_.\-]{0,40})
    (?P<close>["'`\]]{0,2})[ \t]*(?P<sep>:=|=>|={1,3}|:|：)[ \t]*""",
    re.VERBOSE,
)
_XML_SECRET = re.compile(
    r"(?i)<(password|passwd|secret|token|apikey|api_key|accesskey|secretkey|client_secret)>([^<\r\n]{1,512})</"
)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PASSWORD_WORDS = frozenset(
    {"password", "passwd", "passphrase", "passcode", "pass", "pwd", "pw", "pswd", "psw"}
)
_SECRET_WORDS = frozenset(
    {"secret", "token", "credential", "credentials", "apikey", "accesskey", "secretkey", "privatekey"}
)
# fmt: off
_KEY_OWNERS = frozenset((
    "api", "access", "secret", "private", "account", "signing", "sign", "encryption", "encrypt",
    "master", "client", "auth", "license", "subscription", "shared", "sas", "hmac", "webhook",
    "deploy", "service", "session", "cookie", "jwt", "crypto", "cipher", "aes", "rsa", "gpg", "pgp",
    "ssh", "app", "openai", "anthropic", "claude", "stripe", "sendgrid", "twilio", "mailgun",
    "github", "gitlab", "slack", "google", "gcp", "aws", "azure", "aliyun", "alibaba", "tencent",
    "qcloud", "baidu", "huawei", "volc", "volcengine", "deepseek", "moonshot", "zhipu", "dashscope",
    "qwen", "doubao", "ark", "minimax", "hf", "huggingface",
))
# fmt: on
_VALUE_SUFFIXES = frozenset(
    {"base", "value", "str", "string", "plain", "raw", "b64", "base64", "hex", "bytes", "data"}
)


def _name_class(name: str) -> str | None:
    """password / secret / weak (only a random-looking value counts) / None (not secret)."""
    if name in ("PWD", "OLDPWD"):
        return None
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words:
        return None
    last = words[-1]
    if last in _PASSWORD_WORDS or last.endswith(("password", "passwd", "passphrase")):
        return "password"
    if last in _SECRET_WORDS or last.endswith(("secret", "token", "apikey")):
        return "secret"
    if last == "key":
        return "secret" if len(words) > 1 and words[-2] in _KEY_OWNERS else "weak"
    if last in ("auth", "sig", "signature", "hmac"):
        return "weak"
    if last in _VALUE_SUFFIXES and any(w in ("password", "secret", "token") for w in words):
        return "secret"
    return None


_EN_KEYWORD = re.compile(
    r"""(?i)(?<![A-Za-z0-9_\-])(?=[acekmlpst])(?:
        (?:aws[ _\-]?)?secret(?:[ _\-]?access)?[ _\-]?key | (?:api|access|private|account|signing|encryption|
        master|license|client|app)[ _\-]?(?:key|secret) | password | passwd | passphrase | passcode | pwd
      | secret | token | credentials? | key
    )(?![A-Za-z0-9_\-])""",
    re.VERBOSE,
)
_ZH_KEYWORD = re.compile(r"密码|口令|授权码|密钥|秘钥|私钥|令牌|通行证密钥")
# after a keyword in prose: "for the staging db", then is / 是 / : / =, or only a space
_EN_FILLER = re.compile(
    r"(?i)[ \t]+(?:for|of|on|in|at|to|from)(?:[ \t]+[^\s:=：,，。;；]{1,30}){1,4}?(?=[ \t]*(?:is\b|was\b|[:=：]|是|为))"
)
_EN_SEPARATOR = re.compile(
    r"(?i)(?P<strong>[ \t]*(?::=|=>|={1,3}|:|：)[ \t]*)|(?P<copula>[ \t]*(?:(?:(?:is|was|has been)[ \t]+(?:changed|set|updated|reset)[ \t]+to|(?:is|was)[ \t]+now|should[ \t]+be|is|was|are)\b|是|为)[ \t]*[:：]?[ \t]*)|(?P<weak>[ \t]+)"
)
_ZH_SEPARATOR = re.compile(
    r"(?P<adverb>(?:[ \t]*(?:一直|都|也|还|仍然|依然|现在|目前|已经|暂时|统一|默认|就)){0,4})"
    r"(?:(?P<strong>[ \t]*[:：=][ \t]*)|(?P<copula>[ \t]*(?:改成了?|改为|设置成|设置为|设成|设为|换成了?|是|为)[ \t]*[:：]?[ \t]*)|(?P<weak>[ \t]+))"
)


def _keyword_values(text: str) -> Iterable[Span]:
    for match in _ASSIGNMENT.finditer(text):
        name = match.group("name")
        kind = _name_class(name)
        if kind is None:
            continue
        if match.group("sep") == "=" and text[match.end("sep") : match.end("sep") + 1] == "=":
            continue  # a comparison: password == other
        span = _value_span(text, match.end(), "token" if kind == "password" else "bare")
        if span and text[match.start() - 1 : match.start()] in ("?", "&"):  # a query parameter
            amp = text.find("&", span[0], span[1])
            span = (span[0], amp) if amp > span[0] else span if amp < 0 else None
        if span and _accepts(text[span[0] : span[1]], kind, "strong"):
            yield span
    for match in _XML_SECRET.finditer(text):
        if _accepts(match.group(2), "secret", "strong"):
            yield match.span(2)
    for match in _EN_KEYWORD.finditer(text):
        keyword = match.group(0).lower()
        kind = _name_class(re.sub(r"[ \-]", "_", keyword)) or "secret"
        pos = match.end()
        filler = _EN_FILLER.match(text, pos)
        if filler:
            pos = filler.end()
        yield from _after_separator(text, pos, _EN_SEPARATOR, kind, keyword)
    for match in _ZH_KEYWORD.finditer(text):
        kind = "password" if match.group(0) in ("密码", "口令", "授权码") else "secret"
        yield from _after_separator(text, match.end(), _ZH_SEPARATOR, kind, match.group(0))


def _after_separator(
    text: str, pos: int, separator: re.Pattern[str], kind: str, keyword: str
) -> Iterable[Span]:
    sep = separator.match(text, pos)
    if not sep:
        return
    strength = next(name for name in ("strong", "copula", "weak") if sep.group(name) is not None)
    if strength == "weak" and keyword == "key":
        return  # "key" alone: only key = … / key: … say it is a value
    reading = "bare"
    if kind == "password":  # a password is read whole: any character may be in it
        chinese = not keyword.isascii() or not sep.group(0).isascii()
        reading = "clause" if chinese and strength != "weak" else "token"
    span = _value_span(text, sep.end(), reading)
    if not span:
        return
    value = text[span[0] : span[1]]
    if reading == "clause" and text[span[0] - 1] not in _QUOTES and any(ch in value for ch in " \t"):
        if not all(_describes(word) for word in value.split()):  # 密码是 correct horse battery staple
            yield span
    elif _accepts(value, kind, strength):
        yield span


# fmt: off
_STOP = frozenset((
    "a", "an", "the", "this", "that", "these", "those", "it", "its", "is", "was", "are", "be",
    "been", "being", "not", "no", "now", "still", "also", "only", "just", "too", "very", "so",
    "and", "or", "but", "if", "then", "than", "as", "in", "on", "at", "by", "for", "from", "of",
    "to", "with", "without", "into", "via", "per", "here", "there", "below", "above", "same",
    "different", "some", "any", "all", "none", "null", "nil", "undefined", "true", "false", "yes",
    "empty", "blank", "unset", "set", "missing", "required", "optional", "mandatory", "needed",
    "necessary", "invalid", "valid", "incorrect", "correct", "wrong", "right", "weak", "strong",
    "long", "short", "longer", "shorter", "secure", "insecure", "safe", "unsafe", "sensitive",
    "private", "public", "secret", "hidden", "visible", "plain", "plaintext", "cleartext", "random",
    "static", "dynamic", "temporary", "permanent", "old", "new", "default", "available",
    "unavailable", "enabled", "disabled", "fine", "ok", "okay", "good", "bad", "broken", "gone",
    "unknown", "unique", "shared", "separate", "global", "local", "specific", "string", "str",
    "int", "integer", "number", "float", "bool", "boolean", "bytes", "byte", "object", "array",
    "list", "dict", "map", "char", "text", "varchar", "uuid", "hash", "binary", "md5", "sha1",
    "sha-1", "sha256", "sha-256", "sha512", "sha-512", "bcrypt", "scrypt", "argon2", "argon2id",
    "pbkdf2", "aes", "aes-128", "aes-256", "aes256", "rsa", "rsa-2048", "rsa-4096", "ecdsa",
    "ed25519", "hmac", "hmac-sha256", "base64", "base32", "hex", "utf-8", "utf8", "ascii", "json",
    "yaml", "jwt", "jwe", "jws", "oauth", "oauth2", "bearer", "basic", "digest", "opaque", "otp",
    "totp", "hotp", "sso", "saml", "oidc", "ldap", "kerberos", "tls", "ssl", "https", "http", "ssh",
    "gpg", "pgp", "pem", "der", "pkcs8", "pkcs12", "x509", "kms", "vault", "env", "environment",
    "dotenv", "keychain", "keyring", "1password", "lastpass", "bitwarden", "secrets", "configmap",
    "header", "cookie", "query", "body", "field", "param", "parameter", "variable", "value", "key",
    "token", "password", "passwd", "pwd", "stored", "saved", "rotated", "expired", "revoked",
    "leaked", "exposed", "masked", "encrypted", "hashed", "encoded", "generated", "created",
    "changed", "updated", "reset", "managed", "provided", "injected", "mounted",
))
# fmt: on
_WORDLIKE = re.compile(r"[a-z]{5,}(?:ed|ing|ly|able|ible|less|ful|ous|ive|ment|tion|sion)")
_NAMELIKE = re.compile(r"[a-z]+(?:[\-_.][a-z]+)+")
_VERSION = re.compile(r"[vV]?\d+(?:\.\d+)+(?:[\-+][0-9A-Za-z.\-]+)?")
_PLACEHOLDER = re.compile(  # masked, templated, an environment variable, a reference, a path
    r"""(?x)
    [xX*•·.…_\-]+ | <.*> | \{\{.*\}\} | \$\{.*\} | \$\(.*\) | \$[A-Z_][A-Z0-9_]* | %[A-Z_][A-Z0-9_]*% | \{[A-Za-z_]+\}
  | (?i:your|my|some)[_\-].* | .*[_\-](?i:here) | (?:os\.environ|process\.env|env\(|getenv|ENV\[|secrets\.|vault:|ref\+|arn:).*
  | (?:/|~/|\./|\.\./|[A-Za-z]:\\).*
    """
)


def _describes(word: str) -> bool:
    """A word of a clause that says what a password is like (密码是 bcrypt hash 过的), not what it is."""
    lowered = _trim(word).lower()
    return (
        not any(ch.isalnum() for ch in lowered)
        or lowered in _STOP
        or lowered.isdigit()
        or bool(_VERSION.fullmatch(lowered) or _WORDLIKE.fullmatch(lowered))
        or _placeholder(lowered)
    )


def _placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.fullmatch(value[:_VALUE_MAX]))


def _accepts(value: str, kind: str, strength: str) -> bool:
    """Whether a value given to a secret name is the secret itself (not a word, a type, a placeholder)."""
    lowered = value.lower()
    if not value or _placeholder(value) or lowered in _STOP or _VERSION.fullmatch(value):
        return False
    if kind == "weak":  # "key", "auth", "sig": only a random-looking value is a secret
        return _randomish(value, 16) or _hexish(value, 32)
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() for c in value)
    if strength == "strong":
        if kind == "password":
            return True
        if _NAMELIKE.fullmatch(value) or (not letters and len(value) < 8):
            return False  # secretName: db-credentials-prod; max_token: 4096
        return len(value) >= 6
    wordlike = value.isalpha() and value.islower() and bool(_WORDLIKE.fullmatch(value))
    if strength == "copula":
        if kind == "password":
            return len(value) >= 4 and not wordlike
        return (
            len(value) >= 8
            and not wordlike
            and (digits or symbols or value != lowered)
            and not _NAMELIKE.fullmatch(value)
        )
    # only a space between the keyword and the value
    if kind == "password":
        return len(value) >= 6 and (digits or symbols) and not wordlike
    return len(value) >= 12 and letters and digits


# -- long random-looking tokens anywhere --------------------------------------------------------------------------
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{20,}={0,2}")
_HEX = re.compile(r"[0-9a-fA-F\-]+")
_DIGEST_PREFIX = re.compile(r"(?i)sha(?:1|224|256|384|512)[\-_:]")
_DIGEST_BEFORE = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5)[:=\-]$")  # SHA256:<base64> fingerprints


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_WORD_RUN = re.compile(r"[a-z]{3,}|[A-Z][a-z]{2,}")


def _randomish(value: str, min_len: int) -> bool:
    """Upper and lower case and digits, few word-like runs, high entropy: a key, not a name
    (UserServiceImplTest2Handler and getUserById2FromCacheOrDB are mostly words)."""
    if len(value) < min_len or not value.isascii():
        return False
    if not (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    ):
        return False
    wordy = sum(len(run) for run in _WORD_RUN.findall(value)) / len(value)
    return wordy < 0.6 and _entropy(value) >= 3.3


def _hexish(value: str, min_len: int) -> bool:
    return len(value) >= min_len and bool(_HEX.fullmatch(value)) and any(c.isalpha() for c in value)


def _high_entropy(text: str) -> Iterable[Span]:
    for match in _CANDIDATE.finditer(text):
        value = match.group(0).strip("=-_/")
        if (
            _DIGEST_PREFIX.match(value)
            or _HEX.fullmatch(value)
            or _DIGEST_BEFORE.search(text, max(0, match.start() - 8), match.start())
        ):
            continue  # sha256-…, sha256:…, git SHAs, UUIDs: identifiers, not secrets
        if not _randomish(value, 20):
            continue
        before = text[max(0, match.start() - 256) : match.start()]
        word_start = max(before.rfind(c) for c in " \t\n\"'`(<")
        if "://" in before[word_start + 1 :]:
            continue  # part of a URL path: a document or commit link (credentials are found above)
        start = match.start() + match.group(0).find(value)
        yield start, start + len(value)


# -- detect-secrets' provider patterns, on RE2 -----------------------------------------------------------------
log = logging.getLogger("memevo.redaction")

# Loading detect-secrets and RE2 costs every process ~16 MB (requests is most of it) and ~0.2 s,
# and most texts (a log record, a prompt) cannot match any of their patterns. So a text is first
# asked whether it could: every match of each pattern of the version below contains one of these
# literals or shapes (Stripe's `[rs]k_live_…` contains `k_live_`, Telegram's `\d{8,10}:…{35}` a
# `:` and 35 of those characters, Discord's the part after its first `.`), or a `://` with an
# `@` after it (basic auth, Cloudant). The (?i) patterns are looked for in the text's casefold,
# literals only: RE2 folds `ſ` and the Kelvin sign to s and k as casefold does, and a `.` of
# theirs may match a character the casefold makes two. Only a text that might match loads them.
# Every shape starts with a literal, so each search skips to it (~30 ms a megabyte, against
# 100-500 for the patterns themselves). The superset is proved over redaction's corpus and an
# example of each pattern (tests/test_redaction_prefilter.py); with another detect-secrets
# version every text loads them.
PATTERNS_FOR = "1.5.0"
_LITERALS = (
    "AKC", "A3T", "ABIA", "ACCA", "AKIA", "ASIA", "AccountKey=", "GR1348941", "eyJ",
    ":_authToken=", "T3BlbkFJ", "pypi-AgE", "sq0csp-", "k_live_",
)  # fmt: skip
_SHAPES = tuple(
    re.compile(shape)
    for shape in (
        r"gh[pousr]_",  # GitHub
        r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|oas)-",  # GitLab
        r"AP[0-9A-F][a-zA-Z0-9]{8}",  # Artifactory
        r"AC[a-z0-9]{32}",  # Twilio
        r"SK[a-z0-9]{32}",
        r"SG\.[a-zA-Z0-9_-]{22}\.",  # SendGrid
        r"\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27}",  # Discord
        r"-us[0-9]",  # Mailchimp
        r":[0-9A-Za-z_-]{35}",  # Telegram
    )
)
_FOLDED_LITERALS = ("aws", "softlayer", "hooks.slack.com/services/")
_FOLDED_SHAPE = re.compile(r"xox[abposr]-")  # Slack


def may_match_third_party(text: str) -> bool:
    """False only when no detect-secrets pattern can match the text (so they need not load)."""
    if not _third_party_known():
        return True
    if any(literal in text for literal in _LITERALS) or any(shape.search(text) for shape in _SHAPES):
        return True
    url = text.find("://")
    if url >= 0 and text.find("@", url) >= 0:
        return True
    folded = text.casefold()
    return any(literal in folded for literal in _FOLDED_LITERALS) or bool(_FOLDED_SHAPE.search(folded))


@functools.cache
def _third_party_known() -> bool:
    """The installed detect-secrets is the version the literals above were written for. Read
    from its __version__.py, not asked of importlib.metadata (which imports email, csv and a
    dozen more into every process that logs)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("detect_secrets")  # found, not imported
        if spec is None or spec.origin is None:
            return True  # none installed: nothing to load, _third_party() says so once
        text = Path(spec.origin).with_name("__version__.py").read_text(encoding="utf-8")
    except (OSError, ImportError, ValueError):
        return False
    found = re.search(r"""VERSION\s*=\s*['"]([^'"]{1,40})['"]""", text)
    return found is not None and found.group(1) == PATTERNS_FOR


@functools.cache
def _third_party() -> tuple[Any, ...]:
    """detect-secrets' provider patterns (maintained upstream), compiled with RE2 on bytes.
    Loaded once, for the first text that may_match_third_party (~0.2 s): never in a hook."""
    try:
        import re2
        from detect_secrets.plugins import (
            artifactory,
            aws,
            azure_storage_key,
            basic_auth,
            cloudant,
            discord,
            github_token,
            gitlab_token,
            ibm_cloud_iam,
            ibm_cos_hmac,
            jwt,
            mailchimp,
            npm,
            openai,
            pypi_token,
            sendgrid,
            slack,
            softlayer,
            square_oauth,
            stripe,
            telegram_token,
            twilio,
        )
    except ImportError as exc:  # a broken install: the patterns above still run
        log.warning("detect-secrets patterns unavailable (%s); using memevo's own only", exc)
        return ()
    detectors: list[Any] = [
        artifactory.ArtifactoryDetector,
        aws.AWSKeyDetector,
        azure_storage_key.AzureStorageKeyDetector,
        basic_auth.BasicAuthDetector,
        cloudant.CloudantDetector,
        discord.DiscordBotTokenDetector,
        github_token.GitHubTokenDetector,
        gitlab_token.GitLabTokenDetector,
        ibm_cloud_iam.IbmCloudIamDetector,
        ibm_cos_hmac.IbmCosHmacDetector,
        jwt.JwtTokenDetector,
        mailchimp.MailchimpDetector,
        npm.NpmDetector,
        openai.OpenAIDetector,
        pypi_token.PypiTokenDetector,
        sendgrid.SendGridDetector,
        slack.SlackDetector,
        softlayer.SoftlayerDetector,
        square_oauth.SquareOAuthDetector,
        stripe.StripeDetector,
        telegram_token.TelegramBotTokenDetector,
        twilio.TwilioKeyDetector,
    ]
    options = re2.Options()
    options.log_errors = False
    compiled = []
    for detector in detectors:
        for pattern in detector.denylist:
            source = pattern.pattern.removesuffix(r"(?!\w)")  # a boundary RE2 cannot express; harmless
            if pattern.flags & re.IGNORECASE:
                source = "(?i)" + source
            try:
                compiled.append(re2.compile(source.encode(), options=options))
            except re2.error:
                continue  # lookbehind and the like: covered by the assignment patterns above
    return tuple(compiled)


def _third_party_tokens(text: str) -> Iterable[Span]:
    if not may_match_third_party(text):
        return
    patterns = _third_party()
    if not patterns:
        return
    data = text.encode("utf-8", "replace")  # a lone surrogate becomes one "?": offsets still map
    found: list[tuple[int, int]] = []
    for pattern in patterns:
        for match in pattern.finditer(data):
            start, end = match.span()
            for index in range(len(match.groups()), 0, -1):  # the secret is the last group that took part,
                first, last = match.span(index)  # unless it is only the token's prefix (GitHub's `(ghp|…)_`)
                if last > first:
                    if first > start or last == end:
                        start, end = first, last
                    break
            chunk = data[start:end]
            start += len(chunk) - len(chunk.lstrip(b" \t\r\n\"'=:"))
            end -= len(chunk) - len(chunk.rstrip(b" \t\r\n\"'=:"))
            if end > start:
                found.append((start, end))
    if not found:
        return
    if text.isascii():
        yield from found
        return
    offsets = sorted({offset for span in found for offset in span})
    chars: dict[int, int] = {}
    last_byte = last_char = 0
    for offset in offsets:  # one pass: bytes to characters
        last_char += len(data[last_byte:offset].decode("utf-8", "replace"))
        last_byte = offset
        chars[offset] = last_char
    for start, end in found:
        yield min(chars[start], len(text)), min(chars[end], len(text))


# -- putting it together -------------------------------------------------------------------------------------------
_DETECTORS = (
    _private_keys,
    _provider_tokens,
    _url_credentials,
    _headers,
    _command_lines,
    _keyword_values,
    _high_entropy,
    _third_party_tokens,
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
    detect-secrets and RE2 load with the first record one of their patterns may match (~0.2 s,
    once, on the thread that logs it); a process whose records never may keeps ~16 MB less."""

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
