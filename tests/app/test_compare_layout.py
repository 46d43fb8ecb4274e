"""The Compare window's charts and table laid out so that nothing overlaps or is cut off:
the chart's axis title, tick labels and legend in English and Chinese fonts' metrics."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics

from app.engines.chart import LineChart, Series

pytestmark = [pytest.mark.gui]


def fonts() -> list[QFont]:
    chosen = [QFont()]
    chinese = QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
    if chinese:
        font = QFont(chinese[0])
        font.setPointSizeF(QFont().pointSizeF())
        chosen.append(font)
    return chosen


def apart(a: QRectF, b: QRectF) -> bool:
    return not a.intersects(b)


@pytest.mark.parametrize("x_label", ["", "同时进行的对话数"])
@pytest.mark.parametrize("size", [(280, 220), (380, 260), (440, 300)])
def test_the_axis_title_ticks_and_legend_do_not_overlap(qtbot, x_label: str, size: tuple[int, int]) -> None:
    for font in fonts():
        chart = LineChart("Tokens a second, in all", "tokens/s", x_label=x_label)
        qtbot.addWidget(chart)
        chart.setFont(font)
        chart.resize(*size)
        chart.set_series([Series("local: SmolLM2", ((1, 9.0), (2, 13.6), (4, 20.0), (8, 30.0))),
                          Series("Corp GPU ▸ Llama", ((1, 35.0), (2, 52.0), (4, 80.0), (8, 121.0)))])
        shape = chart.arrangement(QFontMetrics(font))
        for row in shape.legend:
            assert apart(shape.x_title, row), (font.family(), shape.x_title, row)
            for tick, _ in shape.x_ticks:
                assert apart(tick, row)
        for tick, label in shape.x_ticks:
            assert apart(tick, shape.x_title), label
            assert tick.top() >= shape.plot.bottom()  # under the plot
            for value, text in shape.y_ticks:
                assert apart(tick, value), (label, text)  # "1" clear of the value axis's "0"
        assert shape.x_title.top() >= max(t.bottom() for t, _ in shape.x_ticks)
        assert all(r.bottom() <= chart.height() for r in shape.legend)
        chart.grab()  # paints with that layout
