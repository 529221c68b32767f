"""A backfill candidate as From past sessions says it: its group, its evidence line and why it
is proposed, in the UI language."""

from __future__ import annotations

from typing import Any

from .i18n import listed, tr
from .memtable import group_name


def group_text(candidate: dict[str, Any]) -> str:
    if candidate["category"] == "project" and candidate["scope"] != "global":
        return tr("{group} in {repository}").format(
            group=group_name("project"), repository=candidate["scope"]
        )
    return group_name(candidate["category"])


def evidence_line(candidate: dict[str, Any]) -> str:
    evidence = candidate["evidence"]
    one = tr("said in {count} session, {first}..{last}")
    many = tr("said in {count} sessions, {first}..{last}")
    line = (one if evidence["sessions"] == 1 else many).format(
        count=evidence["sessions"], first=evidence["first_day"], last=evidence["last_day"]
    )
    if evidence["repositories"]:
        line += " · " + listed(evidence["repositories"])
    return line


def reasons_text(evidence: dict[str, Any]) -> str:
    """Why a candidate is proposed, in the UI language: from the reasons' codes (core's English
    `why` is for a terminal; a candidate without codes is shown as it came)."""
    from ..core import messages as m
    from .core_texts import backfill_reason

    reasons = evidence.get("reasons")
    if not isinstance(reasons, list):
        return listed(str(w) for w in evidence.get("why", []))
    said = []
    for reason in reasons:
        code = reason.get("code", "") if isinstance(reason, dict) else ""
        params = {k: str(v) for k, v in reason.items() if k != "code"} if isinstance(reason, dict) else {}
        try:
            said.append(backfill_reason(m.Message(code, **params)))
        except (KeyError, IndexError, ValueError):  # a code this version does not know
            said.append(str(params.get("text", code)))
    return listed(said)
