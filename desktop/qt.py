"""The one place the GUI imports Qt from (the Anki pattern): swap bindings here, nowhere else."""

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal  # noqa: F401
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPixmap  # noqa: F401
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon  # noqa: F401
