"""What the installer knows about a client, with the defaults most clients share.

One subclass per client, in its own module beside this one (the hook side has the same, in
hooks/clients/): its folder and files, how to tell it is installed, its hook events and
timeouts and the shape of its hooks file, how its MCP server is registered, where the skill
goes, and any older layout it still reads. The steps below (register, unregister, status)
are the same for every client; a client changes only the step that differs for it.

Setup, `setup --repair`, `uninstall` and the tray's watcher all come through `register`,
`unregister` and `status`, so a repair writes exactly what setup writes. Each step reports
what it did as a line, a Message (installer/messages.py: its English text, and a code the
desktop translates); a client file that is not valid JSON stops that client only,
untouched, with the reason. Paths are computed at call time from HOME and the clients' own
overrides, so tests and users with moved folders get the right files."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from .. import entries, jsonfile, skills
from .. import messages as m
from ..hook_command import command

Change = Callable[[dict[str, Any]], bool]


def home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def tilde(path: Path | str) -> str:
    """A path under HOME as ~/…, for messages."""
    text, root = str(path), str(home())
    return "~" + text[len(root) :] if text.startswith(root + "/") else text


def override(variable: str, default: Path) -> Path:
    """A client's own environment variable for its folder, else `default`."""
    value = os.environ.get(variable, "").strip()
    return Path(value).expanduser() if value else default


@dataclass(frozen=True)
class ClientFiles:
    name: str
    config_dir: Path  # its existence means the client is installed
    hooks_file: Path
    mcp_files: tuple[Path, ...]  # every file we write our MCP entry into (empty: via the client's CLI)
    skills_dir: Path
    display: str = ""

    @property
    def installed(self) -> bool:
        return self.config_dir.is_dir()


@dataclass
class ClientResult:
    client: str
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    changed: bool = False
    hooks_ok: bool = False  # our hooks are in place: the client counts as registered
    manual_command: str | None = None  # an MCP registration left to the user: run this by hand

    @property
    def ok(self) -> bool:
        return not self.problems


def edit(result: ClientResult, writer: jsonfile.Writer, path: Path, change: Change, what: str) -> None:
    """Load `path`, apply `change`, save it if anything changed; problems go into `result`."""
    try:
        data = jsonfile.load(path)
        if change(data) and writer.save(path, data):
            result.lines.append(m.Message(m.WROTE, what=what, path=tilde(path)))
            result.changed = True
    except jsonfile.ClientFileError as exc:
        result.problems.append(str(exc))
    except (ValueError, TypeError, AttributeError) as exc:  # a file of an unexpected shape
        result.problems.append(f"{path}: {exc}; left untouched")


class Client:
    name: ClassVar[str] = ""
    display: ClassVar[str] = ""  # the name people know it by, in every message
    # The client's hook events, each to the kind our hook handles (session_start, prompt,
    # action, stop), in the order they are written; hooks/clients/<name>.py has the same table.
    events: ClassVar[dict[str, str]] = {}
    timeouts: ClassVar[dict[str, int]] = {}  # seconds, per kind, as registered in the client
    matchers: ClassVar[dict[str, str]] = {}  # event -> the tool-name matcher of its group
    hooks_file_name: ClassVar[str] = "settings.json"
    flat_hooks: ClassVar[bool] = False  # handlers listed under each event, without matcher groups
    notes: ClassVar[tuple[str, ...]] = ()  # said once at the end of a setup that registered it
    # A yes/no question for a client with permission rules (Claude Code: memory_propose without
    # asking; nothing that confirms or changes a memory is ever allowed that way).
    permission_question: ClassVar[str | None] = None

    # -- its files -------------------------------------------------------------------------------------
    def config_dir(self) -> Path:
        raise NotImplementedError

    def mcp_files(self, config_dir: Path) -> tuple[Path, ...]:
        return (config_dir / "mcp.json",)

    def files(self) -> ClientFiles:
        base = self.config_dir()
        return ClientFiles(
            self.name, base, base / self.hooks_file_name, self.mcp_files(base), base / "skills", self.display
        )

    def watched_files(self) -> list[Path]:
        """The files the tray's watcher keeps an eye on."""
        where = self.files()
        return [where.hooks_file, *where.mcp_files]

    # -- its hooks -------------------------------------------------------------------------------------
    def hook_command(self, event: str, platform: str | None = None) -> str:
        """`platform`: sys.platform's value (this machine's by default)."""
        return command(self.name, event)

    def snippet(self, platform: str | None = None) -> dict[str, Any]:
        """The exact hook registration (`memevo hooks print-config CLIENT`, and what setup writes)."""
        groups = {
            event: [
                {
                    "matcher": self.matchers.get(event, ""),
                    "hooks": [
                        {
                            "type": "command",
                            "command": self.hook_command(event, platform),
                            "timeout": self.timeouts[kind],
                        }
                    ],
                }
            ]
            for event, kind in self.events.items()
        }
        return {"hooks": groups}

    def set_hooks(self, data: dict[str, Any], platform: str | None = None) -> bool:
        return entries.set_hooks(self.snippet(platform), data, self.flat_hooks)

    def hooks_status(self, data: dict[str, Any], platform: str | None = None) -> str:
        return entries.hooks_status(self.snippet(platform), data, self.flat_hooks)

    # -- the steps -------------------------------------------------------------------------------------
    def register(
        self, writer: jsonfile.Writer, permission: bool | None = None, peers: Sequence[Client] = ()
    ) -> ClientResult:
        """permission (a client with permission rules): True adds our rules (Claude Code:
        memory_propose) and takes out retired ones (memory_resolve, which earlier versions
        allowed), False removes them all, None keeps them as they are. peers: every client,
        told where our skill went."""
        where = self.files()
        result = ClientResult(self.name)
        edit(result, writer, where.hooks_file, self.set_hooks, "hooks")
        result.hooks_ok = not result.problems
        if permission is not None:
            self.set_permission(result, writer, where, permission)
        self.register_mcp(result, writer, where)
        self.place_skill(result, where, peers)
        return result

    def unregister(self, writer: jsonfile.Writer, use_cli: bool = True) -> ClientResult:
        where = self.files()
        result = ClientResult(self.name)
        if where.hooks_file.exists():
            edit(result, writer, where.hooks_file, entries.remove_hooks, "hooks")
            self.remove_permission(result, writer, where)
        self.unregister_mcp(result, writer, where, use_cli)
        if skills.remove(where.skills_dir):
            result.lines.append(m.Message(m.SKILL_REMOVED, path=f"{tilde(where.skills_dir)}/"))
            result.changed = True
        return result

    def status(self) -> dict[str, str]:
        """Per part: 'ok', 'missing', 'stale', or 'broken: reason'."""
        where = self.files()
        report: dict[str, str] = {}
        try:
            report["hooks"] = self.hooks_status(jsonfile.load(where.hooks_file))
        except jsonfile.ClientFileError as exc:
            report["hooks"] = f"broken: {exc}"
        self.mcp_status(report, where)
        if self.owns_skill():
            report["skill"] = skills.status(where.skills_dir)
        return report

    # -- the permission rule (none by default) ---------------------------------------------------------
    def set_permission(
        self, result: ClientResult, writer: jsonfile.Writer, where: ClientFiles, allow: bool
    ) -> None:
        pass

    def remove_permission(self, result: ClientResult, writer: jsonfile.Writer, where: ClientFiles) -> None:
        pass

    # -- the MCP server: our entry in each of its MCP files --------------------------------------------
    def register_mcp(self, result: ClientResult, writer: jsonfile.Writer, where: ClientFiles) -> None:
        for mcp_file in where.mcp_files:
            edit(result, writer, mcp_file, partial(self.write_mcp_entry, mcp_file, result), "the MCP server")

    def write_mcp_entry(self, mcp_file: Path, result: ClientResult, data: dict[str, Any]) -> bool:
        return entries.set_mcp(self.name, data)

    def unregister_mcp(
        self, result: ClientResult, writer: jsonfile.Writer, where: ClientFiles, use_cli: bool
    ) -> None:
        for mcp_file in self.mcp_files_to_clean(where):
            if mcp_file.exists():
                edit(result, writer, mcp_file, entries.remove_mcp, "the MCP server")
            self.after_mcp_removed(mcp_file, result)

    def mcp_files_to_clean(self, where: ClientFiles) -> list[Path]:
        """Every file an entry of ours may be in (uninstall looks in all of them)."""
        return list(where.mcp_files)

    def after_mcp_removed(self, mcp_file: Path, result: ClientResult) -> None:
        pass

    def manual_mcp_command(self) -> str | None:
        """The command the user must run for our MCP server when memevo cannot register it
        alone (None: memevo writes it itself)."""
        return None

    def mcp_status(self, report: dict[str, str], where: ClientFiles) -> None:
        for mcp_file in where.mcp_files:
            try:
                report[f"mcp:{mcp_file.name}"] = entries.mcp_status(self.name, jsonfile.load(mcp_file))
            except jsonfile.ClientFileError as exc:
                report[f"mcp:{mcp_file.name}"] = f"broken: {exc}"

    # -- the manage skill ------------------------------------------------------------------------------
    def owns_skill(self) -> bool:
        """False when this client reads another client's copy of our skill: it gets none of its own."""
        return True

    def skill_shared_note(self) -> str:
        """Why a client that does not own the skill has no copy (said when its copy is removed)."""
        return ""

    def place_skill(self, result: ClientResult, where: ClientFiles, peers: Sequence[Client]) -> None:
        try:
            if self.owns_skill():
                if skills.install(where.skills_dir):
                    result.lines.append(m.Message(m.SKILL_PLACED, path=f"{tilde(where.skills_dir)}/"))
                    result.changed = True
            elif skills.remove(where.skills_dir):  # it reads another's copy: ours here would be a second
                result.lines.append(
                    m.Message(m.SKILL_SHARED, path=tilde(where.skills_dir), why=self.skill_shared_note())
                )
                result.changed = True
            for peer in peers:
                peer.skill_placed_by(self, result)
        except (skills.SkillNotOurs, OSError) as exc:
            result.problems.append(str(exc))

    def skill_placed_by(self, other: Client, result: ClientResult) -> None:
        """`other` just placed our skill; a client that reads its copy drops its own."""

    def after_unregistered(self, other: Client, lines: list[str]) -> None:
        """`uninstall --only` removed `other`; a client that read its copy of the skill gets one."""
