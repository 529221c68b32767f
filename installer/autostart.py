"""Start the tray app at login: one small file per platform, and nothing else.

- Linux (and other XDG desktops): an XDG autostart Desktop Entry,
  ``$XDG_CONFIG_HOME/autostart/memevo.desktop`` (``~/.config`` when the variable is unset or
  not absolute, as the XDG Base Directory spec says).
- macOS: a LaunchAgent, ``~/Library/LaunchAgents/dev.memevo.tray.plist``. launchd reads the
  folder at the next login; to load it in the current session without logging out, run
  ``launchctl bootstrap gui/$UID ~/Library/LaunchAgents/dev.memevo.tray.plist`` (and
  ``launchctl bootout gui/$UID/dev.memevo.tray`` to unload). This module only writes and
  removes the file; it never calls launchctl.
- Windows: ``%APPDATA%\\Microsoft\\Windows\\Start Menu\\Programs\\Startup\\memevo.cmd``, which
  starts ``pythonw.exe`` (no console window) when it sits next to ``python.exe``.

Every entry carries a marker (``X-Memevo-Owned=true``, the plist key ``MemevoOwned``, the
line ``rem memevo-owned``): a file with the same name but without it was made by someone else
and is never overwritten or removed (``AutostartNotOurs``).

All paths come from ``HOME`` and the environment at call time, and every platform's path and
content can be computed on any platform (pure path logic), so all three are tested on Linux.
"""

from __future__ import annotations

import os
import plistlib
import re
import sys
from pathlib import Path
from typing import Any, Literal

from ..core import atomic
from . import hook_command

Platform = Literal["linux", "darwin", "win32"]
PLATFORMS: tuple[Platform, ...] = ("linux", "darwin", "win32")

LABEL = "dev.memevo.tray"
DESKTOP_MARKER_KEY = "X-Memevo-Owned"
PLIST_MARKER_KEY = "MemevoOwned"
CMD_MARKER = "rem memevo-owned"
FILE_MODE = 0o644

COMMENT_EN = "Start memevo, long-term memory for AI coding clients, at login"
COMMENT_ZH = "登录时启动 memevo（AI 编程助手的长期记忆）"


class AutostartNotOurs(Exception):
    """A login entry with our file name exists but memevo did not write it; it is left alone."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(
            f"{path} exists but was not written by memevo (it has no memevo marker); "
            "it was left untouched. Remove or rename it yourself if memevo should manage it."
        )


# ---------------------------------------------------------------------------- public API


def launch_command() -> list[str]:
    """The command that starts the tray app, with an absolute real interpreter."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "tray"]
    return hook_command.module_command("memevo.cli", "tray")


def carried_env() -> dict[str, str]:
    """What the login start must carry from this environment: a moved data folder
    (MEMEVO_HOME). Without it the tray app started at login would open the default folder —
    an empty store — while the user's memories sit in the one they chose. The same folder,
    made absolute, that the hooks and MCP entries name (hook_command.moved_home); nothing when
    MEMEVO_HOME names the default folder."""
    return hook_command.home_env()


def entry_path(platform: str | None = None) -> Path:
    plat = _platform(platform)
    if plat == "linux":
        return _xdg_config_home() / "autostart" / "memevo.desktop"
    if plat == "darwin":
        return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"
    appdata = os.environ.get("APPDATA")
    base = Path(appdata) if appdata else Path.home() / "AppData" / "Roaming"
    return base / "Microsoft" / "Windows" / "Start Menu" / "Programs" / "Startup" / "memevo.cmd"


def enable(platform: str | None = None, *, force: bool = False) -> Path:
    """Write the login entry atomically (mode 0644); the same call writes the same bytes.

    A file of the same name that memevo did not write raises ``AutostartNotOurs`` unless
    ``force`` is set.
    """
    plat = _platform(platform)
    path = entry_path(plat)
    if not force and path.exists() and not _read(plat, path)["ours"]:
        raise AutostartNotOurs(path)
    atomic.write_bytes(path, render(plat), mode=FILE_MODE)
    return path


def disable(platform: str | None = None) -> bool:
    """Remove our login entry: True if removed, False if there was none.

    A file of the same name without our marker raises ``AutostartNotOurs`` and stays.
    """
    plat = _platform(platform)
    path = entry_path(plat)
    if not path.exists() and not path.is_symlink():
        return False
    if not _read(plat, path)["ours"]:
        raise AutostartNotOurs(path)
    path.unlink()
    return True


def status(platform: str | None = None) -> dict[str, Any]:
    """{"enabled", "path", "ours", "stale"}.

    enabled: the file exists and is not switched off inside (Linux ``Hidden=true`` or
    ``X-GNOME-Autostart-enabled=false``, macOS ``Disabled``). ours: it carries our marker.
    stale: ours, but its command is not the one ``enable`` would write now (for instance the
    interpreter moved), so a repair should rewrite it.
    """
    plat = _platform(platform)
    path = entry_path(plat)
    info: dict[str, Any] = {"enabled": False, "ours": False, "command": None}
    if path.is_file():
        info = _read(plat, path)
    ours = bool(info["ours"])
    wanted_env = {} if plat == "linux" else carried_env()  # Linux carries it in the command
    stale = ours and (info["command"] != _command(plat) or info.get("env", {}) != wanted_env)
    return {"enabled": bool(info["enabled"]), "path": str(path), "ours": ours, "stale": stale}


def render(platform: str | None = None) -> bytes:
    """The exact bytes ``enable`` writes for the platform."""
    plat = _platform(platform)
    if plat == "linux":
        return _render_desktop(_command(plat))
    if plat == "darwin":
        return _render_plist(_command(plat), carried_env())
    return _render_cmd(_command(plat), carried_env())


# ---------------------------------------------------------------------------- helpers


def _platform(platform: str | None) -> Platform:
    if platform is None:
        if sys.platform == "darwin":
            return "darwin"
        if sys.platform == "win32":
            return "win32"
        return "linux"  # Linux and the BSDs follow the XDG autostart spec
    for name in PLATFORMS:
        if platform == name:
            return name
    raise ValueError(f"unknown platform {platform!r}; expected one of {', '.join(PLATFORMS)}")


def _xdg_config_home() -> Path:
    value = os.environ.get("XDG_CONFIG_HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / ".config"


def _command(plat: Platform) -> list[str]:
    """launch_command(), with pythonw for Windows' windowless start."""
    command = launch_command()
    if plat == "win32" and not getattr(sys, "frozen", False):
        command[0] = _windowless(command[0])
    if plat == "linux" and carried_env():  # `env NAME=value command…`: what an Exec line allows
        command = ["env", *(f"{k}={v}" for k, v in carried_env().items()), *command]
    return command


def _windowless(interpreter: str) -> str:
    """pythonw.exe (or pythonw3.11.exe …) next to python.exe when it exists, else unchanged."""
    cut = max(interpreter.rfind("/"), interpreter.rfind("\\")) + 1
    folder, name = interpreter[:cut], interpreter[cut:]
    match = re.fullmatch(r"(python)([0-9.]*\.exe)", name, flags=re.IGNORECASE)
    if match is None:
        return interpreter
    candidate = f"{folder}{match.group(1)}w{match.group(2)}"
    return candidate if os.path.isfile(candidate) else interpreter


def _read(plat: Platform, path: Path) -> dict[str, Any]:
    """What an existing entry says: {"ours", "enabled", "command" (None if unreadable)}."""
    try:
        data = path.read_bytes()
    except OSError:
        return {"ours": False, "enabled": False, "command": None}
    if plat == "linux":
        return _read_desktop(data)
    if plat == "darwin":
        return _read_plist(data)
    return _read_cmd(data)


# ------------------------------------------------------------------ Linux: Desktop Entry

# Characters that force an Exec argument into double quotes (Desktop Entry spec, "The Exec key").
_EXEC_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
# Inside double quotes these four are escaped with a backslash.
_EXEC_QUOTED_ESCAPES = set('"`$\\')
_STRING_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_STRING_UNESCAPES = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def exec_value(command: list[str]) -> str:
    """The Exec= value for an argv: quoting rules first, then the general string escapes.

    A literal backslash inside a quoted argument therefore ends up as four backslashes, and
    ``%`` as ``%%`` (field codes), exactly as the spec requires.
    """
    return "".join(_STRING_ESCAPES.get(ch, ch) for ch in " ".join(_exec_arg(a) for a in command))


def _exec_arg(arg: str) -> str:
    arg = arg.replace("%", "%%")
    if arg and not any(ch in _EXEC_RESERVED for ch in arg):
        return arg
    return '"' + "".join("\\" + ch if ch in _EXEC_QUOTED_ESCAPES else ch for ch in arg) + '"'


def parse_exec(value: str) -> list[str]:
    """The argv an Exec= value stands for (the inverse of ``exec_value``).

    Raises ValueError on an unterminated quote or a field code, which ``exec_value`` never
    writes.
    """
    text = _unescape_string(value)
    args: list[str] = []
    current: list[str] = []
    in_arg = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            in_arg = True
            i += 1
            while True:
                if i >= len(text):
                    raise ValueError(f"unterminated quote in Exec value {value!r}")
                ch = text[i]
                if ch == '"':
                    break
                if ch == "\\" and i + 1 < len(text) and text[i + 1] in _EXEC_QUOTED_ESCAPES:
                    i += 1
                    ch = text[i]
                current.append(ch)
                i += 1
        elif ch in " \t\n":
            if in_arg:
                args.append("".join(current))
                current, in_arg = [], False
        else:
            in_arg = True
            current.append(ch)
        i += 1
    if in_arg:
        args.append("".join(current))
    return [_unescape_percent(arg, value) for arg in args]


def _unescape_percent(arg: str, value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(arg):
        if arg[i] == "%":
            if arg[i + 1 : i + 2] != "%":
                raise ValueError(f"field code in Exec value {value!r}")
            i += 1
        out.append(arg[i])
        i += 1
    return "".join(out)


def _unescape_string(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value) and value[i + 1] in _STRING_UNESCAPES:
            i += 1
            ch = _STRING_UNESCAPES[value[i]]
        out.append(ch)
        i += 1
    return "".join(out)


def _render_desktop(command: list[str]) -> bytes:
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        "Name=memevo",
        f"Comment={COMMENT_EN}",
        f"Comment[zh_CN]={COMMENT_ZH}",
        f"Exec={exec_value(command)}",
        "Icon=memevo",
        "Terminal=false",
        "NoDisplay=false",
        "X-GNOME-Autostart-enabled=true",
        f"{DESKTOP_MARKER_KEY}=true",
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _desktop_group(text: str) -> dict[str, str]:
    """The keys of the [Desktop Entry] group (first value wins, as desktop parsers do)."""
    keys: dict[str, str] = {}
    group = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1]
            continue
        if group == "Desktop Entry" and "=" in line:
            key, _, val = line.partition("=")
            keys.setdefault(key.strip(), val.strip())
    return keys


def _read_desktop(data: bytes) -> dict[str, Any]:
    keys = _desktop_group(data.decode("utf-8", errors="replace"))
    command: list[str] | None
    try:
        command = parse_exec(keys["Exec"]) if "Exec" in keys else None
    except ValueError:
        command = None
    switched_off = keys.get("Hidden") == "true" or keys.get("X-GNOME-Autostart-enabled") == "false"
    return {
        "ours": keys.get(DESKTOP_MARKER_KEY) == "true",
        "enabled": not switched_off,
        "command": command,
    }


# ------------------------------------------------------------------ macOS: LaunchAgent


def _render_plist(command: list[str], env: dict[str, str] | None = None) -> bytes:
    agent: dict[str, Any] = {
        "Label": LABEL,
        "ProgramArguments": command,
        "RunAtLoad": True,
        "KeepAlive": False,
        "ProcessType": "Interactive",
        PLIST_MARKER_KEY: True,
    }
    if env:
        agent["EnvironmentVariables"] = dict(env)
    return plistlib.dumps(agent, fmt=plistlib.FMT_XML, sort_keys=True)


def _read_plist(data: bytes) -> dict[str, Any]:
    try:
        agent = plistlib.loads(data)
    except Exception:  # plistlib raises several types on a damaged file
        return {"ours": False, "enabled": False, "command": None}
    if not isinstance(agent, dict):
        return {"ours": False, "enabled": False, "command": None}
    args = agent.get("ProgramArguments")
    command = list(args) if isinstance(args, list) and all(isinstance(a, str) for a in args) else None
    env = agent.get("EnvironmentVariables")
    return {
        "ours": agent.get(PLIST_MARKER_KEY) is True,
        "enabled": agent.get("Disabled") is not True,
        "command": command,
        "env": dict(env) if isinstance(env, dict) else {},
    }


# ------------------------------------------------------------------ Windows: Startup folder

_CMD_START = 'start ""'


def _cmd_arg(arg: str, always: bool = False) -> str:
    arg = arg.replace("%", "%%")  # a batch file expands %NAME%
    if always or not arg or any(ch in ' \t&|<>^(),;=%"' for ch in arg):
        return f'"{arg}"'
    return arg


def _render_cmd(command: list[str], env: dict[str, str] | None = None) -> bytes:
    start = " ".join([_CMD_START, _cmd_arg(command[0], always=True), *(_cmd_arg(a) for a in command[1:])])
    lines = ["@echo off", CMD_MARKER]
    # a moved data folder (carried_env): set for the program `start` runs
    settings = [f'set "{name}={value.replace("%", "%%")}"' for name, value in (env or {}).items()]
    if not start.isascii() or not "".join(settings).isascii():
        # cmd.exe reads a batch file in the console code page; switch to UTF-8 before the
        # lines that need it (e.g. an interpreter under C:\Users\张三\).
        lines.append("chcp 65001 >nul")
    lines += settings
    lines.append(start)
    return ("\r\n".join(lines) + "\r\n").encode("utf-8")


def _split_cmd(text: str) -> list[str]:
    args: list[str] = []
    for quoted, bare in re.findall(r'"([^"]*)"|(\S+)', text):
        args.append((quoted if quoted or not bare else bare).replace("%%", "%"))
    return args


def _read_cmd(data: bytes) -> dict[str, Any]:
    lines = [line.strip() for line in data.decode("utf-8", errors="replace").splitlines()]
    command = None
    env: dict[str, str] = {}
    for line in lines:
        if line.lower().startswith('set "') and line.endswith('"') and "=" in line:
            name, _, value = line[5:-1].partition("=")
            env[name] = value.replace("%%", "%")
        if line.lower().startswith(_CMD_START.lower() + " "):
            command = _split_cmd(line[len(_CMD_START) :])
            break
    return {
        "ours": any(line.lower() == CMD_MARKER for line in lines),
        "enabled": True,
        "command": command,
        "env": env,
    }
