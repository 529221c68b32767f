"""The tray app at rest holds only what it shows: a real `memevo tray` (offscreen, set up, no side
API), its model loaded and a prompt answered, has imported none of the windows the user has not
opened, nor the keyring's chain, nor the learning worker's HTTP transport; it has mapped no font
file (nothing it shows at rest is text) and keeps none of qasync's ten idle executor threads.
Opening the panel then loads them, as it must."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import servicerun
from deadlines import HANG_S
from memevo.core.clock import FakeClock
from memevo.core.memories import live as memories
from memevo.core.service import client
from memevo.core.store.database import Store
from memevo.installer import state

# Loaded when the user opens a window, or once learning has a side API: never at rest.
NOT_AT_REST = (
    "memevo.desktop.panel",
    "memevo.desktop.memories_view",
    "memevo.desktop.settings",
    "memevo.desktop.settings_key",
    "memevo.desktop.logview",
    "memevo.desktop.status",
    "memevo.desktop.wizard",
    "keyring",
    "secretstorage",
    "cryptography",
    "httpx",
    "httpcore",
    "trio",
    "anyio",
)
FONT_FILES = (".ttf", ".otf", ".ttc", ".pfb", ".pcf", ".pcf.gz")
IDLE_EXECUTOR = "_QThreadWorker"  # qasync's default executor: ten QThreads at its first use


def _fonts(pid: int) -> list[str]:
    maps = Path(f"/proc/{pid}/maps").read_text(encoding="utf-8").splitlines()
    return sorted({line.split()[-1] for line in maps if line.endswith(FONT_FILES)})


def _thread_names(pid: int) -> list[str]:
    tasks = Path(f"/proc/{pid}/task")
    return [(task / "comm").read_text(encoding="utf-8").strip() for task in tasks.iterdir()]


def _loaded() -> set[str]:
    return set(client.call("ui_test", {"action": "loaded"}, timeout_s=30)["modules"])


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps (Linux)")
def test_the_tray_at_rest_loads_no_window_keyring_transport_or_font(
    data_dir: Path, provisioned_model: Any
) -> None:
    store = Store.open()
    memories.create(store, "project", "支付页新流程的灰度开关是 pay_new_flow_v2", FakeClock())
    store.close()
    state.mark_setup_run()  # no wizard
    hook = {"MEMEVO_TRAY_TEST_HOOK": "1"}
    with servicerun.offscreen_tray(data_dir, hook, without=("MEMEVO_SIDE_API_KEY",)) as tray:
        time.sleep(2.5)  # the panel was once built, hidden, 2 s after the start
        modules = _loaded()
        assert "memevo.desktop.tray" in modules and "PySide6.QtWidgets" in modules
        assert [name for name in NOT_AT_REST if name in modules] == []
        assert _fonts(tray.pid) == []
        assert IDLE_EXECUTOR not in _thread_names(tray.pid)

        client.call("ui_test", {"action": "menu"}, timeout_s=60)  # the menu, then each panel view
        deadline = time.monotonic() + HANG_S
        while client.call("ui_test", {"action": "state"}, timeout_s=30)["busy"]:
            assert time.monotonic() < deadline, "the panel's workers did not answer"
            time.sleep(0.2)
        opened = _loaded()
        assert {"memevo.desktop.panel", "memevo.desktop.settings", "keyring"} <= opened
        assert _fonts(tray.pid) != []  # its text is drawn
