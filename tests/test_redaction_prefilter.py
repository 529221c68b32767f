"""detect-secrets and RE2 load only for a text that may match one of their patterns
(core/privacy/prefilter.py, `may_match_third_party`): proved a superset of what the patterns match on
redaction's own corpus and tests, one example of every pattern, their case-folded and mutated
variants and hostile text; and a process that logs only ordinary records never loads them."""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from deadlines import HANG_S
from memevo.cli.bench.hostile_text import adversarial_inputs
from memevo.core.privacy import detect_secrets_patterns as redaction_detect_secrets
from memevo.core.privacy import prefilter as redaction_prefilter
from memevo.core.privacy import values as redaction_values

TESTS = Path(__file__).parent
CORPUS = json.loads((TESTS / "data" / "redaction-corpus.json").read_text(encoding="utf-8"))

# One text for each pattern detect-secrets 1.5.0 gives, by its source as redaction compiles it
# (fake values, in the patterns' shapes). A pattern added or changed upstream has no example
# here and fails test_every_pattern_has_an_example: the prefilter must be looked at again.
EXAMPLES: dict[str, str] = {
    r'(?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\s|"|$)': "artifactory: AKCp8jQ3Zx9kLmN2 ok",
    r'(?:\s|=|:|"|^)AP[\dABCDEF][a-zA-Z0-9]{8,}(?:\s|"|$)': "key=APBxY7mQ2wZr9 more",
    r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}": "id AKIAIOSFODNN7EXAMPLE",
    r"(?i)aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\'\"]([0-9a-zA-Z/+]{40})[\'\"]": (
        'aws_secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"'
    ),
    r"AccountKey=[a-zA-Z0-9+\/=]{88}": "AccountName=x;AccountKey=" + "Ab1+" * 22,
    r"://[^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+:([^:/\?\#\[\]@!\$\&'\(\)\*\+,;=\s]+)@": (
        "https://user:hunter2pass@example.com"
    ),
    r"(?i)(?:https?\:\/\/)[\w\-]+\:([0-9a-f]{64})\@[\w\-]+\.cloudant\.com": (
        "https://acct:" + "0123456789abcdef" * 4 + "@acct.cloudant.com"
    ),
    r"(?i)(?:https?\:\/\/)[\w\-]+\:([a-z]{24})\@[\w\-]+\.cloudant\.com": (
        "https://acct:abcdefghijklmnopqrstuvwx@acct.cloudant.com"
    ),
    r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}": "M" + "Tz" * 11 + "Q.Gh1jKl." + "x9" * 14,
    r"(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36}": "ghp_" + "a1B2" * 9,
    r"(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}": "glpat-" + "x1" * 10,
    r"GR1348941[A-Za-z0-9_\-]{20,50}": "GR1348941" + "y2" * 10,
    r"glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}": "glcbt-" + "z3" * 10,
    r"glimt-[A-Za-z0-9_\-]{25}": "glimt-" + "q" * 25,
    r"glptt-[A-Za-z0-9_\-]{40}": "glptt-" + "r" * 40,
    r"gloas-[A-Za-z0-9_\-]{64}": "gloas-" + "s" * 64,
    r"eyJ[A-Za-z0-9-_=]+\.[A-Za-z0-9-_=]+\.?[A-Za-z0-9-_.+/=]*?": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
    r"[0-9a-z]{32}-us[0-9]{1,2}": "0123456789abcdef0123456789abcdef-us12",
    r"\/\/.+\/:_authToken=\s*((npm_.+)|([A-Fa-f0-9-]{36})).*": "//registry.npmjs.org/:_authToken=npm_abc123",
    r"sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}": (
        "sk-proj" + "A1" * 10 + "T3BlbkFJ" + "B2" * 10
    ),
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,}": "pypi-AgEIcHlwaS5vcmc" + "x" * 70,
    r"pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,}": "pypi-AgENdGVzdC5weXBpLm9yZw" + "x" * 70,
    r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}": "SG." + "a" * 22 + "." + "b" * 43,
    r"(?i)xox(?:a|b|p|o|s|r)-(?:\d+-)+[a-z0-9]+": "xoxb-123-456-abc",
    r"(?i)https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+": (
        "https://hooks.slack.com/services/T000/B000/XXXX"
    ),
    r"(?i)(?:http|https)://api.softlayer.com/soap/(?:v3|v3.1)/([a-z0-9]{64})": (
        "https://api.softlayer.com/soap/v3/" + "a1" * 32
    ),
    r"sq0csp-[0-9A-Za-z\\\-_]{43}": "sq0csp-" + "c" * 43,
    r"(?:r|s)k_live_[0-9a-zA-Z]{24}": "sk_live_" + "d4" * 12,
    r"\d{8,10}:[0-9A-Za-z_-]{35}": "123456789:" + "e5" * 17 + "e",
    r"AC[a-z0-9]{32}": "AC" + "f6" * 16,
    r"SK[a-z0-9]{32}": "SK" + "07" * 16,
}
# What RE2's (?i) matches for an ASCII letter beside the letter's two cases.
FOLDS = {"s": "ſ", "k": "\u212a"}


def _patterns() -> tuple[Any, ...]:
    patterns = redaction_detect_secrets._third_party()
    assert len(patterns) >= 30, "detect-secrets' patterns did not load"
    return patterns


def _matched(text: str) -> bool:
    data = text.encode("utf-8", "replace")
    return any(pattern.search(data) for pattern in _patterns())


def _test_strings() -> list[str]:
    """Every string constant of redaction's own tests."""
    found: list[str] = []
    for name in ("test_redaction.py", "test_text_hardening.py"):
        tree = ast.parse((TESTS / name).read_text(encoding="utf-8"))
        found += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return found


def _variants(text: str, rng: random.Random) -> list[str]:
    """The text in prose, in upper case, with RE2's extra folds, and randomly mutated."""
    alphabet = "aAsSkKzZ09-_.:/@=+\"' \n" + "ſ\u212aßİı密码é\U0001f600"
    out = [f"see {text} here", f"配置里写的是{text}，别外传", text.upper(), text.swapcase()]
    out += [text.replace(plain, folded) for plain, folded in FOLDS.items()]
    out += [text.upper().replace(plain.upper(), folded) for plain, folded in FOLDS.items()]
    for _ in range(120):
        chars = list(text)
        for _edit in range(rng.randint(1, 3)):
            at = rng.randrange(len(chars) + 1)
            what = rng.random()
            if what < 0.4 and at < len(chars):
                chars[at] = rng.choice(alphabet)
            elif what < 0.7 and at < len(chars):
                del chars[at]
            else:
                chars.insert(at, rng.choice(alphabet))
        out.append("".join(chars))
    return out


def test_written_for_the_installed_detect_secrets() -> None:
    """Another version of detect-secrets makes every text load the patterns (safe, not light)."""
    from importlib import metadata

    assert metadata.version("detect-secrets") == redaction_prefilter.PATTERNS_FOR
    assert redaction_prefilter._third_party_known()


def test_another_detect_secrets_version_loads_them_for_every_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redaction_prefilter, "PATTERNS_FOR", "0.0.0")
    redaction_prefilter._third_party_known.cache_clear()
    try:
        assert redaction_prefilter.may_match_third_party("an ordinary sentence")
    finally:
        monkeypatch.undo()
        redaction_prefilter._third_party_known.cache_clear()
    assert not redaction_prefilter.may_match_third_party("an ordinary sentence")


def test_every_pattern_has_an_example_that_it_matches_and_that_may_match() -> None:
    sources = [pattern.pattern.decode() for pattern in _patterns()]
    assert sorted(sources) == sorted(EXAMPLES)
    for pattern in _patterns():
        example = EXAMPLES[pattern.pattern.decode()]
        assert pattern.search(example.encode()), example
        assert redaction_prefilter.may_match_third_party(example), example


def test_whatever_a_pattern_matches_may_match() -> None:
    """The superset: over the corpus, redaction's tests, every example's variants and hostile
    text, no text that a pattern matches is one the prefilter lets pass."""
    rng = random.Random(33)
    texts = [entry["text"] for entry in CORPUS["secrets"]] + CORPUS["ordinary"] + _test_strings()
    for example in EXAMPLES.values():
        texts += _variants(example, rng)
    texts += [text[:4000] for text in adversarial_inputs(4000).values()]
    alphabet = "aswkxoAC0123456789:/.@-_=+\"' ſ\u212aß"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 200))) for _ in range(3000)]
    matched = [text for text in texts if _matched(text)]
    assert len(matched) > 1000  # the check is not empty
    assert [text[:80] for text in matched if not redaction_prefilter.may_match_third_party(text)] == []


def test_re2_folds_an_ascii_letter_only_to_what_casefold_maps_to_it() -> None:
    """The prefilter's case-insensitive literals are looked for in the casefold: sound only if
    every character RE2's (?i) takes for an ASCII letter casefolds to that letter."""
    import re2

    every = "\n".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    found = {m.group(0).decode() for m in re2.compile(b"(?i)[a-z]").finditer(every.encode())}
    assert found == set(FOLDS.values())
    for letter, folded in FOLDS.items():
        assert folded.casefold() == letter


def test_ordinary_text_and_the_services_own_records_load_nothing() -> None:
    """A prefilter that let everything through would keep the guarantee and save nothing."""
    ordinary = CORPUS["ordinary"]
    assert sum(redaction_prefilter.may_match_third_party(t) for t in ordinary) <= len(ordinary) // 10
    for record in (
        "encoder: intfloat/multilingual-e5-small on onnx",
        "service listening on /tmp/memevo-1000/service.sock (pid 4242)",
        "recall: 3 hits in 12.5 ms for claude-code session 5f0c2a1e-9d7b-4c1e-8a5e-2b9f1d3c4e6a",
    ):
        assert not redaction_prefilter.may_match_third_party(record), record


CHILD = """
import io, json, logging, sys
from memevo.core.privacy.redaction import RedactingFilter
baseline = set(sys.modules)
out = io.StringIO()
handler = logging.StreamHandler(out)
handler.addFilter(RedactingFilter())
log = logging.getLogger("child")
log.addHandler(handler)
log.setLevel(logging.INFO)
log.info("encoder: %s on %s", "intfloat/multilingual-e5-small", "onnx")
before = sorted(m for m in ("detect_secrets", "re2", "requests", "email", "csv") if m in sys.modules and m not in baseline)
log.info("artifactory said: %s", sys.argv[1])
after = sorted(m for m in ("detect_secrets", "re2") if m in sys.modules)
print(json.dumps({"before": before, "after": after, "log": out.getvalue()}))
"""


@pytest.mark.parametrize("secret", [EXAMPLES[r"AC[a-z0-9]{32}"], "AKCp8jQ3Zx9kLmN2"])
def test_a_log_loads_the_patterns_only_for_a_record_that_needs_them(secret: str) -> None:
    """In a fresh process: an ordinary record loads nothing; a key only detect-secrets knows
    (Twilio's, Artifactory's) still never reaches the log."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", CHILD, secret], capture_output=True, text=True, timeout=HANG_S
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["before"] == []
    assert seen["after"] == ["detect_secrets", "re2"]
    assert secret not in seen["log"] and redaction_values.REDACTED in seen["log"]
    assert "multilingual-e5-small" in seen["log"]
