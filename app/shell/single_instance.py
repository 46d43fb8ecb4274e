"""A second launch brings the first window forward instead of opening the vault twice.

The first instance holds an OS file lock on the data folder (storage.instance_lock) and
listens on a local socket (a named pipe / Unix socket, not a network port) whose name
is derived from the data folder. A second instance that cannot take the lock asks the
first to show itself, then exits.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

ACTIVATE = b"activate\n"


def server_name(data_folder: Path) -> str:
    digest = hashlib.sha256(str(data_folder.resolve()).encode()).hexdigest()[:16]
    return f"hearth-{digest}"


def ask_first_instance_to_show(data_folder: Path, timeout_ms: int = 1000) -> bool:
    socket = QLocalSocket()
    socket.connectToServer(server_name(data_folder))
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(ACTIVATE)
    socket.waitForBytesWritten(timeout_ms)
    socket.disconnectFromServer()
    return True


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
            connection.readyRead.connect(self.activate_requested)
            connection.disconnected.connect(connection.deleteLater)
