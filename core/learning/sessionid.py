"""sessionIDs: HMAC-SHA256 with a local 256-bit key over client, session key, per-prompt id,
SHA256(prompt) and a version. A retried hook gets the same id, so its analysis starts once.
The key (`session-secret`, mode 600) is created on first use and never leaves this machine."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from .. import paths

VERSION = "v1"
KEY_FILE = "session-secret"


def key_path() -> Path:
    return paths.data_dir() / KEY_FILE


def local_key() -> bytes:
    path = key_path()
    try:
        data = path.read_bytes()
        if len(data) == 32:
            return data
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    # Exclusive creation: two first uses at once agree on one key.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_bytes()
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


def session_id(client: str, session_key: str, prompt_id: str | None, prompt: str) -> str:
    """Raises ValueError when there is no stable session key: the side path fails closed."""
    if not session_key:
        raise ValueError("no stable session id in the hook payload")
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
    message = "\x1f".join([client, session_key, prompt_id or "", digest, VERSION]).encode("utf-8")
    return hmac.new(local_key(), message, hashlib.sha256).hexdigest()[:32]
