"""A value in text that may be a secret: where it ends, and whether it is the secret.

Read from bounded slices (at most VALUE_MAX characters), in one way, so in linear time; the
detectors (core/privacy/credentials.py, core/privacy/keywords.py, core/privacy/tokens.py)
find where a value starts and ask here how far it goes and whether it is a secret or a word,
a type, a placeholder.
"""

from __future__ import annotations

import math
import re

REDACTED = "[已隐去]"

Span = tuple[int, int]

VALUE_MAX = 512  # a value (password, token) is read from at most this many characters


QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」", "『": "』"}
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


def value_span(text: str, pos: int, reading: str = "bare") -> Span | None:
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
    close = QUOTES.get(text[pos])
    if close:
        window = text[pos + 1 : pos + 1 + VALUE_MAX]
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


# fmt: off
STOP = frozenset((
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


def describes(word: str) -> bool:
    """A word of a clause that says what a password is like (密码是 bcrypt hash 过的), not what it is."""
    lowered = _trim(word).lower()
    return (
        not any(ch.isalnum() for ch in lowered)
        or lowered in STOP
        or lowered.isdigit()
        or bool(_VERSION.fullmatch(lowered) or _WORDLIKE.fullmatch(lowered))
        or placeholder(lowered)
    )


def placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.fullmatch(value[:VALUE_MAX]))


def accepts(value: str, kind: str, strength: str) -> bool:
    """Whether a value given to a secret name is the secret itself (not a word, a type, a placeholder)."""
    lowered = value.lower()
    if not value or placeholder(value) or lowered in STOP or _VERSION.fullmatch(value):
        return False
    if kind == "weak":  # "key", "auth", "sig": only a random-looking value is a secret
        return randomish(value, 16) or _hexish(value, 32)
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


HEX = re.compile(r"[0-9a-fA-F\-]+")


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_WORD_RUN = re.compile(r"[a-z]{3,}|[A-Z][a-z]{2,}")


def randomish(value: str, min_len: int) -> bool:
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
    return len(value) >= min_len and bool(HEX.fullmatch(value)) and any(c.isalpha() for c in value)
