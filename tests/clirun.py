"""The `memevo` command line run inside the test's own process: `main([...])` with its output
captured, the environment, working folder and umask put back afterwards.

A fresh interpreter per command costs a third of a second or more of start-up and imports; where the
process boundary is not the subject (what a command prints, what it stores, its exit code), the
tests run it here. What only a real process shows (its interpreter's start: PYTHON* and locale
variables; a signal; a closed pipe; a command that stays up) goes through `in_a_process`, and
tests/test_cli_processes.py keeps one real-process run of every command group.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

from deadlines import HANG_S

# Environment read when an interpreter starts, not while it runs: setting it in-process would
# test nothing, so a command given one of these runs in a real process.
INTERPRETER_ENV = ("PYTHON", "LANG", "LC_", "LANGUAGE")
# Commands that stay up (a service, the tray, an MCP server): never inside the test's process.
RESIDENT = {"serve", "tray", "mcp"}


def in_a_process(
    *args: str, env: dict[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """The installed command as a user runs it, in its own interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "memevo.cli", *args],
        capture_output=True,
        text=True,
        env=os.environ | (env or {}),
        timeout=HANG_S,
        **kwargs,
    )


def needs_a_process(args: tuple[str, ...], env: dict[str, str] | None, kwargs: dict[str, Any]) -> bool:
    if set(kwargs) - {"input", "cwd"}:
        return True
    if args and args[0] in RESIDENT:
        return True
    return any(key.startswith(INTERPRETER_ENV) for key in env or {})


def in_process(
    *args: str, env: dict[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """`memevo ARGS` through `main()` in this process; the same CompletedProcess a real run gives."""
    if needs_a_process(args, env, kwargs):
        return in_a_process(*args, env=env, **kwargs)
    from memevo.cli.main import main

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_umask = os.umask(0o077)
    os.umask(saved_umask)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    # kept in locals: a wrapper that is collected closes its buffer
    streams = (
        io.TextIOWrapper(io.BytesIO((kwargs.get("input") or "").encode()), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", write_through=True),
    )
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        os.environ.update(env or {})
        if kwargs.get("cwd") is not None:
            os.chdir(Path(kwargs["cwd"]))
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse, --version, and a handler that exits
            if isinstance(exit_.code, str):
                print(exit_.code, file=sys.stderr)
            code = 1 if isinstance(exit_.code, str) else (exit_.code or 0)
        except Exception:  # what the interpreter would print before exiting 1
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.umask(saved_umask)
        os.environ.clear()
        os.environ.update(saved_env)
    result = subprocess.CompletedProcess(
        ["memevo", *args], int(code), out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8")
    )
    for stream in streams:
        stream.detach()
    return result
