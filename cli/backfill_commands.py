"""`memevo backfill`: what the user already said again and again, from their clients' transcripts
on this machine, as candidate memories they review (core/importers/backfill.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInput
from .shared import call, emit_json, service_holds_store, shown, through_service, with_engine

KEYS = "[a]ccept / [e]dit / [g]roup / [s]kip / accept [A]ll shown / [q]uit"


def cmd_backfill(args: argparse.Namespace) -> int:
    from ..core.importers import backfill, transcripts

    state = backfill.load_state()
    print("memevo: reading your own prompts in the clients' transcripts…", file=sys.stderr)
    prompts, files = transcripts.read_all(Path.home(), skip=None if args.all else state["files"])
    if not prompts:
        if args.json:
            return emit_json({"prompts": 0, "sessions": 0, "candidates": []})
        print(
            "nothing new in the transcripts since the last review"
            if state["files"]
            else "no transcripts found"
        )
        return 0
    given = [p.as_json() for p in prompts]
    sessions = len({(p.client, p.session) for p in prompts})
    print(f"memevo: {len(prompts)} prompts in {sessions} sessions; finding what lasts…", file=sys.stderr)
    if service_holds_store():
        report = through_service("backfill_scan", {"prompts": given})
    else:
        report = with_engine(lambda engine: backfill.run(engine.store, engine.encoder, given, _say))
    skipped = set(state["skipped"])
    found = [c for c in report["candidates"] if c["sha"] not in skipped]
    if args.json:  # writes nothing, not even what was read
        return emit_json({"prompts": len(prompts), "sessions": sessions, "candidates": found})
    if not found:
        print("no candidates: nothing was said again or said to last that is not a memory already")
        if args.review:
            backfill.save_state([], files)
        return 0
    if not args.review:
        for index, c in enumerate(found, 1):
            print(_line(index, len(found), c))
        print(
            f"\n{len(found)} candidates; review them with `memevo backfill --review` (nothing is kept before)"
        )
        return 0
    accepted, skip, finished = _review(found)
    result: dict[str, Any] = (
        call("import_notes", items=accepted) if accepted else {"imported": [], "skipped": 0}
    )
    backfill.save_state(skip, files if finished else state["files"])
    print(
        f"kept {len(result['imported'])}"
        + (f", {result['skipped']} already there" if result["skipped"] else "")
        + f"; skipped {len(skip)} (never proposed again)"
        + ("" if finished else "; the rest is proposed again next time")
    )
    return 0


def _say(text: str) -> None:
    print(f"memevo: {text}…", file=sys.stderr)


def _line(index: int, total: int, c: dict[str, Any]) -> str:
    evidence = c["evidence"]
    where = f" [{shown(c['scope'])}]" if c["scope"] != "global" else ""
    said = "; ".join(shown(w) for w in evidence["words"][1:])
    return (
        f"[{index}/{total}] {c['category']:<7} {shown(c['text'])}{where}\n"
        f"        {', '.join(evidence['why'])}; {evidence['sessions']} session(s), "
        f"{evidence['first_day']}..{evidence['last_day']}"
        + (
            f", in {', '.join(shown(r) for r in evidence['repositories'])}"
            if evidence["repositories"]
            else ""
        )
        + (f"\n        also said: {said}" if said else "")
    )


def _review(found: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str], bool]:
    """One key each; (accepted items, skipped keys, whether every candidate was answered)."""
    from ..core.memories.text import check_text

    accepted: list[dict[str, Any]] = []
    skipped: list[str] = []
    for index, c in enumerate(found, 1):
        item = dict(c)
        print(_line(index, len(found), item))
        while True:
            try:
                answer = input(f"  {KEYS}: ").strip()
            except EOFError:
                return accepted, skipped, False
            if answer == "A":
                accepted += [item, *(dict(rest) for rest in found[index:])]
                return accepted, skipped, True
            if answer == "q":
                return accepted, skipped, False
            if answer == "s":
                skipped.append(item["sha"])
                break
            if answer == "a":
                accepted.append(item)
                break
            if answer == "g":
                item["category"] = "project" if item["category"] == "rule" else "rule"
                repos = item["evidence"]["repositories"]
                item["scope"] = repos[0] if item["category"] == "project" and len(repos) == 1 else "global"
                print(
                    f"  now: {item['category']}"
                    + (f" [{item['scope']}]" if item["scope"] != "global" else "")
                )
                continue
            if answer == "e":
                try:
                    item["text"] = check_text(input("  the text to keep: "))
                except InvalidInput as exc:
                    print(f"  {exc}")
                except EOFError:
                    return accepted, skipped, False
                continue
    return accepted, skipped, True
