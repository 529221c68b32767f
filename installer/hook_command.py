"""The command line a client runs for one of our hooks: absolute interpreter, absolute hook path,
then the client's name and the event.

Which events a client registers, with which timeouts and in which file shape, is the client's
own (installer/clients/); this module only builds the command. Our entries are recognised by
the hook file name, memevo_hook.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HOOK_FILE = "memevo_hook.py"
# `-P`: Python puts no working folder first on sys.path. Clients start our MCP server in the
# user's project (and login starts the tray app in HOME): with a plain `-m`, a `memevo/`
# package or `memevo.py` there would run instead of memevo. `-I` would also drop user
# site-packages and PYTHONPATH, where `pip install --user` puts memevo.
SAFE_PATH = "-P"


def interpreter() -> str:
    """The real interpreter, never a version-manager shim (a pyenv shim alone costs ~115 ms)."""
    path = sys.executable
    if any(part in path for part in ("/shims/", "\\shims\\")):
        path = os.path.realpath(path)
    return path


def module_command(module: str, *args: str) -> list[str]:
    """`<interpreter> -P -m <module> <args…>`: how memevo registers its own modules to run."""
    return [interpreter(), SAFE_PATH, "-m", module, *args]


def hook_script() -> Path:
    from .. import hooks

    return Path(hooks.__file__).resolve().parent / HOOK_FILE


def hook_runner() -> str:
    """What runs a hook: the real interpreter, or in the packaged program its small
    `memevo-hook` executable (about 55 ms faster than the full program)."""
    if getattr(sys, "frozen", False):
        return str(Path(sys.executable).with_name("memevo-hook.exe" if os.name == "nt" else "memevo-hook"))
    return interpreter()


def command(client: str, event: str) -> str:
    """The whole command line goes in `command`: some clients drop `args`."""
    return f'"{hook_runner()}" -I -S "{hook_script()}" {client} {event}'


def powershell_command(client: str, event: str) -> str:
    """The same command for a client that runs each hook inside PowerShell
    (`… & { $input | <command> }`): there a line that starts with a quoted path is a string
    followed by stray words — a parse error, and no hook runs — so the call operator `&` starts it."""
    return f"& {_powershell_quoted(hook_runner())} -I -S {_powershell_quoted(hook_script())} {client} {event}"


def _powershell_quoted(path: str | Path) -> str:
    """A double-quoted PowerShell string: its escape character ` and $ (a variable) escaped."""
    return '"' + str(path).replace("`", "``").replace("$", "`$") + '"'
