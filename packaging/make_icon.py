#!/usr/bin/env python3
"""Draw Hearth's icon (a flame in a rounded square) into assets/hearth.png with Qt."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, QRectF, Qt  # noqa: E402
from PySide6.QtGui import (  # noqa: E402
    QBrush,
    QColor,
    QGuiApplication,
    QImage,
    QLinearGradient,
    QPainter,
    QPainterPath,
)


def draw(size: int = 512) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    p = QPainter(image)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size / 512
    background = QLinearGradient(0, 0, 0, size)
    background.setColorAt(0, QColor("#3b2a4d"))
    background.setColorAt(1, QColor("#1d1526"))
    p.setBrush(QBrush(background))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawRoundedRect(QRectF(16 * s, 16 * s, 480 * s, 480 * s), 96 * s, 96 * s)

    def flame(scale: float, top: QColor, bottom: QColor) -> None:
        path = QPainterPath(QPointF(256 * s, (96 + (1 - scale) * 200) * s))
        path.cubicTo(QPointF((256 + 150 * scale) * s, (220 + (1 - scale) * 100) * s),
                     QPointF((256 + 150 * scale) * s, 400 * s), QPointF(256 * s, 416 * s))
        path.cubicTo(QPointF((256 - 150 * scale) * s, 400 * s),
                     QPointF((256 - 150 * scale) * s, (220 + (1 - scale) * 100) * s),
                     QPointF(256 * s, (96 + (1 - scale) * 200) * s))
        gradient = QLinearGradient(0, 96 * s, 0, 416 * s)
        gradient.setColorAt(0, top)
        gradient.setColorAt(1, bottom)
        p.setBrush(QBrush(gradient))
        p.drawPath(path)

    flame(1.0, QColor("#ffb347"), QColor("#e8451e"))
    flame(0.55, QColor("#fff3b0"), QColor("#ffb347"))
    p.end()
    return image


if __name__ == "__main__":
    app = QGuiApplication(sys.argv)
    target = Path(__file__).resolve().parent.parent / "assets" / "hearth.png"
    draw(512).save(str(target))
    print(f"wrote {target}")
