"""The side API key lives in the OS keyring, never in a file memevo writes."""

from __future__ import annotations

import logging

SERVICE = "memory-self-evolution"
USER = "sideApiKey"
log = logging.getLogger("memevo.secrets")


def get_api_key() -> str | None:
    try:
        import keyring

        value = keyring.get_password(SERVICE, USER)
    except Exception as exc:  # no backend, locked keyring, dbus down: learning stays off
        log.warning("keyring unavailable: %s", exc)
        return None
    return value or None


def has_api_key() -> bool:
    return get_api_key() is not None
