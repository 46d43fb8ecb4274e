"""A line chart of figures against the number of chats at once, drawn with QPainter (Qt
Charts is in PySide6's add-ons, which Hearth does not ship): one line a setup, an earlier
run's lines dashed beside them, the points marked, a legend under the plot. Colours come
from a fixed set readable on light and dark themes; the text uses the palette's."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from i18n import translate

COLOURS = ("#2f7dd1", "#d1652f", "#3a9a4a", "#9a4ac2", "#c2a23a", "#3ab0b0", "#c24a7a", "#707070")


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[tuple[int, float], ...]  # (chats at once, value)
    dashed: bool = False  # an earlier run, for comparison
    setup_name: str = ""  # the setup it measures (its colour), when the label says more

    @property
    def setup(self) -> str:
        return self.setup_name or self.label


def nice_top(value: float) -> float:
    """The axis's top: 1, 2 or 5 times a power of ten at or above ``value``."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value)


class LineChart(QWidget):
    def __init__(self, title: str, unit: str, parent: QWidget | None = None, x_label: str = "") -> None:
        super().__init__(parent)
        self.title = title
        self.unit = unit
        self.x_label = x_label  # the axis under the plot ("chats at once" when empty)
        self.series: list[Series] = []
        self.threshold: float | None = None  # a target drawn across the plot (the first word's)
        self.setMinimumSize(280, 220)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAccessibleName(title)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(380, 260)

    def set_series(self, series: Sequence[Series]) -> None:
        self.series = list(series)
        names = "; ".join(f"{s.label}: " + ", ".join(f"{x} → {y:.2f}" for x, y in s.points) for s in self.series)
        self.setAccessibleDescription(names)  # what a screen reader says of the picture
        self.update()

    def levels(self) -> list[int]:
        return sorted({x for s in self.series for x, _ in s.points}) or [1]

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = self.palette().color(self.foregroundRole())
        grid = QColor(text)
        grid.setAlpha(50)
        metrics = QFontMetrics(self.font())
        line = metrics.height()
        legend_rows = max(1, len(self.series))
        plot = QRectF(self.rect()).adjusted(metrics.horizontalAdvance("0000.0") + 12, line * 1.6,
                                            -12, -(line * (legend_rows + 2.2)))
        painter.setPen(text)
        painter.drawText(QRectF(0, 0, self.width(), line * 1.4), Qt.AlignmentFlag.AlignCenter,
                         f"{self.title} ({self.unit})" if self.unit else self.title)
        top = nice_top(max([y for s in self.series for _, y in s.points] + [self.threshold or 0.0]))
        for step in range(5):  # the value axis, in fifths
            value = top * step / 4
            y = plot.bottom() - plot.height() * step / 4
            painter.setPen(grid)
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text)
            painter.drawText(QRectF(0, y - line / 2, plot.left() - 6, line),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             f"{value:.3g}")
        levels = self.levels()

        def x_of(level: int) -> float:
            if len(levels) == 1:
                return plot.center().x()
            return plot.left() + plot.width() * levels.index(level) / (len(levels) - 1)

        for level in levels:  # the chats-at-once axis, one tick a level measured
            painter.drawText(QRectF(x_of(level) - 30, plot.bottom() + 2, 60, line), Qt.AlignmentFlag.AlignCenter,
                             str(level))
        painter.drawText(QRectF(plot.left(), plot.bottom() + line, plot.width(), line), Qt.AlignmentFlag.AlignCenter,
                         self.x_label or translate("engines.chart", "chats at once"))
        if self.threshold is not None:
            y = plot.bottom() - plot.height() * min(self.threshold / top, 1.0)
            painter.setPen(QPen(text, 1, Qt.PenStyle.DotLine))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.drawText(QRectF(plot.left() + 4, y - line - 1, plot.width() - 8, line),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom,
                             translate("engines.chart", "target"))
        setups = list(dict.fromkeys(s.setup for s in self.series))  # a setup's lines share a colour
        for number, series in enumerate(self.series):
            colour = QColor(COLOURS[setups.index(series.setup) % len(COLOURS)])
            pen = QPen(colour, 2)
            if series.dashed:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            points = [QPointF(x_of(x), plot.bottom() - plot.height() * min(y / top, 1.0)) for x, y in series.points]
            for start, end in zip(points, points[1:], strict=False):
                painter.drawLine(start, end)
            painter.setBrush(colour)
            for point in points:
                painter.drawEllipse(point, 3, 3)
            legend_y = plot.bottom() + line * (2.2 + number)
            painter.drawLine(QPointF(plot.left(), legend_y), QPointF(plot.left() + 24, legend_y))
            painter.setPen(text)
            painter.drawText(QRectF(plot.left() + 30, legend_y - line / 2, plot.width() - 30, line),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             metrics.elidedText(series.label, Qt.TextElideMode.ElideMiddle, int(plot.width() - 30)))
        painter.end()
