"""A second launch brings the first window forward instead of opening the vault twice.

The first instance holds an OS file lock on the data folder (storage.instance_lock) and
listens on a local socket (a named pipe / Unix socket, not a network port). A second
instance that cannot take the lock asks the first to show itself, then exits.

On Linux and macOS the socket lives inside the data folder (0700): in /tmp, another user
could take its name first (Hearth could then not listen, and a second launch would talk
to that user's socket), and its name would show that Hearth is installed. A data folder
whose path is too long for a socket (about 100 bytes) uses the user's private runtime
folder (``XDG_RUNTIME_DIR``, 0700) instead, never a shared one. Windows' named pipes
are a namespace of their own, closed to other users by ``UserAccessOption``.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from core.vault import SOCKET_FILE

ACTIVATE = b"activate\n"
ACKNOWLEDGED = b"ok\n"  # the first instance's answer: its event loop runs, the window came forward


SOCKET_PATH_MAX = 100  # bytes of a Unix socket's path (sun_path is 104 to 108 with its NUL)


def _private_folder(path: str) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def server_name(data_folder: Path) -> str:
    folder = data_folder.resolve()
    digest = hashlib.sha256(str(folder).encode()).hexdigest()[:16]
    if os.name == "nt":
        return f"hearth-{digest}"
    inside = str(folder / SOCKET_FILE)
    if len(inside.encode()) <= SOCKET_PATH_MAX:
        return inside
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and _private_folder(runtime) and len(runtime.encode()) + 24 <= SOCKET_PATH_MAX:
        return os.path.join(runtime, f"hearth-{digest}")
    return inside  # too long to listen on: the lock still keeps a second window off the vault


REACHED, SILENT, UNREACHABLE = "reached", "silent", "unreachable"


def ask_first_instance_to_show(data_folder: Path, timeout_ms: int = 1000) -> str:
    """REACHED when the first instance answered (its window came forward); SILENT when its
    socket took the connection but it did not answer (hung: the kernel accepts for it);
    UNREACHABLE when nothing listens."""
    socket = QLocalSocket()
    socket.connectToServer(server_name(data_folder))
    if not socket.waitForConnected(timeout_ms):
        return UNREACHABLE
    socket.write(ACTIVATE)
    socket.waitForBytesWritten(timeout_ms)
    answered = b""
    while ACKNOWLEDGED not in answered and len(answered) < 64 and socket.waitForReadyRead(timeout_ms):
        answered += bytes(socket.readAll().data())
    socket.disconnectFromServer()
    return REACHED if ACKNOWLEDGED in answered else SILENT


class ActivationServer(QObject):
    activate_requested = Signal()

    def __init__(self, data_folder: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        name = server_name(data_folder)
        QLocalServer.removeServer(name)  # a stale socket of a crashed instance (we hold the lock)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self.listening = self._server.listen(name)

    @Slot()
    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            connection = self._server.nextPendingConnection()
            connection.readyRead.connect(self._read)
            connection.disconnected.connect(connection.deleteLater)

    @Slot()
    def _read(self) -> None:
        connection = self.sender()
        if not isinstance(connection, QLocalSocket):
            return
        if ACTIVATE.strip() in bytes(connection.readAll().data()):
            connection.write(ACKNOWLEDGED)
            connection.flush()
            self.activate_requested.emit()
