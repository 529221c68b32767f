"""`memevo setup` and `memevo uninstall` on a terminal."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..installer import prompts
from ..installer import setup_engine as engine
from ..installer import uninstall as remover
from ..installer.clients import CLIENTS, installed, permission_question
from .import_commands import cmd_import_legacy
from .shared import run_handler


def add_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    p = command("setup", cmd_setup, "register memevo in every installed client (asks a few questions first)")
    p.add_argument(
        "--only",
        choices=CLIENTS,
        help="only this client; no questions",
    )
    p.add_argument(
        "--repair", action="store_true", help="no questions: re-check the model, re-register, refresh skills"
    )
    p.add_argument("--no-input", action="store_true", help="ask nothing, change no existing choice")
    p.add_argument(
        "--autostart", action=argparse.BooleanOptionalAction, default=None, help="start the tray app at login"
    )
    p = command("uninstall", cmd_uninstall, "remove memevo from the clients; keeps your memories")
    p.add_argument("--only", choices=CLIENTS, help="only this client")


def _interactive(args: argparse.Namespace) -> bool:
    return not (args.only or args.repair or args.no_input) and sys.stdin.isatty()


def cmd_setup(args: argparse.Namespace) -> int:
    from ..core.encoder.progress import TerminalBar

    choices = engine.Choices(autostart=args.autostart)
    if _interactive(args):
        asked = prompts.ask_choices(permission_question(installed()))
        asked.autostart = args.autostart
        choices = asked
    # the command Claude Code's line gives (no `claude` binary) is printed there only
    say = engine.once(print)
    result = engine.run(choices, only=args.only, repair=args.repair, progress=TerminalBar(), say=say)
    if (
        result.legacy_found
        and _interactive(args)
        and prompts.ask_yes("Import the Node tool's memories now?", True)
    ):
        run_handler(cmd_import_legacy, argparse.Namespace(json=False, move_key=False))
    if not result.ok:
        print(f"memevo setup: {result.reason}", file=sys.stderr)
        return 1
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    ask = (lambda question: prompts.ask_yes(question, False)) if sys.stdin.isatty() else None
    result = remover.run(only=args.only, ask=ask)
    if not result.ok:
        print("memevo uninstall: " + "; ".join(result.problems), file=sys.stderr)
        return 1
    return 0
