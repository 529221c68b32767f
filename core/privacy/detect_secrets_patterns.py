"""detect-secrets' provider patterns (maintained upstream), run on RE2 (linear time), loaded
only for a text that may match one of them (core/privacy/prefilter.py)."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable
from typing import Any

from .prefilter import may_match_third_party
from .values import Span

log = logging.getLogger("memevo.redaction")


@functools.cache
def _third_party() -> tuple[Any, ...]:
    """detect-secrets' provider patterns (maintained upstream), compiled with RE2 on bytes.
    Loaded once, for the first text that may_match_third_party (a slow import): never in a hook."""
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
                continue  # lookbehind and the like: covered by the assignment patterns (redaction_keywords)
    return tuple(compiled)


def third_party_tokens(text: str) -> Iterable[Span]:
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
