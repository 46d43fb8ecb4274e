"""The translations against the code: every message in the code is in the .ts sources and
finished, every translation keeps its source's placeholders, and the terminal follows LANG."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from string import Formatter

import pytest

import i18n
from i18n.ts import read_ts

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packaging"))
import translations  # noqa: E402  (packaging/translations.py)

sys.path.remove(str(ROOT / "packaging"))

ZH = ROOT / "assets" / "translations" / "hearth_zh_CN.ts"
EN = ROOT / "assets" / "translations" / "hearth_en.ts"


def keys(path: Path) -> set[tuple[str, str, str]]:
    return {(m.context, m.source, m.comment) for m in read_ts(path) if not m.obsolete}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory) -> Path:
    """The messages the code has today, as pyside6-lupdate finds them."""
    target = tmp_path_factory.mktemp("ts") / "scan.ts"
    translations.lupdate(target, "-target-language", "zh_CN")
    return target


def test_every_message_in_the_code_is_in_the_chinese_source_and_nothing_stale(scanned) -> None:
    in_code, in_file = keys(scanned), keys(ZH)
    missing = sorted(in_code - in_file)
    stale = sorted(in_file - in_code)
    assert not missing, (f"{len(missing)} messages are not in hearth_zh_CN.ts (run "
                         f"`python packaging/translations.py update` and translate): {missing[:5]}")
    assert not stale, f"{len(stale)} messages in hearth_zh_CN.ts are gone from the code: {stale[:5]}"
    assert len(in_code) > 400  # the whole interface, not a sample


def translate_calls():
    """Every call of i18n.translate (or Qt's QCoreApplication.translate) in the packages
    that speak to the user, with its file and line."""
    for name in translations.source_files():
        path = ROOT / name
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (isinstance(func, ast.Name) and func.id == "translate") or (
                    isinstance(func, ast.Attribute) and func.attr == "translate"
                    and isinstance(func.value, ast.Name) and func.value.id == "QCoreApplication"):
                yield f"{name}:{node.lineno}", node, source


def test_every_translate_call_is_one_lupdate_can_read_and_is_in_the_source_file() -> None:
    """lupdate reads the code, not the running program: it silently skips a call whose
    context or text is not a plain literal (a variable, a parenthesised concatenation) or
    whose count is an expression, so such a call would never be translated. Held here."""
    in_file = keys(ZH)
    calls = 0
    for where, node, source in translate_calls():
        if where.startswith("i18n/") or (where.startswith("app/shell/language.py")
                                         and isinstance(node.func, ast.Attribute)):
            continue  # the function itself and its backend in the window
        calls += 1
        args = node.args
        assert len(args) >= 2 and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                      for a in args[:2]), f"{where}: context and text are literals"
        text_source = ast.get_source_segment(source, args[1]) or ""
        assert not text_source.lstrip().startswith("("), f"{where}: no parentheses around the text"
        assert not node.keywords, f"{where}: positional arguments only (lupdate reads no keywords)"
        comment = ""
        if len(args) >= 3:
            assert isinstance(args[2], ast.Constant), f"{where}: the disambiguation is a literal"
            comment = args[2].value or ""
        context, text = args[0].value, args[1].value
        if "%n" in text:
            assert len(args) == 4 and isinstance(args[3], ast.Name | ast.Constant), (
                f"{where}: a counted message passes its count as a plain name")
        assert (context, text, comment) in in_file, f"{where}: {text!r} is not in hearth_zh_CN.ts"
    assert calls > 400


def test_no_chinese_message_is_unfinished_or_empty() -> None:
    unfinished = [m.source for m in read_ts(ZH)
                  if not m.obsolete and (not m.finished or not all(t.strip() for t in m.translations)
                                         or not m.translations)]
    assert not unfinished, f"{len(unfinished)} unfinished: {unfinished[:8]}"


def fields(text: str) -> set[str]:
    try:
        return {name for _, name, _, _ in Formatter().parse(text) if name is not None}
    except ValueError as exc:  # an unmatched brace
        raise AssertionError(f"not a format string: {text!r}") from exc


@pytest.mark.parametrize("path", [ZH, EN], ids=["zh_CN", "en"])
def test_translations_keep_their_sources_placeholders_and_plural_count(path: Path) -> None:
    for message in read_ts(path):
        if message.obsolete:
            continue
        wanted = fields(message.source)
        assert all(re.fullmatch(r"[a-z_][a-z0-9_]*", name) for name in wanted), (
            f"placeholders are named identifiers: {message.source!r}")
        for text in message.translations:
            assert fields(text) == wanted, f"{message.source!r} -> {text!r}"
        # The count is shown (English may say "the oldest message" for one).
        if "%n" in message.source and message.translations:
            assert "%n" in message.translations[-1], f"{message.source!r}: {message.translations}"


def test_english_has_both_plural_forms_of_every_counted_message(scanned) -> None:
    counted = {(m.context, m.source) for m in read_ts(scanned) if "%n" in m.source}
    english = {(m.context, m.source): m for m in read_ts(EN) if not m.obsolete}
    assert counted, "the code has messages with %n"
    for key in counted:
        message = english.get(key)
        assert message is not None and message.finished, f"hearth_en.ts lacks {key}"
        assert len(message.translations) == 2 and all(message.translations), key


def test_a_model_token_is_one_chinese_word() -> None:
    """A model's tokens are 词元 everywhere (the comparison said "tokens/秒" beside the status
    bar's 词元/秒); identifiers such as tokens_per_s, --token or tokenizer.json stay as written."""
    mixed = [f"{m.source!r} -> {text!r}" for m in read_ts(ZH) if not m.obsolete
             for text in m.translations
             if re.search(r"(?<![-_.\w])tokens?(?![_.\w-])", re.sub(r"\{[^}]*\}", "", text), re.I)]
    assert not mixed, mixed


@pytest.mark.parametrize(("pattern", "word"), [
    (r"您", "你: the app says 你 to the user"),
    (r"聊天(?!模板|版|或指令)", "对话 (聊天 only in 聊天模板, a model's chat template)"),
    (r"输入框", "消息框, the box the user writes in"),
])
def test_one_word_for_each_thing_in_chinese(pattern: str, word: str) -> None:
    found = [text for m in read_ts(ZH) if not m.obsolete for text in m.translations if re.search(pattern, text)]
    assert not found, f"say {word}: {found}"


def test_accelerators_survive_translation() -> None:
    """A menu title with &File keeps one accelerator in Chinese (文件(&F))."""
    for message in read_ts(ZH):
        if message.obsolete or not re.search(r"&[A-Za-z]", message.source):
            continue
        for text in message.translations:
            assert re.search(r"&[A-Za-z]", text), f"{message.source!r} -> {text!r}"


def test_the_terminal_catalog_translates_and_counts() -> None:
    catalog = i18n.Catalog.load("zh_CN")
    message = next(m for m in read_ts(ZH) if m.numerus and m.finished)
    assert catalog(message.context, message.source, message.comment, 3) == \
        message.translations[0].replace("%n", "3")
    english = i18n.Catalog.load("en")
    singular, plural = next(m.translations for m in read_ts(EN) if m.numerus)
    source = next(m for m in read_ts(EN) if m.numerus)
    assert english(source.context, source.source, None, 1) == singular.replace("%n", "1")
    assert english(source.context, source.source, None, 2) == plural.replace("%n", "2")
    assert english("nowhere", "Not a message", None, -1) == "Not a message"


@pytest.mark.parametrize(("environ", "language"), [
    ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
    ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, "zh_CN"),
    ({"LANGUAGE": "en_GB:zh_CN", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LANG": "zh_TW.UTF-8"}, "zh_CN"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({}, "en"),
])
def test_the_terminal_language_follows_the_environment_as_gettext_reads_it(environ, language) -> None:
    assert i18n.language_from_env(environ) == language


def test_a_damaged_catalog_means_english_not_a_failure(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "hearth_zh_CN.ts").write_text("<TS><context><name>x</name>", encoding="utf-8")
    monkeypatch.setattr(i18n, "translations_dir", lambda: tmp_path)
    try:
        assert i18n.install_terminal_language({"LANG": "zh_CN.UTF-8"}) == "en"
        assert i18n.translate("cli.main", "%n files", None, 2) == "2 files"
    finally:
        i18n.install(None)


def test_a_catalog_with_entities_is_refused(tmp_path: Path) -> None:
    """The .ts files are ours, but they are parsed like any XML here: no entity expansion."""
    (tmp_path / "hearth_zh_CN.ts").write_text(
        '<?xml version="1.0"?><!DOCTYPE TS [<!ENTITY a "aaaaaaaaaa">]>'
        "<TS><context><name>x</name><message><source>&a;</source>"
        "<translation>&a;</translation></message></context></TS>", encoding="utf-8")
    with pytest.raises(Exception):  # noqa: B017  (defusedxml's EntitiesForbidden)
        i18n.Catalog.load("zh_CN", tmp_path)


def run_cli(*args: str, lang: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANGUAGE"}
    env["LANG"] = lang
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def test_the_terminal_commands_follow_lang() -> None:
    chinese = run_cli("--help", lang="zh_CN.UTF-8")
    english = run_cli("--help", lang="C.UTF-8")
    assert chinese.returncode == english.returncode == 0, chinese.stderr + english.stderr
    assert re.search(r"[\u4e00-\u9fff]", chinese.stdout), chinese.stdout
    assert not re.search(r"[\u4e00-\u9fff]", english.stdout)
    # argparse's own words too (issue #36, item 3): "usage:", "positional arguments:",
    # "options:", "show this help message and exit", and its errors.
    for word in ("usage", "positional arguments", "options", "show this help message"):
        assert word not in chinese.stdout, word
    assert "usage:" in english.stdout and "options:" in english.stdout
    wrong = run_cli("docs", "add", lang="zh_CN.UTF-8")
    assert wrong.returncode == 2 and "缺少以下参数" in wrong.stderr and "required" not in wrong.stderr


def test_the_built_catalogs_load_in_qt(qapp) -> None:
    """The install step's .qm files (pyside6-lrelease) and Qt's own for its buttons."""
    from PySide6.QtCore import QCoreApplication, QTranslator

    folder = i18n.translations_dir()
    for name in ("hearth_zh_CN", "hearth_en", "qtbase_zh_CN", "qtbase_extra_zh_CN"):
        assert (folder / f"{name}.qm").exists(), (
            f"{name}.qm is missing: the install step runs packaging/translations.py build")
    translator = QTranslator()
    assert translator.load("hearth_zh_CN", str(folder))
    message = next(m for m in read_ts(ZH) if not m.numerus and m.finished and m.translations[0])
    QCoreApplication.installTranslator(translator)
    try:
        assert QCoreApplication.translate(message.context, message.source) == message.translations[0]
    finally:
        QCoreApplication.removeTranslator(translator)


def test_lrelease_reports_no_unfinished_message(tmp_path: Path) -> None:
    out = subprocess.run([translations.tool("pyside6-lrelease"), str(ZH), "-qm",
                          str(tmp_path / "check.qm")], capture_output=True, text=True, check=True)
    assert "unfinished" not in out.stdout.replace("0 unfinished", ""), out.stdout


def test_the_extra_qt_catalog_gives_only_what_qts_own_lacks_and_loads(qapp) -> None:
    """qtbase_extra_zh_CN.ts: Qt 6's words that Qt's own qtbase_zh_CN.qm has no translation
    for (the file dialog's "&Look in:"), each finished, compiled by the install step."""
    from PySide6.QtCore import QTranslator

    folder = i18n.translations_dir()
    qt, extra = QTranslator(), QTranslator()
    assert qt.load("qtbase_zh_CN", str(folder)) and extra.load("qtbase_extra_zh_CN", str(folder))
    messages = read_ts(ROOT / "assets" / "translations" / "qtbase_extra_zh_CN.ts")
    assert {(m.context, m.source) for m in messages} >= {("QFileDialog", "&Look in:"),
                                                         ("QFileDialog", "Files of &type:")}
    for message in messages:
        assert message.finished and message.translations[0], message.source
        assert qt.translate(message.context, message.source) == "", f"Qt translates {message.source!r} itself now"
        assert extra.translate(message.context, message.source) == message.translations[0]
