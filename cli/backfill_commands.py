"""`memevo backfill`: what the user already said again and again, from their clients' transcripts
on this machine, as candidate memories they review (core/importers/backfill.py); with --improve,
the side model's wording beside each (core/importers/improve.py), after the user saw the count of
calls and said yes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.errors import InvalidInput
from .shared import call, emit_json, service_holds_store, shown, through_service, with_engine

KEYS = "[a]ccept / [e]dit / [g]roup / [s]kip / accept [A]ll shown / [q]uit"
OTHER = " / [o]ther wording"
NO_SIDE_API = (
    "memevo: no side API is configured, so the wording is not improved; the candidates stand as found. "
    "To set one up: `memevo config sideApiBase URL`, `memevo config sideApiModel NAME` and "
    "`memevo secret set` (or the panel's Settings)."
)


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--review", action="store_true", help="go through the candidates: accept, edit, regroup or skip"
    )
    p.add_argument("--all", action="store_true", help="read every transcript again, not only what is new")
    p.add_argument(
        "--improve",
        action="store_true",
        help="have your side API's model propose a better wording and group for each candidate "
        "(a few calls at most, counted and asked before; secrets redacted)",
    )
    p.add_argument(
        "--yes", action="store_true", help="with --improve: do not ask before calling the side API"
    )


def cmd_backfill(args: argparse.Namespace) -> int:
    from ..core.importers import backfill, improve, transcripts

    state = backfill.load_state()
    print("memevo: reading your own prompts in the clients' transcripts…", file=sys.stderr)
    prompts, files = transcripts.read_all(
        Path.home(), skip=None if args.all else state["files"], known=_known_folders()
    )
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
    improved = _improve(found, args.yes) if args.improve and found else None
    if args.json:  # writes nothing, not even what was read
        shown_json: dict[str, Any] = {"prompts": len(prompts), "sessions": sessions, "candidates": found}
        return emit_json(shown_json | ({"improvement": improved} if improved is not None else {}))
    if not found:
        print("no candidates: nothing was said again or said to last that is not a memory already")
        if args.review:
            backfill.save_state([], files)
        return 0
    if not args.review:
        for index, c in enumerate(found, 1):
            print(_line(index, len(found), improve.proposed(c)))
        print(
            f"\n{len(found)} candidates; review them with `memevo backfill --review` (nothing is kept before)"
        )
        return 0
    accepted, skip, finished = _review(found)
    result: dict[str, Any] = (
        call("import_notes", items=accepted) if accepted else {"imported": [], "skipped": 0}
    )
    backfill.save_state([*skip, *backfill.reworded(accepted)], files if finished else state["files"])
    print(
        f"kept {len(result['imported'])}"
        + (f", {result['skipped']} already there" if result["skipped"] else "")
        + f"; skipped {len(skip)} (never proposed again)"
        + ("" if finished else "; the rest is proposed again next time")
    )
    return 0


def _say(stage: str, done: int, total: int) -> None:
    """The scan's stages, and how far the encoding is every few thousand statements."""
    if stage == "encoding" and done and done % 2048 == 0:
        print(f"memevo: {done}/{total}…", file=sys.stderr)
    if done:
        return
    what = {
        "encoding": f"reading the meaning of {total} statements",
        "grouping": f"finding what was said again among {total} statements",
        "comparing": f"comparing with {total} memories",
    }
    print(f"memevo: {what.get(stage, stage)}…", file=sys.stderr)


def _known_folders() -> list[str]:
    """The folders memevo has seen repositories in, for the CodeBuddy IDE's workspaces; none
    when the store cannot be read now (the folders the transcripts name still count)."""
    try:
        folders = call("repo_folders").get("folders")
    except Exception as exc:  # a busy or damaged store must not stop a backfill
        print(f"memevo: the repositories memevo knows are not used this time: {exc}", file=sys.stderr)
        return []
    return [str(f) for f in folders] if isinstance(folders, list) else []


def _improve(found: list[dict[str, Any]], yes: bool) -> dict[str, Any]:
    """The side model's wording beside each candidate, after the count of calls was shown and
    the user said yes (or gave --yes). Everything said goes to stderr: --json's stdout stays JSON."""
    from ..core.importers import improve

    planned = improve.plan(len(found))
    report: dict[str, Any] = {"planned": planned.as_json(), "calls": 0, "improved": 0, "stopped": None}
    if planned.endpoint is None:
        print(NO_SIDE_API, file=sys.stderr)
        report["stopped"] = planned.missing
        return report
    print(
        f"memevo: improving the wording of {planned.covered} of {len(found)} candidates takes "
        f"{planned.calls} call{'s' if planned.calls != 1 else ''} to your side API "
        f"({planned.endpoint.base}, model {planned.endpoint.model}); sent: each candidate's text, "
        "group and repositories, and your words, secrets redacted. Nothing is kept without your yes.",
        file=sys.stderr,
    )
    if not yes:
        print("Go on? [y/N] ", end="", file=sys.stderr, flush=True)
        try:
            answer = input().strip().lower()
        except EOFError:
            answer = ""
        if answer not in ("y", "yes"):
            print("memevo: not improved; the candidates stand as found", file=sys.stderr)
            report["stopped"] = "not confirmed"
            return report

    def step(done: int, calls: int) -> None:
        print(f"memevo: asking the side model: call {done + 1} of {calls}…", file=sys.stderr, flush=True)

    def count() -> bool:  # in the day's side API calls, as learning's are (Status shows them)
        return bool(call("side_call")["counted"])

    report |= improve.improve(found, planned, step, count=count)
    print(
        f"memevo: the side model improved {report['improved']} of {planned.covered} in {report['calls']} "
        f"call{'s' if report['calls'] != 1 else ''}"
        + (f"; stopped: {report['stopped']}" if report["stopped"] else ""),
        file=sys.stderr,
    )
    return report


def _line(index: int, total: int, c: dict[str, Any]) -> str:
    evidence = c["evidence"]
    where = f" [{shown(c['scope'])}]" if c["scope"] != "global" else ""
    said = "; ".join(shown(w) for w in evidence["words"][1:])
    return (
        f"[{index}/{total}] {c['category']:<7} {shown(c['text'])}{where}\n"
        + _other(c)
        + f"        {', '.join(evidence['why'])}; {evidence['sessions']} session{'' if evidence['sessions'] == 1 else 's'}, "
        f"{evidence['first_day']}..{evidence['last_day']}"
        + (
            f", in {', '.join(shown(r) for r in evidence['repositories'])}"
            if evidence["repositories"]
            else ""
        )
        + (f"\n        also said: {said}" if said else "")
    )


def _other(c: dict[str, Any]) -> str:
    """The wording not shown on the first line, when the side model proposed one."""
    from ..core.importers import improve

    if "original" not in c:
        return ""
    label, other = ("as found", c["original"]) if improve.uses_improved(c) else ("improved", c["improved"])
    return f"        {label}: {other['category']} {shown(other['text'])}\n"


def _review(found: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str], bool]:
    """One key each; (accepted items, skipped keys, whether every candidate was answered). A
    candidate the side model reworded is shown in its wording, the one found beside it (o: the other)."""
    from ..core.importers import backfill, improve
    from ..core.memories.text import check_text

    accepted: list[dict[str, Any]] = []
    skipped: list[str] = []
    for index, c in enumerate(found, 1):
        item = improve.proposed(c)
        print(_line(index, len(found), item))
        while True:
            try:
                answer = input(f"  {KEYS}{OTHER if 'original' in item else ''}: ").strip()
            except EOFError:
                return accepted, skipped, False
            if answer == "A":
                accepted += [item, *(improve.proposed(rest) for rest in found[index:])]
                return accepted, skipped, True
            if answer == "q":
                return accepted, skipped, False
            if answer == "s":
                skipped.append(item["sha"])
                break
            if answer == "a":
                accepted.append(item)
                break
            if answer == "o" and improve.other_wording(item):
                print(_line(index, len(found), item))
                continue
            if answer == "g":
                backfill.regroup(item)
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
