"""A value given to a name that says it is secret: assignments, JSON/YAML keys, query
parameters, XML elements, and English and Chinese prose."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .values import QUOTES, Span, accepts, describes, value_span

# -- a value given to a secret name: assignments, JSON/YAML keys, prose ----------------------------------------
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


def keyword_values(text: str) -> Iterable[Span]:
    for match in _ASSIGNMENT.finditer(text):
        name = match.group("name")
        kind = _name_class(name)
        if kind is None:
            continue
        if match.group("sep") == "=" and text[match.end("sep") : match.end("sep") + 1] == "=":
            continue  # a comparison: password == other
        span = value_span(text, match.end(), "token" if kind == "password" else "bare")
        if span and text[match.start() - 1 : match.start()] in ("?", "&"):  # a query parameter
            amp = text.find("&", span[0], span[1])
            span = (span[0], amp) if amp > span[0] else span if amp < 0 else None
        if span and accepts(text[span[0] : span[1]], kind, "strong"):
            yield span
    for match in _XML_SECRET.finditer(text):
        if accepts(match.group(2), "secret", "strong"):
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
    span = value_span(text, sep.end(), reading)
    if not span:
        return
    value = text[span[0] : span[1]]
    if reading == "clause" and text[span[0] - 1] not in QUOTES and any(ch in value for ch in " \t"):
        if not all(describes(word) for word in value.split()):  # 密码是 correct horse battery staple
            yield span
    elif accepts(value, kind, strength):
        yield span
