"""Issue 31's walk on a real display: tests/test_chinese_ui.py's walk of every window (the
wizard through a setup run, the tray menu and its Clients submenus, each panel tab with
something in it, the add / edit / history / purge / import dialogs, the folder chooser, the
notifications) run on the xcb platform of a real X server (Xvfb, openbox as window manager,
trayer as system tray: tests/xdisplay.py), once in Chinese and once in English. Each run
fails on the other language's words (tests/uiwalk.py), on a platform other than xcb, and on
a window the X server does not show. Offscreen, fonts, Qt's own translations and the window
manager are not the desktop's: this is the walk a user's screen gets."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import xdisplay
from uiwalk import walk_in_a_process

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def x_display() -> Iterator[str]:
    with xdisplay.x_display() as display:
        yield display


@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_every_window_on_a_real_display_is_in_one_language(x_display: str, language: str) -> None:
    env = os.environ | {"MEMEVO_LANG": language, "QT_QPA_PLATFORM": "xcb", "DISPLAY": x_display}
    env.pop("WAYLAND_DISPLAY", None)
    run = walk_in_a_process(env)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout
    assert "qt.qpa" not in run.stdout + run.stderr  # Qt said nothing about its platform
