"""The chat store's payloads: each row's JSON sealed to its table, row and binding, and
the plaintext of the chat and message rows last read or written kept beside their bytes.

A send reads the chat row and the conversation many times; a row whose bytes are the
ones kept here is not decrypted again. Bytes are compared, so a row changed by anyone
else, or a write that rolled back, is decrypted afresh; so are the same bytes at another
place (a message moved to another chat or position: its binding is checked again). A
payload that does not decrypt does not raise: its place is noted (in the store's
``damaged_places`` unless the caller gives its own list) and None comes back.
``storage.chats`` owns one; ``storage.library`` and ``storage.checkup`` read through it.

A chat row is mostly its tree and its list of message versions, which the chat list does
not show: ``members`` leaves such maps of ids unparsed (parsing them was most of the time
from unlock to the list: #43).
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from typing import Any

from storage.crypto import Binding, DamagedVault, FieldCipher

ROWS_KEPT = 4096  # chat and message rows whose plaintext a store keeps (``Payloads._rows``)
KEPT_TABLES = ("chats", "messages")
# An object of ids and numbers only: no string in it can hold a brace, so the first one ends it.
_ID_MAP = re.compile(r'\{[0-9":,\-nul]*\}')
_decode = json.JSONDecoder().raw_decode


def encode(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def members(plain: bytes, skipped: frozenset[str]) -> dict[str, Any]:
    """The JSON object's members but ``skipped``, whose values are not parsed where they are
    maps of ids in the compact form ``encode`` writes (the rest of the object is parsed as
    it comes, strictly); anything else is parsed whole, so for any JSON the store writes the
    answer is the same as ``json.loads``'s less those members."""
    found: dict[str, Any] = {}
    try:
        text = plain.decode("utf-8")
        if text[0] != "{":
            raise ValueError(text[:1])
        at = 1
        while text != "{}":
            key, at = _decode(text, at)
            if not isinstance(key, str) or text[at] != ":":
                raise ValueError(key)
            ids = _ID_MAP.match(text, at + 1) if key in skipped else None
            if ids is not None:
                at = ids.end()
            else:
                value, at = _decode(text, at + 1)
                if key not in skipped:
                    found[key] = value
            if text[at] == "}" and at + 1 == len(text):
                break
            if text[at] != ",":
                raise ValueError(text[at])
            at += 1
        return found
    except (ValueError, IndexError):  # UnicodeDecodeError is a ValueError
        whole = json.loads(plain)
        return {k: v for k, v in whole.items() if k not in skipped} if isinstance(whole, dict) else whole


class Payloads:
    def __init__(self, cipher: FieldCipher, damaged_places: list[str]) -> None:
        self._cipher = cipher
        self._damaged_places = damaged_places  # the store's list: the window reads it
        # Chat and message rows' ciphertexts as last read or written here, with their
        # plaintext (the most recent ROWS_KEPT). Dropped at close.
        self._rows: OrderedDict[tuple[str, int], tuple[bytes, Binding, bytes]] = OrderedDict()
        self._rows_lock = threading.Lock()

    def seal(self, table: str, row_id: int, data: dict[str, Any], bind: Binding = (),
             keep: bool = False) -> bytes:
        """``data`` encrypted for its place; ``keep``: its plaintext kept beside the bytes
        (a chat row's: should its write roll back, the row keeps other bytes, which read
        as they are)."""
        plain = encode(data)
        sealed = self._cipher.encrypt(plain, table, "payload", row_id, bind)
        if keep:
            self._keep(table, row_id, sealed, plain, bind)
        return sealed

    def unseal(self, table: str, row_id: int, blob: bytes,
               places: list[str] | None = None, bind: Binding = (), keep: bool = True,
               skipped: frozenset[str] = frozenset()) -> dict[str, Any] | None:
        """``keep``: a chat or message row's plaintext kept beside its bytes (the default).
        ``skipped``: members not wanted (see ``members``)."""
        try:
            if table in KEPT_TABLES:
                plain = self._plain(table, row_id, blob, bind, keep)
                return members(plain, skipped) if skipped else json.loads(plain)
            return json.loads(self._cipher.decrypt(blob, table, "payload", row_id, bind))
        except DamagedVault as exc:
            place = str(exc)
            found = self._damaged_places if places is None else places
            if place not in found:
                found.append(place)
            return None

    def _plain(self, table: str, row_id: int, blob: bytes, bind: Binding = (), keep: bool = True) -> bytes:
        with self._rows_lock:
            known = self._rows.get((table, row_id))
        if known is not None and known[0] == blob and known[1] == tuple(bind):
            return known[2]
        plain = self._cipher.decrypt(blob, table, "payload", row_id, bind)
        if keep:
            self._keep(table, row_id, blob, plain, bind)
        return plain

    def _keep(self, table: str, row_id: int, blob: bytes, plain: bytes, bind: Binding = ()) -> None:
        with self._rows_lock:
            self._rows[(table, row_id)] = (blob, tuple(bind), plain)
            self._rows.move_to_end((table, row_id))
            while len(self._rows) > ROWS_KEPT:
                self._rows.popitem(last=False)

    def clear(self) -> None:
        """Forget every plaintext kept (the store closes)."""
        with self._rows_lock:
            self._rows.clear()
