"""Secrets known by their shape: private key blocks, provider tokens and webhook URLs, and a
long random-looking token anywhere."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .values import HEX, Span, randomish

# -- private key blocks ------------------------------------------------------------------------------
_PEM_EDGE = re.compile(r"-----(BEGIN|END)[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d: ")


def private_keys(text: str) -> Iterable[Span]:
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


def provider_tokens(text: str) -> Iterable[Span]:
    for match in _PROVIDER.finditer(text):
        token = match.group(0)
        if match.group("sk") and sum(ch.isdigit() for ch in token) < 2:
            continue  # `sk-learn-pipeline-v2` is a name; real keys are random
        yield match.span()
    for match in _WEBHOOK.finditer(text):
        yield match.span(1)


# -- long random-looking tokens anywhere --------------------------------------------------------------------------
_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{20,}={0,2}")
_DIGEST_PREFIX = re.compile(r"(?i)sha(?:1|224|256|384|512)[\-_:]")
_DIGEST_BEFORE = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5)[:=\-]$")  # SHA256:<base64> fingerprints


def high_entropy(text: str) -> Iterable[Span]:
    for match in _CANDIDATE.finditer(text):
        value = match.group(0).strip("=-_/")
        if (
            _DIGEST_PREFIX.match(value)
            or HEX.fullmatch(value)
            or _DIGEST_BEFORE.search(text, max(0, match.start() - 8), match.start())
        ):
            continue  # sha256-…, sha256:…, git SHAs, UUIDs: identifiers, not secrets
        if not randomish(value, 20):
            continue
        before = text[max(0, match.start() - 256) : match.start()]
        word_start = max(before.rfind(c) for c in " \t\n\"'`(<")
        if "://" in before[word_start + 1 :]:
            continue  # part of a URL path: a document or commit link (credentials are found above)
        start = match.start() + match.group(0).find(value)
        yield start, start + len(value)
