"""The side API key through the real keyring API (gnome-keyring under dbus-run-session in CI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from deadlines import HANG_S
from memevo.core import secrets


def _keyring_works() -> bool:
    try:
        secrets._keyring()
    except Exception:
        return False
    return True


_skip_without_keyring = pytest.mark.skipif(
    not _keyring_works() and not os.environ.get("MEMEVO_TEST_KEYRING"),
    reason="no Secret Service here; tests/setup-and-test.sh runs these under dbus-run-session with gnome-keyring",
)


def needs_keyring(test: Any) -> Any:
    """Runs on the real keyring (skipped without one); marked `keyring`, so every such test
    shares one xdist worker and the unlock guard (conftest.py)."""
    return pytest.mark.keyring(_skip_without_keyring(test))


def _memevo(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memevo.core.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env=os.environ | (env or {}),
    )


@needs_keyring
@pytest.mark.usefixtures("clean_keyring")
def test_secret_set_status_clear_through_the_real_keyring(data_dir: Path) -> None:
    assert _keyring_works(), "the keyring backend must work here (gnome-keyring under dbus-run-session)"
    stored = _memevo("secret", "set", "--json", stdin="sk-test-keyring-1234567890\n")
    assert stored.returncode == 0, stored.stderr
    assert "keyring" in json.loads(stored.stdout)["where"]
    status = json.loads(_memevo("secret", "status", "--json").stdout)
    assert status == status | {"set": True, "where": "keyring"}
    assert secrets.get_api_key() == "sk-test-keyring-1234567890"
    # never in a file memevo writes, nor printed back
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert b"sk-test-keyring-1234567890" not in path.read_bytes(), path
    assert "sk-test-keyring" not in stored.stdout + status.__repr__()
    from_env = json.loads(_memevo("secret", "status", "--json", env={"MEMEVO_SIDE_API_KEY": "sk-env"}).stdout)
    assert from_env["where"] == "environment"  # the environment overrides the keyring
    assert json.loads(_memevo("secret", "clear", "--json").stdout) == {"cleared": True}
    assert json.loads(_memevo("secret", "status", "--json").stdout)["set"] is False


@needs_keyring
@pytest.mark.usefixtures("clean_keyring")
def test_secret_set_without_a_service_rewrites_the_hooks_fallback_texts(data_dir: Path) -> None:
    """The texts the hooks fall back on while no service runs say whether learning is on: set
    and cleared from the command line, they follow at once (not at the next service start)."""
    from memevo.core import config as config_mod
    from memevo.core.service import caches, texts

    config_mod.set_key("sideApiBase", "http://127.0.0.1:9/v1")
    config_mod.set_key("sideApiModel", "local-judge")
    assert caches.write_without_service()
    reminder = data_dir / "cache" / "prompt-reminder-claude.txt"
    off = texts.client_reminder("claude")
    assert reminder.read_text(encoding="utf-8") == off  # no key: auto falls back to the client's model
    no_key = {secrets.ENV: ""}
    assert _memevo("secret", "set", stdin="sk-test-keyring-1234567890\n", env=no_key).returncode == 0
    assert reminder.read_text(encoding="utf-8") != off
    assert _memevo("secret", "clear", env=no_key).returncode == 0
    assert reminder.read_text(encoding="utf-8") == off


def test_the_key_is_never_taken_from_an_argument() -> None:
    result = _memevo("secret", "set", "sk-in-argv")
    assert result.returncode == 2  # argparse refuses the extra argument


def test_without_a_keyring_the_reason_is_clear(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        with pytest.raises(secrets.KeyringUnavailable, match="MEMEVO_SIDE_API_KEY"):
            secrets.set_api_key("sk-x")
        assert secrets.status().keyring_problem
        monkeypatch.setenv("MEMEVO_SIDE_API_KEY", "sk-env-only")
        assert secrets.get_api_key() == "sk-env-only"
    finally:
        keyring.set_keyring(previous)


@needs_keyring
@pytest.mark.usefixtures("clean_keyring")
def test_import_legacy_moves_the_node_key_into_the_keyring(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    node_secret = data_dir / "side-secret.json"
    node_secret.write_text(json.dumps({"apiKey": "sk-node-tool-key-123456"}), encoding="utf-8")
    asked = _memevo("import-legacy")  # no terminal: it says how, moves nothing
    assert "--move-key" in asked.stdout and secrets.status().source is None
    moved = _memevo("import-legacy", "--move-key")
    assert moved.returncode == 0 and "moved the side API key" in moved.stdout
    assert secrets.get_api_key() == "sk-node-tool-key-123456"
    # a plain-text key must not outlive its move (issue 13): deleted once the keyring holds it
    assert not node_secret.exists() and "deleted side-secret.json" in moved.stdout
    node_secret.write_text(json.dumps({"apiKey": "sk-node-tool-key-123456"}), encoding="utf-8")
    again = _memevo("import-legacy")  # the same key is in the keyring already: only the copy goes
    assert again.returncode == 0 and not node_secret.exists(), again.stdout
