"""The command line a client runs for one of our hooks: absolute interpreter, absolute hook path,
`--home FOLDER` when the user moved the data folder (MEMEVO_HOME), then the client's name and
the event.

Which events a client registers, with which timeouts and in which file shape, is the client's
own (installer/clients/); this module only builds the command. Our entries are recognised by
the hook file name, memevo_hook.py.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

from ..core import paths

HOOK_FILE = "memevo_hook.py"
HOME_OPTION = "--home"  # hooks/relay.py reads it: `memevo_hook.py --home FOLDER CLIENT EVENT`
# `-P`: Python puts no working folder first on sys.path. Clients start our MCP server in the
# user's project (and login starts the tray app in HOME): with a plain `-m`, a `memevo/`
# package or `memevo.py` there would run instead of memevo. `-I` would also drop user
# site-packages and PYTHONPATH, where `pip install --user` puts memevo.
SAFE_PATH = "-P"


def interpreter() -> str:
    """The real interpreter, never a version-manager shim (a pyenv shim, a shell script, alone
    costs more than a whole hook: `hook_prompt_ms`)."""
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
    `memevo-hook` executable (faster to start than the full program)."""
    if getattr(sys, "frozen", False):
        return str(Path(sys.executable).with_name("memevo-hook.exe" if os.name == "nt" else "memevo-hook"))
    return interpreter()


def moved_home() -> str | None:
    """The data folder every hook and MCP entry must name: this process's (MEMEVO_HOME), absolute,
    when the user moved it away from the default; None when it is the default folder, and the
    entries are then exactly those of an install that never moved it.

    Clients start hooks and MCP servers with their own environment, which rarely holds
    MEMEVO_HOME (a desktop app started from the dock never does): an entry that does not name
    the folder would use the default one, an empty store beside the user's memories. Absolute,
    because a client starts them in the user's project, not in the folder setup ran in."""
    folder = os.path.abspath(paths.data_dir())
    default = os.path.abspath(Path.home() / paths.DEFAULT_DIRNAME)
    return None if os.path.normcase(folder) == os.path.normcase(default) else folder


def command(client: str, event: str) -> str:
    """The whole command line goes in `command`: some clients drop `args`."""
    home = moved_home()
    option = f" {HOME_OPTION} {_shell_quoted(home)}" if home else ""
    return f'"{hook_runner()}" -I -S "{hook_script()}"{option} {client} {event}'


def powershell_command(client: str, event: str) -> str:
    """The same command for a client that runs each hook inside PowerShell
    (`… & { $input | <command> }`): there a line that starts with a quoted path is a string
    followed by stray words — a parse error, and no hook runs — so the call operator `&` starts it."""
    home = moved_home()
    option = f" {HOME_OPTION} {_powershell_quoted(home)}" if home else ""
    runner, script = _powershell_quoted(hook_runner()), _powershell_quoted(hook_script())
    return f"& {runner} -I -S {script}{option} {client} {event}"


def home_env() -> dict[str, str]:
    """What an MCP server entry carries in its `env`: the moved data folder, or nothing."""
    home = moved_home()
    return {paths.HOME_ENV: home} if home else {}


# What a POSIX shell's double quotes do not keep literal: " $ `, and a backslash before one of
# them, before another backslash (a UNC path's leading two) or a line break, or at the very end.
_NOT_LITERAL_IN_DOUBLE_QUOTES = re.compile(r'["$`]|\\([\\\n]|$)')


def _shell_quoted(folder: str) -> str:
    """The folder as one word of the shell a client runs its hooks in: a POSIX shell, and on
    Windows Git Bash (Claude Code, CodeBuddy, WorkBuddy; Cursor's PowerShell has its own
    command). In double quotes, like the paths beside it, when they keep it literal; otherwise
    in single quotes (shlex), inside which the shell expands nothing."""
    if _NOT_LITERAL_IN_DOUBLE_QUOTES.search(folder):
        return shlex.quote(folder)
    return f'"{folder}"'


def _powershell_quoted(path: str | Path) -> str:
    """A double-quoted PowerShell string: its escape character ` and $ (a variable) escaped."""
    return '"' + str(path).replace("`", "``").replace("$", "`$") + '"'
