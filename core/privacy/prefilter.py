"""Whether detect-secrets' patterns could match a text at all, asked before they load.

Read by core/privacy/detect_secrets_patterns.py, which loads the patterns only for a text that may match.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

# Loading detect-secrets and RE2 costs every process memory (requests is most of it) and time,
# and most texts (a log record, a prompt) cannot match any of their patterns. So a text is first
# asked whether it could: every match of each pattern of the version below contains one of these
# literals or shapes (Stripe's `[rs]k_live_…` contains `k_live_`, Telegram's `\d{8,10}:…{35}` a
# `:` and 35 of those characters, Discord's the part after its first `.`), or a `://` with an
# `@` after it (basic auth, Cloudant). The (?i) patterns are looked for in the text's casefold,
# literals only: RE2 folds `ſ` and the Kelvin sign to s and k as casefold does, and a `.` of
# theirs may match a character the casefold makes two. Only a text that might match loads them.
# Every shape starts with a literal, so each search skips to it (several times faster than the
# patterns themselves; `memevo bench --json`: filter_worst_ms). The superset is proved over redaction's corpus and an
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
            return True  # none installed: nothing to load, redaction_detect_secrets says so once
        text = Path(spec.origin).with_name("__version__.py").read_text(encoding="utf-8")
    except (OSError, ImportError, ValueError):
        return False
    found = re.search(r"""VERSION\s*=\s*['"]([^'"]{1,40})['"]""", text)
    return found is not None and found.group(1) == PATTERNS_FOR
