"""The side API key: in the OS keyring, or MEMEVO_SIDE_API_KEY where no keyring works.

Never in config.json, logs, errors or anything the MCP tools return. memevo never writes it
to a plain file: on a headless Linux without a Secret Service it says so and takes the key
from the environment instead. (keyrings.alt, which would write it in plain text, is not used.)
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

SERVICE = "memory-self-evolution"
USER = "sideApiKey"
ENV = "MEMEVO_SIDE_API_KEY"
log = logging.getLogger("memevo.secrets")


class KeyringUnavailable(Exception):
    pass


@dataclass(frozen=True)
class KeyStatus:
    present: bool
    source: str | None  # "environment" | "keyring" | None
    keyring_backend: str | None
    keyring_problem: str | None


def _keyring() -> Any:
    import keyring
    from keyring.backends import fail

    backend = keyring.get_keyring()
    if isinstance(backend, fail.Keyring) or "fail" in type(backend).__module__:
        raise KeyringUnavailable(
            "no OS keyring is available (on Linux: a Secret Service such as gnome-keyring); "
            f"set the key in the environment variable {ENV} instead"
        )
    return keyring


def get_api_key(quiet: bool = False) -> str | None:
    """quiet: for bookkeeping in a command (the fallback texts), where a missing keyring is not
    the user's question and must not print a warning on their terminal."""
    from_env = os.environ.get(ENV, "").strip()
    if from_env:
        return from_env
    try:
        value = _keyring().get_password(SERVICE, USER)
    except Exception as exc:  # locked keyring, dbus down: learning stays off, with a reason logged
        if not quiet:
            log.warning("keyring unavailable: %s", exc)
        return None
    return value or None


def keyring_api_key() -> str | None:
    """What the keyring itself holds (the environment variable not consulted)."""
    try:
        value = _keyring().get_password(SERVICE, USER)
    except Exception:
        return None
    return value or None


def has_api_key(quiet: bool = False) -> bool:
    return get_api_key(quiet) is not None


def set_api_key(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("the key is empty")
    _keyring().set_password(SERVICE, USER, value)
    return type(_keyring().get_keyring()).__name__


def clear_api_key() -> bool:
    try:
        keyring = _keyring()
        if keyring.get_password(SERVICE, USER) is None:
            return False
        keyring.delete_password(SERVICE, USER)
        return True
    except KeyringUnavailable:
        return False


def status() -> KeyStatus:
    backend = problem = None
    in_keyring = False
    try:
        keyring = _keyring()
        backend = type(keyring.get_keyring()).__name__
        in_keyring = keyring.get_password(SERVICE, USER) is not None
    except Exception as exc:
        problem = str(exc)
    if os.environ.get(ENV, "").strip():
        return KeyStatus(True, "environment", backend, problem)
    return KeyStatus(in_keyring, "keyring" if in_keyring else None, backend, problem)
