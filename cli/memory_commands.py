"""The memory commands: list, read, add, search, scope, reinforce, delete, trash, pending,
restore, purge, pin, unpin, history, restore-version, move, and config."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInput
from .shared import call, emit_json, memory_line, points, reply, service_holds_store, shown, with_engine


def cmd_list(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        for category in ("rule", "project"):
            c = result["counts"][category]
            print(f"{category:<8} {c['live']:>6} live  {c['deprecated']:>6} deprecated")

    return reply(args, call("counts"), say)


def cmd_read(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        rows = result["memories"]
        if not rows:
            print(f"no {args.category} memories" + (f" after offset {args.offset}" if args.offset else ""))
            return
        for memory in rows:
            print(memory_line(memory))
        stale = [m for m in rows if m.get("stale")]
        if stale:  # offered for update or deletion
            one = stale[0]["id"]
            print(
                f'{len(stale)} may be out of date (stale): update one with `memevo edit {one} "…"`, '
                f"delete it with `memevo delete {one}`, or keep it with `memevo still-true {one}`"
            )
        shown_to = args.offset + len(rows)
        if shown_to < result["total"]:
            print(
                f"— {args.offset + 1}–{shown_to} of {result['total']}; --offset {shown_to} or --all for more"
            )

    limit = None if args.all else 50
    return reply(args, call("read", category=args.category, offset=args.offset, limit=limit), say)


def cmd_add(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        memory = result["memory"]
        where = f", only in {memory['scope']}" if memory.get("scope", "global") != "global" else ""
        if result.get("action") == "reinforce":  # the same text is there already: never twice
            print(
                f"already there: reinforced {memory['category']} #{memory['id']} "
                f"(+{points(result['gained'])}, confidence {points(memory['confidence'])}{where})"
            )
            return
        print(f"added {memory['category']} {memory['id']} (confidence {points(memory['confidence'])}{where})")

    params: dict[str, Any] = {"category": args.category, "text": args.text}
    if args.here:
        params["scope"] = _here()
    return reply(args, call("add", **params), say)


def _here() -> str:
    from ..core.memories.scopes import folder_of, repo_of

    folder, repo = folder_of(os.getcwd()), repo_of(os.getcwd())
    if folder is None or repo is None:
        raise InvalidInput("the current folder cannot be used as a repository")
    broad = {str(Path("/").resolve()), str(Path.home().resolve())}
    if folder in broad:  # no .git above it: "here" would be every session started there
        raise InvalidInput(
            f"{folder} is not a repository (no .git in it or above it): run this inside the repository "
            "the memory belongs to; nothing changed"
        )
    return repo


def cmd_search(args: argparse.Namespace) -> int:
    from ..core.memories import search as memsearch

    def say(result: dict[str, Any]) -> None:
        if not result["hits"]:
            print("no memories found")
        for hit in result["hits"]:
            flag = "  [pinned]" if hit["pinned"] else ""
            if hit["scope"] != "global":
                flag += f"  [{shown(hit['scope'])}]"
            print(
                f"{hit['id']}  {hit['category']:<7} {points(hit['confidence']):>4}  {hit['score']:.2f}  "
                f"{shown(hit['text'])}{flag}"
            )

    params: dict[str, Any] = {"text": args.query, "category": args.category, "limit": args.limit}
    if service_holds_store():
        from ..core.service.client import call_service

        result = call_service("search", params, wait_s=180)
    else:
        result = with_engine(
            lambda engine: memsearch.search(engine, engine.store, args.query, args.category, args.limit)
        )
    return reply(args, result, say)


def cmd_scope(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        memory = result["memory"]
        where = "everywhere (global)" if memory["scope"] == "global" else f"only in {memory['scope']}"
        print(f"{memory['id']} now applies {where}")

    scope = _here() if args.scope == "here" else "global"
    return reply(args, call("scope", id=args.id, scope=scope), say)


def cmd_reinforce(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        memory = result["memory"]
        gained = f"+{points(result['gained'])}" if result["gained"] else "+0 (today's award already given)"
        print(f"reinforced {memory['id']}: {gained}, confidence {points(memory['confidence'])}")

    return reply(args, call("reinforce", id=args.id), say)


def cmd_delete(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        print(f"moved to trash: {', '.join(result['deleted'])}")
        if result["missing"]:
            print(f"skipped (no such memory): {', '.join(result['missing'])}")

    return reply(args, call("delete", ids=args.ids), say)


def cmd_edit(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        memory = result["memory"]
        print(
            f"edited {memory['category']} {memory['id']}: {shown(memory['text'])} (the old text is in its history)"
        )

    return reply(args, call("replace", id=args.id, text=args.text), say)


def cmd_still_true(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        memory = result["memory"]
        if result["found_again"]:
            print(f"{memory['id']} is not stale: its repository has its names (checked again just now)")
        else:
            print(
                f"kept {memory['id']} as true: the names its repository no longer has stop counting "
                "until one is found and lost again"
            )

    return reply(args, call("still_true", id=args.id), say)


def cmd_trash(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        if not result["trash"]:
            print("the trash is empty")
        for item in result["trash"]:
            print(f"{memory_line(item)}  ({item['category']}, {item['reason']} {item['deleted'][:10]})")

    return reply(args, call("trash"), say)


def cmd_pending(args: argparse.Namespace) -> int:
    if args.answer is not None:
        return _answer_pending(args)

    def say(result: dict[str, Any]) -> None:
        waiting = result["pending"]
        if not waiting:
            print("no proposals are waiting for confirmation")
            return
        for item in waiting:
            if item.get("proposer") == "consolidate":  # memevo's own pass: no client, no session
                print(f"{item['sessionID']}  memevo's consolidation  ({item['created'][:16]})")
                print(f"  proposal:  {shown(item['describe'])}")
                print(f"  choices:   {', '.join(item['options'])}  (memevo pending accept ID --as CHOICE)")
                continue
            print(
                f"{item['sessionID']}  {item['client']}  session {item['session']}  ({item['created'][:16]})"
            )
            if "proposer" in item:  # an older service does not say; then nothing is claimed
                print(f"  from:      {_proposer(item)}")
            if item.get("proposer") == "client" and item.get("verified_words") is False:
                print(f"  quoted:    {shown(item['words'])}  (not found among what you said in that session)")
            else:
                print(f"  you said:  {shown(item['words'])}")
            print(f"  proposal:  {item['action']} {item['category']}: {shown(item['text'])}")
            if item["target"]:
                print(f"  about:     #{item['target']}")
        where = (
            "the tray app's dialog (menu: pending proposals)"
            if _tray_hosts_service()
            else "your client's chat"
        )
        print(
            f"{len(waiting)} waiting; answer them in {where}, or here: memevo pending accept|discard SESSIONID"
        )

    return reply(args, call("pending"), say)


def _proposer(item: dict[str, Any]) -> str:
    """Who proposed a waiting proposal: the client's own model (memory_propose) or the side judge."""
    from ..installer.clients import DISPLAY_NAMES

    client = DISPLAY_NAMES.get(str(item["client"]), shown(item["client"]))
    if item.get("proposer") == "client":
        return f"{client}'s own model (memory_propose)"
    return f"the side judge (your side API), from what you said in {client}"


def _answer_pending(args: argparse.Namespace) -> int:
    from ..core.errors import InvalidInput

    if not args.session_id:
        raise InvalidInput(
            f"memevo pending {args.answer} SESSIONID: name the proposal (see `memevo pending`)"
        )
    if args.answer == "discard" and args.decision:
        raise InvalidInput("--as goes with accept, not discard")
    decision = "discard" if args.answer == "discard" else args.decision or ""

    def say(result: dict[str, Any]) -> None:
        print(result["message"] if "message" in result else f"{result['sessionID']}: {result.get('action')}")

    return reply(args, call("pending_resolve", sessionID=args.session_id, decision=decision), say)


def _tray_hosts_service() -> bool:
    from ..core.service.server import ping

    status = ping(timeout_s=0.5)
    return bool(status and status.get("desktop"))


def cmd_restore(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        memory = result["memory"]
        print(f"restored {memory['category']} {memory['id']}: {shown(memory['text'])}")

    return reply(args, call("restore", id=args.id), say)


def cmd_purge(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        purged = result["purged"]
        print(f"purged {purged['id']} ({purged['removed_rows']} stored records)")
        for path in purged["scrubbed_files"]:
            print(f"  removed from backup {path}")
        for path in purged["legacy_files_with_text"]:
            print(f"  note: the Node tool's file {path} still contains this text; memevo does not edit it")

    if not args.yes:
        if not sys.stdin.isatty():  # irreversible: never on piped or absent input
            raise InvalidInput(
                "purge is irreversible and cannot ask for confirmation here (input is not a terminal); "
                f"nothing purged. To purge, run: memevo purge {shown(args.id)} --yes"
            )
        answer = input(f"Remove memory {args.id} and its text everywhere, for good? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing purged")
            return 1
    return reply(args, call("purge", id=args.id), say)


def cmd_pin(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        memory = result["memory"]
        print(
            f"pinned {memory['id']}: it never decays and is never deprecated (confidence {points(memory['confidence'])})"
        )

    return reply(args, call("pin", id=args.id), say)


def cmd_unpin(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        print(f"unpinned {result['memory']['id']}: it decays again when idle")

    return reply(args, call("unpin", id=args.id), say)


def cmd_history(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        memory = result["memory"]
        if memory:
            print(f"{memory['id']}  now: {shown(memory['text'])}")
        else:
            print(f"{args.id} is in the trash")
        if memory:
            cues = result.get("cues")
            print(
                "  recall cues: "
                + ("not written (yet)" if cues is None else " · ".join(cues) if cues else "none usable")
            )
        if not result["versions"]:
            print("  no earlier texts")
        for v in result["versions"]:
            valid = f"{v['valid_from'][:16].replace('T', ' ')} – {v['valid_to'][:16].replace('T', ' ')}"
            print(f"  v{v['version']}  {valid}  ({v['reason']})  {shown(v['text'])}")
        for o in result.get("origins") or []:
            # "by" says it (core/memories/origins.py describe); an older service does not send it
            who = o.get("by") or {
                "client": "proposed by the client's model",
                "side": "proposed by the side judge",
            }.get(o["proposer"], "added by you")
            session = f" session {shown(o['session'])[:12]}" if o.get("session") else ""
            # a change the repository's file made names the file in `who` already
            words = f": {shown(o['words'])}" if o.get("words") and o["words"] not in who else ""
            print(f"  {o['at'][:16].replace('T', ' ')}  {o['action']} {who} ({o['client']}{session}){words}")

    return reply(args, call("history", id=args.id), say)


def cmd_restore_version(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        print(
            f"{result['memory']['id']} has version {args.version}'s text again "
            "(the replaced text is kept in its history)"
        )

    return reply(args, call("restore_version", id=args.id, version=args.version), say)


def cmd_move(args: argparse.Namespace) -> int:
    def say(result: dict[str, Any]) -> None:
        print(f"{result['memory']['id']} is now a {result['memory']['category']} memory")

    return reply(args, call("move", id=args.id, category=args.category), say)


def cmd_config(args: argparse.Namespace) -> int:
    from ..core.config import parse_cli_value

    def say(result: dict[str, Any]) -> None:
        print(f"{result['key']} = {json.dumps(result['value'], ensure_ascii=False)}")
        if result.get("note"):
            print(f"note: {result['note']}", file=sys.stderr)

    if args.unset:
        if not args.key or args.value is not None:
            raise InvalidInput("usage: memevo config --unset KEY")
        result = call("config_unset", key=args.key)
    elif args.key and args.value is not None:
        result = call("config_set", key=args.key, value=parse_cli_value(args.value))
    elif args.key:
        current = call("config_show")
        if args.key not in current["config"]:
            raise InvalidInput(f"unknown config key {args.key!r}")
        result = {"key": args.key} | current["config"][args.key]
    else:
        return _show_config(call("config_show"), args.json)
    return reply(args, result, say)


def _show_config(current: dict[str, Any], as_json: bool) -> int:
    for problem in current["problems"]:
        print(f"memevo: config problem: {problem}", file=sys.stderr)
    if as_json:
        return emit_json(current)
    effective = _gate_defaults({name: entry["value"] for name, entry in current["config"].items()})
    for name, entry in current["config"].items():
        value_text = json.dumps(entry["value"], ensure_ascii=False)
        marker = "" if entry["set_by_user"] else "  (default)"
        if entry["value"] is None and name in effective:
            value_text, marker = f"{effective[name]:g}", "  (the model's calibrated default)"
        print(f"{name:<22} {value_text}{marker}")
    return 0


def _gate_defaults(values: dict[str, Any]) -> dict[str, float]:
    """What the gate uses for the keys left unset: the model's calibrated hybrid values (or its
    cosine minimums when the lexical weight is 0), as recall itself reads them."""
    from ..core.encoder.models import entry_for
    from ..core.process.runtime import configured_model
    from ..core.recall.gate import model_defaults

    entry = entry_for(configured_model())
    return model_defaults(values, entry) if entry.calibrated else {}
