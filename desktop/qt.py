"""The one place the GUI imports Qt from (the Anki pattern): swap bindings here, nowhere else."""

from PySide6.QtCore import (  # noqa: F401
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPainter, QPixmap  # noqa: F401
from PySide6.QtWidgets import (  # noqa: F401
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSystemTrayIcon,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
