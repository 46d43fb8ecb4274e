"""The Privacy panel and "delete all my data"."""

from __future__ import annotations

import socket

import pytest
from PySide6.QtCore import Qt

from app.shell.privacy_dialog import CONFIRM_WORD, PrivacyDialog
from guard import egress
from storage.paths import backups_dir, vault_path
from tests.app.conftest import WAIT_MS

pytestmark = pytest.mark.gui


def test_panel_shows_where_the_data_is_encryption_and_blocked_attempts(qtbot, make_window, monkeypatch) -> None:
    monkeypatch.setattr(egress, "GUARD", egress.Guard(installed=True))
    monkeypatch.setattr("app.shell.privacy_dialog.egress.GUARD", egress.GUARD)
    window = make_window()
    # What a blocked attempt leaves behind (the guard itself is tested in a subprocess).
    with pytest.raises(egress.EgressBlocked):
        egress._check("socket.connect", (socket.socket(), ("203.0.113.7", 443)))
    dialog = PrivacyDialog(window)
    qtbot.addWidget(dialog)
    text = dialog.report.text()
    assert str(vault_path().parent) in text and "encrypted" in text
    assert "Network guard: <b>on</b>" in text and "Blocked attempts: <b>1</b>" in text
    assert "203.0.113.7:443" in text
    network, tools = text.index("<h3>Network</h3>"), text.index("<h3>Tools</h3>")  # each under its heading
    assert network < text.index("Blocked attempts") < tools and network < text.index("203.0.113.7:443") < tools
    window.engine_actions.update_guard_label()
    assert window.guard_label.text() == "Offline · 1 blocked"
    # Enter closes the dialog; the danger button is never the default, nor beside it.
    assert dialog.close_button.isDefault() and not dialog.delete_button.autoDefault()
    dialog.show()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)
    assert not dialog.isVisible() and vault_path().exists()
    assert dialog.report.alignment() & Qt.AlignmentFlag.AlignTop  # the text starts at the top


def test_delete_all_my_data(qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    window.input.setPlainText("something private")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    qtbot.waitUntil(lambda: any(backups_dir().glob("vault-*.db")), timeout=WAIT_MS)

    dialog = PrivacyDialog(window)
    qtbot.addWidget(dialog)
    dialog.delete_everything.connect(window.vault.maintenance.delete_everything)
    monkeypatch.setattr("app.shell.privacy_dialog.QInputDialog.getText", lambda *a, **k: ("nope", True))
    dialog._delete()
    assert vault_path().exists()  # a wrong confirmation word deletes nothing
    monkeypatch.setattr("app.shell.privacy_dialog.QInputDialog.getText", lambda *a, **k: (CONFIRM_WORD, True))
    dialog._delete()

    assert window.controller.locked and window.lock_screen.mode == "create"
    assert "deleted" in window.lock_screen.error.text()
    remaining = sorted(p.name for p in vault_path().parent.rglob("*") if p.is_file())
    assert remaining in ([], ["hearth.lock"]), remaining
    from tests.app.conftest import create_vault

    create_vault(qtbot, window)  # starting over works
    assert window.chat_list.count() == 0


def test_crypto_erase_makes_a_vault_copy_unopenable(tmp_path) -> None:
    from storage.crypto import DamagedVault
    from storage.erase import crypto_erase
    from storage.vault import Vault
    from tests.storage.conftest import FAST_KDF

    path = tmp_path / "vault.db"
    Vault.create(path, "erase me please", FAST_KDF).close()
    crypto_erase(path)
    with pytest.raises(DamagedVault):
        Vault.open(path, "erase me please")


def test_delete_everything_crypto_erases_the_copies_a_restore_kept(tmp_path, monkeypatch) -> None:
    """A restore keeps the replaced vault whole; it must not outlive 'delete everything'."""
    from storage import erase
    from storage.chats import ChatStore
    from storage.vault import Vault
    from tests.storage.conftest import FAST_KDF, PASSPHRASE

    folder = tmp_path / "data"
    ChatStore(Vault.create(folder / "vault.db", PASSPHRASE, FAST_KDF)).close()
    backup = tmp_path / "backup.db"
    vault = Vault.open(folder / "vault.db", PASSPHRASE)
    vault.backup_to(backup)
    vault.close()
    kept = Vault.restore(backup, PASSPHRASE, folder / "vault.db")
    assert kept is not None and kept.exists()
    erased = []
    original = erase.crypto_erase
    monkeypatch.setattr(erase, "crypto_erase", lambda path: (erased.append(path.name), original(path)))
    assert erase.erase_everything(folder, keep=set()) == []
    assert kept.name in erased and not kept.exists()


@pytest.mark.parametrize("setting", ["en", "zh_CN"])
def test_the_panel_says_where_the_search_index_is_kept(qtbot, setting) -> None:
    """It said the index "exists only in memory while Hearth is unlocked"; it is written
    beside the vault, sealed (storage/documents/index_file.py; docs/privacy.md says so)."""
    import re

    from app.shell import language
    from storage.documents.index_file import path_for

    try:
        language.apply(setting)
        dialog = PrivacyDialog()
        qtbot.addWidget(dialog)
        text = re.sub(r"<[^>]+>", "", dialog.report.text())
    finally:
        language.apply("system")
    assert "only in memory" not in text and "仅在" not in text, text
    assert path_for(vault_path()).name in text, text
    assert ("encrypted with the same key" if setting == "en" else "同一密钥") in text, text


def test_the_confirm_word_is_the_one_the_prompt_shows_in_the_interface_language(qtbot, monkeypatch) -> None:
    """In Chinese the prompt asks for 删除, and 删除 deletes (DELETE too, as the guide said);
    anything else deletes nothing."""
    import i18n

    chinese = {"DELETE": "删除", "Type {word} to confirm:": "输入“{word}”以确认："}

    def backend(_context: str, source: str, _comment: str | None, _n: int) -> str:
        return next((zh.join(source.rsplit(en, 1)) for en, zh in chinese.items() if source.endswith(en)), source)

    monkeypatch.setattr(i18n, "_backend", backend)
    dialog = PrivacyDialog()
    qtbot.addWidget(dialog)
    asked: list[str] = []
    deleted: list[bool] = []
    dialog.delete_everything.connect(lambda: deleted.append(True))
    for typed in ("DELETEX", "删", "delete", "删除", "DELETE"):
        monkeypatch.setattr("app.shell.privacy_dialog.QInputDialog.getText",
                            lambda _p, _t, label, typed=typed: asked.append(label) or (typed, True))
        dialog._delete()
    assert asked[0].endswith("输入“删除”以确认：")
    assert deleted == [True, True]
