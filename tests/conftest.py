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
from deadlines import HANG_S
from memevo.core.clock import FakeClock
from memevo.core.store.database import Store

REAL_HOME = Path(os.path.expanduser("~")).resolve()
REPO = Path(__file__).resolve().parents[1]


def _models_dir() -> Path:
    """One provisioned model for the whole run and later runs, never in a home: in the machine's
    dev cache (MEMEVO_DEV_CACHE, shared by every clone) under a name that changes with the code
    that provisions it, else inside the repo. Folders of other versions unused for two days go."""
    shared = os.environ.get("MEMEVO_DEV_CACHE")
    if not shared:
        return REPO / ".cache" / "models"
    code = hashlib.sha256()
    for path in sorted((REPO / "core" / "encoder").glob("*.py")):
        code.update(path.name.encode() + b"\0" + path.read_bytes())
    folder = Path(shared) / f"models-{code.hexdigest()[:12]}"
    import shutil
    import time

    for old in Path(shared).glob("models-*"):
        try:
            if old.is_dir() and old != folder and time.time() - old.stat().st_mtime > 2 * 86400:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue
    folder.mkdir(parents=True, exist_ok=True)
    os.utime(folder)  # in use: kept
    return folder


os.environ.setdefault("MEMEVO_MODELS_DIR", str(_models_dir()))
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


# No keyring for the whole run — the module- and session-scoped fixtures' services included,
# which start before any test's own fixtures — but for the tests marked `keyring`
# (_no_keyring_unless_marked). A key left in the test keyring by one test had reached the
# services of another module started later on the same worker: they learned in side mode.
# Set in each process that runs tests (pytest_configure), never in pytest-xdist's controller,
# whose environment its workers inherit: they read the machine's own value.
KEYRING_BACKEND_OUTSIDE = os.environ.get("PYTHON_KEYRING_BACKEND")


def _no_keyring_for_the_run(config: pytest.Config) -> None:
    if "PYTEST_XDIST_WORKER" in os.environ or not getattr(config.option, "numprocesses", None):
        os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"


def _no_keyring_unless_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """One test keyring serves the whole run, and a test on the other xdist worker that set or
    cleared the side API key in it changed what a keyring test saw (`secret clear` finding no
    key after `secret set`). Only tests marked `keyring` (one worker, one at a time) reach it;
    every other test, and every process it or its module's fixtures start, meets a machine
    with no keyring."""
    import keyring.core
    from keyring.backends import fail

    if request.node.get_closest_marker("keyring") is None:
        monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
        monkeypatch.setattr(keyring.core, "_keyring_backend", fail.Keyring())
        return
    if KEYRING_BACKEND_OUTSIDE is None:  # the keyring the machine has (the test keyring under dbus)
        monkeypatch.delenv("PYTHON_KEYRING_BACKEND")
    else:
        monkeypatch.setenv("PYTHON_KEYRING_BACKEND", KEYRING_BACKEND_OUTSIDE)
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # found again on first use


SESSION_DATA_DIR: str | None = None  # each test process's own (_session_home)


def _session_home(config: pytest.Config) -> None:
    """A temporary HOME and MEMEVO_HOME for everything that runs before a test's own fixtures
    (isolated_home): module and session fixtures start services and open stores too, and with
    the process's real HOME and no MEMEVO_HOME one wrote ~/.memory-self-evolution. Set in
    each process that runs tests, never in pytest-xdist's controller (its workers inherit it)."""
    global SESSION_DATA_DIR
    if "PYTEST_XDIST_WORKER" not in os.environ and getattr(config.option, "numprocesses", None):
        return
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="memevo-test-session-"))
    (root / "home").mkdir()
    os.environ["HOME"] = str(root / "home")
    os.environ["MEMEVO_HOME"] = SESSION_DATA_DIR = str(root / "memevo-home")
    config.add_cleanup(lambda: shutil.rmtree(root, ignore_errors=True))


@pytest.fixture(scope="module", autouse=True)
def module_leaves_the_data_dir_as_found() -> Iterator[None]:
    """A module's fixtures start services and run setups before any test's own fixtures, with
    the process's MEMEVO_HOME: a module that leaves its folder there (servicerun.stop once did)
    sends the next module's setup there — its hooks then named another module's folder. Set
    up first and torn down last, this fails the module that leaked it."""
    yield
    leaked = os.environ.get("MEMEVO_HOME")
    assert leaked == SESSION_DATA_DIR, f"this module left MEMEVO_HOME={leaked} (was {SESSION_DATA_DIR})"


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Path]:
    _no_keyring_unless_marked(request, monkeypatch)
    before = _fingerprint()
    home = tmp_path / "home"
    data = tmp_path / "memevo-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MEMEVO_HOME", str(data))
    for var in ("CLAUDE_CONFIG_DIR", "CODEBUDDY_CONFIG_DIR"):
        monkeypatch.delenv(var, raising=False)
    yield data
    left_open = _close_modal_dialogs()
    _stop_strays(data)
    assert not left_open, f"the test left a modal dialog open: {left_open}"
    after = _fingerprint()
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"test wrote to the real home: {changed}"


def _close_modal_dialogs() -> list[str]:
    """Closes the modal dialogs a test left open, and names them. One left open was found by a
    later test's dialog helper (QApplication.activeModalWidget) instead of its own, and that
    test waited in its own dialog's exec() for ever."""
    if "PySide6.QtWidgets" not in sys.modules:
        return []
    from PySide6.QtWidgets import QApplication, QDialog

    app = QApplication.instance()
    names: list[str] = []
    for _ in range(10):  # dialogs stacked on dialogs
        widget = app.activeModalWidget() if isinstance(app, QApplication) else None
        if widget is None:
            break
        names.append(f"{type(widget).__name__} {widget.windowTitle()!r}")
        if isinstance(widget, QDialog):
            widget.reject()
        widget.close()
        app.processEvents()
    return names


TEST_KEYRING_PASSWORD = "memevo-test"  # tests/setup-and-test.sh unlocks the test keyring with it


def _unlock_test_keyring() -> None:
    """The test keyring (gnome-keyring in a private D-Bus session, tests/setup-and-test.sh) was
    once found locked mid-run; unlock it again through its running daemon before each keyring
    test, so such a test never depends on what an earlier one did to the session."""
    if not os.environ.get("MEMEVO_TEST_KEYRING"):
        return
    try:
        import secretstorage

        connection = secretstorage.dbus_init()
        try:
            locked = secretstorage.get_default_collection(connection).is_locked()
        finally:
            connection.close()
    except Exception:
        locked = True  # no default collection yet, or none answering: let the daemon say
    if locked:
        subprocess.run(
            ["gnome-keyring-daemon", "--unlock", "--components=secrets"],
            input=TEST_KEYRING_PASSWORD.encode(),
            capture_output=True,
            timeout=HANG_S,
        )


@pytest.fixture
def keyring_unlocked() -> None:
    _unlock_test_keyring()


@pytest.fixture
def clean_keyring(keyring_unlocked: None) -> Iterator[None]:
    """No side API key in the real keyring before and after the test."""
    from memevo.core.privacy import side_api_key as secrets

    secrets.clear_api_key()
    yield
    secrets.clear_api_key()


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
    """The real default model, provisioned the way a user's first run does it; one worker at
    a time (pytest-xdist runs two, and the first provisions for both)."""
    import fcntl

    from memevo.core.encoder.models import DEFAULT_MODEL
    from memevo.core.encoder.provision import provision

    lock_path = Path(os.environ["MEMEVO_MODELS_DIR"]).with_suffix(".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return provision(DEFAULT_MODEL)


@pytest.fixture(scope="session")
def encoder(provisioned_model: Any) -> Any:
    from memevo.core.encoder.encoder import Encoder

    enc = Encoder(provisioned_model.model, provisioned_model.folder)
    enc.load()
    enc._model = RememberedVectors(enc._model)
    return enc


@pytest.fixture(scope="session")
def st_encoder(provisioned_model: Any) -> Any:
    """The default model on sentence-transformers (torch), the reference the ONNX graph is held
    to: loaded once a worker (a minute on one CPU) for test_onnx_build.py and
    test_encoder_onnx.py, which share a worker for it (pytest_collection_modifyitems)."""
    from memevo.core.encoder.encoder import Encoder

    enc = Encoder(provisioned_model.model, provisioned_model.folder, backend="sentence-transformers")
    enc.load()
    enc._model = RememberedVectors(enc._model)
    return enc


def linked_model_copy(source: Path, target: Path) -> Path:
    """A provisioned model folder without its onnx/ (hard links: no 240 MB copy), as a release
    before the graph left it."""
    import shutil

    from memevo.core.encoder.onnx_encoder import GRAPH_DIR

    for path in source.rglob("*"):
        relative = path.relative_to(source)
        if relative.parts[0] == GRAPH_DIR or relative.parts[0].startswith(".") or path.is_dir():
            continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, target / relative)
        except OSError:  # another file system
            shutil.copy2(path, target / relative)
    return target


@pytest.fixture(scope="session")
def upgraded_model(provisioned_model: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A user upgrading: the provisioned model's folder as a release before the ONNX graph left
    it (its files hard-linked, no onnx/), given the graph by `provision()` as their next start
    does — the child process that builds and checks it without torch, its report recorded.
    Built once a run (a minute on one CPU) for test_onnx_build.py, which checks the graph, and
    test_encoder_onnx.py, which checks the upgrade: they share a worker for it."""
    import time

    from memevo.core.encoder import provision
    from memevo.core.encoder.encoder import Encoder
    from memevo.core.encoder.models import DEFAULT_MODEL

    models = tmp_path_factory.mktemp("upgraded") / "models"
    source = provisioned_model.folder
    target = models / source.name
    linked_model_copy(source, target)
    backend_before = Encoder(DEFAULT_MODEL, target).backend
    children: list[tuple[str, dict[str, Any]]] = []
    run_child = provision._run_child

    def recorded(module: str, *args: Any) -> dict[str, object]:
        report = run_child(module, *args)
        children.append((module, dict(report)))
        return report

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMEVO_MODELS_DIR", str(models))
        patch.setattr(provision, "_run_child", recorded)
        started = time.monotonic()
        again = provision.provision(DEFAULT_MODEL)
        seconds = time.monotonic() - started
    print(f"the upgrade's graph: {seconds:.1f} s; {children!r:.1500}")
    return {
        "folder": target,
        "backend_before": backend_before,
        "provisioned": again,
        "children": children,
        "seconds": seconds,
    }


class RememberedVectors:
    """The real model behind the session's encoder, each distinct text run through it once a
    worker: the recall sets' few hundred texts are recalled by six tests and three gates, and
    were encoded again by each (minutes of a run). The vectors are the model's own (a batch's
    float noise aside, 1e-7); what encodes and when is still the encoder's and the engine's."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.known: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def encode(self, texts: list[str], batch_size: int = 32) -> Any:
        import numpy as np

        missing = [text for text in dict.fromkeys(texts) if text not in self.known]
        if missing:
            for text, vector in zip(missing, self.inner.encode(missing, batch_size), strict=True):
                self.known[text] = np.array(vector, dtype=np.float32)
        return np.stack([self.known[text] for text in texts])

    def encode_one(self, text: str) -> Any:
        if text not in self.known:
            self.known[text] = self.inner.encode_one(text)
        return self.known[text].copy()


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
    """`memevo ARGS` inside this process (tests/clirun.py): what it prints, stores and exits with.
    Environment that only an interpreter's start reads sends it to a real process by itself."""
    from clirun import in_process

    return in_process


@pytest.fixture
def run_cli_process(data_dir: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """The installed `memevo` command in its own process, where the process is the subject."""
    from clirun import in_a_process

    return in_a_process


@pytest.fixture(scope="session")
def qapp(qapp_args: list[str]) -> Iterator[Any]:
    """pytest-qt's application, with the UI translation installed as the tray app does."""
    from memevo.desktop.i18n import install_translator
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(qapp_args)
    install_translator(app)
    yield app


# -- lanes: what each test starts ------------------------------------------------------------------
# `pytest -m quick` (the everyday command, docs/development.md) runs what starts no process of its own,
# reaches no real client and is not marked slow (whole recall sets through the model); the full
# suite (.ci/run) runs everything. A test is marked by the
# fixtures it uses (the real model, Qt, the keyring) and by its module's entry below (what
# the module's tests start: real memevo processes, or the real clients and installs).
# tests/test_lanes.py fails when a test module has no entry, so a new one is placed knowingly.
PROCESSES = "processes"  # real memevo processes: serve, tray, hooks, mcp, CLI commands
E2E = "e2e"  # real clients (Claude Code, CodeBuddy CLIs), a fresh venv, the wheel, mypy
UNITS = "units"  # in-process only (the model and Qt may be loaded)
MODULE_LANES: dict[str, str] = {
    "test_anchors.py": PROCESSES,  # git, in real repositories
    "test_backfill.py": PROCESSES,
    "test_backfill_codebuddy_ide.py": PROCESSES,  # CLI commands, the real model
    "test_keyring_prompts.py": PROCESSES,
    "test_quit.py": PROCESSES,  # the hook executable and a real memevo serve  # a gnome-keyring in a session bus of its own  # git for the sessions' repositories, the real model, CLI commands
    "test_anchor_commands.py": PROCESSES,  # git, in real repositories
    "test_consolidation.py": UNITS,  # the real model and store, in process
    "test_consolidation_service.py": PROCESSES,  # a real `memevo serve` and the CLI
    "test_lexical_file.py": UNITS,  # the real model and store, in process
    "test_snapshot.py": UNITS,  # memories.html from a real store, in process
    "test_store_reopen.py": UNITS,  # a real store, in process
    "test_service_start.py": PROCESSES,  # the real model and store; the bench's services
    "test_stale_service.py": PROCESSES,
    "test_autostart.py": PROCESSES,
    "test_bench_hooks.py": UNITS,
    "test_claude_cli.py": E2E,
    "test_claude_cli_learning.py": E2E,
    "test_chinese_ui.py": UNITS,
    "test_cli.py": PROCESSES,
    "test_cli_processes.py": PROCESSES,
    "test_client_registry.py": UNITS,
    "test_client_state.py": UNITS,
    "test_codebuddy_cli.py": E2E,
    "test_confidence_rules.py": UNITS,
    "test_config.py": UNITS,
    "test_confirm_dialog.py": UNITS,
    "test_confirm_dialog_language.py": PROCESSES,
    "test_confirm_dialog_origin.py": UNITS,
    "test_core_owns_sql.py": UNITS,
    "test_cues.py": PROCESSES,
    "test_docs.py": UNITS,
    "test_duplicates_add.py": PROCESSES,
    "test_e5pack.py": UNITS,
    "test_encoder_onnx.py": PROCESSES,
    "test_english_ui.py": PROCESSES,
    "test_hardening.py": PROCESSES,
    "test_heap_trim.py": UNITS,
    "test_native_heap.py": PROCESSES,  # small probe processes, no model
    "test_pagework.py": UNITS,  # threads and a fake render, no store
    "test_hook_failures.py": PROCESSES,
    "test_hook_golden.py": PROCESSES,
    "test_hook_memo.py": UNITS,
    "test_hook_relay.py": PROCESSES,
    "test_i18n.py": PROCESSES,
    "test_idle.py": PROCESSES,
    "test_import_notes.py": PROCESSES,
    "test_injection_budget.py": UNITS,
    "test_install_safe_path.py": PROCESSES,
    "test_installed_journey.py": E2E,
    "test_installer.py": PROCESSES,
    "test_installer_claude.py": PROCESSES,
    "test_lanes.py": UNITS,
    "test_lanes_workers.py": PROCESSES,
    "test_layout.py": E2E,
    "test_learning.py": UNITS,
    "test_learning_modes_cli.py": PROCESSES,
    "test_legacy_import.py": PROCESSES,
    "test_mcp.py": PROCESSES,
    "test_mcp_robust.py": PROCESSES,
    "test_memory_history.py": PROCESSES,
    "test_moved_home.py": PROCESSES,
    "test_onnx_build.py": PROCESSES,
    "test_panel.py": UNITS,
    "test_panel_add_and_import.py": UNITS,
    "test_panel_backfill.py": UNITS,  # the real model and store in process; history.py's transcripts
    "test_panel_off_repos.py": UNITS,
    "test_panel_import_notes.py": UNITS,
    "test_panel_merge_and_undo.py": UNITS,
    "test_panel_paging.py": UNITS,
    "test_panel_pins_and_history.py": UNITS,
    "test_panel_search.py": UNITS,
    "test_panel_sharing.py": PROCESSES,  # git, in real repositories (and a bare sync remote)
    "test_stale_offer.py": PROCESSES,  # git, in a real repository; the CLI in process
    "test_panel_stale.py": PROCESSES,  # git, in a real repository (the stale memory)
    "test_pins.py": PROCESSES,
    "test_processes.py": PROCESSES,
    "test_propose.py": UNITS,
    "test_purge.py": PROCESSES,
    "test_recall_calibrate.py": UNITS,
    "test_recall_cli.py": PROCESSES,
    "test_recall_public.py": PROCESSES,  # `memevo verify` in a real process, and a real `memevo serve`
    "test_recall_generic.py": UNITS,
    "test_recall_language.py": UNITS,
    "test_recall_model.py": UNITS,
    "test_recall_units.py": UNITS,
    "test_redaction.py": UNITS,
    "test_redaction_prefilter.py": PROCESSES,  # a fresh Python logs through the filter
    "test_repair.py": PROCESSES,
    "test_resident_imports.py": PROCESSES,  # a real `memevo serve`, the service start in a child
    "test_secrets.py": PROCESSES,
    "test_service.py": PROCESSES,
    "test_service_scopes.py": PROCESSES,
    "test_repo_identity.py": PROCESSES,  # git, in real repositories
    "test_sharing.py": PROCESSES,  # git, two data dirs
    "test_sharing_service.py": PROCESSES,  # git, a real `memevo serve` and hooks
    "test_sync.py": PROCESSES,  # git, two data dirs, SIGKILL
    "test_sync_hostile.py": PROCESSES,  # git, hostile remotes crafted object by object
    "test_sync_remote_side.py": PROCESSES,  # git, local remotes whose hooks and config run payloads
    "test_safegit.py": PROCESSES,  # git in hostile repositories, a real `memevo serve`
    "test_repo_trust.py": PROCESSES,  # git, a real `memevo serve` and hooks
    "test_only_user_confirms.py": PROCESSES,  # a real `memevo serve`, the MCP server and hooks
    "test_settings.py": UNITS,
    "test_setup_terminal.py": PROCESSES,
    "test_soak.py": PROCESSES,  # the tray offscreen, 5,000 hooks and writes among them (slow)
    "test_side_context_hooks.py": PROCESSES,
    "test_store.py": PROCESSES,
    "test_vector_bytes.py": PROCESSES,  # a migration killed half way, in a child
    "test_text_hardening.py": UNITS,
    "test_texts.py": UNITS,
    "test_tokenizer_lean.py": UNITS,
    "test_tray_and_config.py": PROCESSES,
    "test_tray_client_learning.py": PROCESSES,
    "test_tray_display.py": PROCESSES,
    "test_ui_display.py": PROCESSES,  # Xvfb, openbox, trayer, a pytest per language
    "test_tray_learning.py": PROCESSES,
    "test_tray_menu.py": UNITS,
    "test_tray_resident.py": PROCESSES,  # a real `memevo tray` (offscreen) with its test hook
    "test_tray_sync.py": PROCESSES,  # offscreen Qt, git with a real bare remote
    "test_watcher.py": PROCESSES,
    "test_wizard.py": UNITS,
    "test_wizard_notes.py": UNITS,
}
# Longest first, from "slowest modules" of a full run (.ci/run, three workers): 266 s down to 35 s.
LONGEST_GROUPS = (
    "encoder-backends",
    "test_codebuddy_cli.py",
    "test_installed_journey.py",
    "test_processes.py",
    "test_repair.py",
    "test_soak.py",
    "test_recall_model.py",
    "test_recall_cli.py",
    "test_mcp.py",
    "test_mcp_robust.py",
    "keyring",
    "test_tray_display.py",
    "test_sync.py",
    "test_hook_relay.py",
    "test_cli_processes.py",
    "test_tray_learning.py",
    "test_claude_cli_learning.py",
    "test_claude_cli.py",
    "test_service.py",
)
# The tests marked `quiet`, from every module: one group, the last (MachineShare).
QUIET_GROUP = "quiet"
# Modules that share a worker for a session fixture costly to make twice (the torch model).
SHARED_GROUPS = {"test_onnx_build.py": "encoder-backends", "test_encoder_onnx.py": "encoder-backends"}
MODEL_FIXTURES = {"provisioned_model", "encoder", "st_encoder", "side_host"}
GUI_FIXTURES = {"qtbot", "qapp"}
KEYRING_FIXTURES = {"clean_keyring", "keyring_unlocked"}


def lanes_of(item: pytest.Item) -> set[str]:
    """The marks a test gets: its module's lane, and model / gui / keyring by its fixtures."""
    names = set(getattr(item, "fixturenames", ()))
    marks = {MODULE_LANES.get(item.path.name, PROCESSES)}
    if names & MODEL_FIXTURES:
        marks.add("model")
    if names & GUI_FIXTURES:
        marks.add("gui")
    if names & KEYRING_FIXTURES or item.get_closest_marker("keyring"):
        marks.add("keyring")
    if marks & {PROCESSES, E2E} == set() and not item.get_closest_marker("slow"):
        marks.add("quick")
    return marks


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's worker reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Lane marks, and for pytest-xdist (`--dist loadgroup`) one group per module — its
    module-scoped services start once — except that every keyring test shares one worker (they
    share the one test keyring) and the quiet tests run as one group, last (MachineShare).
    Called first: pytest-xdist's own hook, registered after this file, would otherwise run
    before the marks exist and send every test wherever (tests/test_lanes_workers.py checks)."""
    groups: dict[int, str] = {}
    for item in items:
        marks = lanes_of(item)
        for mark in sorted(marks):
            item.add_marker(mark)
        if item.get_closest_marker("quiet") is not None:
            group = QUIET_GROUP
        elif "keyring" in marks:
            group = "keyring"
        else:
            group = SHARED_GROUPS.get(item.path.name, item.path.name)
        item.add_marker(pytest.mark.xdist_group(group))
        groups[id(item)] = group
    # The longest groups first (pytest-xdist hands groups out in the order they first appear):
    # the two workers then end together instead of one idling through another's last minutes.
    # Order inside a module is kept.
    first = {name: rank for rank, name in enumerate(LONGEST_GROUPS)}
    last = {
        QUIET_GROUP: len(first) + 1
    }  # the quiet tests after everything: the other worker is done or nearly
    items.sort(key=lambda item: first.get(groups[id(item)], last.get(groups[id(item)], len(first))))


ALL_CPUS: set[int] = set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else set()
ONE_THREAD_POOLS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist the first workers, one per CPU, each run with every process their
    tests start on that CPU. Unpinned, two workers' model runs (torch's and onnxruntime's pools,
    one thread per CPU, spinning between steps) fought over both cores and every model test ran
    3-8 times slower; pinned, torch and onnxruntime size their pools to the one CPU, and a
    test's timing no longer depends on the other worker. A worker beyond the CPUs floats, with
    one-thread pools (OMP_NUM_THREADS=1, which torch, OpenBLAS and our onnxruntime sizing
    honour): pinned round robin it shared one CPU with another worker while the other CPU
    idled whenever its worker waited on a process (ci15: the two cores 79% busy).
    MEMEVO_TEST_PIN=0 leaves the workers unpinned."""
    _no_keyring_for_the_run(config)
    _session_home(config)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    cpus = sorted(ALL_CPUS)
    if worker.startswith("gw") and count > 0 and os.environ.get("MEMEVO_TEST_PIN", "1") != "0":
        index = int(worker[2:])
        if index < len(cpus):
            os.sched_setaffinity(0, {cpus[index]})
        else:
            os.environ.update(dict.fromkeys(ONE_THREAD_POOLS, "1"))


class MachineShare:
    """A test marked `quiet` runs with no other test running: it checks what the product does
    within its own deadline (a hook's 3.5 s to its service), which another worker's load on the
    two cores would change. Under pytest-xdist every test holds a shared lock on one file of the
    run and a quiet test an exclusive one; a gate in front of it keeps the other worker's next
    tests behind a quiet test that waits (without it, the workers' shared locks, taken again
    between tests, kept a quiet test waiting for minutes). Consecutive quiet tests keep the
    machine (they run as one group at the end of the run: pytest_collection_modifyitems), so the
    other worker waits once, not once a test. With one process nothing is ever contended."""

    def __init__(self, folder: Path) -> None:
        self.gate = (folder / "quiet-gate.lock").open("a")
        self.machine = (folder / "quiet-machine.lock").open("a")
        self.alone = False
        self.pinned = os.sched_getaffinity(0)
        self.pools: dict[str, str] = {}  # a floating worker's one-thread caps, lifted while alone

    def enter(self, quiet: bool) -> None:
        import fcntl

        if not quiet:
            fcntl.flock(self.gate, fcntl.LOCK_EX)  # behind a quiet test that waits, never ahead
            fcntl.flock(self.gate, fcntl.LOCK_UN)
            fcntl.flock(self.machine, fcntl.LOCK_SH)
        elif not self.alone:
            fcntl.flock(self.gate, fcntl.LOCK_EX)
            fcntl.flock(self.machine, fcntl.LOCK_EX)  # the other worker's current test ends
            self.alone = True
            self.pinned = os.sched_getaffinity(0)
            os.sched_setaffinity(0, ALL_CPUS)  # alone on the machine: every CPU, as a user's has
            self.pools = {name: os.environ.pop(name) for name in ONE_THREAD_POOLS if name in os.environ}

    def leave(self, quiet: bool, next_quiet: bool) -> None:
        import fcntl

        if quiet and next_quiet:
            return
        if self.alone:
            os.sched_setaffinity(0, self.pinned)
            os.environ.update(self.pools)
            self.alone = False
            fcntl.flock(self.machine, fcntl.LOCK_UN)
            fcntl.flock(self.gate, fcntl.LOCK_UN)
        else:
            fcntl.flock(self.machine, fcntl.LOCK_UN)


def _is_quiet(item: pytest.Item | None) -> bool:
    return item is not None and item.get_closest_marker("quiet") is not None


def _machine_share(item: pytest.Item) -> MachineShare | None:
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return None
    share = getattr(item.config, "_memevo_machine_share", None)
    if share is None:
        share = MachineShare(item.config._tmp_path_factory.getbasetemp().parent)  # type: ignore[attr-defined]
        item.config._memevo_machine_share = share  # type: ignore[attr-defined]
    return share


# -- shared fixtures: one definition each, used across the test modules ----------------------------
@pytest.fixture
def host(store: Store, clock: FakeClock) -> Iterator[Any]:
    """An in-process service (ServiceHost) over the test's store and fake clock, with no model
    loaded: what the panel, the settings, the tray and the dialog talk to."""
    from memevo.core.service.host import ServiceHost

    service = ServiceHost(store, clock)
    yield service
    service.close()


@pytest.fixture
def model_host(
    store: Store, encoder: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """`host` with the real model loaded, and no side API key in the environment (learning=auto
    then means the client's own model). `side_host` above is the one with a side API key."""
    from memevo.core.recall.engine import RecallEngine
    from memevo.core.service.host import ServiceHost

    monkeypatch.delenv("MEMEVO_SIDE_API_KEY", raising=False)
    service = ServiceHost(store, clock)
    service.engine = RecallEngine(store, encoder, clock)
    yield service
    service.close()


@pytest.fixture
def engine(store: Store, encoder: Any, clock: FakeClock) -> Any:
    """The recall engine with the real model over the test's store, outside any service."""
    from memevo.core.recall.engine import RecallEngine

    return RecallEngine(store, encoder, clock)


@pytest.fixture
def home(isolated_home: Path) -> Path:
    """The test's HOME with all four clients installed, each client file holding another tool's
    entries and the Node tool's (tests/clienthome.py): what setup, uninstall and repair meet."""
    from clienthome import seed_clients

    root = Path(os.environ["HOME"])
    seed_clients(root)
    return root


# -- where the time goes: each module's total beside pytest's --durations ---------------------------
MODULE_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    module = report.nodeid.split("::", 1)[0]
    MODULE_SECONDS[module] = MODULE_SECONDS.get(module, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The 15 longest modules (setup, call and teardown of every test summed), and all of them in
    .cache/test-durations.json for the next run's order (longest first, `pytest_xdist` below)."""
    import json

    if not MODULE_SECONDS or "PYTEST_XDIST_WORKER" in os.environ:
        return
    ranked = sorted(MODULE_SECONDS.items(), key=lambda item: -item[1])
    terminalreporter.write_sep("=", "slowest 15 modules (all phases)")
    for module, seconds in ranked[:15]:
        terminalreporter.write_line(f"{seconds:8.1f}s  {module}")
    config = terminalreporter.config
    if config.option.markexpr not in ("", "not static") or config.option.keyword:
        return  # a lane's or a selection's totals are not its modules' whole
    out = REPO / ".cache" / "test-durations.json"
    try:
        known = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    known.update({module: round(seconds, 1) for module, seconds in ranked})
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(known, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(out)


# -- each test's run: its share of the machine, and with MEMEVO_TEST_PROFILE its idle time --------
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Setup, call and teardown of a test inside its share of the machine (MachineShare: a
    quiet test alone). MEMEVO_TEST_PROFILE=<file> appends one JSON line a test: its wall time
    (the wait for its share included), its own CPU, its reaped children's, the worker —
    `python3 tests/profile_report.py <file>` ranks where the workers sat idle."""
    import json
    import resource
    import time

    def cpu() -> tuple[float, float]:
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime

    target = os.environ.get("MEMEVO_TEST_PROFILE")
    started, (own0, kids0) = time.monotonic(), cpu()
    share, quiet = _machine_share(item), _is_quiet(item)
    if share is not None:
        share.enter(quiet)
    try:
        yield
    finally:
        if share is not None:
            share.leave(quiet, _is_quiet(nextitem))
    if target:
        wall, (own1, kids1) = time.monotonic() - started, cpu()
        line = {
            "test": item.nodeid,
            "wall": round(wall, 2),
            "own": round(own1 - own0, 2),
            "children": round(kids1 - kids0, 2),
            "worker": os.environ.get("PYTEST_XDIST_WORKER", ""),
        }
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
