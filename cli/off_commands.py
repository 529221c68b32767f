"""`memevo off` / `memevo on`: memevo does nothing in a repository, or again does."""

from __future__ import annotations

import argparse

from ..core.errors import InvalidInput
from .shared import call, emit_json, shown


def cmd_off(args: argparse.Namespace) -> int:
    """`memevo off [REPO]` / `memevo on [REPO]`: memevo does nothing in a repository, or again does."""
    import os

    from ..core.memories.scopes import repo_of

    off = args.switch == "off"
    if args.list:
        listed = call("off_repositories")["off_repositories"]
        if args.json:
            return emit_json({"off_repositories": listed})
        print("\n".join(listed) if listed else "memevo is on in every repository")
        return 0
    repo = args.repo or repo_of(os.getcwd())
    if not repo:
        raise InvalidInput("not in a repository: run it inside one, or name it (host/org/name)")
    result = call("repository_off", repo=repo, off=off)
    if args.json:
        return emit_json(result)
    if off:
        print(
            f"memevo is off in {shown(repo)}: no recall, no learning, no backfill, no staleness checks there"
            + ("" if result["changed"] else " (it already was)")
        )
    else:
        print(f"memevo is on again in {shown(repo)}" + ("" if result["changed"] else " (it already was)"))
    return 0
