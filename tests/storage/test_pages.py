"""Page roles: contents, lists and index pages are "nav", front matter is "front", and
hostile text (huge lines, a flood of lines, odd labels) costs bounded time."""

from __future__ import annotations

import pytest

from storage.documents import pages
from storage.documents.pages import FRONT, NAV, ROLES, is_nav, nav_share, page_roles

# Hostile text must cost bounded time. No wall-clock assertion (a busy machine would flake
# it): a pattern that backtracks without end fails this module's time limit instead.
pytestmark = pytest.mark.timeout(120)

CONTENTS = """Port of Valmora - Harbor Operations Manual
Contents
1 Pilotage ................................................................ 1
1.1 When a pilot is required .............................................. 1
1.2 Boarding .............................................................. 1
2 Dangerous goods ......................................................... 2
2.1 Permits for hazardous cargo ........................................... 2
Index ..................................................................... 10
Page ii"""

CONTENTS_ZH = """瓦尔莫拉港港务操作手册
目录
第一章　引航 ............................................. 1
1.1 强制引航 ............................................. 1
1.2 登船地点 ............................................. 1
第二章　危险货物 ......................................... 2
表1　危险货物指定泊位 …………………………………… 2
第 ii 页"""

INDEX = """Port of Valmora - Harbor Operations Manual Index
Index
anchorage E1, 2
ballast water, 8
breakwater, 3, 7
HRB-7732, 1, 2, 5
inner basin, 2, 9
Page 10"""

INDEX_ZH = """瓦尔莫拉港港务操作手册 索引
索引
HRB-7731\u30002
东航道\u30004
加油码头\u30003
夜间抵港\u30005, 6, 7
第 9 页"""

REVISIONS = """Changes in Edition 7
Revision history
Section Change
1.3 New pilotage charges for vessels over 100 meters
3.2 Fuel dock opening hours extended
4.2 Permit HRB-7732: application now 72 hours ahead
5.1 Permit HRB-7733 introduced
Page iii"""

CONTENTS_WITHOUT_LEADERS = """Contents
1 Working time 1
1.1 Working hours 1
1.2 Overtime 1
2 Leave 2
2.1 Annual leave 2"""

BODY = """Port of Valmora - Harbor Operations Manual 1 Pilotage
1 Pilotage
Valmora is approached through a buoyed fairway of about four nautical miles with strong cross
currents on the ebb. Local knowledge is therefore required for larger vessels.
1.1 When a pilot is required
Pilotage is compulsory for vessels longer than 40 meters and for any vessel carrying dangerous
goods, whatever its length. Masters must request a harbor pilot at least six hours before.
1.2 Boarding
Pilots board at the outer buoy, from the pilot launch Gaviota, on the lee side.
Page 1"""

BODY_ZH = """瓦尔莫拉港港务操作手册 第一章　引航
第一章　引航
瓦尔莫拉港的进港航道长约四海里，落潮时横流很强，因此较大的船舶需要熟悉当地情况的引航员。
1.1 强制引航
船长超过四十米的船舶以及运载危险货物的船舶必须接受引航。
1.2 登船地点
引航员在外浮标处从引航艇登船。
第 1 页"""

COVER = "Port of Valmora\nHarbor Operations Manual\nEdition 7, March 2024"
SUMMARY = ("Port of Valmora - Harbor Operations Manual\nSummary of key rules\nThis manual sets out "
           "the rules for every vessel: pilotage, dangerous goods, fees, tugs and emergencies.\n"
           "Page iv")


@pytest.mark.parametrize("text", [CONTENTS, CONTENTS_ZH, INDEX, INDEX_ZH, REVISIONS,
                                  CONTENTS_WITHOUT_LEADERS])
def test_contents_lists_and_indexes_are_nav(text: str) -> None:
    assert nav_share(text.splitlines()) >= pages.NAV_SHARE
    assert is_nav(text)


@pytest.mark.parametrize("text", [BODY, BODY_ZH, COVER, SUMMARY, ""])
def test_body_pages_are_not(text: str) -> None:
    assert not is_nav(text)


def test_too_few_lines_are_never_nav() -> None:
    assert nav_share(["1 Pilotage ....... 1", "2 Fees ....... 2", "3 Tugs ....... 3"]) == 0.0
    assert nav_share(["1 Pilotage ....... 1", "", "  ", "2 Fees ....... 2", "3 Tugs ....... 3",
                      "4 Waste ....... 4"]) == 1.0  # blank lines do not count


def test_roman_labels_before_the_first_arabic_one_are_front_matter() -> None:
    texts = [COVER, CONTENTS, SUMMARY, BODY, BODY, INDEX]
    labels = ["i", "ii", "iii", "1", "2", "3"]
    assert page_roles(texts, labels) == [FRONT, NAV, FRONT, "", "", NAV]
    # labels of an appendix in roman numbers, after the body, are not front matter
    texts = [BODY, BODY, SUMMARY]
    assert page_roles(texts, ["1", "2", "iii"]) == ["", "", ""]
    # roman labels alone say nothing: which pages are the front?
    assert page_roles([COVER, SUMMARY, BODY], ["i", "ii", "iii"]) == ["", "", ""]


def test_without_labels_the_pages_before_the_first_entry_are_front_matter() -> None:
    texts = [COVER, CONTENTS, SUMMARY, BODY, BODY, INDEX]
    assert page_roles(texts) == [FRONT, NAV, FRONT, "", "", NAV]
    assert page_roles(texts, ["1", "2", "3", "4", "5", "6"]) == [FRONT, NAV, FRONT, "", "", NAV]
    zh = [COVER, CONTENTS_ZH, SUMMARY, BODY_ZH, BODY_ZH, INDEX_ZH]
    assert page_roles(zh) == [FRONT, NAV, FRONT, "", "", NAV]


def test_no_contents_no_front_matter() -> None:
    assert page_roles([COVER, SUMMARY, BODY, BODY]) == ["", "", "", ""]
    # a contents whose first entry begins nowhere after it marks nothing as front
    assert page_roles([COVER, CONTENTS, SUMMARY, SUMMARY]) == ["", NAV, "", ""]
    # nor does a list late in a long document make its first half "front matter"
    late = [BODY] * 30 + [CONTENTS] + [BODY] * 3
    assert page_roles(late) == [""] * 30 + [NAV] + [""] * 3


def test_odd_labels_are_borne() -> None:
    texts = [COVER, SUMMARY, BODY, BODY]
    for labels in ([], ["i"], ["i", "ii", "1", "2", "3", "4", "5"], ["", "", "", ""],
                   ["A-1", "A-2", "B-1", "B-2"], ["i" * 10_000, "ii", "1", "2"],
                   ["\x00", "ⅱ", "١", "1"], [" ii ", "iii", "1", "2"]):
        roles = page_roles(texts, labels)
        assert len(roles) == len(texts) and set(roles) <= set(ROLES)
    assert page_roles(texts, ["i", "ii", "1", "2"]) == [FRONT, FRONT, "", ""]
    assert page_roles(texts, ["i" * 10_000, "ii", "1", "2"]) == ["", FRONT, "", ""]  # too long
    assert page_roles(texts, ["i", "ii", "١", "1"]) == [FRONT, FRONT, "", ""]  # an ASCII number


@pytest.mark.parametrize("line", [
    "." * 100_000, "." * 100_000 + " 12", "…" * 100_000 + " 1", "a" + "," * 100_000,
    "a, 1" * 25_000, "1 " + " " * 100_000 + "x", "1.1" + " " * 100_000, "1 " + "a " * 50_000 + "1",
    " " * 100_000 + "1", "x" * 100_000,
])
def test_a_huge_line_costs_little_and_is_no_entry(line: str) -> None:
    nav_share([line] * 50)
    assert nav_share([line] * 50) == 0.0
    page_roles(["\n".join([line] * 5)] * 20)


@pytest.mark.parametrize("line", [
    "." * 399, "a" + ", 1" * 130, "a, 1" + ", 1" * 60 + "x", "1 " + " " * 85 + "x",
    "1 a" + " 1" * 40 + "x", "a" * 60 + "," * 339, "a" + "\u3000" * 398, "a ..." * 79,
    "a" + "…" * 398, "a" + " " * 8 + "." * 390, "1.1" + " 1" * 43,
])
def test_lines_made_to_backtrack_cost_little(line: str) -> None:
    """Lines just under the length bound, shaped to make a pattern try many ways."""
    nav_share([line] * pages.MAX_LINES)


def test_a_flood_of_lines_is_looked_at_only_in_part() -> None:
    flood = "\n".join(["1 Pilotage ..... 1"] * 1_000_000)
    page_roles([flood, BODY])
    assert page_roles([flood, BODY]) == [NAV, ""]
    # only the first MAX_LINES lines count: prose after them does not change the verdict
    many = "\n".join(["1 Pilotage ..... 1"] * pages.MAX_LINES + ["Plain prose here."] * 10_000)
    assert is_nav(many)
    page_roles(["\n" * 1_000_000] * 3)


def test_many_pages_cost_little() -> None:
    texts = [CONTENTS, INDEX, BODY, BODY_ZH] * 500
    page_roles(texts, ["i"] * 2000)
