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

from .i18n import plural, tr

SESSION_SHOWN = 8  # characters of a long session id shown (the whole id is the tooltip)
EXCERPT_CHARS = 28  # of a memory's text beside its id on a button (the whole text is the tooltip)


def title(proposal: dict[str, Any] | None = None) -> str:
    if (proposal or {}).get("origin") == "consolidate":
        return tr("memevo · Tidy up memories")
    return tr("memevo · Confirm a new memory")


def heading(proposal: dict[str, Any] | None = None, offered: list[str] | None = None) -> str:
    """The dialog's question: only one whose answers are among the offered choices."""
    if (proposal or {}).get("origin") == "consolidate":
        if proposal and proposal.get("kind") == "contradiction":
            return tr("These memories contradict each other. Which one still holds?")
        if offered is not None and "merge" not in offered:
            return tr("These memories say the same thing. Which one do you keep?")
        if proposal and not proposal.get("merged_text"):  # merged by hand: the user's text
            return tr(
                "These memories say the same thing. Merge them into one (choose or edit its text "
                "below), or keep one?"
            )
        return tr("These memories say the same thing. Merge them, or keep one?")
    return tr("memevo learned something from your conversation. Save it as a memory?")


def excerpt(text: str, chars: int = EXCERPT_CHARS) -> str:
    """A memory's text short enough for a button: one line, cut with an ellipsis."""
    line = " ".join(str(text).split())
    return line if len(line) <= chars else line[: chars - 1].rstrip() + "…"


def member_texts(proposal: dict[str, Any]) -> dict[str, str]:
    """A consolidation's members: id -> text."""
    return {str(m.get("id")): str(m.get("text") or "") for m in proposal.get("members", [])}


def group_label(category: str) -> str:
    return {"rule": tr("Rules and preferences (rule)"), "project": tr("Project facts (project)")}.get(
        category, ""
    )


def choice(
    decision: str, target: Any, consolidation: bool = False, members: dict[str, str] | None = None
) -> str:
    """A decision's button (resolve.options names the decisions a proposal offers); keep:<id>
    and a consolidation's merge and discard are the consolidation pass's. members (id -> text):
    a keep names its memory by id and an excerpt of its text."""
    if decision.startswith("keep:"):
        kept = decision.removeprefix("keep:")
        if members and kept in members:
            return tr("Keep #{id} “{excerpt}”, trash the others").format(
                id=kept, excerpt=excerpt(members[kept])
            )
        return tr("Keep #{id}, trash the others").format(id=kept)
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


def result(done: dict[str, Any]) -> str:
    """What an answer did, in the UI's language (the notification after the dialog, and for a
    result written without confirmation): worded from the result's fields — core's `message`
    is Chinese, for the chat and the command line."""
    action = done.get("action")
    memory = done.get("memory") if isinstance(done.get("memory"), dict) else {}
    assert isinstance(memory, dict)
    fields = {"id": memory.get("id"), "text": memory.get("text") or ""}
    if done.get("origin") == "consolidate":
        if action == "discard":
            return tr("Kept them all as they are; they are not proposed again while they stay the same.")
        deleted = done.get("deleted") or []
        trashed = plural(
            len(deleted),
            tr("{count} other went to the trash (it can be restored)."),
            tr("{count} others went to the trash (they can be restored)."),
        )
        if action == "merge":
            return tr("Merged into memory #{id}: {text}").format(**fields) + "\n" + trashed
        return tr("Kept memory #{id}: {text}").format(**fields) + "\n" + trashed
    if action == "discard":
        return tr("Not saved: nothing was written.")
    gained = done.get("gained")
    said = {
        "create": tr("New memory #{id} (confidence {confidence}): {text}"),
        "replace": tr("Replaced memory #{id}: {text}"),
    }
    if isinstance(gained, (int, float)):
        fields["gained"] = f"{gained:g}"
        said["merge"] = tr("Merged into memory #{id} (confidence +{gained}): {text}")
        said["reinforce"] = (
            tr("This memory already existed: reinforced #{id} (confidence +{gained}): {text}")
            if done.get("existed")
            else tr("Reinforced memory #{id} (confidence +{gained}): {text}")
        )
    else:  # a result kept before the confidence gained was
        said["merge"] = tr("Merged into memory #{id}: {text}")
        said["reinforce"] = tr("Reinforced memory #{id}: {text}")
    if action not in said or not fields["id"]:
        return str(done.get("message") or "")  # a result of another shape: core's own words
    confidence = memory.get("confidence")
    fields["confidence"] = f"{confidence:g}" if isinstance(confidence, (int, float)) else "?"
    group = group_label(str(memory.get("category")))
    return said[str(action)].format(**fields) + (
        "\n" + tr("Group: {group}").format(group=group) if group else ""
    )
