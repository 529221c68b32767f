"""What a window shows a user, as text, and which of it is English: the Chinese-UI test walks
every window with these (a Chinese desktop entirely in Chinese).

`shown(widget)` reads what a user can see or hover: labels, buttons and their tooltips, menu
entries (submenus too), tab titles, group boxes, placeholders, combo box items, list items,
table headers and cells, read-only text boxes, window titles. `english(text)` finds words that
are English: once names, identifiers, paths,
commands, URLs and model ids are taken out, any English word of three letters or more."""

from __future__ import annotations

import re
from typing import Any

# Names and terms kept as they are in a Chinese UI (products, protocols, file names, units).
KEPT = (
    "memevo",
    "Claude Code",
    "CodeBuddy",
    "WorkBuddy",
    "Cursor",
    "MCP",
    "API",
    "URL",
    "JSON",
    "hook",
    "hooks",
    "CLAUDE.md",
    "AGENTS.md",
    "OpenAI",
    "ONNX",
    "HTML",
    "CPU",
    "GPU",
    "ms",
    "MB",
    "Node",
    "Keychain",
    "KWallet",
    "Linux",
    "macOS",
    "Windows",
    "Secret Service",
)
_CODE = re.compile(
    r"`[^`]*`"  # inline code
    r"|<[^>]+>"  # rich-text tags
    r"|#[0-9a-f]{4,}\b"  # memory ids
    r"|(?:~|\$?HOME|[A-Za-z]:)?[/\\][^\s，。；：、)）]*"  # paths
    r"|https?://\S*"
    r"|\b[\w.-]+\.(?:json|md|mdc|html|py|db|qm|log|desktop|plist)\b"
    r"|\b[a-z0-9]+(?:[_-][a-z0-9]+)+\b"  # identifiers: memory_resolve, e5-small
    r"|\b[a-z]+[A-Z]\w*\b"  # camelCase config keys
    r"|\b(?:claude|memevo) [a-z-]+(?: [-\w=./~$']+)*"  # commands: claude mcp add …, memevo setup
    r"|\b[A-Z][A-Z0-9_]{2,}\b"  # environment variables
    r"|\b\w+/\w[\w.-]*\b"  # model ids: intfloat/multilingual-e5-small
    r"|\b\w+(?:\.\w+)+\b"  # dotted names: memevo.cli, gpt-4o.mini
    r"|(?<!\w)--?[a-zA-Z][\w-]*"  # command-line flags
)
_WORDS = re.compile(r"[A-Za-z]{3,}(?:['’][a-z]+)?(?:[ \t]+[A-Za-z]{2,}(?:['’][a-z]+)?)*")


def english(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """English phrases left in `text` (empty: nothing to translate). `allowed`: what the user
    wrote (memory texts, folder names) and config keys, shown as they are."""
    plain = re.sub(r"&[a-z]+;", " ", text)
    for name in sorted(allowed, key=len, reverse=True):
        # `~`, not a space: a name inside a path or a command (HOME's name in the data folder's
        # `…/memevo-home` that `claude mcp add -e MEMEVO_HOME=…` carries) leaves it one piece
        plain = plain.replace(name, "~")
    plain = _CODE.sub(" ", plain.replace("&&", "").replace("&", ""))
    for name in KEPT:
        plain = re.sub(rf"(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])", " ", plain)
    return _WORDS.findall(plain)


_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")


def chinese(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """Chinese left in an English UI's `text` (what the user wrote, `allowed`, taken out)."""
    for name in sorted(allowed, key=len, reverse=True):
        text = text.replace(name, " ")
    return _CJK.findall(text)


def shown(root: Any) -> list[str]:
    """Every text `root` and its children show or explain on hover."""
    from memevo.desktop.qt import (
        QAbstractItemView,
        QComboBox,
        QLabel,
        QLineEdit,
        QListWidget,
        QMenu,
        QPlainTextEdit,
        QTabWidget,
        QWidget,
    )
    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QTextEdit

    texts: list[str] = []
    widgets = [root, *root.findChildren(QWidget)] if isinstance(root, QWidget) else [root]
    for widget in widgets:
        if isinstance(widget, QWidget) and widget.isWindow():
            texts.append(widget.windowTitle())
        if isinstance(widget, QWidget):
            texts.append(widget.toolTip())
        if isinstance(widget, (QLabel, QAbstractButton)):
            texts.append(widget.text())
        elif isinstance(widget, QGroupBox):
            texts.append(widget.title())
        elif isinstance(widget, QLineEdit):
            texts.append(widget.placeholderText())
        elif isinstance(widget, QPlainTextEdit):
            texts.append(widget.toPlainText())
            texts.append(widget.placeholderText())
        elif isinstance(widget, QTextEdit):
            texts.append(widget.toPlainText())
        elif isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
        elif isinstance(widget, QTabWidget):
            texts += [widget.tabText(i) for i in range(widget.count())]
        elif isinstance(widget, QMenu):
            texts += menu_texts(widget)
        if isinstance(widget, QListWidget):
            texts += [widget.item(i).text() for i in range(widget.count())]
        elif isinstance(widget, QAbstractItemView) and widget.model() is not None:
            texts += model_texts(widget.model())
    return [t for t in texts if t]


def menu_texts(menu: Any) -> list[str]:
    texts = [menu.title()]
    for action in menu.actions():
        texts += [
            action.text(),
            action.toolTip() if action.toolTip() != action.text().replace("&", "") else "",
        ]
        if action.menu() is not None:
            texts += menu_texts(action.menu())
    return [t for t in texts if t]


def model_texts(model: Any, rows: int = 50) -> list[str]:
    from memevo.desktop.qt import Qt

    texts = []
    for column in range(model.columnCount()):
        texts.append(
            str(model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole) or "")
        )
        for row in range(min(rows, model.rowCount())):
            index = model.index(row, column)
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = model.data(index, role)
                if isinstance(value, str):
                    texts.append(value)
    return texts


def untranslated(root: Any, allowed: tuple[str, ...] = (), language: str = "zh") -> dict[str, list[str]]:
    """Each shown text that holds words of the other language (English in a Chinese UI,
    Chinese in an English one), with those words."""
    other = english if language == "zh" else chinese
    found = {}
    for text in shown(root):
        words = other(text, allowed)
        if words:
            found[text] = words
    return found


WALK = ("tests/test_chinese_ui.py", "-k", "every_window")


def walk_in_a_process(env: dict[str, str]) -> Any:
    """tests/test_chinese_ui.py's walk of every window, in a pytest of its own with `env` (the
    UI language and the Qt platform are read when the process starts): the CompletedProcess."""
    import subprocess
    import sys
    from pathlib import Path

    from deadlines import HANG_S

    return subprocess.run(
        [*(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"), *WALK],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S * 4,
    )
