"""The search index kept sealed beside the vault, so that an unlock loads it instead of
decrypting and tokenising every passage again (#43: five minutes of one core at a million
passages, about 300 µs a passage).

The file holds named arrays (``SearchIndex.export``), sealed in frames of FRAME bytes
with the vault's data key: each frame's associated data names the file (a random id in
its first bytes), the frame's number and whether it is the last, so frames cannot be
moved between files, reordered, dropped or cut off without the file failing to open. It
is never the truth: the chunk rows are. Every passage it holds carries the nonces of its
row's two ciphertexts, and a load keeps only the passages whose row is still there with
the same nonces; the rest is read from the rows as before (``Ingestion.load``). A file
from another vault, another key (a passphrase change writes a new data key), another
branch of the vault (a backup put back), or damaged, loses its passages or opens not at
all, and the index is built from the rows. Nothing of it is ever written in plaintext.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
import secrets
import struct
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import numpy as np

from storage.crypto import KEY_CHANGE, DamagedVault, FieldCipher
from storage.db import VaultClosed
from storage.paths import index_path, open_private

MAGIC = b"HEARTH-INDEX\x01"
FRAME = 4 << 20  # plaintext bytes per sealed frame
FORMAT = 1  # of the arrays inside (``SearchIndex.export``); another one is built again
_LENGTH = struct.Struct("<I")
_HEADER_LIMIT = 1 << 20


class UnusableIndexFile(Exception):
    """The file is missing, from another key or vault, damaged, or of another format."""


class KeyChanged(Exception):
    """A passphrase change retired the key the file was being sealed with: not written
    (the caller saves again, under the new key)."""


def path_for(vault_path: Path) -> Path:
    """Where the index of the vault at ``vault_path`` is kept."""
    return index_path(vault_path)


def remove(vault_path: Path, partial: bool = False) -> None:
    """The index file; with ``partial``, also every save's partial file, whatever its age
    (a passphrase change: none may stay under the old key; a save still writing one finds
    it gone or is refused at its end)."""
    with contextlib.suppress(FileNotFoundError):
        path_for(vault_path).unlink()
    if partial:
        target = path_for(vault_path)
        for old in target.parent.glob(f"{glob.escape(target.name)}*.partial"):
            with contextlib.suppress(OSError):
                old.unlink()


Item = tuple[str, np.dtype, tuple[int, ...], Iterable[Any]]  # name, dtype, shape, its pieces


class _Sealer:
    def __init__(self, out: IO[bytes], cipher: FieldCipher, file_id: int) -> None:
        self._out, self._cipher, self._file_id = out, cipher, file_id
        self._buffer = bytearray()
        self._frames = 0

    def write(self, data: bytes | memoryview, check: Callable[[], None]) -> None:
        self._buffer += data
        while len(self._buffer) >= FRAME:
            self._seal(bytes(self._buffer[:FRAME]), last=False)
            del self._buffer[:FRAME]
            check()

    def _seal(self, plain: bytes, last: bool) -> None:
        sealed = self._cipher.encrypt(plain, "index", "frame", self._frames, (self._file_id, int(last)))
        self._out.write(_LENGTH.pack(len(sealed)) + sealed)
        self._frames += 1

    def finish(self) -> None:
        self._seal(bytes(self._buffer), last=True)
        self._buffer.clear()


STALE_PARTIAL = 3600.0  # seconds unwritten after which a partial file's writer is gone


def _sweep(target: Path) -> None:
    """Remove the partial files of saves that died midway (a crash, a power cut), not those
    of a save that is writing now."""
    now = time.time()
    # Its own saves' names (16 hex digits of a file id), and the one name saves had before.
    ours = re.compile(re.escape(target.name) + r"(\.[0-9a-f]{16})?\.partial")
    for old in target.parent.glob(f"{glob.escape(target.name)}*.partial"):
        with contextlib.suppress(OSError):
            if ours.fullmatch(old.name) and now - old.stat().st_mtime > STALE_PARTIAL:
                old.unlink()


def write(vault_path: Path, cipher: FieldCipher, header: dict[str, Any], items: list[Item],
          check: Callable[[], None] = lambda: None, key: int | None = None) -> int:
    """Seal ``header`` (JSON) and ``items`` into the vault's index file, replacing it only
    once whole (a partial name, flushed to disk, then renamed); returns its size. ``check``
    is called between frames and may raise to stop: the partial file goes. ``key``: the
    cipher's ``sealing_key`` when what the file holds was read (by default, now); if a
    passphrase change has retired it by the end, ``KeyChanged`` and nothing is written."""
    target = path_for(vault_path)
    file_id = secrets.randbits(62)
    key = key if key is not None else cipher.sealing_key()
    _sweep(target)
    # A name of its own: the app and a terminal command may save the same vault's index
    # at once, and each must rename only the file it wrote whole.
    partial = target.with_name(f"{target.name}.{file_id:016x}.partial")
    described = dict(header, format=FORMAT, items=[
        {"name": name, "dtype": np.dtype(dtype).str, "shape": list(shape)} for name, dtype, shape, _ in items])
    try:
        with os.fdopen(open_private(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "wb") as out:
            out.write(MAGIC + struct.pack("<Q", file_id))
            sealer = _Sealer(out, cipher, file_id)
            text = json.dumps(described).encode()
            sealer.write(_LENGTH.pack(len(text)) + text, check)
            for _name, dtype, shape, pieces in items:
                expected = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
                written = 0
                for piece in pieces:
                    data = np.ascontiguousarray(piece, dtype=dtype).reshape(-1).view(np.uint8).data \
                        if isinstance(piece, np.ndarray) else memoryview(piece).cast("B")
                    written += len(data)
                    sealer.write(data, check)
                if written != expected:
                    raise ValueError(f"an item of the index is {written} bytes, not {expected}")
            sealer.finish()
            out.flush()
            os.fsync(out.fileno())
        with KEY_CHANGE:
            try:
                now = cipher.sealing_key()
            except RuntimeError as exc:  # the key is gone: the vault was closed
                raise VaultClosed() from exc
            if now != key:
                raise KeyChanged()
            os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    return target.stat().st_size


def _frames(source: IO[bytes], cipher: FieldCipher, file_id: int) -> Iterator[bytes]:
    number = 0
    while True:
        length = source.read(_LENGTH.size)
        if len(length) != _LENGTH.size:
            raise UnusableIndexFile("cut off")
        (size,) = _LENGTH.unpack(length)
        if size > FRAME + 64:
            raise UnusableIndexFile("a frame too large")
        sealed = source.read(size)
        for last in (False, True):
            try:
                plain = cipher.decrypt(sealed, "index", "frame", number, (file_id, int(last)))
            except DamagedVault:
                continue
            yield plain
            if last:
                if source.read(1):
                    raise UnusableIndexFile("bytes after the last frame")
                return
            break
        else:
            raise UnusableIndexFile("a frame that does not open with this vault's key")
        number += 1


class _Reader:
    def __init__(self, frames: Iterator[bytes]) -> None:
        self._frames = frames
        self._current = memoryview(b"")

    def into(self, target: memoryview) -> None:
        filled = 0
        while filled < len(target):
            if not self._current:
                try:
                    self._current = memoryview(next(self._frames))
                except StopIteration:
                    raise UnusableIndexFile("shorter than its header says") from None
            take = min(len(self._current), len(target) - filled)
            target[filled:filled + take] = self._current[:take]
            self._current = self._current[take:]
            filled += take

    def read(self, size: int) -> bytes:
        out = bytearray(size)
        self.into(memoryview(out))
        return bytes(out)

    def end(self) -> None:
        if self._current:
            raise UnusableIndexFile("longer than its header says")
        for extra in self._frames:  # the last frame's checks run; an empty one may follow nothing
            if extra:
                raise UnusableIndexFile("longer than its header says")


def read(vault_path: Path, cipher: FieldCipher) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The header and the arrays of the vault's index file; UnusableIndexFile if it is not
    there or cannot be trusted whole."""
    try:
        return _read(vault_path, cipher)
    except OSError as exc:  # a disk error midway: not used, as a damaged file is not
        raise UnusableIndexFile(type(exc).__name__) from exc


def _read(vault_path: Path, cipher: FieldCipher) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    with path_for(vault_path).open("rb") as source:
        start = source.read(len(MAGIC) + 8)
        if len(start) != len(MAGIC) + 8 or not start.startswith(MAGIC):
            raise UnusableIndexFile("not an index file of this format")
        (file_id,) = struct.unpack("<Q", start[len(MAGIC):])
        reader = _Reader(_frames(source, cipher, file_id))
        (size,) = _LENGTH.unpack(reader.read(_LENGTH.size))
        if size > _HEADER_LIMIT:
            raise UnusableIndexFile("a header too large")
        try:
            header = json.loads(reader.read(size))
            described = [(item["name"], np.dtype(item["dtype"]), tuple(int(n) for n in item["shape"]))
                         for item in header["items"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise UnusableIndexFile("a header that does not read") from exc
        if header.get("format") != FORMAT:
            raise UnusableIndexFile("another format")
        if any(dtype.hasobject or any(n < 0 for n in shape) for _name, dtype, shape in described):
            raise UnusableIndexFile("an item that is not plain data")
        declared = sum(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize for _name, dtype, shape in described)
        if declared > os.fstat(source.fileno()).st_size:  # never allocate more than the file holds
            raise UnusableIndexFile("items larger than the file")
        arrays: dict[str, np.ndarray] = {}
        for name, dtype, shape in described:
            array = np.empty(shape, dtype=dtype)
            reader.into(array.reshape(-1).view(np.uint8).data)
            arrays[name] = array
        reader.end()
    return header, arrays
