"""Rows of a word-wrapped list tall enough for what they hold. Qt sizes a row from the list's
own font, and in an English UI that font has no Chinese: a Chinese line is drawn in a taller
fallback font, the row's second line no longer fits and the first is cut with "…". The text is
laid out with the fallback fonts here, and the row gets that height."""

from __future__ import annotations

from typing import Any

from .qt import QRect, QSize, QStyledItemDelegate, Qt


class WrappedRows(QStyledItemDelegate):
    """For a QListWidget with word wrap: each row as tall as its text laid out at the list's width."""

    MARGIN = 4  # the style's padding above and below a row's text

    def sizeHint(self, option: Any, index: Any) -> QSize:
        hint = super().sizeHint(option, index)
        text = str(index.data() or "")
        view: Any = self.parent()
        width = max(view.viewport().width() - 12, 100) if view is not None else 400
        laid_out = option.fontMetrics.boundingRect(
            QRect(0, 0, width, 1_000_000), int(Qt.TextFlag.TextWordWrap), text
        )
        return QSize(hint.width(), max(hint.height(), laid_out.height() + self.MARGIN))
