"""Runtime hook replacing PyInstaller's pyi_rth_pyside6 (see memevo.spec).

That hook imports PySide6.QtCore at every start only to check whether Qt's prefix needs an
embedded qt.conf; PySide6 wheels embed one themselves. Importing Qt (a slow import) is wasted
on every CLI command and hook that never shows a window, so only the environment it sets
remains here; Qt itself loads when the tray app imports it.
"""

import os
import sys


def _qt_env():
    base = sys._MEIPASS  # type: ignore[attr-defined]
    qt = (
        os.path.join(base, "PySide6")
        if sys.platform.startswith("win")
        else os.path.join(base, "PySide6", "Qt")
    )
    os.environ["QT_PLUGIN_PATH"] = os.path.join(qt, "plugins")
    os.environ["QML2_IMPORT_PATH"] = os.path.join(qt, "qml")
    if sys.platform.startswith("win"):
        os.environ["PATH"] = base + os.pathsep + os.environ.get("PATH", "")


_qt_env()
del _qt_env
