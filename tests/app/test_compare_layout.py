"""The Compare window's charts and table laid out so that nothing overlaps or is cut off:
the chart's axis title, tick labels and legend in English and Chinese fonts' metrics."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics

import i18n
from app.engines import compare_dialog
from app.engines.chart import LineChart, Series
from app.engines.compare_dialog import CompareDialog
from core import compare
from tests.app.conftest import WAIT_MS
from tests.app.test_compare_window import open_compare

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


def results(setups: int = 2) -> list[compare.Result]:
    return [compare.Result(f"setup {n}: SmolLM2 135M Instruct (Q4_1)", level, 9.0 * level, 9.0, 0.3, 0.5, 0)
            for n in range(setups) for level in compare.LEVELS]


def header_whole(dialog: CompareDialog) -> None:
    header = dialog.table.horizontalHeader()
    for column in range(dialog.table.columnCount()):
        label = dialog.table.horizontalHeaderItem(column).text()
        needed = header.fontMetrics().horizontalAdvance(label)
        assert header.sectionSize(column) > needed, (label, header.sectionSize(column), needed)


def visible_rows(dialog: CompareDialog) -> int:
    table = dialog.table
    viewport = table.viewport().rect()
    return sum(1 for row in range(table.rowCount())
               if viewport.contains(table.visualRect(table.model().index(row, 0))))


def test_the_table_s_headers_are_whole_before_a_run_and_its_rows_have_room_after(qtbot, make_window) -> None:
    window = make_window()
    dialog = open_compare(window)
    qtbot.waitExposed(dialog)
    assert dialog.table.rowCount() == 0
    header_whole(dialog)  # before a run: no "rst word p50 / p9"
    dialog.results = results()  # what a run of 2 setups at 1, 2, 4 and 8 chats at once shows
    dialog._show()
    qtbot.waitUntil(lambda: visible_rows(dialog) >= compare_dialog.VISIBLE_ROWS, timeout=WAIT_MS)
    header_whole(dialog)
    assert dialog.throughput.height() >= dialog.throughput.minimumHeight()


def test_seconds_are_written_as_the_language_writes_them(qtbot, make_window, monkeypatch) -> None:
    def chinese(context: str, source: str, _note: str | None, n: int) -> str:
        if (context, source) == ("engines.compare", "{seconds} s"):
            return "{seconds} 秒"
        return source.replace("%n", str(n)) if n >= 0 else source

    window = make_window()
    monkeypatch.setattr(i18n, "_backend", chinese)  # after the window set its language
    dialog = open_compare(window)
    assert dialog.target.text() == "2.00 秒"
    dialog.results = results(1)
    dialog._show()
    assert dialog.table.item(0, 4).text() == "0.30 秒 / 0.50 秒"
