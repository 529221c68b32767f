"""No keyring prompt before the user saves a key: on a desktop whose Secret Service has no
default collection yet (a fresh gnome-keyring), reading the key — the wizard's and Settings'
status, the service's check — must not bring up "Choose password for new keyring". Saving asks,
and a closed prompt is said in words, with the way to be asked again.

Each case runs in a session bus of its own (dbus-run-session) with a gnome-keyring that has no
collection; the daemon's log shows whether its prompter was started."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from deadlines import HANG_S

pytestmark = pytest.mark.skipif(
    not (shutil.which("dbus-run-session") and shutil.which("gnome-keyring-daemon")),
    reason="needs dbus-run-session and gnome-keyring (tests/setup-and-test.sh installs them)",
)


def _in_fresh_keyring(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    script = tmp_path / "probe.py"
    script.write_text(code, encoding="utf-8")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_RUNTIME_DIR": str(run),
        "MEMEVO_HOME": str(tmp_path / "memevo"),
    }
    return subprocess.run(
        [
            "dbus-run-session",
            "--",
            "bash",
            "-c",
            f"gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1; {sys.executable} {script}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )


def test_reading_the_key_never_prompts(tmp_path: Path) -> None:
    done = _in_fresh_keyring(
        tmp_path,
        "from memevo.core.privacy import side_api_key as s\n"
        "st = s.status()\n"
        "print(st.present, st.keyring_problem, s.get_api_key(), s.has_api_key())\n",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False None None False"
    assert "SystemPrompter" not in done.stderr  # the daemon was never asked to prompt


def test_saving_asks_and_a_closed_prompt_is_said_in_words(tmp_path: Path) -> None:
    """Here the prompter has no display and closes at once: what a user who cancels sees."""
    done = _in_fresh_keyring(
        tmp_path,
        "from memevo.core.privacy import side_api_key as s\n"
        "try:\n    s.set_api_key('sk-test-0123456789')\n"
        "except s.KeyringUnavailable as exc:\n    print('refused:', exc)\n"
        "print(s.status().present)\n",
    )
    assert done.returncode == 0, done.stderr
    assert "SystemPrompter" in done.stderr  # saving is the moment the keyring may ask
    assert (
        f"refused: {__import__('memevo.core.privacy.side_api_key', fromlist=['x']).PROMPT_DISMISSED}"
        in done.stdout
    )
    assert done.stdout.strip().endswith("False")
