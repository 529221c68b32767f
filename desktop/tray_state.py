"""What the tray shows, computed without Qt widgets of its own: the icon's drawing and state,
the menu's status line, the words for learning that is off, and the side API's failures."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..core.service.host import ServiceHost
from .i18n import plural, tr

if TYPE_CHECKING:
    from ..core.learning.readiness import LearningState


# The letter M in the 64 px icon, as the outline of its strokes (DejaVu Sans Bold's M, as
# the icon was once drawn in text, fills about the same box: x 18-44, y 19-43).
LETTER_M = (
    (18, 44), (18, 19), (26, 19), (31.5, 31), (37, 19), (45, 19), (45, 44),
    (39.5, 44), (39.5, 27.5), (34, 39), (29, 39), (23.5, 27.5), (23.5, 44),
)  # fmt: skip


def _icon(color: str):  # type: ignore[no-untyped-def]
    """The round M. The letter is a shape, not text: text would load the font database and a
    glyph cache (fontconfig, freetype: a weight in `tray_rss_mb`) into a tray that shows no
    text of its own until its menu or a tooltip opens."""
    from .qt import QColor, QIcon, QPainter, QPixmap, QPointF, QPolygonF, Qt

    pixmap = QPixmap(64, 64)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(color))
    painter.drawEllipse(4, 4, 56, 56)
    painter.setBrush(QColor("white"))
    painter.drawPolygon(QPolygonF([QPointF(x, y) for x, y in LETTER_M]))
    painter.end()
    return QIcon(pixmap)


STATE_COLORS = {
    "working": "#2e7d32",
    "learning-off": "#f9a825",
    "paused": "#9e9e9e",
    "problem": "#c62828",
    "loading": "#90a4ae",
}


def tray_state(host: ServiceHost) -> tuple[str, str]:
    """(state, tooltip): what the icon shows and how to fix it."""
    from ..core import config as config_mod
    from ..core.learning import readiness

    config = config_mod.load()
    if host.ctx.store_error:  # before engine_error, which then says the same: the model is not to blame
        return "problem", tr(
            "memevo: the memory store is damaged. Run “memevo repair” in a terminal: it stops memevo, "
            "keeps a copy of the damaged files and brings back everything that can be saved."
        )
    if host.ctx.engine_error:
        return "problem", tr(
            "memevo: {error}. Run “memevo model provision” in a terminal to see why."
        ).format(error=host.ctx.engine_error)
    if host.ctx.learner.error:
        return "problem", tr("memevo: nothing can be learned: {error}. Quit and start memevo again.").format(
            error=host.ctx.learner.error
        )
    if config.problems:
        return "problem", tr("memevo: config.json has a problem: {problem}").format(
            problem=config.problems[0]
        )
    broken = _facts_file_problems()
    if broken:  # a repository's .memevo/facts.md memevo refuses: nothing of it is read until fixed
        return "problem", facts_file_text(broken)
    if not config["enabled"]:
        # short: the menu's first line is cut at MENU_LINE_PX, and Resume is the next item
        return "paused", tr("memevo: paused — nothing injected or learned")
    if host.engine is None:
        from .core_texts import stage

        return "loading", tr("memevo: loading the model — {stage}").format(
            stage=stage(host.load_progress.text)
            + host.load_progress.describe()[len(host.load_progress.text) :]
        )
    count = len(host.engine.index)
    learning = readiness.state(config, host.ctx.keys.known())
    if not learning.active:
        return "learning-off", learning_off_text(learning, count)
    text = plural(count, tr("memevo: working — {count} memory"), tr("memevo: working — {count} memories"))
    if learning.mode == readiness.CLIENT:  # nothing to configure: the client's model proposes
        text += "\n" + tr("Learning: your coding assistant's model proposes memories.")
    else:
        text += "\n" + tr("Learning: the side judge proposes memories.")
    if learning.side and host.ctx.learner.side_error:  # recall works; what the user says is not analysed
        text += "\n" + tr("Learning waits: {reason}").format(reason=host.ctx.learner.side_error)
    if host.ctx.learner.cue_error:  # recall works; only the side model's cues wait (core/memories/cues.py)
        text += "\n" + tr("Recall cues wait: {reason}").format(reason=host.ctx.learner.cue_error)
    return "working", text


def _facts_file_problems() -> list[dict[str, str]]:
    from ..core.service import sharework

    return sharework.problems()  # kept in memory: no store read on the UI thread


def facts_file_text(broken: list[dict[str, str]]) -> str:
    """The tooltip for a shared facts file memevo refused: its message (the file and line) and
    what to do; the others counted."""
    text = tr(
        "memevo: a repository's shared facts file cannot be read: {problem}. Fix it (or put back the committed file), then choose Read again in the panel's Sharing tab; the facts read before stay."
    ).format(problem=broken[0]["problem"])
    if len(broken) > 1:
        text += "\n" + plural(
            len(broken) - 1,
            tr("{count} more facts file has a problem (Sharing tab)."),
            tr("{count} more facts files have a problem (Sharing tab)."),
        )
    return text


MENU_LINE_PX = 360  # the status line's width in the menu; the whole text is its tooltip


def menu_line(text: str, menu: Any) -> str:
    """The tooltip's first line, elided to fit the menu's status line."""
    from .qt import Qt

    first = text.split("\n", 1)[0]
    return str(menu.fontMetrics().elidedText(first, Qt.TextElideMode.ElideRight, MENU_LINE_PX))


def learning_off_text(learning: LearningState, count: int) -> str:
    """The tooltip while learning is off: chosen off, the side judge chosen but not set up,
    or the Node tool's blocking mode waiting for setup."""
    from ..core.learning import readiness

    if learning.chosen == readiness.OFF:
        return tr("memevo: memories kept: {count}. Learning is off, as chosen in Settings.").format(
            count=count
        )
    if learning.chosen == readiness.SIDE and not learning.legacy_blocking:
        return tr(
            "memevo: memories kept: {count}. Learning is off — it is set to the side judge, whose API is not set up. Set it up in Settings, or choose another learning mode."
        ).format(count=count)
    return tr(
        "memevo: memories kept: {count}. Learning is off — set the side API in Settings, or run “memevo setup” in a terminal."
    ).format(count=count)


_ACTIONABLE_SIDE_ERRORS = (
    "HTTP 401",
    "HTTP 403",
    "HTTP 404",
    "could not be reached",
    "not a chat/completions",
)


def recent_side_failures(host: ServiceHost) -> list[str]:
    """Distinct side API errors since the tray started that the user has to fix (key, URL, model)."""
    since = host.clock.now_ms() - int((time.monotonic() - host.ctx.started) * 1000)
    from ..core.learning import jobs

    errors = jobs.errors_since(host.store, since)
    return [error for error in errors if any(marker in error for marker in _ACTIONABLE_SIDE_ERRORS)]
