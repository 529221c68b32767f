"""Chinese and English UI: the catalogue covers every tr() string and its .qm is current; the
language follows the system locale (MEMEVO_LANG overrides)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "from memevo.desktop.qt import QApplication; from memevo.desktop.i18n import install_translator, tr;"
    "app = QApplication([]); print(install_translator(app), tr('Open panel'), tr('Pending proposals ({count})').format(count=2))"
)


def test_every_string_is_translated_and_compiled() -> None:
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import translations
    finally:
        sys.path.pop(0)
    assert translations.check() == []


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"MEMEVO_LANG": "zh_CN"}, "zh 打开面板 待确认的记忆 (2)"),
        ({"MEMEVO_LANG": "en"}, "en Open panel Pending proposals (2)"),
        ({"MEMEVO_LANG": "", "LANG": "zh_CN.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, "zh 打开面板 待确认的记忆 (2)"),
        (
            {"MEMEVO_LANG": "", "LANG": "en_US.UTF-8", "LC_ALL": "en_US.UTF-8"},
            "en Open panel Pending proposals (2)",
        ),
    ],
)
def test_language_follows_the_locale(env: dict[str, str], expected: str) -> None:
    full = os.environ | {"QT_QPA_PLATFORM": "offscreen"} | env
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=full, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected
