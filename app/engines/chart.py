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

    def arrangement(self, metrics: QFontMetrics | None = None) -> ChartLayout:
        """Where the title, plot, ticks, axis title and legend go, in the widget's font."""
        values = [y for s in self.series for _, y in s.points] + [self.threshold or 0.0]
        return chart_layout(QRectF(self.rect()), metrics or QFontMetrics(self.font()), nice_top(max(values)),
                            self.levels(), self.x_label or translate("engines.chart", "chats at once"),
                            len(self.series))

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = self.palette().color(self.foregroundRole())
        grid = QColor(text)
        grid.setAlpha(50)
        metrics = QFontMetrics(self.font())
        line = metrics.height()
        shape = self.arrangement(metrics)
        plot, top = shape.plot, shape.top
        painter.setPen(text)
        painter.drawText(shape.title, Qt.AlignmentFlag.AlignCenter,
                         f"{self.title} ({self.unit})" if self.unit else self.title)
        for (rect, label), step in zip(shape.y_ticks, range(5), strict=True):  # the value axis, in quarters
            y = plot.bottom() - plot.height() * step / 4
            painter.setPen(grid)
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text)
            painter.drawText(rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, label)
        levels = self.levels()

        def x_of(level: int) -> float:
            return shape.x_ticks[levels.index(level)][0].center().x()

        for rect, label in shape.x_ticks:  # the chats-at-once axis, one tick a level measured
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
        painter.drawText(shape.x_title, Qt.AlignmentFlag.AlignCenter, shape.x_title_text)
        if self.threshold is not None:
            y = plot.bottom() - plot.height() * min(self.threshold / top, 1.0)
            painter.setPen(QPen(text, 1, Qt.PenStyle.DotLine))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.drawText(QRectF(plot.left() + 4, y - line - 1, plot.width() - 8, line),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom,
                             translate("engines.chart", "target"))
        setups = list(dict.fromkeys(s.setup for s in self.series))  # a setup's lines share a colour
        for series, row in zip(self.series, shape.legend, strict=False):
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
            legend_y = row.center().y()
            painter.drawLine(QPointF(row.left(), legend_y), QPointF(row.left() + 24, legend_y))
            painter.setPen(text)
            painter.drawText(row.adjusted(30, 0, 0, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             metrics.elidedText(series.label, Qt.TextElideMode.ElideMiddle, int(row.width() - 30)))
        painter.end()


@dataclass(frozen=True)
class ChartLayout:
    """The rectangles a chart is drawn in, each the size of its text: none overlaps another."""

    title: QRectF
    plot: QRectF
    top: float  # the value axis's top
    y_ticks: tuple[tuple[QRectF, str], ...]  # bottom (0) to top
    x_ticks: tuple[tuple[QRectF, str], ...]  # one a level, left to right
    x_title: QRectF
    x_title_text: str
    legend: tuple[QRectF, ...]  # one row a series, under the axis title


def chart_layout(area: QRectF, metrics: QFontMetrics, top: float, levels: Sequence[int], x_title: str,
                 legend_rows: int) -> ChartLayout:
    """Lays a chart out in ``area``: the title above the plot; the value ticks left of it;
    under it, the level ticks (below the value axis's "0", which is centred on the plot's
    bottom edge), then the axis title, then a gap and the legend, a row a series."""
    line = float(metrics.height())
    gap = max(2.0, line * 0.25)
    y_labels = [f"{top * step / 4:.3g}" for step in range(5)]
    label_width = max(metrics.horizontalAdvance(label) for label in [*y_labels, "0000.0"])
    rows = max(1, legend_rows)
    below = line / 2 + gap + line + line + gap * 2 + rows * line + gap  # ticks, title, gap, legend
    plot = area.adjusted(label_width + 12, line * 1.6, -12, -below)
    ticks = tuple((QRectF(plot.left() - 6 - metrics.horizontalAdvance(label), plot.bottom() - plot.height() * step / 4
                          - line / 2, metrics.horizontalAdvance(label), line), label)
                  for step, label in enumerate(y_labels))
    inset = min(plot.width() / 4, max(metrics.horizontalAdvance(str(level)) for level in levels or [1]) / 2 + gap)
    span = plot.adjusted(inset, 0, -inset, 0)  # the levels' ticks keep off the corners
    tick_top = plot.bottom() + line / 2 + gap

    def x_of(index: int) -> float:
        return span.center().x() if len(levels) <= 1 else span.left() + span.width() * index / (len(levels) - 1)

    x_ticks = tuple((QRectF(x_of(i) - metrics.horizontalAdvance(str(level)) / 2, tick_top,
                            metrics.horizontalAdvance(str(level)), line), str(level))
                    for i, level in enumerate(levels or [1]))
    x_title = metrics.elidedText(x_title, Qt.TextElideMode.ElideRight, max(0, int(plot.width())))
    title_width = float(metrics.horizontalAdvance(x_title))
    x_title_rect = QRectF(plot.center().x() - title_width / 2, tick_top + line, title_width, line)
    legend_top = x_title_rect.bottom() + gap * 2
    legend = tuple(QRectF(plot.left(), legend_top + row * line, plot.width(), line) for row in range(legend_rows))
    return ChartLayout(QRectF(area.left(), area.top(), area.width(), line * 1.4), plot, top, ticks, x_ticks,
                       x_title_rect, x_title, legend)
