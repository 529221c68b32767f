"""Bringing memories in: `memevo import-notes` (what you wrote for your tools) and
`memevo import-legacy` (the Node tool's files), with the move of its side API key into the keyring."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..core.errors import InvalidInput
from .shared import call, emit_json, shown


def cmd_import_notes(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..core.importers import notes
    from ..core.memories.scopes import folder_of

    repo_path = folder_of(os.path.abspath(args.repo) if args.repo else os.getcwd())
    found = notes.candidates(Path.home(), Path(repo_path) if repo_path else None)
    if found:
        known = set(call("notes_known", shas=[c.sha for c in found], texts=[c.text for c in found])["known"])
        found = [c for c in found if c.sha not in known]
    if args.dry_run or not found:
        if args.json:
            return emit_json({"candidates": [c.as_json() for c in found], "dry_run": True})
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
    result: dict[str, Any] = call("import_notes", items=chosen) if chosen else {"imported": [], "skipped": 0}
    if args.json:
        return emit_json(result)
    print(
        f"imported {len(result['imported'])}"
        + (f", {result['skipped']} already there" if result["skipped"] else "")
    )
    return 0


def _candidate_line(c: Any) -> str:
    where = f"  [{shown(c.scope)}]" if c.scope else ""
    return f"{c.category:<7} {shown(c.text)}{where}\n        from {shown(c.source)}"


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


def cmd_import_legacy(args: argparse.Namespace) -> int:
    result = call("import_legacy")
    if args.json:
        return emit_json(result)
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
    if report["config_kept"]:
        print("  settings: config.json holds memevo's own settings, kept as they are")
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
    from ..core.importers import legacy
    from ..core.privacy import side_api_key as secrets

    key = legacy.node_api_key()
    if key is None:
        return
    if secrets.keyring_api_key() == key:  # moved before: the plain-text copy is all that is left
        legacy.node_key_file().unlink()
        print("the side API key is already in the keyring; deleted side-secret.json")
        return
    if secrets.status().source in ("keyring", "file"):
        # another key is in the keyring, or in the key file the user chose (a move would delete
        # it): the user's choice stands, their side-secret.json stays
        return
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
