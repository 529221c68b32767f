"""`memevo`: the command line. Imports stay lazy so model-free commands answer fast."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..core import __version__
from ..core.display import has_display
from ..core.errors import InvalidInput, MemevoError

Handler = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    from ..core.paths import user_only

    user_only()  # before anything is created: the service, tray and MCP server start here too
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        args.handler = _cmd_start
        args.json = False
    try:
        return int(args.handler(args))
    except MemevoError as exc:
        print(f"memevo: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("memevo: interrupted", file=sys.stderr)
        return 130
    except AlreadyApplied as done:  # written exactly once; only the details of the answer are gone
        print(f"memevo: {done}; it was not written twice")
        return 0
    except BrokenPipeError:  # `memevo read … | head`: the reader had enough; not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush at exit would fail again
        return 141
    except Exception as exc:  # one line for the user, the traceback for the log
        where = _log_traceback()
        print(f"memevo: internal error: {exc} (details in {where})", file=sys.stderr)
        return 1


def build_parser() -> argparse.ArgumentParser:
    from ..installer.clients import CLIENTS

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
    command("list", _cmd_list, "count the memories in each group")
    p = command("read", _cmd_read, "show one group, highest confidence first")
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
        add.set_defaults(handler=_cmd_add, category=category)
    p = command("reinforce", _cmd_reinforce, "reinforce a memory (+0.1, daily cap); revives a deprecated one")
    p.add_argument("id")
    p = command("delete", _cmd_delete, "move memories to the trash (restorable for 30 days)")
    p.add_argument("ids", nargs="+", metavar="ID")
    command("trash", _cmd_trash, "list the trash")
    command("pending", _cmd_pending, "list the learned proposals waiting for your confirmation")
    p = command("restore", _cmd_restore, "bring a memory back from the trash")
    p.add_argument("id")
    p = command("purge", _cmd_purge, "remove a memory's text everywhere memevo keeps it (irreversible)")
    p.add_argument("id")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p = command("pin", _cmd_pin, "pin a memory: it never decays and is never deprecated")
    p.add_argument("id")
    p = command("unpin", _cmd_unpin, "unpin a memory: it decays again like any other")
    p.add_argument("id")
    p = command("search", _cmd_search, "find memories by meaning, ranked (no gate, never awards)")
    p.add_argument("query")
    p.add_argument("--category", choices=["rule", "project"])
    p.add_argument("--limit", type=int, default=10)
    p = command("scope", _cmd_scope, "where a memory applies: everywhere, or only in this repository")
    p.add_argument("id")
    p.add_argument("scope", choices=["global", "here"])
    p = command("history", _cmd_history, "a memory's earlier texts (kept on replace and merge), newest first")
    p.add_argument("id")
    p = command("restore-version", _cmd_restore_version, "make an earlier text of a memory its text again")
    p.add_argument("id")
    p.add_argument("version", type=int, help="the version number `memevo history ID` shows")
    p = command("move", _cmd_move, "move a memory to the other group")
    p.add_argument("id")
    p.add_argument("category", choices=["rule", "project"])
    p = command("config", _cmd_config, "show the configuration, or set one key")
    p.add_argument("key", nargs="?")
    p.add_argument("value", nargs="?")
    p.add_argument("--unset", action="store_true", help="forget the user's value of KEY")
    p = command(
        "import-notes",
        _cmd_import_notes,
        "import what you wrote for your tools (CLAUDE.md, AGENTS.md, Claude Code's auto memory, Cursor rules)",
    )
    p.add_argument("--repo", help="the repository whose files to read (default: the current folder's)")
    p.add_argument("--yes", action="store_true", help="take every candidate as proposed, without asking")
    p.add_argument("--dry-run", action="store_true", help="only list the candidates")
    p = command("import-legacy", _cmd_import_legacy, "import the Node tool's memories from the data dir")
    p.add_argument(
        "--move-key",
        action="store_true",
        help="also move side-secret.json's key into the keyring, without asking",
    )
    command("repair", _cmd_repair, "bring a damaged store back; keeps a copy of the damaged files first")
    p = command("maintenance", _cmd_maintenance, "run today's maintenance (decay, trash expiry) if due")
    p.add_argument("--force", action="store_true", help="run even if it already ran today")
    p = command("model", _cmd_model, "show the embedding model, or provision it")
    p.add_argument("action", nargs="?", choices=["status", "provision"], default="status")
    p = command("verify", _cmd_verify, "check the recall gate on your cases (never awards)")
    p.add_argument("--cases", help="cases file (default: recall-cases.json in the data dir)")
    p.add_argument(
        "--explain", action="store_true", help="also show each case's best candidates and their signals"
    )
    command("rebuild-index", _cmd_rebuild_index, "back up the vectors, then re-encode every memory")
    command("build-background", _cmd_build_background, "recompute the background mean for the model")
    p = command("serve", _cmd_serve, "run the memory service headless (no desktop)", json_flag=False)
    p.add_argument("--wait-lock", type=float, default=0.0, help=argparse.SUPPRESS)
    p = command("tray", _cmd_tray, "run the tray app, which hosts the memory service", json_flag=False)
    p.add_argument("--self-test", action="store_true", help="start, check, and exit")
    p.add_argument("--wait-lock", type=float, default=0.0, help=argparse.SUPPRESS)
    p = command("service", _cmd_service, "status of the running service, or stop it")
    p.add_argument("action", nargs="?", choices=["status", "stop"], default="status")
    hooks = sub.add_parser("hooks", help="client hook registration")
    hooks_sub = hooks.add_subparsers(title="actions", metavar="ACTION", required=True)
    pc = hooks_sub.add_parser("print-config", help="print the registration snippet for one client")
    pc.add_argument("client", choices=CLIENTS)
    pc.set_defaults(handler=_cmd_print_config)
    p = command("mcp", _cmd_mcp, "the stdio MCP server for one client", json_flag=False)
    p.add_argument("--client", required=True, choices=CLIENTS)
    p = command("secret", _cmd_secret, "the side API key: set (from a prompt or stdin), status, clear")
    p.add_argument("action", choices=["set", "status", "clear"])
    from .setup_commands import add_commands

    add_commands(command)
    p = command("bench", _cmd_bench, "measure the speed budgets (min/median/max)")
    p.add_argument("--quick", action="store_true", help="fewer runs, no million-memory pool")
    return parser


# -- helpers ---------------------------------------------------------------------------------
class AlreadyApplied(Exception):
    """A retried write the service had applied before it died, without keeping its result."""


def _call(name: str, **params: Any) -> dict[str, Any]:
    from ..core.service.client import call_or_local

    result = call_or_local(name, params)
    if result.get("already_applied"):
        raise AlreadyApplied(str(result.get("note")))
    return result


def _emit_json(data: dict[str, Any]) -> int:
    print(json.dumps(data, ensure_ascii=False, indent=2))
    return 0


def _points(value: float) -> str:
    from ..core.confidence import as_decimal_text, to_hundredths

    return as_decimal_text(to_hundredths(value))


def _memory_line(memory: dict[str, Any]) -> str:
    flag = ("  [pinned]" if memory.get("pinned") else "") + ("  [deprecated]" if memory["deprecated"] else "")
    if memory.get("scope", "global") != "global":
        flag += f"  [{_shown(memory['scope'])}]"
    return f"{memory['id']}  {_points(memory['confidence']):>4}  {_shown(memory['text'])}{flag}"


def _shown(text: Any) -> str:
    """Text for a terminal: anything non-printable (ESC sequences, bidi overrides, NUL, a
    newline inside a one-line listing) is written as an escape instead of acting on the screen."""
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in str(text)
    )


def _log_traceback() -> str:
    import traceback

    from ..core import paths

    try:
        log = paths.log_dir() / "cli.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        from ..core.redaction import redact_secrets

        with log.open("a", encoding="utf-8") as handle:
            handle.write(redact_secrets(traceback.format_exc()) + "\n")
        return str(log)
    except OSError:
        return "stderr"


# -- commands ----------------------------------------------------------------------------------
def _cmd_start(args: argparse.Namespace) -> int:
    """`memevo` alone: the tray app where there is a desktop (a second start brings the first
    one's panel to the front); the overview on a terminal without one."""
    if has_display():
        from ..desktop.tray import main as tray_main

        return int(tray_main())
    status = _cmd_overview(args)
    print("No desktop here: hooks start `memevo serve` on demand; `memevo tray` needs a display.")
    from ..core import paths

    if not (paths.data_dir() / "install.json").exists():
        print(
            "Next: `memevo setup` registers memevo in your clients (Claude Code, Cursor, CodeBuddy, WorkBuddy)."
        )
    return status


def _cmd_overview(args: argparse.Namespace) -> int:
    """`memevo` alone: make sure the model is there (first run), then say where things stand."""
    from ..core.encoder.provision import provision, ready_folder
    from ..core.runtime import configured_model

    model_id = configured_model()
    if ready_folder(model_id) is None:
        print(f"First run: provisioning the embedding model {model_id}", file=sys.stderr)
    done = provision(model_id, _progress())
    counts = _call("counts")["counts"]
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


def _cmd_list(args: argparse.Namespace) -> int:
    result = _call("counts")
    if args.json:
        return _emit_json(result)
    for category in ("rule", "project"):
        c = result["counts"][category]
        print(f"{category:<8} {c['live']:>6} live  {c['deprecated']:>6} deprecated")
    return 0


def _cmd_read(args: argparse.Namespace) -> int:
    limit = None if args.all else 50
    result = _call("read", category=args.category, offset=args.offset, limit=limit)
    if args.json:
        return _emit_json(result)
    rows = result["memories"]
    if not rows:
        print(f"no {args.category} memories" + (f" after offset {args.offset}" if args.offset else ""))
        return 0
    for memory in rows:
        print(_memory_line(memory))
    shown_to = args.offset + len(rows)
    if shown_to < result["total"]:
        print(f"— {args.offset + 1}–{shown_to} of {result['total']}; --offset {shown_to} or --all for more")
    return 0


def _cmd_add(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {"category": args.category, "text": args.text}
    if args.here:
        params["scope"] = _here()
    result = _call("add", **params)
    if args.json:
        return _emit_json(result)
    memory = result["memory"]
    where = f", only in {memory['scope']}" if memory.get("scope", "global") != "global" else ""
    print(f"added {memory['category']} {memory['id']} (confidence {_points(memory['confidence'])}{where})")
    return 0


def _here() -> str:
    from ..core.scopes import repo_of

    repo = repo_of(os.getcwd())
    if repo is None:
        raise InvalidInput("the current folder cannot be used as a repository")
    return repo


def _cmd_search(args: argparse.Namespace) -> int:
    from ..core import memsearch

    params: dict[str, Any] = {"text": args.query, "category": args.category, "limit": args.limit}
    if _service_holds_store():
        from ..core.service.client import call_service

        result = call_service("search", params, wait_s=180)
    else:
        result = _with_engine(
            lambda engine: memsearch.search(engine, engine.store, args.query, args.category, args.limit)
        )
    if args.json:
        return _emit_json(result)
    if not result["hits"]:
        print("no memories found")
    for hit in result["hits"]:
        flag = "  [pinned]" if hit["pinned"] else ""
        if hit["scope"] != "global":
            flag += f"  [{_shown(hit['scope'])}]"
        print(
            f"{hit['id']}  {hit['category']:<7} {_points(hit['confidence']):>4}  {hit['score']:.2f}  "
            f"{_shown(hit['text'])}{flag}"
        )
    return 0


def _cmd_scope(args: argparse.Namespace) -> int:
    scope = _here() if args.scope == "here" else "global"
    result = _call("scope", id=args.id, scope=scope)
    if args.json:
        return _emit_json(result)
    memory = result["memory"]
    where = "everywhere (global)" if memory["scope"] == "global" else f"only in {memory['scope']}"
    print(f"{memory['id']} now applies {where}")
    return 0


def _cmd_reinforce(args: argparse.Namespace) -> int:
    result = _call("reinforce", id=args.id)
    if args.json:
        return _emit_json(result)
    memory = result["memory"]
    gained = f"+{_points(result['gained'])}" if result["gained"] else "+0 (today's award already given)"
    print(f"reinforced {memory['id']}: {gained}, confidence {_points(memory['confidence'])}")
    return 0


def _cmd_delete(args: argparse.Namespace) -> int:
    result = _call("delete", ids=args.ids)
    if args.json:
        return _emit_json(result)
    print(f"moved to trash: {', '.join(result['deleted'])}")
    if result["missing"]:
        print(f"skipped (no such memory): {', '.join(result['missing'])}")
    return 0


def _cmd_trash(args: argparse.Namespace) -> int:
    result = _call("trash")
    if args.json:
        return _emit_json(result)
    if not result["trash"]:
        print("the trash is empty")
    for item in result["trash"]:
        print(f"{_memory_line(item)}  ({item['category']}, {item['reason']} {item['deleted'][:10]})")
    return 0


def _cmd_pending(args: argparse.Namespace) -> int:
    result = _call("pending")
    if args.json:
        return _emit_json(result)
    waiting = result["pending"]
    if not waiting:
        print("no proposals are waiting for confirmation")
        return 0
    for item in waiting:
        print(f"{item['sessionID']}  {item['client']}  session {item['session']}  ({item['created'][:16]})")
        print(f"  you said:  {_shown(item['words'])}")
        print(f"  proposal:  {item['action']} {item['category']}: {_shown(item['text'])}")
        if item["target"]:
            print(f"  about:     #{item['target']}")
    where = (
        "the tray app's dialog (menu: pending proposals)" if _tray_hosts_service() else "your client's chat"
    )
    print(f"{len(waiting)} waiting; answer them in {where}.")
    return 0


def _tray_hosts_service() -> bool:
    from ..core.service.server import ping

    status = ping(timeout_s=0.5)
    return bool(status and status.get("desktop"))


def _cmd_restore(args: argparse.Namespace) -> int:
    result = _call("restore", id=args.id)
    if args.json:
        return _emit_json(result)
    memory = result["memory"]
    print(f"restored {memory['category']} {memory['id']}: {_shown(memory['text'])}")
    return 0


def _cmd_purge(args: argparse.Namespace) -> int:
    if not args.yes and sys.stdin.isatty():
        answer = input(f"Remove memory {args.id} and its text everywhere, for good? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing purged")
            return 1
    result = _call("purge", id=args.id)
    if args.json:
        return _emit_json(result)
    purged = result["purged"]
    print(f"purged {purged['id']} ({purged['removed_rows']} stored records)")
    for path in purged["scrubbed_files"]:
        print(f"  removed from backup {path}")
    for path in purged["legacy_files_with_text"]:
        print(f"  note: the Node tool's file {path} still contains this text; memevo does not edit it")
    return 0


def _cmd_pin(args: argparse.Namespace) -> int:
    result = _call("pin", id=args.id)
    if args.json:
        return _emit_json(result)
    memory = result["memory"]
    print(
        f"pinned {memory['id']}: it never decays and is never deprecated (confidence {_points(memory['confidence'])})"
    )
    return 0


def _cmd_unpin(args: argparse.Namespace) -> int:
    result = _call("unpin", id=args.id)
    if args.json:
        return _emit_json(result)
    print(f"unpinned {result['memory']['id']}: it decays again when idle")
    return 0


def _cmd_history(args: argparse.Namespace) -> int:
    result = _call("history", id=args.id)
    if args.json:
        return _emit_json(result)
    memory = result["memory"]
    if memory:
        print(f"{memory['id']}  now: {_shown(memory['text'])}")
    else:
        print(f"{args.id} is in the trash")
    if not result["versions"]:
        print("  no earlier texts")
    for v in result["versions"]:
        valid = f"{v['valid_from'][:16].replace('T', ' ')} – {v['valid_to'][:16].replace('T', ' ')}"
        print(f"  v{v['version']}  {valid}  ({v['reason']})  {_shown(v['text'])}")
    return 0


def _cmd_restore_version(args: argparse.Namespace) -> int:
    result = _call("restore_version", id=args.id, version=args.version)
    if args.json:
        return _emit_json(result)
    memory = result["memory"]
    print(
        f"{memory['id']} has version {args.version}'s text again (the replaced text is kept in its history)"
    )
    return 0


def _cmd_move(args: argparse.Namespace) -> int:
    result = _call("move", id=args.id, category=args.category)
    if args.json:
        return _emit_json(result)
    print(f"{result['memory']['id']} is now a {result['memory']['category']} memory")
    return 0


def _cmd_config(args: argparse.Namespace) -> int:
    from ..core.config import parse_cli_value
    from ..core.errors import InvalidInput

    if args.unset:
        if not args.key or args.value is not None:
            raise InvalidInput("usage: memevo config --unset KEY")
        result = _call("config_unset", key=args.key)
    elif args.key and args.value is not None:
        result = _call("config_set", key=args.key, value=parse_cli_value(args.value))
    elif args.key:
        shown = _call("config_show")
        if args.key not in shown["config"]:
            raise InvalidInput(f"unknown config key {args.key!r}")
        result = {"key": args.key} | shown["config"][args.key]
    else:
        return _show_config(_call("config_show"), args.json)
    if args.json:
        return _emit_json(result)
    print(f"{result['key']} = {json.dumps(result['value'], ensure_ascii=False)}")
    if result.get("note"):
        print(f"note: {result['note']}", file=sys.stderr)
    return 0


def _show_config(shown: dict[str, Any], as_json: bool) -> int:
    for problem in shown["problems"]:
        print(f"memevo: config problem: {problem}", file=sys.stderr)
    if as_json:
        return _emit_json(shown)
    model_minimums = _model_minimums()
    for name, entry in shown["config"].items():
        value_text = json.dumps(entry["value"], ensure_ascii=False)
        marker = "" if entry["set_by_user"] else "  (default)"
        if entry["value"] is None and name in model_minimums:
            value_text, marker = f"{model_minimums[name]:g}", "  (the model's calibrated default)"
        print(f"{name:<22} {value_text}{marker}")
    return 0


def _model_minimums() -> dict[str, float]:
    """recallMinScore / recallMinScoreProject left unset mean the model's calibrated values."""
    from ..core.encoder.models import entry_for
    from ..core.runtime import configured_model

    entry = entry_for(configured_model())
    if not entry.calibrated:
        return {}
    return {"recallMinScore": entry.recall_min_rule, "recallMinScoreProject": entry.recall_min_project}


def _cmd_import_notes(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..core import notes
    from ..core.scopes import repo_of

    repo_path = repo_of(os.path.abspath(args.repo) if args.repo else os.getcwd())
    found = notes.candidates(Path.home(), Path(repo_path) if repo_path else None)
    if found:
        known = set(_call("notes_known", shas=[c.sha for c in found], texts=[c.text for c in found])["known"])
        found = [c for c in found if c.sha not in known]
    if args.dry_run or not found:
        if args.json:
            return _emit_json({"candidates": [c.as_json() for c in found], "dry_run": True})
        if not found:
            print("nothing new to import")
        for c in found:
            print(_candidate_line(c))
        return 0
    if args.yes:
        chosen = [c.as_json() for c in found]
    elif sys.stdin.isatty():
        chosen = _choose_notes(found)
    else:
        raise InvalidInput("not a terminal: choose with --dry-run first, then import all with --yes")
    result: dict[str, Any] = _call("import_notes", items=chosen) if chosen else {"imported": [], "skipped": 0}
    if args.json:
        return _emit_json(result)
    print(
        f"imported {len(result['imported'])}"
        + (f", {result['skipped']} already there" if result["skipped"] else "")
    )
    return 0


def _candidate_line(c: Any) -> str:
    where = f"  [{_shown(c.scope)}]" if c.scope else ""
    return f"{c.category:<7} {_shown(c.text)}{where}\n        from {_shown(c.source)}"


def _choose_notes(found: list[Any]) -> list[dict[str, Any]]:
    """y: as proposed, n: skip, r: as a rule, p: as a project fact, q: stop asking."""
    chosen: list[dict[str, Any]] = []
    for index, c in enumerate(found, 1):
        print(f"[{index}/{len(found)}] {_candidate_line(c)}")
        while True:
            answer = (
                input("  import? [y]es as proposed / [n]o / as [r]ule / as [p]roject / [q]uit: ")
                .strip()
                .lower()
            )
            if answer in ("y", "n", "r", "p", "q"):
                break
        if answer == "q":
            break
        if answer == "n":
            continue
        item = c.as_json()
        if answer in ("r", "p"):  # a rule stays global; a fact belongs to its file's repository
            item["category"] = "rule" if answer == "r" else "project"
            item["scope"] = (c.repo or "global") if answer == "p" else "global"
        chosen.append(item)
    return chosen


def _cmd_import_legacy(args: argparse.Namespace) -> int:
    result = _call("import_legacy")
    if args.json:
        return _emit_json(result)
    report = result["import"]
    if not report["found_files"]:
        print("no Node tool files (rule.jsonl, project.jsonl, trash.jsonl) in the data dir")
    imported = report["imported"]
    print(
        f"imported {imported['rule']} rule, {imported['project']} project, {imported['trash']} trash; "
        f"{report['already_present']} already present"
    )
    for line in report["invalid_lines"]:
        print(f"  skipped unreadable line {line}")
    if report["length_outside_limits"]:
        print(f"  {report['length_outside_limits']} kept although outside 6–400 characters")
    if report["config_keys_taken"]:
        print(f"  settings taken: {', '.join(report['config_keys_taken'])}")
    if report["config_keys_dropped"]:
        print(
            f"  settings dropped (they belong to the old model): {', '.join(report['config_keys_dropped'])}"
        )
    for warning in report["warnings"]:
        print(f"memevo: warning: {warning}; run `memevo setup` to replace them", file=sys.stderr)
    _offer_key_move(args.move_key)
    return 0


def _offer_key_move(without_asking: bool) -> None:
    """The Node tool kept the side API key in side-secret.json; ours lives in the keyring."""
    from ..core import legacy, secrets

    key = legacy.node_api_key()
    if key is None:
        return
    if secrets.keyring_api_key() == key:  # moved before: the plain-text copy is all that is left
        legacy.node_key_file().unlink()
        print("the side API key is already in the keyring; deleted side-secret.json")
        return
    if secrets.status().source == "keyring":
        return  # another key is in the keyring: the user's choice stands, their file stays
    if not without_asking:
        if not sys.stdin.isatty():
            print(
                "side-secret.json holds a side API key; run `memevo import-legacy --move-key` to move it into the keyring"
            )
            return
        answer = input("Move the side API key from side-secret.json into the OS keyring? [Y/n] ")
        if answer.strip().lower() not in ("", "y", "yes"):
            return
    try:
        secrets.set_api_key(key)
    except secrets.KeyringUnavailable as exc:
        print(f"memevo: the key was not moved: {exc}", file=sys.stderr)
        return
    if secrets.keyring_api_key() != key.strip():  # never delete the only copy
        print("memevo: the keyring did not give the key back; side-secret.json is kept", file=sys.stderr)
        return
    legacy.node_key_file().unlink()  # a plain-text key must not outlive its move
    print("moved the side API key into the keyring and deleted side-secret.json")


def _cmd_repair(args: argparse.Namespace) -> int:
    from ..core.repair import repair

    report = repair()
    if args.json:
        return _emit_json(report.as_json())
    for line in report.lines():
        print(line)
    return 0


def _cmd_maintenance(args: argparse.Namespace) -> int:
    result = _call("maintenance", force=args.force)
    if args.json:
        return _emit_json(result)
    if not result["ran"]:
        print("today's maintenance already ran")
        return 0
    r = result["report"]
    print(
        f"maintenance {r['day']}: {r['decayed']} decayed, {r['newly_deprecated']} deprecated, "
        f"{r['trash_purged']} expired from trash"
    )
    return 0


def _progress() -> Any:
    from ..core.encoder.progress import TerminalBar

    return TerminalBar()


def _cmd_model(args: argparse.Namespace) -> int:
    from ..core.encoder.models import entry_for, model_folder
    from ..core.encoder.provision import provision, ready_folder
    from ..core.runtime import configured_model

    model_id = configured_model()
    if args.action == "provision":
        done = provision(model_id, _progress())
        result = {"model": model_id, "folder": str(done.folder), "source": done.source, "reused": done.reused}
    else:
        folder = ready_folder(model_id)
        entry = entry_for(model_id)
        result = {
            "model": model_id,
            "ready": folder is not None,
            "folder": str(folder or model_folder(model_id)),
            "calibrated_minimums": {"rule": entry.recall_min_rule, "project": entry.recall_min_project}
            if entry.calibrated
            else None,
        }
    if args.json:
        return _emit_json(result)
    for key, value in result.items():
        print(f"{key.replace('_', ' '):<20} {_plain(value)}")
    return 0


def _plain(value: Any) -> str:
    """A value as a person reads it: yes/no, "rule 0.44, project 0.5", not Python's repr."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items())
    return str(value)


def _with_engine(work: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    from ..core.runtime import open_engine
    from ..core.store import Store

    with Store.open() as store:
        return work(open_engine(store, _progress()))


def _service_holds_store() -> bool:
    """A running (or starting) service owns the store and the loaded model: model work goes
    through it instead of refusing with "the store is in use"."""
    from ..core.service.spawn import lock_held

    return os.environ.get("MEMEVO_NO_SERVICE") != "1" and lock_held()


def _through_service(op: str, params: dict[str, Any]) -> dict[str, Any]:
    from ..core.service.client import call_service

    print(f"memevo: {op.replace('_', '-')} runs in the memevo service (it holds the store)…", file=sys.stderr)
    return call_service(op, params, timeout_s=3600)


def _cmd_verify(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..core import paths
    from ..core.recall import verify

    path = Path(args.cases) if args.cases else paths.data_dir() / "recall-cases.json"
    case_file = verify.load_file(path)  # errors in the file are the user's to see at once
    if _service_holds_store():
        raw = json.loads(path.read_text(encoding="utf-8"))
        report = _through_service("verify", {"file": raw, "where": str(path)})
    elif case_file.pool is not None:  # its own memories: the user's store is never opened
        from ..core.runtime import load_encoder

        report = verify.run_with_pool(load_encoder(_progress()), case_file)
    else:
        report = _with_engine(lambda engine: verify.run(engine, case_file.cases, actions_=case_file.actions))
    if args.json:
        return _emit_json(report)
    _print_verify(report, args.explain)
    return 0


def _print_verify(report: dict[str, Any], explain: bool = False) -> None:
    def hit(i: dict[str, Any]) -> str:  # fused score = cosine + weight x lexical (- question damping)
        return f"{i['category'][0]} {i['score']:.3f} (cos {i['cosine']:.3f} lex {i['lexical']:.3f}) {i['text'][:36]}"

    def cases(rows: list[dict[str, Any]]) -> None:
        for case in rows:
            mark = "  " if case["hit"] is None else ("ok" if case["hit"] else "--")
            injected = "; ".join(hit(i) for i in case["injected"])
            print(f"{mark} {case['prompt'][:50]:<50} | {injected or '(nothing)'}")
            if explain and (not case["injected"] or case["hit"] is False):
                for category, top in case["top"].items():
                    for i in top:
                        wanted = "*" if i["id"] in case["expected_ids"] else " "
                        print(f"     {wanted} best {category:<7} {hit(i)}")

    def figures(part: dict[str, Any], label: str) -> None:
        print(f"{label}relevant hit          {part['relevant_hit']}/{part['relevant_total']}")
        print(f"{label}unrelated → rule      {part['unrelated_rule_leaks']}/{part['unrelated_total']}")
        print(f"{label}unrelated → project   {part['unrelated_project_leaks']}/{part['unrelated_total']}")
        print(f"{label}one-memory pool       {part['single_memory_hit']}/{part['single_memory_total']}")
        for category, rows in part["scan"].items():
            cells = " ".join(f"{r['min']:.2f}:{r['relevant_hit']}/{r['unrelated_leaks']}" for r in rows)
            print(f"{label}scan {category:<8} (min:hit/leak) {cells}")

    cases(report["cases"])
    if report.get("actions"):
        cases(report["actions"]["cases"])
    s = report["settings"]
    print(
        f"model {report['model']}  minimums rule {s['recallMinScore']} project {s['recallMinScoreProject']}"
        f"  lexical weight {s.get('recallLexicalWeight', 0)}  question damping {s.get('questionDamping', 0)}"
    )
    figures(report, "")
    if report.get("actions"):
        figures(report["actions"], "tool calls: ")
    if report["expected_not_in_pool"]:
        print(f"not in the pool: {len(report['expected_not_in_pool'])} expected texts")


def _cmd_rebuild_index(args: argparse.Namespace) -> int:
    result = _through_service("rebuild_index", {}) if _service_holds_store() else _rebuild_index_here()
    if args.json:
        return _emit_json(result)
    print(f"re-encoded {result['encoded']} memories with {result['model']} in {result['seconds']} s")
    if result["backup"]:
        print(f"previous vectors backed up to {result['backup']}")
    return 0


def _rebuild_index_here() -> dict[str, Any]:
    import time

    from ..core import vectors
    from ..core.recall.engine import RecallEngine
    from ..core.runtime import load_encoder
    from ..core.store import Store

    encoder = load_encoder(_progress())
    with Store.open() as store:
        backup = vectors.backup(store)
        vectors.clear(store)
        started = time.perf_counter()
        engine = RecallEngine(store, encoder)
        seconds = time.perf_counter() - started
    return {
        "model": encoder.model_id,
        "encoded": len(engine.index),
        "seconds": round(seconds, 2),
        "backup": str(backup) if backup else None,
    }


def _cmd_build_background(args: argparse.Namespace) -> int:
    if _service_holds_store():
        result = _through_service("build_background", {})
    else:
        from ..core.encoder import background
        from ..core.runtime import load_encoder

        encoder = load_encoder(_progress())
        target = background.build(encoder)
        result = {"model": encoder.model_id, "path": str(target), "sentences": len(background.sentences())}
    if args.json:
        return _emit_json(result)
    print(f"background mean for {result['model']} from {result['sentences']} sentences: {result['path']}")
    print("thresholds depend on it: run `memevo verify` on your cases")
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    import asyncio

    from ..core.service.server import run_headless, setup_logging

    log_file = setup_logging("service")
    print(f"memevo service: log in {log_file}", flush=True)
    asyncio.run(run_headless(lambda text: print(text, flush=True), wait_lock_s=args.wait_lock))
    _exit_now(0)
    return 0


def _cmd_tray(args: argparse.Namespace) -> int:
    from ..desktop.tray import main as tray_main

    _exit_now(int(tray_main(self_test=args.self_test, wait_lock_s=args.wait_lock)))
    return 0


def _exit_now(code: int) -> None:
    """The service has closed the store and released its lock; end the process here. A model
    still loading on its thread (a quit during start-up) must not be torn down by the
    interpreter's exit: the inference runtime's C++ threads then abort the process
    ("terminate called without an active exception"), a crash report for a clean quit."""
    import logging

    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)


def _cmd_service(args: argparse.Namespace) -> int:
    from ..core.service.client import ServiceUnavailable, call
    from ..core.service.server import ping

    if args.action == "stop":
        try:
            call("shutdown", {}, timeout_s=5)
            result: dict[str, Any] = {"stopped": True}
        except ServiceUnavailable:
            result = {"stopped": False, "reason": "no service is running"}
    else:
        status = ping()
        result = {"running": status is not None} | (status or {})
    if args.json:
        return _emit_json(result)
    for key, value in result.items():
        print(f"{key.replace('_', ' '):<18} {_plain(value)}")
    return 0


def _cmd_print_config(args: argparse.Namespace) -> int:
    from ..installer.clients import snippet

    print(json.dumps(snippet(args.client), ensure_ascii=False, indent=2))
    return 0


def _cmd_mcp(args: argparse.Namespace) -> int:
    from ..core.mcp_server import main as mcp_main

    return mcp_main(args.client)


def _cmd_secret(args: argparse.Namespace) -> int:
    """The key never comes from an argument (it would land in shell history and `ps`)."""
    from ..core import secrets
    from ..core.errors import InvalidInput

    if args.action == "set":
        if sys.stdin.isatty():
            import getpass

            value = getpass.getpass("side API key (input hidden): ")
        else:
            value = sys.stdin.readline()
        try:
            backend = secrets.set_api_key(value)
        except secrets.KeyringUnavailable as exc:
            raise InvalidInput(str(exc)) from exc
        except ValueError as exc:
            raise InvalidInput(f"{exc}; nothing stored") from exc
        result: dict[str, Any] = {"stored": True, "where": f"keyring ({backend})"}
    elif args.action == "clear":
        result = {"cleared": secrets.clear_api_key()}
    else:
        status = secrets.status()
        result = {
            "set": status.present,
            "where": status.source,
            "keyring": status.keyring_backend,
            "problem": status.keyring_problem,
        }
    if args.json:
        return _emit_json(result)
    for key, value in result.items():
        print(f"{key:<10} {value}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    figures = bench.run(quick=args.quick)
    if args.json:
        return _emit_json(figures)
    for key, value in figures.items():
        print(f"{key:<26} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
