"""What the confirmation dialog says, in the UI's language: its title, the proposal in words,
the choices, and where the proposal came from (client, project, session, time).

core.learning.stop has the same wording in Chinese for the in-chat question, which a client's
model puts to the user whatever the desktop's language; the dialog is the desktop's own and
speaks its language, so it words everything here through tr() and never shows core's labels.
Only the proposal's own text and the user's words stay as they were said."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .i18n import tr

SESSION_SHOWN = 8  # characters of a long session id shown (the whole id is the tooltip)


def title(proposal: dict[str, Any] | None = None) -> str:
    if (proposal or {}).get("origin") == "consolidate":
        return tr("memevo · Tidy up memories")
    return tr("memevo · Confirm a new memory")


def heading(proposal: dict[str, Any] | None = None) -> str:
    if (proposal or {}).get("origin") == "consolidate":
        if proposal and proposal.get("kind") == "contradiction":
            return tr("These memories contradict each other. Which one still holds?")
        return tr("These memories say the same thing. Merge them, or keep one?")
    return tr("memevo learned something from your conversation. Save it as a memory?")


def group_label(category: str) -> str:
    return {"rule": tr("Rules and preferences (rule)"), "project": tr("Project facts (project)")}.get(
        category, ""
    )


def choice(decision: str, target: Any, consolidation: bool = False) -> str:
    """A decision's button (resolve.options names the decisions a proposal offers); keep:<id>
    and a consolidation's merge and discard are the consolidation pass's."""
    if decision.startswith("keep:"):
        return tr("Keep #{id}, trash the others").format(id=decision.removeprefix("keep:"))
    if consolidation and decision == "merge":
        return tr("Merge into #{id}, trash the others").format(id=target)
    if consolidation and decision == "discard":
        return tr("Keep them all (don't ask again)")
    labels = {
        "create_rule": tr("Save as a rule"),
        "create_project": tr("Save as a project fact"),
        "reinforce": tr("Reinforce memory #{id}"),
        "merge": tr("Merge into memory #{id}"),
        "replace": tr("Replace memory #{id}"),
        "discard": tr("Don't save"),
    }
    return labels.get(decision, decision).format(id=target)


def describe(proposal: dict[str, Any]) -> str:
    """One line saying what the proposal would do."""
    action = proposal.get("action")
    if proposal.get("origin") == "consolidate":
        return "\n".join(
            tr("#{id}: “{text}”").format(id=m.get("id"), text=m.get("text"))
            for m in proposal.get("members", [])
        )
    fields = {
        "id": proposal.get("target"),
        "target": proposal.get("target_text") or "",
        "text": proposal.get("text") or "",
    }
    if action == "reinforce":
        return tr("Reinforce memory #{id} “{target}”").format(**fields)
    if action == "merge":
        fields["text"] = proposal.get("merged_text") or fields["text"]
        return tr("Merge memory #{id} “{target}” into “{text}”").format(**fields)
    if action == "replace":
        fields["text"] = proposal.get("replace_text") or fields["text"]
        return tr("Replace memory #{id} “{target}” with “{text}”").format(**fields)
    if proposal.get("category") == "project":
        return tr("A new project fact: “{text}”").format(**fields)
    return tr("A new rule: “{text}”").format(**fields)


def client_name(client: str) -> str:
    """The client's name (client_texts.client_label), or that it is not known."""
    from .client_texts import client_label

    return client_label(client) if client else tr("an unknown client")


def project(repo: str | None) -> tuple[str, str]:
    """(what is shown, its tooltip): the repository's folder name and its full path, or global
    when the proposal came with no folder (a project fact from it would apply everywhere)."""
    if not repo:
        return tr("Global"), tr("No project folder came with this proposal.")
    return Path(repo).name or repo, repo


def session(session_id: str) -> str:
    """A session id short enough to read; a long one (a Claude Code UUID) is cut."""
    return session_id if len(session_id) <= SESSION_SHOWN + 4 else session_id[:SESSION_SHOWN] + "…"


def when(at_ms: int, now_ms: int) -> str:
    """The local time a proposal was made, as a person says it: today / yesterday / a date."""
    at = datetime.fromtimestamp(at_ms / 1000)
    today = datetime.fromtimestamp(now_ms / 1000).date()
    hm = at.strftime("%H:%M")
    if at.date() == today:
        return tr("today at {time}").format(time=hm)
    if at.date() == today - timedelta(days=1):
        return tr("yesterday at {time}").format(time=hm)
    return tr("{date} at {time}").format(date=at.strftime("%Y-%m-%d"), time=hm)
