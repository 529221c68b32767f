"""`memevo`: the command line: its parser and the start and overview commands. The commands
themselves live in memory_commands, import_commands, model_commands, service_commands and
setup_commands. Imports stay lazy so model-free commands answer fast, and the resident
process (`memevo serve`, `memevo tray`, as hooks, autostart and the bench start them) imports
no parser and no other command's module: it would keep them for its whole life."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from ..core import __version__
from .shared import call, progress, run_handler

if TYPE_CHECKING:
    import argparse

    from .shared import Handler


def main(argv: Sequence[str] | None = None) -> int:
    from ..core.paths import user_only

    user_only()  # before anything is created: the service, tray and MCP server start here too
    resident = resident_command(sys.argv[1:] if argv is None else argv)
    if resident is not None:
        return run_handler(*resident)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        args.handler = _cmd_start
        args.json = False
    return run_handler(args.handler, args)


# The resident commands' options as build_parser gives them (name: whether it takes a value).
RESIDENT_OPTIONS = {"serve": {"--wait-lock": True}, "tray": {"--wait-lock": True, "--self-test": False}}


def resident_command(words: Sequence[str]) -> tuple[Handler, argparse.Namespace] | None:
    """`serve` or `tray` with only their own options, spelled in full: their handler and the
    arguments the parser would give, without the parser (argparse and every command's module,
    which the resident process would keep for nothing). Anything else (--help, an abbreviated or
    unknown option, a value that is not a number) is None: the parser answers it as always."""
    if not words or words[0] not in RESIDENT_OPTIONS:
        return None
    options = RESIDENT_OPTIONS[words[0]]
    values: dict[str, float | bool] = {"wait_lock": 0.0}
    if "--self-test" in options:
        values["self_test"] = False
    rest = iter(words[1:])
    for word in rest:
        name, equals, value = word.partition("=")
        if name not in options:
            return None
        if not options[name]:
            if equals:
                return None
            values["self_test"] = True
            continue
        if not equals:
            given = next(rest, None)
            if given is None or given.startswith("-"):  # the parser's rules for those, not ours
                return None
            value = given
        try:
            values["wait_lock"] = float(value)  # the parser's type=float
        except ValueError:
            return None
    from types import SimpleNamespace

    from .service_commands import cmd_serve, cmd_tray

    handler: Handler = cmd_serve if words[0] == "serve" else cmd_tray
    return handler, cast("argparse.Namespace", SimpleNamespace(handler=handler, **values))


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from ..installer.clients import CLIENTS
    from . import (
        backfill_commands,
        import_commands,
        memory_commands,
        model_commands,
        off_commands,
        service_commands,
        share_commands,
    )

    parser = argparse.ArgumentParser(prog="memevo", description="Self-evolving long-term memory.")
    parser.add_argument("--version", action="version", version=f"memevo {__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    def command(name: str, handler: Handler, help: str, json_flag: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.set_defaults(handler=handler)
        if json_flag:
            p.add_argument("--json", action="store_true", help="print one JSON object")
        return p

    command(
        "overview",
        _cmd_overview,
        "provision the model if needed, then say where things stand",
        json_flag=False,
    )
    command("list", memory_commands.cmd_list, "count the memories in each group")
    p = command("read", memory_commands.cmd_read, "show one group, highest confidence first")
    p.add_argument("category", choices=["rule", "project"])
    p.add_argument("--offset", type=int, default=0, help="skip this many (paging)")
    p.add_argument("--all", action="store_true", help="show every memory of the group")
    for category in ("rule", "project"):
        group = sub.add_parser(category, help=f"{category} memories: add one by hand")
        group_sub = group.add_subparsers(title="actions", metavar="ACTION", required=True)
        add = group_sub.add_parser("add", help=f"write a new {category} memory (confidence 0.5)")
        add.add_argument("text")
        add.add_argument(
            "--here",
            action="store_true",
            help="it belongs to this repository (the git top-level of the current folder): recalled only there",
        )
        add.add_argument("--json", action="store_true")
        add.set_defaults(handler=memory_commands.cmd_add, category=category)
    p = command(
        "reinforce",
        memory_commands.cmd_reinforce,
        "reinforce a memory (+0.1, daily cap); revives a deprecated one",
    )
    p.add_argument("id")
    p = command("delete", memory_commands.cmd_delete, "move memories to the trash (restorable for 30 days)")
    p.add_argument("ids", nargs="+", metavar="ID")
    p = command(
        "edit", memory_commands.cmd_edit, "replace a memory's text (the old text stays in its history)"
    )
    p.add_argument("id")
    p.add_argument("text")
    p = command(
        "still-true",
        memory_commands.cmd_still_true,
        "a stale memory still holds: check its repository again, and keep it as true",
    )
    p.add_argument("id")
    command("trash", memory_commands.cmd_trash, "list the trash")
    p = command(
        "pending",
        memory_commands.cmd_pending,
        "list the learned proposals waiting for your confirmation, or answer one",
    )
    p.add_argument("answer", nargs="?", choices=["accept", "discard"], help="answer one proposal")
    p.add_argument(
        "session_id", nargs="?", metavar="SESSIONID", help="its sessionID (a unique prefix will do)"
    )
    p.add_argument(
        "--as",
        dest="decision",
        metavar="DECISION",
        help="accept it differently from its proposal: create_rule, create_project, reinforce, merge, "
        "replace, or keep:ID (a consolidation: keep that memory, trash the others)",
    )
    p = command("restore", memory_commands.cmd_restore, "bring a memory back from the trash")
    p.add_argument("id")
    p = command(
        "purge", memory_commands.cmd_purge, "remove a memory's text everywhere memevo keeps it (irreversible)"
    )
    p.add_argument("id")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p = command("pin", memory_commands.cmd_pin, "pin a memory: it never decays and is never deprecated")
    p.add_argument("id")
    p = command("unpin", memory_commands.cmd_unpin, "unpin a memory: it decays again like any other")
    p.add_argument("id")
    p = command(
        "search", memory_commands.cmd_search, "find memories by meaning, ranked (no gate, never awards)"
    )
    p.add_argument("query")
    p.add_argument("--category", choices=["rule", "project"])
    p.add_argument("--limit", type=int, default=10)
    p = command(
        "scope", memory_commands.cmd_scope, "where a memory applies: everywhere, or only in this repository"
    )
    p.add_argument("id")
    p.add_argument("scope", choices=["global", "here"])
    p = command(
        "history",
        memory_commands.cmd_history,
        "a memory's earlier texts (kept on replace and merge), newest first",
    )
    p.add_argument("id")
    p = command(
        "restore-version",
        memory_commands.cmd_restore_version,
        "make an earlier text of a memory its text again",
    )
    p.add_argument("id")
    p.add_argument("version", type=int, help="the version number `memevo history ID` shows")
    p = command("move", memory_commands.cmd_move, "move a memory to the other group")
    p.add_argument("id")
    p.add_argument("category", choices=["rule", "project"])
    p = command("config", memory_commands.cmd_config, "show the configuration, or set one key")
    p.add_argument("key", nargs="?")
    p.add_argument("value", nargs="?")
    p.add_argument("--unset", action="store_true", help="forget the user's value of KEY")
    p = command(
        "import-notes",
        import_commands.cmd_import_notes,
        "import what you wrote for your tools (CLAUDE.md, AGENTS.md, Claude Code's auto memory, Cursor rules)",
    )
    p.add_argument("--repo", help="the repository whose files to read (default: the current folder's)")
    p.add_argument("--yes", action="store_true", help="take every candidate as proposed, without asking")
    p.add_argument("--dry-run", action="store_true", help="only list the candidates")
    for name, what in (
        (
            "off",
            "switch memevo off in a repository: no recall, no learning, no backfill, no staleness checks",
        ),
        ("on", "switch memevo on again in a repository"),
    ):
        p = command(name, off_commands.cmd_off, what)
        p.add_argument("repo", nargs="?", help="the repository (default: the current folder's)")
        p.add_argument("--list", action="store_true", help="list the repositories memevo is off in")
        p.set_defaults(switch=name)
    p = command(
        "backfill",
        backfill_commands.cmd_backfill,
        "find what you said again and again in your clients' past sessions, to keep as memories",
    )
    backfill_commands.arguments(p)
    p = command(
        "share",
        share_commands.cmd_share,
        "write this repository's project facts to .memevo/facts.md, to review and commit like code; "
        "review and trust the file a teammate wrote",
    )
    p.add_argument("ids", nargs="*", help="the project facts to share (default: list what could be)")
    p.add_argument("--all", action="store_true", help="share every project fact of this repository")
    p.add_argument(
        "--pending", action="store_true", help="also write local edits and deletions of shared facts"
    )
    p.add_argument("--dry-run", action="store_true", help="only show the change to the file")
    p.add_argument(
        "--review",
        action="store_true",
        help="show the file's facts (or what changed since memevo read it) and ask whether to trust them",
    )
    p.add_argument(
        "--trust", action="store_true", help="trust the file's current content (printed first) and read it"
    )
    p.add_argument(
        "--untrust",
        action="store_true",
        help="stop reading the file; the facts read from it stay, no longer refreshed",
    )
    p = command(
        "sync",
        share_commands.cmd_sync,
        "sync your memories with a git remote you own (REMOTE the first time; only memories leave)",
    )
    p.add_argument("remote", nargs="?", help="the git remote (URL or path), the first time")
    p = command(
        "import-legacy",
        import_commands.cmd_import_legacy,
        "import the Node tool's memories from the data dir",
    )
    p.add_argument(
        "--move-key",
        action="store_true",
        help="also move side-secret.json's key into the keyring, without asking",
    )
    command(
        "repair",
        model_commands.cmd_repair,
        "bring a damaged store back; keeps a copy of the damaged files first",
    )
    p = command(
        "maintenance",
        model_commands.cmd_maintenance,
        "run today's maintenance (decay, trash expiry, anchor checks) if due",
    )
    p.add_argument("--force", action="store_true", help="run even if it already ran today")
    p = command(
        "consolidate",
        model_commands.cmd_consolidate,
        "find near-duplicate and contradicting memories and propose merges (you confirm each)",
    )
    p.add_argument("--limit", type=int, default=5, help="propose at most this many now (default 5)")
    p = command("model", model_commands.cmd_model, "show the embedding model, or provision it")
    p.add_argument("action", nargs="?", choices=["status", "provision"], default="status")
    p = command("verify", model_commands.cmd_verify, "check the recall gate on your cases (never awards)")
    p.add_argument(
        "--cases",
        nargs="+",
        metavar="FILE",
        help="cases file (default: recall-cases.json in the data dir); several files only in the "
        "public form (memories with ids, related and unrelated prompts), summed by family and language",
    )
    p.add_argument(
        "--field",
        default="prompt",
        choices=["prompt", "question", "prompt_last"],
        help="the public form: which text of each prompt item to send (the item's prompt where it has none)",
    )
    p.add_argument(
        "--explain", action="store_true", help="also show each case's best candidates and their signals"
    )
    p.add_argument(
        "--write-cues",
        action="store_true",
        help="a file with its own memories: ask the side model for their recall cues first "
        "(one call per memory without cues in the file)",
    )
    command(
        "rebuild-index", model_commands.cmd_rebuild_index, "back up the vectors, then re-encode every memory"
    )
    command(
        "build-background",
        model_commands.cmd_build_background,
        "recompute the background (mean and language direction) for the model",
    )
    p = command(
        "serve", service_commands.cmd_serve, "run the memory service headless (no desktop)", json_flag=False
    )
    p.add_argument("--wait-lock", type=float, default=0.0, help=argparse.SUPPRESS)
    p = command(
        "tray", service_commands.cmd_tray, "run the tray app, which hosts the memory service", json_flag=False
    )
    p.add_argument("--self-test", action="store_true", help="start, check, and exit")
    p.add_argument("--wait-lock", type=float, default=0.0, help=argparse.SUPPRESS)
    p = command("service", service_commands.cmd_service, "status of the running service, or stop it")
    p.add_argument("action", nargs="?", choices=["status", "stop"], default="status")
    p = command(
        "injections",
        service_commands.cmd_injections,
        "the injection log, newest first: what was injected, and the prompt (an excerpt) it answered",
    )
    p.add_argument("--client", choices=CLIENTS, help="only this client's")
    p.add_argument("--limit", type=int, default=20, help="at most this many (default 20)")
    p = command(
        "why",
        service_commands.cmd_why,
        "what was injected into a session and why: each memory's gate signals and its anchors' state",
    )
    p.add_argument("session", help="the session's id, or a unique prefix of it (4 characters or more)")
    hooks = sub.add_parser("hooks", help="client hook registration")
    hooks_sub = hooks.add_subparsers(title="actions", metavar="ACTION", required=True)
    pc = hooks_sub.add_parser("print-config", help="print the registration snippet for one client")
    pc.add_argument("client", choices=CLIENTS)
    pc.set_defaults(handler=service_commands.cmd_print_config)
    p = command("mcp", service_commands.cmd_mcp, "the stdio MCP server for one client", json_flag=False)
    p.add_argument("--client", required=True, choices=CLIENTS)
    p = command(
        "secret",
        service_commands.cmd_secret,
        "the side API key: set (from a prompt or stdin), status, clear (the keyring and the file), "
        "move-to-keyring",
    )
    p.add_argument("action", choices=["set", "status", "clear", "move-to-keyring"])
    p.add_argument(
        "--file",
        action="store_true",
        help="with set, on a machine with no OS keyring: keep the key in a file only your account "
        "can read (DATA_DIR/secrets/side-api-key, mode 600; not encrypted)",
    )
    from .setup_commands import add_commands

    add_commands(command)
    p = command("bench", model_commands.cmd_bench, "measure the speed budgets (min/median/max)")
    p.add_argument("--quick", action="store_true", help="fewer runs, no million-memory pool, no soak")
    return parser


def _cmd_start(args: argparse.Namespace) -> int:
    """`memevo` alone: the tray app where there is a desktop (a second start brings the first
    one's panel to the front); the overview on a terminal without one, or on a desktop the
    tray app cannot show on (Qt would abort: core/process/display.py), with the reason."""
    import os

    from ..core.process import display

    after = "No desktop here: hooks start `memevo serve` on demand; `memevo tray` needs a display."
    if display.has_display():
        desktop = display.probe()
        if desktop.problem is None:
            if desktop.platform and "QT_QPA_PLATFORM" not in os.environ:
                os.environ["QT_QPA_PLATFORM"] = desktop.platform
            from ..desktop.app import main as tray_main

            return int(tray_main())
        print(f"memevo: the tray app cannot start on this desktop: {desktop.problem}.", file=sys.stderr)
        after = (
            "Hooks and MCP servers start the headless service (`memevo serve`) here instead; "
            "once that is fixed, `memevo` starts the tray app."
        )
    status = _cmd_overview(args)
    print(after)
    from ..core import paths

    if not (paths.data_dir() / "install.json").exists():
        print(
            "Next: `memevo setup` registers memevo in your clients (Claude Code, Cursor, CodeBuddy, WorkBuddy)."
        )
    return status


def _cmd_overview(args: argparse.Namespace) -> int:
    """`memevo` alone: make sure the model is there (first run), then say where things stand."""
    from ..core.encoder.provision import provision, ready_folder
    from ..core.process.runtime import configured_model

    model_id = configured_model()
    if ready_folder(model_id) is None:
        print(f"First run: provisioning the embedding model {model_id}", file=sys.stderr)
    done = provision(model_id, progress())
    counts = call("counts")["counts"]
    print(f"memevo {__version__}: {_counts_text(counts)}")
    print(f"model {model_id} ready ({done.source}) in {done.folder}")
    print("Run `memevo --help` for the commands.")
    return 0


def _counts_text(counts: dict[str, dict[str, int]]) -> str:
    names = {"rule": ("rule", "rules"), "project": ("project fact", "project facts")}
    parts = []
    for category in ("rule", "project"):
        c = counts[category]
        extra = f" (+{c['deprecated']} deprecated)" if c["deprecated"] else ""
        one, many = names[category]
        parts.append(f"{c['live']} {one if c['live'] == 1 else many}{extra}")
    return ", ".join(parts)


if __name__ == "__main__":
    raise SystemExit(main())
