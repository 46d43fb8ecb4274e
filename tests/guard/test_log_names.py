"""An engine's name can name a client or a case; the log on disk is plain text (issue #38,
item 5). The log says a tag instead, the same each time; the check's guard name has no
NUL byte."""

from __future__ import annotations

import logging

import pytest

from core.engines import CHECK_PREFIX, valid_name
from guard import egress
from inference.intranet import EngineError


def test_the_log_names_an_engine_by_a_tag_not_its_name(caplog) -> None:
    name = "Smith v Jones custody – opposing counsel"
    caplog.set_level(logging.INFO)
    try:
        egress.allow_destination(name, "127.0.0.1", 9)
        egress.allow_destination(name, "127.0.0.1", 9)
    finally:
        egress.revoke_destination(name)
    said = [r.getMessage() for r in caplog.records]
    assert said and not any("Smith" in s or "custody" in s for s in said)
    assert said[0] == said[1] and egress.log_tag(name) in said[0]


def test_a_checks_guard_name_has_no_nul_and_no_engine_can_take_it() -> None:
    assert "\x00" not in CHECK_PREFIX and CHECK_PREFIX.isprintable()
    with pytest.raises(EngineError):
        valid_name("")
    assert not valid_name(CHECK_PREFIX + "Corp").startswith(CHECK_PREFIX)
