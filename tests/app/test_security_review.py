"""The window's answers to the security review (issue #14): links, images in answers,
dialogs at lock, untrusted text in labels, file modes, referenced models that changed."""

from __future__ import annotations

import logging
import os
import stat
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices, QImage, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QTextEdit,
)

from app.chat.inert_markdown import image_fragments
from app.chat.markdown import MarkdownView
from app.chat.settings_dialog import ChatSettingsDialog
from app.models.controller import SIGNATURE, probe_key
from app.shell import dialogs
from core.models import Cancelled
from inference.modelinfo import read_info
from storage.library import REFERENCE
from tests.app.conftest import WAIT_MS
from tests.inference import gguf_builder

pytestmark = pytest.mark.gui


# 1. Links from answers -----------------------------------------------------------------
@pytest.fixture
def opened(monkeypatch) -> list[QUrl]:
    urls: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: urls.append(url) or True))
    return urls


@pytest.mark.parametrize("link", ["file:///etc/passwd", "smb://host/share", "file://host/share",
                                  "javascript:alert(document.cookie)", "ms-settings:privacy",
                                  "vscode://file/etc/passwd", "data:text/html,<b>x</b>", "relative/page"])
def test_links_other_than_web_and_mail_are_refused_with_a_message(
    make_window, opened, monkeypatch, link
) -> None:
    window = make_window()
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or True)
    window.conversation.link_requested.emit(QUrl(link))
    assert opened == [] and asked == []  # not even offered
    assert window.notice.isVisible()
    assert "only web (http, https) and email (mailto) links" in window.notice.text()
    assert "was not opened" in window.notice.text()


def test_a_web_link_shows_its_host_alone_and_in_ascii(make_window, opened, monkeypatch) -> None:
    window = make_window()
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or True)
    window.conversation.link_requested.emit(QUrl("https://аpple.com/login?next=1"))  # Cyrillic а
    assert len(asked) == 1
    assert "\nSite: xn--pple-43d.com\n" in asked[0]
    assert "аpple" not in asked[0]  # the look-alike is never shown as such
    assert [u.host() for u in opened] == ["аpple.com"] and opened[0].scheme() == "https"

    window.conversation.link_requested.emit(QUrl("https://user@evil.example:8443/x"))
    assert "\nSite: evil.example:8443\n" in asked[1] and "user name" in asked[1]
    window.conversation.link_requested.emit(QUrl("mailto:bob@bücher.de?subject=hi"))
    assert "To: bob@xn--bcher-kva.de" in asked[2]
    assert len(opened) == 3


def test_a_declined_web_link_is_not_opened(make_window, opened, monkeypatch) -> None:
    window = make_window()
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *a: False)
    window.conversation.link_requested.emit(QUrl("https://example.org/"))
    assert opened == []


def test_under_the_kernel_line_a_link_goes_through_the_portal_or_is_copied(
        make_window, opened, monkeypatch) -> None:
    """A browser Hearth started itself would inherit the seccomp filter and have no network:
    the desktop portal opens it from outside, and without a portal the address is copied."""
    from PySide6.QtGui import QGuiApplication

    from app.chat import links
    from guard import seccomp

    window = make_window()
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *a: True)
    monkeypatch.setattr(seccomp.RESTRICTION, "active", True)
    portal: list[str] = []
    monkeypatch.setattr(links, "_portal_open", lambda url: portal.append(url.toString()) or True)
    window.conversation.link_requested.emit(QUrl("https://example.org/a"))
    assert portal == ["https://example.org/a"] and opened == []

    monkeypatch.setattr(links, "_portal_open", lambda url: False)  # no portal on this desktop
    window.conversation.link_requested.emit(QUrl("https://example.org/b"))
    assert opened == []
    assert QGuiApplication.clipboard().text() == "https://example.org/b"
    assert "address was copied" in window.notice.text()


# 3. Images in answers --------------------------------------------------------------------
def image_names(document: QTextDocument) -> list[str]:
    return [image.name() for _position, _length, image in image_fragments(document)]


@pytest.fixture
def canary_png(tmp_path: Path) -> Path:
    path = tmp_path / "canary.png"
    image = QImage(40, 30, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.red)
    assert image.save(str(path))
    return path


def hostile_answers(png: Path) -> list[str]:
    url = QUrl.fromLocalFile(str(png)).toString()
    return [
        f"Nested: ![a [b] c]({url})",
        f"Escaped: ![a\\]b]({url}) and ![\\[x\\]]({url})",
        f"Reference: ![x][1]\n\n[1]: {url}",
        f"Shortcut: ![logo]\n\n[logo]: {url}",
        f"Collapsed: ![logo][]\n\n[logo]: <{url}>",
        f'Raw HTML: <img src="{url}"> and <img src={url}>',
        f"In a table:\n\n| a |\n|---|\n| ![t]({url}) |",
        f"In a list:\n\n- ![l]({url})\n- two",
        "Data: ![d](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==)",
    ]


def test_hostile_model_output_leaves_no_image_in_the_document(qtbot, canary_png: Path) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.show()
    for answer in hostile_answers(canary_png):
        view.set_markdown(answer)
        assert image_names(view.document()) == [], answer
        for cut in range(1, len(answer) + 1, 7):  # while it streams, too
            view.stream_markdown(answer[:cut])
            assert image_names(view.document()) == [], answer[:cut]
        view.stream_markdown(answer)
        assert image_names(view.document()) == [], answer
        QApplication.processEvents()
    view.set_markdown(f"![x]({QUrl.fromLocalFile(str(canary_png)).toString()})")
    assert "image: x" in view.document().toPlainText()  # shown as a link, not loaded


def test_every_resource_request_gets_a_placeholder_never_the_file(qtbot, canary_png: Path) -> None:
    """Qt reads a local file itself when loadResource answers None: it must never."""
    view = MarkdownView()
    qtbot.addWidget(view)
    url = QUrl.fromLocalFile(str(canary_png))
    for document in (view.document(), view._scratch):
        image = document.resource(QTextDocument.ResourceType.ImageResource.value, url)
        assert isinstance(image, QImage) and (image.width(), image.height()) == (1, 1)
        for kind in (QTextDocument.ResourceType.StyleSheetResource, QTextDocument.ResourceType.HtmlResource):
            data = document.resource(kind.value, url)
            assert data is not None and b"IHDR" not in bytes(str(data), "utf-8", "replace")
    # A document that nevertheless had an image laid out would get the placeholder's size.
    view.document().setHtml(f'<img src="{url.toString()}">')
    view.show()
    QApplication.processEvents()
    assert view.document().size().width() < 40 + 20 or view.document().size().height() < 30


# 4. Dialogs at lock ----------------------------------------------------------------------
SECRET_PROMPT = "You advise on the custody case of Hargreaves v Hargreaves."


def visible_texts() -> str:
    texts = []
    for widget in QApplication.allWidgets():
        if not widget.isVisible():
            continue
        if isinstance(widget, (QPlainTextEdit, QTextEdit)):
            texts.append(widget.toPlainText())
        elif isinstance(widget, (QLabel, QLineEdit)):
            texts.append(widget.text())
    return "\n".join(texts)


def lock_later(window, leftovers: list[str], delay: int = 200) -> None:
    """Auto-lock in ``delay`` ms; a safety net rejects what this window still has open 5 s
    later, so a failing test fails instead of hanging. Both timers belong to the window, and
    the net touches only its own dialogs: a net left from a test that ended sooner once
    fired in a later test and cancelled that test's speech-model import."""
    QTimer.singleShot(delay, window, window.vault.auto_lock)

    def ours(widget) -> bool:
        while widget is not None:
            if widget is window:
                return True
            widget = widget.parentWidget()
        return False

    def safety() -> None:
        if not window.isVisible():
            return  # the test is over
        for widget in QApplication.topLevelWidgets():
            if widget.isVisible() and widget is not window and hasattr(widget, "reject") and ours(widget):
                leftovers.append(type(widget).__name__)
                widget.reject()
    QTimer.singleShot(5000, window, safety)


def test_auto_lock_closes_the_chat_settings_dialog_first(qtbot, make_window, answers_dialogs) -> None:
    window = make_window()
    chat = window.controller.chats.new()
    window.controller.set_chat_settings(chat.id, {"system_prompt": SECRET_PROMPT})
    window.controller.current_chat = window.controller.store.get_chat(chat.id)
    shown: list[bool] = []
    leftovers: list[str] = []

    def check_open() -> None:
        dialog = QApplication.activeModalWidget()
        shown.append(isinstance(dialog, ChatSettingsDialog) and SECRET_PROMPT in visible_texts())
    QTimer.singleShot(100, check_open)
    lock_later(window, leftovers)
    window.dialogs.chat_settings()  # exec(): returns once the lock rejected it
    assert shown == [True]  # it was open, with the prompt in it, when the lock came
    assert leftovers == []
    assert window.controller.locked and window.pages.currentWidget() is window.lock_screen
    assert not any(isinstance(w, ChatSettingsDialog) and w.isVisible() for w in QApplication.allWidgets())
    assert SECRET_PROMPT not in visible_texts()
    QApplication.sendPostedEvents(None, 0)  # deleteLater
    qtbot.waitUntil(lambda: not window.findChildren(ChatSettingsDialog), timeout=WAIT_MS)


def test_auto_lock_closes_message_boxes_and_the_models_dialog(qtbot, make_window, answers_dialogs) -> None:
    window = make_window()
    window.dialogs.show_models()
    assert window.dialogs.models_dialog.isVisible()
    leftovers: list[str] = []
    lock_later(window, leftovers)
    answered = dialogs.confirm(window, "Delete chat", f"Delete “{SECRET_PROMPT}”?", "Delete")
    assert answered is False and leftovers == []
    assert not window.dialogs.models_dialog.isVisible()
    assert not any(isinstance(w, QMessageBox) and w.isVisible() for w in QApplication.allWidgets())
    assert SECRET_PROMPT not in visible_texts()


# 5. Untrusted text in labels -------------------------------------------------------------
HOSTILE_NAME = "<img src=file:///x><b>x</b>"
HOSTILE_TITLE = '<a href="file:///etc">x</a>'


def test_model_metadata_and_chat_titles_are_never_rich_text(qtbot, make_window, tmp_path, monkeypatch, answers_dialogs) -> None:
    window = make_window()
    model = tmp_path / "hostile.gguf"
    model.write_bytes(gguf_builder.build({"general.name": HOSTILE_NAME, "general.license": "<i>mit</i>",
                                          "llama.block_count": 1, "llama.context_length": 64}))
    info = read_info(model)
    assert info.name == HOSTILE_NAME
    library = window.models.library
    entry = library.add(info.name, str(model), REFERENCE, "0" * 64, info.as_dict(), {})
    library.save(replace(entry, probe={"ok": True, "reason": "", "key": probe_key()}))
    window.dialogs.show_models()
    dialog = window.dialogs.models_dialog
    row = next(i for i in range(dialog.model_list.count())
               if dialog.model_list.item(i).data(Qt.ItemDataRole.UserRole) == entry.id)
    dialog.model_list.setCurrentRow(row)
    facts = dialog.facts.text()
    assert "&lt;img src=file:///x&gt;&lt;b&gt;x&lt;/b&gt;" in facts and "<img" not in facts
    assert "&lt;i&gt;mit&lt;/i&gt;" in facts
    window.header.model_checked(library.get(entry.id))  # "“<name>” passed its check..."
    assert HOSTILE_NAME in window.notice.text()
    for label in (window.notice, window.model_label, dialog.message):
        assert label.textFormat() == Qt.TextFormat.PlainText

    chat = window.controller.chats.new()
    window.controller.chats.rename(chat.id, HOSTILE_TITLE)
    window.controller.current_chat = window.controller.store.get_chat(chat.id)
    window.chat_list_actions.refresh_chats()
    assert window.chat_title.text() == HOSTILE_TITLE
    assert window.chat_title.textFormat() == Qt.TextFormat.PlainText
    item = window.chat_list.item(0)
    assert "&lt;a href=&quot;file:///etc&quot;&gt;" in item.toolTip() and "<a" not in item.toolTip()

    boxes: list[QMessageBox] = []

    def inspect() -> None:
        box = QApplication.activeModalWidget()
        boxes.append(box)
        box.reject()
    QTimer.singleShot(100, inspect)
    window.chat_list_actions.delete_current_chat()
    assert isinstance(boxes[0], QMessageBox)
    assert boxes[0].textFormat() == Qt.TextFormat.PlainText and HOSTILE_TITLE in boxes[0].text()
    # A review: deleting said "cannot be undone", and the chat lived on, whole, in the backups.
    assert "Copies stay in the automatic backups" in boxes[0].text()


def test_message_labels_show_names_as_written(qtbot, make_window) -> None:
    window = make_window()
    window.controller.model.name = window.controller.turns.model_name = HOSTILE_NAME  # the file's name
    chat = window.controller.chats.new()
    window.controller.current_chat = chat
    window.input.setPlainText("hello")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    answer = window.conversation.message_widgets()[-1]
    assert answer.author.text() == HOSTILE_NAME  # as written
    for label in (answer.author, answer.info):
        assert label.textFormat() == Qt.TextFormat.PlainText


# 7. Private modes ------------------------------------------------------------------------
@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_data_folders_and_the_log_are_private_whatever_the_umask(data_dir: Path, monkeypatch) -> None:
    import core.logs
    from storage.paths import backups_dir, logs_dir, models_dir
    from storage.paths import data_dir as make_data_dir

    old = os.umask(0)  # the most permissive: modes must not depend on it
    try:
        folders = [make_data_dir(), models_dir(), logs_dir(), backups_dir()]
        monkeypatch.setattr(core.logs, "_configured", False)
        root = logging.getLogger()
        level = root.level
        handler = core.logs.setup_logging()
        try:
            logging.getLogger("hearth.test").info("an event")
            handler.doRollover()  # a rotated and a fresh file: both private
            logging.getLogger("hearth.test").info("another event")
        finally:
            root.removeHandler(handler)
            handler.close()
            root.setLevel(level)
    finally:
        os.umask(old)
    for folder in folders:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    logs = sorted(logs_dir().glob("hearth.log*"))
    assert len(logs) == 2
    for log_file in logs:
        assert stat.S_IMODE(log_file.stat().st_mode) == 0o600, log_file

    os.chmod(models_dir(), 0o755)  # made by an earlier version
    assert stat.S_IMODE(models_dir().stat().st_mode) == 0o700


# 8. A referenced model that changed on disk ----------------------------------------------
@pytest.fixture
def referenced(qtbot, make_window, tmp_path, monkeypatch):
    """A window with a real (tiny) GGUF imported by reference and marked usable; loads
    are recorded instead of sent to the worker."""
    window = make_window()
    models = window.models

    def checked(entry_id: int) -> None:  # the probe process is not what this is about
        entry = models.library.get(entry_id)
        models.library.save(replace(entry, probe={"ok": True, "reason": "", "key": probe_key()}))
    monkeypatch.setattr(models, "check", checked)
    path = tmp_path / "kept-here.gguf"
    path.write_bytes(gguf_builder.build({"llama.block_count": 1, "llama.context_length": 64}))
    with qtbot.waitSignal(models.imported, timeout=WAIT_MS):
        assert models.import_file(path, REFERENCE)
    entry = next(e for e in models.entries() if e.stored == REFERENCE)
    assert entry.info[SIGNATURE]["size"] == path.stat().st_size
    loads: list = []
    monkeypatch.setattr(window.controller.model, "load", lambda spec: loads.append(spec))
    return window, entry, path, loads


def bump_mtime(path: Path) -> None:
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 5_000_000_000))


def test_an_unchanged_reference_loads_at_once(referenced) -> None:
    window, entry, path, loads = referenced
    assert window.models.switch(entry.id) is None
    assert [spec.path for spec in loads] == [path.resolve()]


def test_a_reference_changed_on_disk_is_hashed_again_and_refused(qtbot, referenced) -> None:
    window, entry, path, loads = referenced
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # same size, other content
    path.write_bytes(bytes(data))
    bump_mtime(path)
    with qtbot.waitSignal(window.models.refused, timeout=WAIT_MS) as refused:
        message = window.models.switch(entry.id)
        assert message and "same model" in message
    assert "changed since it was imported" in refused.args[0] and "did not load" in refused.args[0]
    assert loads == []
    assert "changed since it was imported" in window.notice.text()
    assert window.models.switch(entry.id)  # and again: it is still not loaded
    qtbot.waitSignal(window.models.refused, timeout=WAIT_MS)
    assert loads == []


def test_a_reference_only_touched_is_verified_then_loaded(qtbot, referenced) -> None:
    window, entry, path, loads = referenced
    bump_mtime(path)
    assert window.models.switch(entry.id)  # "making sure it is still the same model"
    assert loads == []
    qtbot.waitUntil(lambda: bool(loads), timeout=WAIT_MS)
    assert [spec.path for spec in loads] == [path.resolve()]
    saved = window.models.library.get(entry.id)
    assert saved.info[SIGNATURE]["mtime_ns"] == path.stat().st_mtime_ns
    assert window.models.switch(entry.id) is None and len(loads) == 2  # no second hashing


def test_locking_cancels_the_verification(qtbot, referenced, monkeypatch) -> None:
    window, entry, path, loads = referenced
    started, stopped = threading.Event(), threading.Event()

    def slow(_path, _sha, _name, cancel):
        started.set()
        if cancel.wait(10):
            stopped.set()
        raise Cancelled("stopped")
    monkeypatch.setattr("app.models.controller.verify_reference", slow)
    bump_mtime(path)
    window.models.switch(entry.id)
    assert started.wait(5)
    window.vault.lock()
    assert stopped.is_set() and loads == []


def test_a_mailto_link_shows_every_field_and_warns_of_a_hidden_recipient() -> None:
    """A bcc or a prepared body used to hide past the clipped address."""
    from app.chat.links import check_link

    padded = QUrl("mailto:friend@x.com?body=" + "p" * 400 + "&bcc=attacker@evil.example&cc=boss@x.com")
    text = check_link(padded).text
    assert "Hidden copy to: attacker@evil.example" in text and "hidden recipient" in text
    assert "Copy to: boss@x.com" in text and "To: friend@x.com" in text


def test_an_engine_the_collections_cannot_use_is_not_named_in_the_log(qtbot, make_window, caplog) -> None:
    """A review: an engine whose stored address this version refuses was logged by its
    name (which can name a client or a case) when the collections asked for engines."""
    import logging

    from tests.app.conftest import unlock

    window = make_window()
    window.vault.session.library.set_preference("engines", [{
        "name": "Dr Weiss custody case GPU", "url": "http://10.20.30.40:8080", "enabled": True,
        "allow_http": False, "models": [{"id": "corp-embed"}]}])
    window.vault.lock()
    unlock(qtbot, window)
    with caplog.at_level(logging.DEBUG):
        assert window.documents.engine_models() == []
    assert "not offered for embedding" in caplog.text
    assert "Weiss" not in caplog.text and "10.20.30.40" not in caplog.text


def test_the_chat_searchs_words_are_not_kept_past_the_lock(qtbot, make_window) -> None:
    window = make_window()
    window.conversation.highlight("ZEBRAQUARTZ")
    window.vault.lock()
    assert window.conversation._query == ""
