"""Chinese and English UI. Source strings are English; `resources/i18n/memevo_zh_CN.ts` holds
the Chinese, compiled to `.qm` by `pyside6-lrelease` (tests check the `.qm` is current and
that every string the code asks for is translated).

Every user-visible string goes through `tr("English text")` — the bare name is what
`pyside6-lupdate` extracts (with an empty context), so don't alias it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core import envvars

I18N_DIR = Path(__file__).resolve().parent.parent / "resources" / "i18n"
_installed: list[Any] = []  # keep the QTranslator alive for the app's lifetime


def tr(text: str) -> str:
    from .qt import QCoreApplication

    return QCoreApplication.translate("", text)


def plural(count: int, one: str, many: str) -> str:
    """English's singular or plural of a counted text, each already through tr() (so lupdate
    extracts both; Chinese gives them one wording), with {count} filled in:
    plural(n, tr("{count} change is not saved yet."), tr("{count} changes are not saved yet."))."""
    return (one if count == 1 else many).format(count=count)


def listed(items: Iterable[str]) -> str:
    """Names in a row, with the language's own separator: "Cursor, WorkBuddy" in English,
    「Cursor、WorkBuddy」 in Chinese."""
    return tr(", ").join(items)


def ui_language() -> str:
    """'zh' or 'en': MEMEVO_LANG overrides, else the system locale."""
    override = (envvars.LANG.get() or "").strip().lower()
    if override:
        return "zh" if override.startswith("zh") else "en"
    from .qt import QLocale

    return "zh" if QLocale.system().language() == QLocale.Language.Chinese else "en"


def install_translator(app: Any) -> str:
    """Load the Chinese catalogues when the UI language is Chinese: memevo's own, and Qt's
    (qtbase: OK/Cancel, the folder chooser, the text fields' context menu), which ship with
    PySide6 (and in the packaged app, memevo.spec keeps the zh_CN ones). Returns the language used."""
    language = ui_language()
    if language != "zh" or _installed:
        return language
    from .qt import QLibraryInfo, QLocale, QTranslator

    QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    gaps = _QtGaps()  # installed first: asked last, after Qt's own catalogue
    app.installTranslator(gaps)
    _installed.append(gaps)
    for catalogue in (str(I18N_DIR / "memevo_zh_CN.qm"), f"{qt_folder}/qtbase_zh_CN.qm"):
        translator = QTranslator()
        if translator.load(catalogue):
            app.installTranslator(translator)
            _installed.append(translator)
        else:  # an English button in a Chinese window, not a failure: say where it was looked for
            import logging

            logging.getLogger("memevo.desktop").warning("no translations in %s", catalogue)
    return language


def qt_translated() -> bool:
    """Qt's own words (OK, Cancel, the file dialog) are in Chinese (tests read it)."""
    return len(_installed) > 2


# Qt's zh_CN catalogue lags its sources: these words of its own widgets have no translation
# there (the folder chooser's "Look in" and "Files of type" labels gained an accelerator, and
# the type of "/" it lists). Other words fall through to Qt's English (blank, before: this
# translator answered "" for them, which Qt takes as the translation).
QT_GAPS = {
    ("QFileDialog", "&Look in:"): "查找范围(&L)：",
    ("QFileDialog", "Files of &type:"): "文件类型(&T)：",
    ("QAbstractFileIconProvider", "Drive"): "驱动器",  # the type of "/" in the folder chooser
}


def _QtGaps() -> Any:
    from .qt import QTranslator

    class QtGaps(QTranslator):
        def translate(
            self, context: str, source: str, disambiguation: str | None = None, n: int = -1
        ) -> str | None:
            # None (a null QString) lets Qt fall back to the source text; "" would be taken as
            # the translation, and a string missing from the catalogues would show as nothing.
            return QT_GAPS.get((context, source))

        def isEmpty(self) -> bool:
            return False

    return QtGaps()
