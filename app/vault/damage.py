"""What to tell the user when the vault file is damaged: the newest automatic backup, and
how to bring it back."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QDateTime, QLocale

from core.vault import backups_dir
from i18n import translate


def latest_backup() -> Path | None:
    found = sorted(backups_dir().glob("vault-*.db")) if backups_dir().exists() else []
    return found[-1] if found else None


def damaged_message(exc: Exception) -> str:
    backup = latest_backup()
    if backup is not None:
        modified = QDateTime.fromSecsSinceEpoch(int(backup.stat().st_mtime))
        when = QLocale().toString(modified, QLocale.FormatType.ShortFormat)
        advice = translate("vault.damage", "Your newest automatic backup is {backup} (from "
                           "{when}). Choose “Restore from a backup…” to bring it back; the "
                           "damaged file is kept beside it.").format(backup=backup, when=when)
    else:
        advice = translate("vault.damage", "There is no automatic backup yet. If you saved one "
                           "with File ▸ Back up vault, choose “Restore from a backup…”.")
    return f"{exc}\n\n{advice}"
