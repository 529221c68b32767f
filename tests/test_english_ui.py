"""Issue 31, item 2, the other way: an English desktop entirely in English. The suite runs the
UI in Chinese, so this runs tests/test_chinese_ui.py's walk of every window in a pytest of its
own under MEMEVO_LANG=en, where it fails on any Chinese left (what the user wrote aside)."""

from __future__ import annotations

import os
from pathlib import Path

from uiwalk import walk_in_a_process

ROOT = Path(__file__).resolve().parent.parent


def test_every_window_is_in_english() -> None:
    env = os.environ | {"MEMEVO_LANG": "en", "QT_QPA_PLATFORM": "offscreen"}
    run = walk_in_a_process(env)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout
