"""Beyond one machine (issue 35): `memevo share` writes a repository's facts to its
`.memevo/facts.md`, reviewed and merged like code (core/sharing.py)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..core.errors import InvalidInput
from .cli_shared import call, emit_json, shown


def cmd_share(args: argparse.Namespace) -> int:
    cwd = os.getcwd()
    status: dict[str, Any] = call("share_status", cwd=cwd)
    if status.get("problem"):
        raise InvalidInput(str(status["problem"]))
    asked = bool(args.all or args.ids or args.pending)
    if not asked and not args.dry_run:
        if not sys.stdin.isatty() or args.json:
            return _show_status(args, status)
        ids, pending = _choose(status)
        if not ids and not pending:
            print("nothing written")
            return 0
        result = call("share", cwd=cwd, ids=ids, pending=pending)
    else:
        result = call(
            "share", cwd=cwd, ids=list(args.ids), all=args.all, pending=args.pending, dry_run=args.dry_run
        )
    if args.json:
        return emit_json(result)
    if result["diff"]:
        print(result["diff"], end="")
    verb = "would write" if result["dry_run"] else "wrote"
    print(
        f"{verb} {result['file']}: {len(result['shared'])} shared, "
        f"{len(result['pending_written'])} local changes offered back; "
        "review it and commit it like code (nothing is pushed)"
        if result["diff"]
        else "nothing to write"
    )
    return 0


def _show_status(args: argparse.Namespace, status: dict[str, Any]) -> int:
    if args.json:
        return emit_json(status)
    print(f"{status['file']}:")
    read = status.get("read") or {}
    if read.get("created") or read.get("updated") or read.get("deleted"):
        print(
            f"  read from the file: {len(read['created'])} new, {len(read['updated'])} changed, "
            f"{len(read['deleted'])} retired"
        )
    for change in status["pending"]:
        if change["local"] is None:
            print(f"  pending  {change['id']}  deleted here: {shown(change['file'])}")
        else:
            print(
                f"  pending  {change['id']}  - {shown(change['file'])}\n                    + {shown(change['local'])}"
            )
    for memory in status["unshared"]:
        print(f"  unshared {memory['id']}  {shown(memory['text'])}")
    if not status["pending"] and not status["unshared"]:
        print("  nothing to share: every project fact of this repository is in the file")
    else:
        print("share with `memevo share ID...`, `--all`, and write local changes with `--pending`")
    return 0


def _choose(status: dict[str, Any]) -> tuple[list[str], bool]:
    """y: share it, n: skip, q: stop asking; then whether to write the pending changes."""
    ids: list[str] = []
    unshared = status["unshared"]
    for index, memory in enumerate(unshared, 1):
        print(f"[{index}/{len(unshared)}] {memory['id']}  {shown(memory['text'])}")
        answer = ""
        while answer not in ("y", "n", "q"):
            answer = input("  share it in the repository's file? [y]es / [n]o / [q]uit: ").strip().lower()
        if answer == "q":
            break
        if answer == "y":
            ids.append(memory["id"])
    pending = False
    if status["pending"]:
        for change in status["pending"]:
            local = "(deleted here)" if change["local"] is None else shown(change["local"])
            print(f"  {change['id']}: file {shown(change['file'])}\n      here {local}")
        answer = input("write these local changes to the file? [y]es / [n]o: ").strip().lower()
        pending = answer == "y"
    return ids, pending


def cmd_sync(args: argparse.Namespace) -> int:
    from ..core.service.client import call_or_local

    # a sync over the network may take minutes (git's own timeouts bound it)
    result: dict[str, Any] = call_or_local("sync", {"remote": args.remote}, timeout_s=600.0)
    if args.json:
        return emit_json(result)
    print(
        f"synced with {shown(result['remote'] or '')}: {result['exported']} written out, "
        f"{result['imported']} taken in, {len(result['merged'])} merged"
        + ("" if result["pushed"] else "; not pushed (try again)")
    )
    if result["held_back"]:
        print(
            f"kept on this machine (its text looks like it holds a secret): {', '.join(result['held_back'])}"
        )
    for conflict in result["conflicts"]:
        print(f"conflict: {conflict['file']}: {conflict['why']} (memory {conflict['id']} left as it is here)")
    return 1 if result["conflicts"] else 0
