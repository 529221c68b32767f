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
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError
from memevo.core.privacy import side_api_key as secrets


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
        [sys.executable, "-m", "memevo.cli", *args],
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
    from memevo.core.service import fallback_texts as caches
    from memevo.core.service import texts

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


class _DroppingKeyring(KeyringBackend):
    """A keyring that accepts every write and keeps nothing (as a collection dropping the item
    does): setup had said "The side API key is in the OS keyring." and the key was then
    unreadable (tests/test_setup_terminal.py's failure)."""

    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        pass

    def delete_password(self, service: str, username: str) -> None:
        raise PasswordDeleteError(username)


@pytest.mark.parametrize("kind", ["dropping", "null"])
def test_a_keyring_that_keeps_nothing_is_never_reported_holding_the_key(kind: str, data_dir: Path) -> None:
    import keyring
    from keyring.backends import null
    from memevo.installer import setup_engine

    previous = keyring.get_keyring()
    keyring.set_keyring(_DroppingKeyring() if kind == "dropping" else null.Keyring())
    try:
        with pytest.raises(secrets.KeyringUnavailable):
            secrets.set_api_key("sk-into-the-void-0123456789")
        said: list[str] = []
        setup_engine.write_choices(setup_engine.Choices(side_key="sk-into-the-void-0123456789"), said.append)
        assert "The side API key is in the OS keyring." not in said
        assert any(line.startswith("The key was not saved:") for line in said), said
        assert secrets.get_api_key() is None and not secrets.status().present
    finally:
        keyring.set_keyring(previous)


def test_secret_set_with_the_null_keyring_says_it_stored_nothing(data_dir: Path) -> None:
    """`keyring --disable` (the null keyring) took the key and `secret set` said it was stored."""
    result = _memevo(
        "secret",
        "set",
        stdin="sk-into-the-void-0123456789\n",
        env={"PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"},
    )
    assert result.returncode != 0 and "stored" not in result.stdout, result.stdout
    assert "memevo secret set --file" in result.stderr  # what to do instead


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
    # a plain-text key must not outlive its move: deleted once the keyring holds it
    assert not node_secret.exists() and "deleted side-secret.json" in moved.stdout
    node_secret.write_text(json.dumps({"apiKey": "sk-node-tool-key-123456"}), encoding="utf-8")
    again = _memevo("import-legacy")  # the same key is in the keyring already: only the copy goes
    assert again.returncode == 0 and not node_secret.exists(), again.stdout


# -- the user-only file, where no keyring works -----------------------------------------------------------
FILE_KEY = "sk-test-file-only-0123456789abcdef"


def _assert_only_in_its_file(data_dir: Path, key: str) -> None:
    """The key's bytes are in secrets/side-api-key and in no other file of the data dir."""
    kept = secrets.file_path()
    for path in data_dir.rglob("*"):
        if path.is_file() and path != kept:
            assert key.encode() not in path.read_bytes(), path


def test_without_a_keyring_the_key_is_kept_in_a_user_only_file_when_asked(data_dir: Path) -> None:
    """No keyring (the tests' fail backend): `secret set` refuses and names the file option;
    `secret set --file` keeps it in DATA_DIR/secrets/side-api-key, 600 in a 700 folder, and
    says it is not encrypted; status says "file"; clear deletes it."""
    no_env = {secrets.ENV: ""}
    refused = _memevo("secret", "set", stdin=FILE_KEY + "\n", env=no_env)
    assert refused.returncode != 0 and "--file" in refused.stderr and "not encrypted" in refused.stderr
    assert not secrets.file_path().exists()
    stored = _memevo("secret", "set", "--file", "--json", stdin=FILE_KEY + "\n", env=no_env)
    assert stored.returncode == 0, stored.stderr
    answer = json.loads(stored.stdout)
    path = secrets.file_path()
    assert answer["where"] == str(path) == str(data_dir / "secrets" / "side-api-key")
    assert "not encrypted" in answer["note"] and FILE_KEY not in stored.stdout + stored.stderr
    assert path.read_text(encoding="utf-8").strip() == FILE_KEY
    assert oct(path.stat().st_mode & 0o777) == "0o600" and oct(path.parent.stat().st_mode & 0o777) == "0o700"
    status = json.loads(_memevo("secret", "status", "--json", env=no_env).stdout)
    assert status == status | {"set": True, "where": "file", "file": str(path)} and status["problem"]
    assert secrets.get_api_key() == FILE_KEY and secrets.status().source == "file"
    plain = _memevo("secret", "status", env=no_env).stdout
    assert "file" in plain and "not encrypted" in plain and FILE_KEY not in plain
    _assert_only_in_its_file(data_dir, FILE_KEY)
    # the environment still comes first; a looser mode made by hand is tightened on read
    assert json.loads(_memevo("secret", "status", "--json", env={secrets.ENV: "sk-env"}).stdout)["where"] == (
        "environment"
    )
    path.chmod(0o644)
    assert secrets.get_api_key() == FILE_KEY and oct(path.stat().st_mode & 0o777) == "0o600"
    assert json.loads(_memevo("secret", "clear", "--json", env=no_env).stdout) == {"cleared": True}
    assert not path.exists() and secrets.get_api_key() is None and secrets.status().source is None
    moved = _memevo("secret", "move-to-keyring", env=no_env)
    assert moved.returncode != 0 and "nothing moved" in moved.stderr


def test_the_key_file_is_in_no_backup_snapshot_or_repair_copy(
    data_dir: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daily backup, memories.html and the copies `memevo repair` keeps are made from the
    store, never from the data dir: the key file is in none of them."""
    from memevo.core.memories import html_page as snapshot
    from memevo.core.memories import live as memories
    from memevo.core.store import backups, repair
    from memevo.core.store.database import Store

    monkeypatch.delenv(secrets.ENV, raising=False)
    secrets.set_api_key(FILE_KEY, to_file=True)
    with Store.open() as store:
        memories.create(store, "rule", "Always answer in English", clock)
        backups.take_daily(store, clock.local_day(clock.now_ms()))
        snapshot.write(store)
    assert backups.daily_backups(data_dir) and snapshot.path().exists()
    repair._keep_copies(data_dir / "memevo.duckdb", clock)  # what repair keeps first
    assert any(p.name.startswith("damaged-") for p in (data_dir / "backups").iterdir())
    _assert_only_in_its_file(data_dir, FILE_KEY)
    assert not [p for p in (data_dir / "backups").rglob("*") if p.name == secrets.FILE_NAME]


@pytest.mark.slow
def test_a_service_started_as_at_login_learns_with_the_files_key(
    data_dir: Path, provisioned_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No keyring and no MEMEVO_SIDE_API_KEY in the service's environment (as a tray app
    started at login has it): a real `memevo serve` reads the file, says learning is the side
    judge's, and the side API is called with that key."""
    import servicerun
    from fake_openai import FakeOpenAI
    from hookrun import run_hook
    from memevo.core import config as config_mod

    monkeypatch.delenv(secrets.ENV, raising=False)
    assert os.environ.get("PYTHON_KEYRING_BACKEND") == "keyring.backends.fail.Keyring"  # conftest's
    server = FakeOpenAI(lambda body: ("json", {"remember": False}))
    try:
        config_mod.set_key("sideApiBase", server.base)
        config_mod.set_key("sideApiModel", "judge-mini")
        assert _memevo("secret", "set", "--file", stdin=FILE_KEY + "\n").returncode == 0
        with servicerun.service(data_dir):
            status = json.loads(_memevo("service", "--json").stdout)
            assert status["learning"]["mode"] == "side", status
            prompt = "记住：以后在这个仓库里提交前一律先跑 ruff 和 mypy，再跑测试"
            hook = run_hook(
                "claude", "UserPromptSubmit", json.dumps({"session_id": "login", "prompt": prompt})
            )
            assert hook.returncode == 0, hook.stderr
            import time

            deadline = time.monotonic() + HANG_S
            while not server.headers and time.monotonic() < deadline:
                time.sleep(0.1)
            assert server.headers and server.headers[0]["Authorization"] == f"Bearer {FILE_KEY}"
        _assert_only_in_its_file(data_dir, FILE_KEY)  # nor in its logs
    finally:
        server.close()


@needs_keyring
@pytest.mark.usefixtures("clean_keyring")
def test_with_a_keyring_the_file_is_read_until_the_user_moves_it(data_dir: Path) -> None:
    """A keyring that works later changes nothing by itself: the file's key stays the one used
    until `secret move-to-keyring` (the file goes once the keyring gave the key back). Saving a
    key in the keyring leaves no stale plain-text copy; clear removes both."""
    no_env = {secrets.ENV: ""}
    secrets.write_file(FILE_KEY)  # kept there while no keyring worked
    status = json.loads(_memevo("secret", "status", "--json", env=no_env).stdout)
    assert status == status | {"set": True, "where": "file", "problem": None}
    moved = _memevo("secret", "move-to-keyring", "--json", env=no_env)
    assert moved.returncode == 0, moved.stderr
    assert not secrets.file_path().exists() and secrets.keyring_api_key() == FILE_KEY
    assert json.loads(_memevo("secret", "status", "--json", env=no_env).stdout)["where"] == "keyring"
    secrets.write_file("sk-stale-copy-000000000000")
    assert _memevo("secret", "set", stdin="sk-test-keyring-1234567890\n", env=no_env).returncode == 0
    assert not secrets.file_path().exists() and secrets.get_api_key() == "sk-test-keyring-1234567890"
    secrets.write_file(FILE_KEY)
    assert json.loads(_memevo("secret", "clear", "--json", env=no_env).stdout) == {"cleared": True}
    assert not secrets.file_path().exists() and secrets.keyring_api_key() is None


@needs_keyring
@pytest.mark.usefixtures("clean_keyring")
def test_import_legacy_leaves_the_users_key_file_alone(data_dir: Path) -> None:
    """A key the user keeps in the file is their choice, even once a keyring works: the Node
    tool's key is not moved over it (which would delete the file), and side-secret.json stays."""
    no_env = {secrets.ENV: ""}
    secrets.write_file(FILE_KEY)
    node_secret = data_dir / "side-secret.json"
    node_secret.write_text(json.dumps({"apiKey": "sk-node-tool-key-123456"}), encoding="utf-8")
    moved = _memevo("import-legacy", "--move-key", env=no_env)
    assert moved.returncode == 0, moved.stderr
    assert node_secret.exists() and secrets.file_api_key() == FILE_KEY
    assert secrets.keyring_api_key() is None
