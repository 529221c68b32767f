"""Chinese and English UI. Source strings are English; `resources/i18n/memevo_zh_CN.ts` holds
the Chinese, compiled to `.qm` by `pyside6-lrelease` (tests check the `.qm` is current and
that every string the code asks for is translated).

Every user-visible string goes through `tr("English text")` — the bare name is what
`pyside6-lupdate` extracts (with an empty context), so don't alias it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

I18N_DIR = Path(__file__).resolve().parent.parent / "resources" / "i18n"
_installed: list[Any] = []  # keep the QTranslator alive for the app's lifetime


def tr(text: str) -> str:
    from .qt import QCoreApplication

    return QCoreApplication.translate("", text)


def ui_language() -> str:
    """'zh' or 'en': MEMEVO_LANG overrides, else the system locale."""
    override = os.environ.get("MEMEVO_LANG", "").strip().lower()
    if override:
        return "zh" if override.startswith("zh") else "en"
    from .qt import QLocale

    return "zh" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def install_translator(app: Any) -> str:
    """Load the Chinese catalogue when the UI language is Chinese; returns the language used."""
    language = ui_language()
    if language != "zh" or _installed:
        return language
    from .qt import QTranslator

    translator = QTranslator()
    if translator.load(str(I18N_DIR / "memevo_zh_CN.qm")):
        app.installTranslator(translator)
        _installed.append(translator)
    return language
