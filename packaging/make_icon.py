"""Draw the app icon: packaging/memevo.png (256x256) and packaging/memevo.ico (16-256 px).

A green circle with a white "M" drawn as a path (no font needed, so it renders the same on
any machine, also with QT_QPA_PLATFORM=offscreen):

    QT_QPA_PLATFORM=offscreen python3 packaging/make_icon.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
GREEN = "#2e7d32"  # the tray's "working" colour (desktop/tray.py STATE_COLORS)
SIZES = (16, 24, 32, 48, 64, 128, 256)


def render(size: int):  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen

    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size / 256.0
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(GREEN))
    painter.drawEllipse(QPointF(128 * s, 128 * s), 120 * s, 120 * s)
    pen = QPen(QColor("white"), 26 * s)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    m = QPainterPath(QPointF(74 * s, 178 * s))
    for x, y in ((74, 80), (128, 146), (182, 80), (182, 178)):
        m.lineTo(QPointF(x * s, y * s))
    painter.drawPath(m)
    painter.end()
    return image


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication(sys.argv[:1])  # noqa: F841 - QImage/QPainter need a Gui application
    png = HERE / "memevo.png"
    if not render(256).save(str(png), "PNG"):
        print(f"could not write {png}", file=sys.stderr)
        return 1
    ico = HERE / "memevo.ico"
    _write_ico(ico, [render(n) for n in SIZES])
    print(f"wrote {png} and {ico}")
    return 0


def _write_ico(path: Path, images) -> None:  # type: ignore[no-untyped-def]
    """A multi-size ICO with PNG-compressed entries (valid since Windows Vista); Qt's own
    ICO writer would store a single size."""
    import struct

    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    blobs = []
    for image in images:
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        buffer.close()
        blobs.append((image.width(), bytes(data.data())))
    header = struct.pack("<HHH", 0, 1, len(blobs))
    offset = len(header) + 16 * len(blobs)
    entries, payload = b"", b""
    for size, blob in blobs:
        dim = 0 if size >= 256 else size  # 0 means 256 in an ICO directory entry
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset + len(payload))
        payload += blob
    path.write_bytes(header + entries + payload)


if __name__ == "__main__":
    raise SystemExit(main())
