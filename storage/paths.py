"""Where Hearth keeps its files.

The data directory comes from ``HEARTH_DATA_DIR`` when it is set (tests and portable
installs use it) and from platformdirs otherwise, so that every test gets its own
throwaway directory without touching the user's real data.

Every folder made here is private to the user (0700 on POSIX, whatever the umask), and
files that our code creates in them should be 0600 (``private_file``): even encrypted, a
vault's size and dates, the logs and the models' sizes say something about their owner.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import stat
from pathlib import Path

import platformdirs

APP_NAME = "Hearth"
DATA_DIR_ENV = "HEARTH_DATA_DIR"
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Make ``path`` (and its missing parents) and make it 0700 on POSIX.

    ``mkdir(mode=...)`` is filtered through the umask, so the mode is set explicitly
    afterwards; an existing folder that others can read (made by an earlier version) is
    tightened too. A filesystem without POSIX modes (FAT on a stick) keeps what it has."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    _tighten(path, PRIVATE_DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Make ``path`` 0600 on POSIX (it must exist): for files opened by other libraries
    (SQLite, logging) that cannot be given a mode when they create the file."""
    _tighten(path, PRIVATE_FILE_MODE)
    return path


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_CREAT | os.O_TRUNC) -> int:
    """``os.open`` for a file of ours: created 0600 whatever the umask; returns the fd."""
    fd = os.open(path, flags, PRIVATE_FILE_MODE)
    if os.name == "posix":
        with contextlib.suppress(OSError):  # a filesystem without modes
            os.fchmod(fd, PRIVATE_FILE_MODE)
    return fd


def _tighten(path: Path, mode: int) -> None:
    if os.name != "posix":
        return  # Windows: the per-user profile folders are private by their ACLs
    try:
        if stat.S_IMODE(path.stat().st_mode) != mode:
            os.chmod(path, mode)
    except OSError:
        pass  # a filesystem without POSIX modes, or not ours to change


def data_dir() -> Path:
    override = os.environ.get(DATA_DIR_ENV)
    path = Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    return private_dir(path)


def models_dir() -> Path:
    return private_dir(data_dir() / "models")


def logs_dir() -> Path:
    return private_dir(data_dir() / "logs")


def vault_path() -> Path:
    return data_dir() / "vault.db"


def index_path(vault: Path | None = None) -> Path:
    """Where the sealed search index of the vault at ``vault`` (the user's, by default) is
    kept: beside it (storage/documents/index_file.py writes it; Help ▸ Privacy names it)."""
    vault = vault_path() if vault is None else vault
    return vault.with_name(vault.name + ".index")


def backups_dir() -> Path:
    return private_dir(data_dir() / "backups")


def settings_path() -> Path:
    return data_dir() / "settings.json"


def package_file(relative: str) -> Path | None:
    """A data file that an installed package carries ("package/folder/name"), or None when
    the package or the file is not there. Found without importing the package, which may be
    a namespace package of data alone (as the speech model's halves and the dictionary are)."""
    top, _, rest = relative.partition("/")
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.submodule_search_locations:
        return None
    candidate = Path(next(iter(spec.submodule_search_locations))) / rest
    return candidate if candidate.is_file() else None
