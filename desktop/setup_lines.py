"""The setup engine's lines in the UI language, for the wizard's log and anything else that
shows them. The engine (installer/) says plain English for `memevo setup` on a terminal and
never imports Qt; here each of its line shapes is matched and said again through tr(). Paths,
commands and client names inside a line stay as they are.

A line of a shape not listed here is shown as the engine said it: tests/test_chinese_ui.py
walks a real setup in Chinese and fails on any line left in English, so a new engine line
comes with its shape here."""

from __future__ import annotations

import re
from collections.abc import Callable

from .client_texts import summaries
from .i18n import tr

Say = Callable[[dict[str, str]], str]
_NAMES = r"(?P<name>Claude Code|Cursor|CodeBuddy|WorkBuddy)"


def _client_line(line: str) -> str | None:
    """What a client's registration step reported (installer/clients/*), or None."""
    for pattern, say in _client_shapes():
        found = pattern.fullmatch(line)
        if found:
            return say(found.groupdict())
    return None


def _where(where: str) -> str:
    """Python's JSON error ("line 1, column 2: Expecting …"): the place, in the UI language."""
    found = re.match(r"line (\d+), column (\d+)", where)
    return tr("line {line}, column {column}").format(line=found[1], column=found[2]) if found else where


def _what(what: str) -> str:
    names = {
        "hooks": tr("hooks"),
        "the MCP server": tr("the MCP server"),
        "the memory_resolve and memory_propose permissions": tr(
            "the permissions for memory_resolve and memory_propose"
        ),
    }
    return names.get(what, what)


def _client_shapes() -> list[tuple[re.Pattern[str], Say]]:
    return [
        (
            re.compile(
                r"(?P<what>hooks|the MCP server|the memory_resolve and memory_propose permissions): (?P<path>.+)"
            ),
            lambda g: tr("{what} written: {path}").format(what=_what(g["what"]), path=g["path"]),
        ),
        (
            re.compile(r"skill: (?P<path>\S+/)"),
            lambda g: tr("skill placed in {path}").format(path=g["path"]),
        ),
        (
            re.compile(
                r"MCP server: `claude` was not found \(PATH, the desktop app, MEMEVO_CLAUDE_BIN\); run:"
            ),
            lambda g: tr(
                "MCP server: no `claude` command was found (PATH, the desktop app, MEMEVO_CLAUDE_BIN); run:"
            ),
        ),
        (re.compile(r"  (?P<command>\S.*)"), lambda g: "  " + g["command"]),
        (
            re.compile(r"MCP server: claude mcp add --scope user \(in ~/\.claude\.json\)"),
            lambda g: tr("MCP server: registered with claude mcp add --scope user (in ~/.claude.json)"),
        ),
        (
            re.compile(r"skill: removed Cursor's own copy \(Cursor reads ~/\.claude/skills\)"),
            lambda g: tr("skill: removed Cursor's own copy (Cursor reads ~/.claude/skills)"),
        ),
        (
            re.compile(r"claude mcp add failed: (?P<reason>.*)"),
            lambda g: tr("claude mcp add failed: {reason}").format(reason=g["reason"]),
        ),
        (
            re.compile(
                r"(?P<path>\S+) is not valid JSON \((?P<where>.*)\); left untouched — fix it and run `memevo setup --repair`"
            ),
            lambda g: tr(
                "{path} is not valid JSON ({where}); left untouched. Fix it, then run `memevo setup --repair`."
            ).format(path=g["path"], where=_where(g["where"])),
        ),
        (
            re.compile(r"(?P<path>\S+) is read-only; left untouched — .*"),
            lambda g: tr(
                "{path} is read-only; left untouched. To let memevo register, make it writable, then run `memevo setup --repair`."
            ).format(path=g["path"]),
        ),
        (
            re.compile(r"already registered, nothing changed"),
            lambda g: tr("already registered, nothing changed"),
        ),
    ]


def _notes() -> dict[str, str]:
    """The clients' notes (installer/clients/*.py `notes`), word for word."""
    return {
        'To use only memevo\'s memory, add "autoMemoryEnabled": false to ~/.claude/settings.json.': tr(
            'To use only memevo\'s memory, add "autoMemoryEnabled": false to ~/.claude/settings.json.'
        ),
        "Interactive Claude Code runs user hooks only in folders you trusted (the workspace-trust dialog).": tr(
            "Interactive Claude Code runs user hooks only in folders you trusted (the workspace-trust dialog)."
        ),
        "The CodeBuddy CLI asks you to review changed hooks in its /hooks panel before they apply.": tr(
            "The CodeBuddy CLI asks you to review changed hooks in its /hooks panel before they apply."
        ),
    }


def _shapes() -> list[tuple[re.Pattern[str], Say]]:
    states = {english: said for english, said in zip(_english_summaries(), summaries().values(), strict=True)}
    return [
        (re.compile(r"Checking the embedding model…"), lambda g: tr("Checking the embedding model…")),
        (re.compile(r"The embedding model is ready\."), lambda g: tr("The embedding model is ready.")),
        (
            re.compile(r"Restart (?P<client>[^,]+) so it loads memevo's MCP server\."),
            lambda g: tr("Restart {client} so it loads memevo's MCP server.").format(client=g["client"]),
        ),
        (
            re.compile(r"Stopped before registering anything: (?P<reason>.*)"),
            lambda g: tr("Stopped before registering anything: {reason}").format(reason=g["reason"]),
        ),
        (
            re.compile(_NAMES + r": not installed \((?P<path>.+) is missing\); skipped"),
            lambda g: tr("{client}: not installed ({path} is missing); skipped").format(
                client=g["name"], path=g["path"]
            ),
        ),
        (
            re.compile(r"The side API key is in the OS keyring\."),
            lambda g: tr("The side API key is in the OS keyring."),
        ),
        (  # the wizard's own line when the user chose the file (desktop/wizard.py)
            re.compile(
                r"The side API key is in (?P<path>.+), a file only your account can read \(not encrypted\)\."
            ),
            lambda g: tr(
                "The side API key is in {path}, a file only your account can read (not encrypted)."
            ).format(path=g["path"]),
        ),
        (
            re.compile(r"The key was not saved: (?P<why>.*)\. Set it later with `memevo secret set`\."),
            lambda g: tr(
                "The key was not saved: {why}. Set it later in Settings or with `memevo secret set`."
            ).format(why=g["why"]),
        ),
        (re.compile(r"Start at login: off"), lambda g: tr("Start at login: off")),
        (
            re.compile(r"Start at login: updated (?P<path>.+)"),
            lambda g: tr("Start at login: updated {path}").format(path=g["path"]),
        ),
        (
            re.compile(r"Start at login: not changed — (?P<why>.+)"),
            lambda g: tr("Start at login: not changed — {why}").format(why=g["why"]),
        ),
        (
            re.compile(r"Start at login: (?P<path>.+)"),
            lambda g: tr("Start at login: {path}").format(path=g["path"]),
        ),
        (
            re.compile(r"Note \(" + _NAMES + r"\): (?P<note>.+)"),
            lambda g: tr("Note ({client}): {note}").format(
                client=g["name"], note=_notes().get(g["note"], g["note"])
            ),
        ),
        (
            re.compile(r"Backups of the changed client files: (?P<files>.+)"),
            lambda g: tr("Backups of the changed client files: {files}").format(files=g["files"]),
        ),
        (
            re.compile(
                r"The Node tool's memories are in the data dir: `memevo import-legacy` imports them\."
            ),
            lambda g: tr(
                "The Node tool's memories are in the data dir: `memevo import-legacy` imports them."
            ),
        ),
        (
            re.compile(r"Restart (?P<clients>.+) so they load memevo's MCP server\."),
            lambda g: tr("Restart {clients} so they load memevo's MCP server.").format(clients=g["clients"]),
        ),
        (
            re.compile(r"  run: (?P<command>.+)"),
            lambda g: tr("  run: {command}").format(command=g["command"]),
        ),
        (
            re.compile(
                _NAMES
                + r": (?P<state>"
                + "|".join(re.escape(s) for s in states)
                + r")(?P<stopped>; repairs stopped)?"
            ),
            lambda g: tr("{client}: {state}").format(
                client=g["name"],
                state=states[g["state"]] + (tr("; ") + tr("repairs stopped") if g["stopped"] else ""),
            ),
        ),
    ]


def _english_summaries() -> list[str]:
    from ..installer.client_state import SUMMARY

    return list(SUMMARY.values())


def translate(line: str) -> str:
    """The engine's line in the UI language (unchanged when its shape is not known)."""
    for pattern, say in _shapes():
        found = pattern.fullmatch(line)
        if found:
            return say(found.groupdict())
    client, sep, rest = line.partition(": ")
    if sep and client in ("Claude Code", "Cursor", "CodeBuddy", "WorkBuddy"):
        said = _client_line(rest)
        if said is not None:
            return tr("{client}: {state}").format(client=client, state=said)
    return line


def stage(text: str) -> str:
    """A loading or provisioning stage (core/encoder/provision.py, core/service/host.py,
    core/process/runtime.py) in the UI language; a percentage after it is kept."""
    found = re.fullmatch(r"(?P<text>.*?)(?P<percent> \d+%)?", text)
    body, percent = (found["text"], found["percent"] or "") if found else (text, "")
    shapes: list[tuple[str, Say]] = [
        (r"starting", lambda g: tr("starting")),
        (r"Checking the memory store", lambda g: tr("checking the memory store")),
        (
            r"Encoding memories that have no current vector",
            lambda g: tr("encoding memories that have no vector yet"),
        ),
        (r"Converting the offline model pack", lambda g: tr("converting the offline model pack")),
        (r"Building the model's ONNX graph \(once\)", lambda g: tr("building the model's ONNX graph (once)")),
        (r"Checking the model on known sentences", lambda g: tr("checking the model on known sentences")),
        (
            r"Checking the model on known sentences and building its ONNX graph",
            lambda g: tr("checking the model on known sentences and building its ONNX graph"),
        ),
        (
            r"Downloading (?P<model>\S+) from (?P<url>\S+)",
            lambda g: tr("downloading {model} from {url}").format(model=g["model"], url=g["url"]),
        ),
        (
            r"Fetching (?P<package>.+) from the Python package index",
            lambda g: tr("fetching {package} from the Python package index").format(package=g["package"]),
        ),
    ]
    for pattern, say in shapes:
        matched = re.fullmatch(pattern, body)
        if matched:
            return say(matched.groupdict()) + percent
    return text


def problem(text: str) -> str:
    """A reason core/ gives in English (the keyring's, most often) in the UI language, when its
    shape is known; otherwise as it is (an OS error's own words)."""
    no_keyring = re.fullmatch(
        r"no OS keyring is available \(on Linux: a Secret Service such as gnome-keyring\); "
        r"keep the key in a file only your account can read \(`memevo secret set --file`, not encrypted\) "
        r"or set the environment variable (?P<env>\w+)",
        text,
    )
    if no_keyring:  # in the panel the file is a tick box, not the command
        return tr(
            "this computer has no OS keyring (on Linux: a Secret Service such as gnome-keyring or KWallet); set one up, or tick “Keep the key in that file” to keep it in a file only your account can read (not encrypted), or set {env} where memevo starts (a tray app started at login does not see a terminal's variables)"
        ).format(env=no_keyring["env"])
    if text == "the keyring did not give the key back, so it is not saved there":  # NOT_READ_BACK
        return tr("the keyring did not give the key back, so it is not saved there")
    if text == "the keyring did not give the key back; the file is kept":
        return tr("the keyring did not give the key back; the file is kept")
    provision = re.fullmatch(r"the embedding model could not be provisioned: (?P<why>.*)", text)
    if provision:
        return tr("the embedding model could not be provisioned: {why}").format(why=provision["why"])
    if text == "the key is empty":
        return tr("the key is empty")
    if text == "the key has a line break or another character that cannot be in a key":
        return tr("the key has a line break or another character that cannot be in a key")
    gave_up = re.fullmatch(
        r"its file lost memevo's entries (?P<n>\d+) times within (?P<m>\d+) minutes; memevo stopped "
        r"repairing it until the tray app restarts \(Clients → Repair now to try again\)",
        text,
    )
    if gave_up:
        return tr(
            "its file lost memevo's entries {count} times within {minutes} minutes; memevo stopped repairing it until the tray app restarts (Clients → Repair now to try again)"
        ).format(count=gave_up["n"], minutes=gave_up["m"])
    whole = _client_line(text)
    if whole is not None:
        return whole
    parts = [_client_line(part) for part in text.split("; ")]  # a repair's problems, joined
    if parts and all(parts):
        return tr("; ").join(p for p in parts if p)
    return text


def config_reason(text: str) -> str:
    """Why core/config refused a value ("must be …"), or what it says of config.json, in the
    UI language; unknown shapes as they are."""
    fixed = {
        "must be true or false": tr("must be on or off"),
        "must be a positive whole number": tr("must be a positive whole number"),
        "must be a number from 0 to 1, or -1 to switch it off": tr(
            "must be a number from 0 to 1, or -1 to switch it off"
        ),
        "must be a number from 0 (off) to 2": tr("must be a number from 0 (off) to 2"),
        "must be a number of minutes, 0 or more (0: never)": tr(
            "must be a number of minutes, 0 or more (0: never)"
        ),
        "must be an http:// or https:// URL": tr("must be an http:// or https:// URL"),
        "must be a non-empty text": tr("must not be empty"),
        "must be a model id like intfloat/multilingual-e5-small, or an absolute folder": tr(
            "must be a model id like intfloat/multilingual-e5-small, or an absolute folder"
        ),
    }
    if text in fixed:
        return fixed[text]
    if found := re.fullmatch(r"must be a whole number from (\d+) to (\d+)", text):
        return tr("must be a whole number from {low} to {high}").format(low=found[1], high=found[2])
    if found := re.fullmatch(r"must be one of (.+)", text):
        return tr("must be one of {choices}").format(choices=found[1])
    if found := re.fullmatch(r"must be a sentence-transformers folder: (.+) has no modules\.json", text):
        return tr("must be a sentence-transformers folder: {folder} has no modules.json").format(
            folder=found[1]
        )
    if found := re.fullmatch(r"(\w+)=(.+?) (must .+); using default", text):
        return tr("{key}={value}: {reason}; the default is used").format(
            key=found[1], value=found[2], reason=config_reason(found[3])
        )
    if found := re.fullmatch(r"(.+) is not valid JSON \(line (\d+), column (\d+)\); using defaults", text):
        return tr("{path} is not valid JSON (line {line}, column {column}); the defaults are used").format(
            path=found[1], line=found[2], column=found[3]
        )
    return text
