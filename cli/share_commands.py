"""Beyond one machine: `memevo share` writes a repository's facts to its
`.memevo/facts.md`, reviewed and merged like code (core/sharing/facts.py)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..core.errors import InvalidInput
from .shared import call, emit_json, shown


def cmd_share(args: argparse.Namespace) -> int:
    cwd = os.getcwd()
    trust_step = [name for name in ("review", "trust", "untrust") if getattr(args, name, False)]
    if trust_step:
        if len(trust_step) > 1 or args.all or args.ids or args.pending or args.dry_run:
            raise InvalidInput("--review, --trust and --untrust go alone (with --json at most)")
        return {"review": _review, "trust": _trust, "untrust": _untrust}[trust_step[0]](args, cwd)
    status: dict[str, Any] = call("share_status", cwd=cwd)
    if status.get("problem"):
        raise InvalidInput(str(status["problem"]))
    asked = bool(args.all or args.ids or args.pending)
    if not asked and not args.dry_run:
        if not sys.stdin.isatty() or args.json or status.get("waiting_review"):
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
    if status.get("waiting_review"):
        print(
            "  waiting for your review: memevo reads nothing from this file until you trust its "
            "content — `memevo share --review` shows it"
        )
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
        if memory.get("stale"):  # teammates would read it as true: say so before it is shared
            print(f"           may be out of date: {shown(memory['stale'])}; check it before sharing")
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


# -- the user's trust in the file (core/sharing/trust.py) -------------------------------------------


def _review(args: argparse.Namespace, cwd: str) -> int:
    """The file's facts (or what changed since memevo last read it); on a terminal, asks
    whether to trust them; elsewhere, says how."""
    review: dict[str, Any] = call("share_review", cwd=cwd)
    if args.json:
        return emit_json(review)
    if review["sha"] is None:
        print(f"no {shown(review['file'])}: nothing to review")
        return 0
    _print_review(review)
    if review["trusted"]:
        print("you trust this content: its facts are read into memevo")
        return 0
    if not sys.stdin.isatty():
        print(
            "not read into memevo until you trust it: once you have read the facts above, run "
            "`memevo share --trust` here"
        )
        return 0
    answer = ""
    while answer not in ("y", "n"):
        answer = input("trust this content and read these facts into memevo? [y]es / [n]o: ").strip().lower()
    if answer == "n":
        call("share_decline", cwd=cwd, sha=review["sha"])
        print(
            "not trusted: nothing was read, and this content is not announced again "
            "(a change to the file is); `memevo share --review` to look again"
        )
        return 0
    return _say_trusted(call("share_trust", cwd=cwd, sha=review["sha"]))


def _trust(args: argparse.Namespace, cwd: str) -> int:
    """Trust the file's current content, printed first (the content printed is the content
    trusted: a file changed in between is refused)."""
    review: dict[str, Any] = call("share_review", cwd=cwd)
    if review["sha"] is None:
        raise InvalidInput(f"no {shown(review['file'])}: nothing to trust")
    if not args.json:
        _print_review(review)
    result: dict[str, Any] = call("share_trust", cwd=cwd, sha=review["sha"])
    if args.json:
        return emit_json({"review": review, "read": result})
    return _say_trusted(result)


def _say_trusted(result: dict[str, Any]) -> int:
    print(
        f"trusted: {len(result['created'])} new, {len(result['updated'])} changed, "
        f"{len(result['deleted'])} retired; a later change to the file is read after you review it"
    )
    return 0


def _print_review(review: dict[str, Any]) -> None:
    facts, added, changed, removed = review["facts"], review["added"], review["changed"], review["removed"]
    print(f"{shown(review['file'])} ({shown(review['repo'])}), content {review['sha'][:12]}:")
    if not (changed or removed) and len(added) == len(facts):
        print(f"  {len(facts)} facts, the repository's words — none of them read into memevo yet:")
        for fact in facts:
            _print_fact("+", fact)
        return
    if not (added or changed or removed):
        print(f"  the same {len(facts)} facts memevo read from it before:")
        for fact in facts:
            _print_fact(" ", fact)
        return
    print(
        f"  changed since memevo last read it: {len(added)} added, {len(changed)} changed, "
        f"{len(removed)} removed (a removed fact goes to the trash once you trust this)"
    )
    for fact in added:
        _print_fact("+", fact)
    for fact in changed:
        _print_fact("-", {"text": fact["before"]})
        _print_fact("+", fact)
    for fact in removed:
        _print_fact("-", fact)


def _print_fact(mark: str, fact: dict[str, Any]) -> None:
    """A fact whole, each of its lines escaped: the review shows every character."""
    where = f"  (line {fact['line']})" if fact.get("line") else ""
    lines = str(fact["text"]).split("\n")
    print(f"  {mark} {shown(lines[0])}{where}")
    for line in lines[1:]:
        print(f"      {shown(line)}")


def _untrust(args: argparse.Namespace, cwd: str) -> int:
    result: dict[str, Any] = call("share_untrust", cwd=cwd)
    if args.json:
        return emit_json(result)
    kept = result["kept"]
    print(
        f"memevo no longer reads the shared facts file of {shown(result['repo'])}"
        + ("" if result["folders"] else " (it was not trusted)")
        + f"; the {len(kept)} facts read from it stay in your memory as they are, no longer "
        "refreshed from the file (`memevo delete ID` removes one"
        + (f": {', '.join(kept)}" if kept else "")
        + "); `memevo share --review` trusts it again"
    )
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    from ..core.service.client import call_or_local

    # a sync over the network may take minutes (git's own timeouts bound it)
    result: dict[str, Any] = call_or_local("sync", {"remote": args.remote}, timeout_s=600.0)
    if args.json:
        return emit_json(result)
    # every name, id and reason below may be the remote's text: shown() escapes what a terminal
    # would act on (ESC sequences, direction overrides)
    print(
        f"synced with {shown(result['remote'] or '')}: {result['exported']} written out, "
        f"{result['imported']} taken in, {len(result['merged'])} merged"
        + ("" if result["pushed"] else "; not pushed (try again)")
    )
    if result["held_back"]:
        held = ", ".join(shown(i) for i in result["held_back"])
        print(f"kept on this machine (its text looks like it holds a secret): {held}")
    for kept in result.get("kept_here", []):
        print(f"kept on this machine: {shown(kept['id'])}: {shown(kept['why'])}")
    for item in result.get("review", []):
        print(f"review: {shown(item['id'])} {shown(item['what'])}: {shown(item['text'])}")
    for conflict in result["conflicts"]:
        # an entry that is no memory's file says in its reason that it was ignored
        memory = f" (memory {shown(conflict['id'])} left as it is here)" if conflict["id"] else ""
        print(f"conflict: {shown(conflict['file'])}: {shown(conflict['why'])}{memory}")
    return 1 if result["conflicts"] else 0
