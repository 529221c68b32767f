"""One state per client, read from its files and install.json, and the words for it: the
wizard's last page, the tray's Clients menu, the panel's Status tab, `memevo setup` and the
repair notifications all say a client's state from here, so they never contradict each other.

The hooks and the MCP server are shown apart: Claude Code's MCP server goes through its own
`claude` CLI, and without that binary memevo cannot register it alone — the state is then
"needs one command", with the exact command, never "missing" (which Repair now would fix).

The words for each state are defined once, below, in English and keyed by code; the desktop
says the same codes through tr() (desktop/client_texts.py), and a state's line is a Message
(installer/messages.py) whose codes the wizard's log translates."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import messages as m
from . import state
from .clients import DISPLAY_NAMES, files, get

# Overall, most pressing first.
NOT_INSTALLED, REMOVED, NOT_REGISTERED, BROKEN, NEEDS_REPAIR, NEEDS_COMMAND, OK = (
    "not-installed",
    "removed",
    "not-registered",
    "broken",
    "needs-repair",
    "needs-command",
    "ok",
)
SUMMARY = {
    OK: "hooks and MCP server registered",
    NEEDS_COMMAND: "hooks registered; the MCP server needs one command",
    NEEDS_REPAIR: "registration incomplete; Repair now restores it",
    BROKEN: "a client file cannot be read",
    NOT_REGISTERED: "not registered; run setup",
    REMOVED: "removed (uninstall --only)",
    NOT_INSTALLED: "not installed",
}
REPAIRS_STOPPED = "repairs stopped"
# As messages: "state.ok", …, and a summary with its repairs stopped.
STOPPED_REPAIRING = "state.repairs-stopped"
m.define(
    {f"state.{code}": text for code, text in SUMMARY.items()}
    | {STOPPED_REPAIRING: "{state}; " + REPAIRS_STOPPED}
)
# Per part: hooks, the MCP server, the skill.
PART_NAMES = {"hooks": "Hooks", "mcp": "MCP server", "skill": "Skill"}
PART_STATES = {
    "ok": "registered",
    "missing": "missing",
    "stale": "out of date",
    "broken": "cannot be read",
    "command": "needs one command",
}


@dataclass(frozen=True)
class ClientState:
    client: str
    overall: str  # one of SUMMARY's keys
    parts: dict[str, str] = field(default_factory=dict)  # hooks / mcp / skill -> a PART_STATES key
    repairing: bool = True  # the tray keeps its registration (the user did not stop it)
    command: str | None = None  # what the user runs to finish (needs-command)
    problem: str | None = None  # why a file cannot be read (broken)

    @property
    def display(self) -> str:
        return DISPLAY_NAMES[self.client]

    @property
    def registered(self) -> bool:
        """Set up by memevo and not removed: repairs and "stop repairing" apply."""
        return self.overall not in (NOT_INSTALLED, REMOVED, NOT_REGISTERED)

    def summary(self) -> m.Message:
        """The state in words: its English as a str, its code for the desktop (desktop/client_texts)."""
        said = m.Message(f"state.{self.overall}")
        if self.registered and not self.repairing:
            said = m.Message(STOPPED_REPAIRING, state=said)
        return said

    def title(self) -> m.Message:
        """`Claude Code: hooks registered; the MCP server needs one command`."""
        return m.Message(m.STATE, client=self.display, state=self.summary())

    def lines(self) -> list[str]:
        """`Claude Code: …`, then one line per part, then the command: what `memevo setup` prints."""
        out: list[str] = [self.title()]
        if self.problem:
            out.append(f"  {self.problem}")
        if self.registered:
            out += [f"  {PART_NAMES[p]}: {PART_STATES[s]}" for p, s in self.parts.items()]
        if self.command:
            out.append(m.Message(m.RUN, command=self.command))
        return out


def _part(values: list[str]) -> str:
    """Several files for one part (Cursor's MCP server): the worst of them."""
    for worst in ("broken", "missing", "stale"):
        if any(v.startswith(worst) for v in values):
            return worst
    return "ok"


def read(client: str) -> ClientState:
    """The client's state now (reads its files: not on a UI thread that must not wait)."""
    if not files(client).installed:
        return ClientState(client, NOT_INSTALLED)
    entry = state.client(client)
    repairing = bool(entry.get("repair", True))
    if entry.get("removed"):
        return ClientState(client, REMOVED, repairing=repairing)
    if not entry.get("registered"):
        return ClientState(client, NOT_REGISTERED, repairing=repairing)
    report = get(client).status()
    parts = {
        "hooks": _part([report.get("hooks", "missing")]),
        "mcp": _part([v for k, v in report.items() if k == "mcp" or k.startswith("mcp:")] or ["ok"]),
    }
    if "skill" in report and _part([report["skill"]]) != "ok":  # named only when it needs a repair
        parts["skill"] = _part([report["skill"]])
    broken = [v.removeprefix("broken: ") for v in report.values() if v.startswith("broken")]
    command = get(client).manual_mcp_command() if parts["mcp"] in ("missing", "stale") else None
    if command:
        parts["mcp"] = "command"
    if broken:
        overall = BROKEN
    elif any(s in ("missing", "stale") for s in parts.values()):
        overall = NEEDS_REPAIR
    elif command:
        overall = NEEDS_COMMAND
    else:
        overall = OK
    return ClientState(client, overall, parts, repairing, command, broken[0] if broken else None)


def read_all() -> list[ClientState]:
    from .clients import CLIENTS

    return [read(client) for client in CLIENTS]
