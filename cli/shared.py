"""What the command modules share: calling an operation, running a command with the command
line's error handling, printing for a person or as JSON, and doing model work here or in the
running service. Imports stay lazy so model-free commands answer fast."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core import envvars
from ..core.errors import InvalidInput, MemevoError
from ..core.printable import printable

if TYPE_CHECKING:
    import argparse  # annotations only: `memevo serve` and `memevo tray` run without argparse

Handler = Callable[["argparse.Namespace"], int]


# -- calling operations and running commands -----------------------------------------------------
class AlreadyApplied(Exception):
    """A retried write the service had applied before it died, without keeping its result."""


def call(name: str, **params: Any) -> dict[str, Any]:
    from ..core.service.client import call_or_local

    result = call_or_local(name, params)
    if result.get("already_applied"):
        raise AlreadyApplied(str(result.get("note")))
    return result


def run_handler(handler: Handler, args: argparse.Namespace) -> int:
    """One command, its errors said in one line: the exit code `memevo` returns."""
    from ..core import paths

    problem = paths.data_dir_problem()
    if problem is not None:  # said before any command reads "no memories" or fails half-way
        print(f"memevo: {problem}; nothing was read or written", file=sys.stderr)
        return InvalidInput.exit_code
    try:
        return int(handler(args))
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
        from ..core import paths
        from ..core.store.damage import damage_in

        where = log_traceback()
        damage = damage_in(exc, paths.store_path())
        if damage is not None:  # a damaged block met in the middle of a command
            print(f"memevo: {damage}", file=sys.stderr)
            return damage.exit_code
        print(f"memevo: internal error: {exc} (details in {where})", file=sys.stderr)
        return 1


def log_traceback() -> str:
    import traceback

    from ..core import paths

    try:
        log = paths.log_dir() / "cli.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        from ..core.privacy.redaction import redact_secrets

        with log.open("a", encoding="utf-8") as handle:
            handle.write(redact_secrets(traceback.format_exc()) + "\n")
        return str(log)
    except OSError:
        return "stderr"


# -- printing ----------------------------------------------------------------------------------------
def emit_json(data: dict[str, Any]) -> int:
    print(json.dumps(data, ensure_ascii=False, indent=2))
    return 0


def reply(args: argparse.Namespace, result: dict[str, Any], say: Callable[[dict[str, Any]], None]) -> int:
    """An operation's answer: one JSON object with `--json`, else what `say` prints for a person."""
    if args.json:
        return emit_json(result)
    say(result)
    return 0


def points(value: float) -> str:
    from ..core.memories.confidence import as_decimal_text, to_hundredths

    return as_decimal_text(to_hundredths(value))


def memory_line(memory: dict[str, Any]) -> str:
    flag = ("  [pinned]" if memory.get("pinned") else "") + ("  [deprecated]" if memory["deprecated"] else "")
    if memory.get("scope", "global") != "global":
        flag += f"  [{shown(memory['scope'])}]"
    if memory.get("stale"):  # its repository no longer has what it names: update or delete it
        flag += f"  [stale: {shown(memory['stale'])}]"
    return f"{memory['id']}  {points(memory['confidence']):>4}  {shown(memory['text'])}{flag}"


def shown(text: Any) -> str:
    """Text for a terminal: anything non-printable (ESC sequences, bidi overrides, NUL, a
    newline inside a one-line listing) is written as an escape instead of acting on the screen."""
    return printable(text)


def plain(value: Any) -> str:
    """A value as a person reads it: yes/no, "rule 0.44, project 0.5", not Python's repr."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "—"
    if isinstance(value, dict):
        return ", ".join(f"{k} {plain(v)}" for k, v in value.items())
    return str(value)


# -- model work: here, or in the service that holds the store ----------------------------------------
def progress() -> Any:
    from ..core.encoder.progress import TerminalBar

    return TerminalBar()


def with_engine(work: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    from ..core.process.runtime import open_engine
    from ..core.store.database import Store

    with Store.open() as store:
        return work(open_engine(store, progress()))


def service_holds_store() -> bool:
    """A running (or starting) service owns the store and the loaded model: model work goes
    through it instead of refusing with "the store is in use"."""
    from ..core.service.spawn import lock_held

    return not envvars.NO_SERVICE.is_set_to("1") and lock_held()


def through_service(op: str, params: dict[str, Any]) -> dict[str, Any]:
    from ..core.service.client import call_service

    print(f"memevo: {op.replace('_', '-')} runs in the memevo service (it holds the store)…", file=sys.stderr)
    return call_service(op, params, timeout_s=3600)


def counted(count: int, one: str, many: str) -> str:
    """`1 cluster`, `2 clusters`: a count with the word it counts."""
    return f"{count} {one if count == 1 else many}"
