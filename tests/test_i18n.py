"""Chinese and English UI: the catalogue covers every tr() string and its .qm is current; the
language follows the system locale (MEMEVO_LANG overrides)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from deadlines import HANG_S

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
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=full, timeout=HANG_S
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected


LEARNING_PROBE = (
    "from memevo.desktop.qt import QApplication; from memevo.desktop.i18n import install_translator;"
    "from memevo.desktop import learning_texts as t; from memevo.core.learning.readiness import LearningState;"
    "app = QApplication([]); install_translator(app);"
    "print(t.mode_label('auto')); print(t.proposer({'origin': 'client'}, 'claude'));"
    "print(t.proposer({}, 'cursor')); print(t.effective(LearningState(False, False, 'auto')))"
)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("zh", ["自动（推荐）", "Claude Code 自己的模型", "旁路模型", "由你的编程助手的模型提议记忆"]),
        (
            "en",
            [
                "Automatic (recommended)",
                "Claude Code's own model",
                "the side judge",
                "your coding assistant's model proposes memories",
            ],
        ),
    ],
)
def test_who_learns_is_said_in_the_ui_language(language: str, expected: list[str]) -> None:
    full = os.environ | {"QT_QPA_PLATFORM": "offscreen", "MEMEVO_LANG": language}
    result = subprocess.run(
        [sys.executable, "-c", LEARNING_PROBE], capture_output=True, text=True, env=full, timeout=HANG_S
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected


def test_who_learns_has_one_wording_per_code_and_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """core.learning.readiness words each code in English (the command line says it); the
    desktop words the same codes through tr(), and in English says the same words."""
    from memevo.core.learning import readiness
    from memevo.desktop import learning_texts

    monkeypatch.setattr(learning_texts, "tr", lambda text: text)
    assert learning_texts.now_words() == readiness.NOW_WORDS
