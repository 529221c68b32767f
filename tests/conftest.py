"""Every test runs with a temp HOME and MEMEVO_HOME; a guard fails any test that writes to the real home."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memevo.core.clock import FakeClock
from memevo.core.store import Store

REAL_HOME = Path(os.path.expanduser("~")).resolve()
REPO = Path(__file__).resolve().parents[1]
# One provisioned model for the whole run (and later runs), inside the repo, never in a home.
os.environ.setdefault("MEMEVO_MODELS_DIR", str(REPO / ".cache" / "models"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # GUI tests need no display
os.environ.setdefault(
    "MEMEVO_LANG", "zh"
)  # the GUI tests read the Chinese UI (tests/test_i18n.py checks English)
# Places a mistaken memevo would write to: its default data dir and the clients' config dirs.
WATCHED = [".memory-self-evolution", ".claude", ".claude.json", ".cursor", ".codebuddy", ".workbuddy"]


def _fingerprint() -> dict[str, str]:
    prints: dict[str, str] = {"<home entries>": ",".join(sorted(os.listdir(REAL_HOME)))}
    for name in WATCHED:
        root = REAL_HOME / name
        if root.is_file():
            prints[name] = hashlib.sha256(root.read_bytes()).hexdigest()
        elif root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.is_file() and path.stat().st_size < 5_000_000:
                    prints[str(path)] = f"{path.stat().st_mtime_ns}:{path.stat().st_size}"
    return prints


def _stop_strays(data: Path) -> None:
    """A hook with no service starts one (as in real use); in a test's temp data dir it would
    outlive the test and hold ~1.5 GB. Stop every memevo process that still uses this dir."""
    import signal

    proc = Path("/proc")
    if not proc.is_dir():
        return
    wanted = f"MEMEVO_HOME={data}".encode()
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            if b"memevo" not in cmdline or wanted not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            os.kill(int(entry.name), signal.SIGTERM)
        except (OSError, ValueError):
            continue


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    before = _fingerprint()
    home = tmp_path / "home"
    data = tmp_path / "memevo-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMEVO_HOME", str(data))
    for var in ("CLAUDE_CONFIG_DIR", "CODEBUDDY_CONFIG_DIR"):
        monkeypatch.delenv(var, raising=False)
    yield data
    _stop_strays(data)
    after = _fingerprint()
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"test wrote to the real home: {changed}"


@pytest.fixture
def data_dir(isolated_home: Path) -> Path:
    return isolated_home


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(data_dir: Path) -> Iterator[Store]:
    s = Store.open()
    yield s
    s.close()


@pytest.fixture(scope="session")
def provisioned_model() -> Any:
    """The real default model, provisioned the way a user's first run does it."""
    from memevo.core.encoder.models import DEFAULT_MODEL
    from memevo.core.encoder.provision import provision

    return provision(DEFAULT_MODEL)


@pytest.fixture(scope="session")
def encoder(provisioned_model: Any) -> Any:
    from memevo.core.encoder.encoder import Encoder

    enc = Encoder(provisioned_model.model, provisioned_model.folder)
    enc.load()
    return enc


@pytest.fixture
def side_host(store: Store, encoder: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """An in-process service with the real model and a side API key in the environment (the
    tests point sideApiBase at a local FakeOpenAI)."""
    from memevo.core.recall.engine import RecallEngine
    from memevo.core.service.host import ServiceHost

    monkeypatch.setenv("MEMEVO_SIDE_API_KEY", "sk-test-local-only-0000000000")
    monkeypatch.setenv("MEMEVO_SIDE_TIMEOUT_S", "2")
    service = ServiceHost(store, clock)
    service.engine = RecallEngine(store, encoder, clock)
    yield service
    service.close()


@pytest.fixture
def run_cli(data_dir: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run the installed `memevo` console command as a user would, in its own process."""

    def run(*args: str, env: dict[str, str] | None = None, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        full_env = os.environ | (env or {})
        return subprocess.run(
            [sys.executable, "-m", "memevo.core.cli", *args],
            capture_output=True,
            text=True,
            env=full_env,
            timeout=60,
            **kwargs,
        )

    return run


@pytest.fixture(scope="session")
def qapp(qapp_args: list[str]) -> Iterator[Any]:
    """pytest-qt's application, with the UI translation installed as the tray app does."""
    from memevo.desktop.i18n import install_translator
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(qapp_args)
    install_translator(app)
    yield app
