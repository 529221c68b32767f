"""The side API key: MEMEVO_SIDE_API_KEY, else the OS keyring, else — only where the user chose
it — a file only their account can read.

Never in config.json, logs, errors or anything the MCP tools return. The file
(`secrets/side-api-key` in the data dir, mode 600 in a 700 folder, written atomically) is the
fallback for a machine with no working keyring, as gh and docker keep a token when none
exists: a tray app started at login has no shell environment, so MEMEVO_SIDE_API_KEY alone
could not reach it. The file is not encrypted, and memevo says so wherever it offers it. It is
written only when asked for (`memevo secret set --file`, or the choice in Settings and the
wizard), never as a silent fallback; nothing that copies the store (daily backups, repair's
copies, memories.html) reads the data dir's other files, so it is in no backup. A keyring
that appears later changes nothing: the file is read until the user moves the key
(`memevo secret move-to-keyring`) or clears it. (keyrings.alt, which would write the key in
plain text without asking, is not used.)
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import atomic, paths
from .. import messages as msg
from ..messages import Message

SERVICE = "memory-self-evolution"
USER = "sideApiKey"
ENV = "MEMEVO_SIDE_API_KEY"
FILE_DIR = "secrets"
FILE_NAME = "side-api-key"
# The reason said wherever a key cannot go to the keyring (desktop/core_texts.problem words it
# for the panel, where the file is a tick box rather than this command).
NO_KEYRING = Message(msg.NO_KEYRING, env=ENV)
# A keyring that took the key but does not give it back (a null keyring, a collection that
# drops the write): the key is not saved, and saying "in the OS keyring" would lose it.
NOT_READ_BACK = Message(msg.NOT_READ_BACK)
# The keyring asked the user (to create its first collection, or to unlock it) and the prompt
# was closed: nothing is saved, and saving again asks again.
PROMPT_DISMISSED = Message(msg.PROMPT_DISMISSED)
_FILE_MAX = 4096  # an API key is far shorter; a larger file is not read whole
log = logging.getLogger("memevo.secrets")


class KeyringUnavailable(Exception):
    pass


@dataclass(frozen=True)
class KeyStatus:
    present: bool
    source: str | None  # "environment" | "keyring" | "file" | None
    keyring_backend: str | None
    keyring_problem: str | None
    file: str | None = None  # the key file's path while it exists (whichever source is used)


def file_path() -> Path:
    """Where the key is kept when the user chose a file (no keyring on this machine)."""
    return paths.data_dir() / FILE_DIR / FILE_NAME


def _keyring() -> Any:
    import keyring
    from keyring.backends import fail, null

    backend = keyring.get_keyring()
    # The null keyring (`keyring --disable`, or PYTHON_KEYRING_BACKEND) accepts every key and
    # keeps none: for memevo it is no keyring at all.
    if isinstance(backend, (fail.Keyring, null.Keyring)) or "fail" in type(backend).__module__:
        raise KeyringUnavailable(NO_KEYRING)
    return keyring


def _would_prompt() -> bool:
    """Whether reading the Secret Service would ask the user: its default collection does not
    exist yet (a read would create it, behind a "choose a password" prompt) or is locked (a read
    unlocks it, behind a password prompt). Reads then find nothing instead: no keyring prompt
    comes before the user saves a key. Other keyrings never prompt on a read."""
    import keyring

    backend = keyring.get_keyring()
    if "SecretService" not in type(backend).__module__ or hasattr(backend, "preferred_collection"):
        return False
    try:
        import secretstorage
        from secretstorage.exceptions import ItemNotFoundException, SecretStorageException
    except ImportError:
        return False
    try:
        connection = secretstorage.dbus_init()
    except Exception:  # no session bus: the backend's own read says so, without a prompt
        return False
    try:
        return bool(secretstorage.Collection(connection).is_locked())
    except ItemNotFoundException:
        return True
    except (SecretStorageException, Exception):
        return False
    finally:
        with contextlib.suppress(Exception):
            connection.close()


def _read() -> str | None:
    """The keyring's entry, never asking the user for anything (see _would_prompt)."""
    keyring = _keyring()
    if _would_prompt():
        return None
    value = keyring.get_password(SERVICE, USER)
    return str(value) if value else None


def _dismissed(exc: Exception) -> bool:
    words = str(exc).lower()
    return "dismissed" in words or "failed to unlock" in words


def get_api_key(quiet: bool = False) -> str | None:
    """The environment, the keyring, then the file. quiet: for bookkeeping in a command (the
    fallback texts), where a missing keyring is not the user's question and must not print a
    warning on their terminal."""
    from_env = os.environ.get(ENV, "").strip()
    if from_env:
        return from_env
    try:
        value = _read()
    except KeyringUnavailable:
        value = None
    except Exception as exc:  # locked keyring, dbus down: the file if there is one, else learning stays off
        if not quiet:
            log.warning("keyring unavailable: %s", exc)
        value = None
    return value or file_api_key()


def keyring_api_key() -> str | None:
    """What the keyring itself holds (the environment variable and the file not consulted)."""
    try:
        return _read()
    except Exception:
        return None


def file_api_key() -> str | None:
    """What the key file holds, or None. Read without following a link, at most _FILE_MAX bytes;
    a file others could read is made user-only again (it was ours to begin with)."""
    try:
        fd = os.open(file_path(), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_mode & 0o077:
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o600)
        data = os.read(fd, _FILE_MAX)
    except OSError:
        return None
    finally:
        os.close(fd)
    value = data.decode("utf-8", errors="replace").strip()
    return value or None


def has_api_key(quiet: bool = False) -> bool:
    return get_api_key(quiet) is not None


def _clean(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError(Message(msg.KEY_EMPTY))
    if any(not c.isprintable() for c in value):
        raise ValueError(Message(msg.KEY_BAD_CHARACTER))
    return value


def set_api_key(value: str, to_file: bool = False) -> str:
    """Store the key; returns where, in words ("keyring (SecretService Keyring)", or the file's
    path). In the keyring: the key must come back from it, else KeyringUnavailable (a keyring
    that accepts a write and keeps nothing must not be reported as holding the key); a key
    file left from before goes once it did (it would only be a stale plain-text copy). In the
    file (the user's explicit choice): a key in the keyring is removed, or it would go on
    shadowing the file."""
    value = _clean(value)
    if to_file:
        write_file(value)
        with contextlib.suppress(Exception):
            keyring = _keyring()
            if keyring.get_password(SERVICE, USER) is not None:
                keyring.delete_password(SERVICE, USER)
        return str(file_path())
    keyring = _keyring()
    try:  # the one place the keyring may ask the user: they are saving a key
        keyring.set_password(SERVICE, USER, value)
        kept = keyring.get_password(SERVICE, USER)
    except KeyringUnavailable:
        raise
    except Exception as exc:
        if _dismissed(exc):
            raise KeyringUnavailable(PROMPT_DISMISSED) from exc
        raise
    if kept != value:
        raise KeyringUnavailable(NOT_READ_BACK)
    remove_file()
    return f"keyring ({type(keyring.get_keyring()).__name__})"


def write_file(value: str) -> Path:
    """The key file: user-only folder and file, replaced atomically (a reader sees the old key
    or the new one)."""
    path = file_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)  # a folder made before, by hand or with a looser umask
    atomic.write_text(path, value + "\n", mode=0o600)
    return path


def remove_file() -> bool:
    try:
        file_path().unlink()
    except FileNotFoundError:
        return False
    return True


def move_to_keyring() -> str:
    """The file's key into the keyring, then the file goes (only once the keyring gave it back).
    Returns the keyring's name; KeyringUnavailable or ValueError when there is nothing to move."""
    value = file_api_key()
    if value is None:
        raise ValueError(f"there is no key file ({file_path()}) to move")
    keyring = _keyring()
    keyring.set_password(SERVICE, USER, value)
    if keyring.get_password(SERVICE, USER) != value:
        raise KeyringUnavailable(Message(msg.FILE_KEPT))
    remove_file()
    return type(keyring.get_keyring()).__name__


def clear_api_key() -> bool:
    """Forget the key everywhere memevo keeps it: the keyring entry and the file."""
    removed = remove_file()
    try:
        keyring = _keyring()
        if keyring.get_password(SERVICE, USER) is not None:
            keyring.delete_password(SERVICE, USER)
            removed = True
    except KeyringUnavailable:
        pass
    return removed


def status() -> KeyStatus:
    backend = problem = None
    in_keyring = False
    try:
        keyring = _keyring()
        backend = type(keyring.get_keyring()).__name__
        in_keyring = _read() is not None  # never a prompt: a keyring not set up yet holds nothing
    except Exception as exc:
        problem = PROMPT_DISMISSED if _dismissed(exc) else str(exc)
    in_file = file_api_key() is not None
    kept = str(file_path()) if in_file else None
    if os.environ.get(ENV, "").strip():
        return KeyStatus(True, "environment", backend, problem, kept)
    if in_keyring:
        return KeyStatus(True, "keyring", backend, problem, kept)
    return KeyStatus(in_file, "file" if in_file else None, backend, problem, kept)
