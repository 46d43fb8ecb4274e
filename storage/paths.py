"""Where Hearth keeps its files.

The data directory comes from ``HEARTH_DATA_DIR`` when it is set (tests and portable
installs use it) and from platformdirs otherwise, so that every test gets its own
throwaway directory without touching the user's real data.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "Hearth"
DATA_DIR_ENV = "HEARTH_DATA_DIR"


def data_dir() -> Path:
    override = os.environ.get(DATA_DIR_ENV)
    path = Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def models_dir() -> Path:
    path = data_dir() / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


def logs_dir() -> Path:
    path = data_dir() / "logs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def vault_path() -> Path:
    return data_dir() / "vault.db"


def backups_dir() -> Path:
    return data_dir() / "backups"


def settings_path() -> Path:
    return data_dir() / "settings.json"
