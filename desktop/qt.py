"""The one place the GUI imports Qt from (the Anki pattern): swap bindings here, nowhere else."""

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal  # noqa: F401
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPainter, QPixmap  # noqa: F401
from PySide6.QtWidgets import (  # noqa: F401
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSystemTrayIcon,
    QVBoxLayout,
    QWidget,
)
