"""Envelope encryption for the vault.

A random 256-bit data key encrypts every protected field with AES-256-GCM. The data key
is stored only wrapped (AES-256-GCM again) by a key-encryption key that Argon2id derives
from the passphrase. A passphrase change makes a new data key and re-encrypts every
field (``storage.vault``): an old copy of the file and the old passphrase yield the old
key, which opens that old copy and nothing written since.

Each field's associated data names its place (format version, the vault's random id,
table, column, row id) and the plaintext columns that give the row its meaning (the chat
and position of a message; the collection and document of a chunk): a ciphertext moved
to another row, column, chat, position, document or vault no longer decrypts. The key
record binds the vault id and format into the wrapping, so neither can be edited.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id

from i18n import translate

log = logging.getLogger(__name__)

FORMAT_VERSION = 2
LEGACY_FORMAT = 1  # before the vault id and the row bindings: migrated at the first unlock
NONCE_BYTES = 12
KEY_BYTES = 32
SALT_BYTES = 16
# Passphrases longer than this are refused: Argon2id would take them, but nobody types
# 4 KiB, and a bound keeps a pasted file from becoming the passphrase by accident.
MAX_PASSPHRASE_BYTES = 4096


class WrongPassphrase(Exception):
    def __init__(self) -> None:
        super().__init__(translate("storage.crypto", "Wrong passphrase."))


class DamagedVault(Exception):
    """The vault's files were changed outside Hearth or damaged. The message is for the user;
    ``not_vault``: the file is no Hearth vault at all (not a database, or one without a key
    record), which a restore says of the file the user chose as "not a Hearth backup"."""

    def __init__(self, message: str = "", not_vault: bool = False) -> None:
        super().__init__(message)
        self.not_vault = not_vault


class NewerVault(Exception):
    """The vault was written by a newer Hearth than this one: it is left exactly as it is."""


def newer_vault_message(what: str) -> str:
    return translate("storage.crypto", "This vault was written by a newer version of Hearth ({what}). Install that "
                     "version, or a later one, to open it; this one left it exactly as it was.").format(what=what)


class BadPassphrase(ValueError):
    """A passphrase that cannot be used (empty, too long). The message is for the user."""


@dataclass(frozen=True)
class KdfParams:
    """Argon2id parameters, stored in the clear beside the wrapped key (and bounded when
    read back: a key record from a stranger must not ask for 1 TiB or a billion passes)."""

    memory_kib: int = 65536  # RFC 9106 second recommendation: 64 MiB,
    iterations: int = 3  # 3 passes,
    lanes: int = 4  # 4 lanes.
    salt: bytes = b""

    def with_new_salt(self) -> KdfParams:
        return KdfParams(self.memory_kib, self.iterations, self.lanes, os.urandom(SALT_BYTES))


DEFAULT_KDF = KdfParams()
# What a key record may ask for: from the tests' fast setting up to 4 GiB and 64 passes.
KDF_BOUNDS = {"memory_kib": (8, 4 << 20), "iterations": (1, 64), "lanes": (1, 64)}
SALT_RANGE = (SALT_BYTES, 64)


def check_passphrase(passphrase: str) -> bytes:
    if not passphrase:
        raise BadPassphrase(translate("storage.crypto", "The passphrase cannot be empty."))
    encoded = passphrase.encode("utf-8")
    if len(encoded) > MAX_PASSPHRASE_BYTES:
        raise BadPassphrase(translate("storage.crypto", "The passphrase is longer than %n bytes.",
                                      None, MAX_PASSPHRASE_BYTES))
    return encoded


def derive_kek(passphrase: str, params: KdfParams) -> bytes:
    kdf = Argon2id(
        salt=params.salt,
        length=KEY_BYTES,
        iterations=params.iterations,
        lanes=params.lanes,
        memory_cost=params.memory_kib,
    )
    return kdf.derive(check_passphrase(passphrase))


@dataclass(frozen=True)
class Envelope:
    """What is stored about the key: KDF parameters, salt and the wrapped data key."""

    kdf: KdfParams
    nonce: bytes
    wrapped_key: bytes
    vault_id: str = ""  # hex; empty in a format-1 record
    format: int = LEGACY_FORMAT

    @property
    def wrap_ad(self) -> bytes:
        if self.format == LEGACY_FORMAT:
            return WRAP_AD_V1
        return f"hearth:key:v{self.format}:{self.vault_id}".encode()

    def to_json(self) -> str:
        data = asdict(self)
        data["kdf"]["salt"] = base64.b64encode(self.kdf.salt).decode()
        data["nonce"] = base64.b64encode(self.nonce).decode()
        data["wrapped_key"] = base64.b64encode(self.wrapped_key).decode()
        body = json.dumps(data, sort_keys=True)
        # A plain checksum tells accidental damage apart from a wrong passphrase.
        return json.dumps({"envelope": body, "sha256": hashlib.sha256(body.encode()).hexdigest()})

    @classmethod
    def from_json(cls, text: str) -> Envelope:
        try:
            outer = json.loads(text)
            body = outer["envelope"]
            if not hmac.compare_digest(hashlib.sha256(body.encode()).hexdigest(), outer["sha256"]):
                raise ValueError("checksum mismatch")
            data = json.loads(body)
            if int(data.get("format", LEGACY_FORMAT)) > FORMAT_VERSION:  # first: a newer Hearth may change the rest
                raise NewerVault(newer_vault_message(f"format {int(data['format'])}"))
            kdf = data["kdf"]
            params = KdfParams(
                int(kdf["memory_kib"]), int(kdf["iterations"]), int(kdf["lanes"]),
                base64.b64decode(kdf["salt"], validate=True),
            )
            for name, (low, high) in KDF_BOUNDS.items():
                if not low <= getattr(params, name) <= high:
                    raise ValueError(f"{name} out of bounds")
            if not SALT_RANGE[0] <= len(params.salt) <= SALT_RANGE[1]:
                raise ValueError("salt length out of bounds")
            envelope = cls(params, base64.b64decode(data["nonce"], validate=True),
                           base64.b64decode(data["wrapped_key"], validate=True),
                           str(data.get("vault_id", "")), int(data.get("format", LEGACY_FORMAT)))
            if len(envelope.nonce) != NONCE_BYTES or len(envelope.wrapped_key) != KEY_BYTES + 16:
                raise ValueError("wrapped key of the wrong size")
            if envelope.format not in (LEGACY_FORMAT, FORMAT_VERSION):
                raise ValueError(f"unknown format {envelope.format}")
            if envelope.format != LEGACY_FORMAT and len(bytes.fromhex(envelope.vault_id)) != VAULT_ID_BYTES:
                raise ValueError("vault id of the wrong size")
            return envelope
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("the key record does not read: %s", exc)  # the parser's words, not the user's
            raise DamagedVault(translate("storage.crypto", "the key record is damaged")) from exc


WRAP_AD_V1 = b"hearth:key:v1"
VAULT_ID_BYTES = 16


def new_vault_id() -> str:
    return os.urandom(VAULT_ID_BYTES).hex()


def new_envelope(passphrase: str, data_key: bytes, vault_id: str, params: KdfParams = DEFAULT_KDF,
                 format: int = FORMAT_VERSION) -> Envelope:
    salted = params.with_new_salt()
    kek = derive_kek(passphrase, salted)
    nonce = os.urandom(NONCE_BYTES)
    shape = Envelope(salted, nonce, b"", vault_id if format != LEGACY_FORMAT else "", format)
    return replace(shape, wrapped_key=AESGCM(kek).encrypt(nonce, data_key, shape.wrap_ad))


def open_envelope(passphrase: str, envelope: Envelope) -> bytes:
    kek = derive_kek(passphrase, envelope.kdf)
    try:
        return AESGCM(kek).decrypt(envelope.nonce, envelope.wrapped_key, envelope.wrap_ad)
    except InvalidTag:
        raise WrongPassphrase() from None


def new_data_key() -> bytes:
    return AESGCM.generate_key(bit_length=256)


Binding = tuple[int, ...]


# A passphrase change's switch of key (``promote``, and the removal of files sealed with
# the old one) and the moment a file sealed beside the vault replaces the one there
# (``storage.documents.index_file``) never interleave: a file sealed, even in part, with a
# key that a change has just retired is never left behind, where the old passphrase would
# open it.
KEY_CHANGE = threading.Lock()


class FieldCipher:
    """Encrypts and decrypts one field at one place. Holds the data key while unlocked.

    ``bind`` is the row's plaintext columns that give it meaning, in a fixed order per
    table (``storage.schema.SEALED``). A cipher reads and writes one format only: a
    format-1 field found in a format-2 vault is a splice from an older copy, and damage.

    During a passphrase change the next key is added before the new ciphertexts commit
    (``stage``) and made the one that writes after (``promote``): a read that overlaps the
    commit decrypts with either, and nothing ever holds a ciphertext it cannot read.
    """

    def __init__(self, data_key: bytes, vault_id: str = "", format: int = FORMAT_VERSION) -> None:
        self._keys: list[AESGCM] = [AESGCM(data_key)]
        self._epoch = 0  # which key writes: one more at each committed passphrase change
        self.vault_id = vault_id
        self.format = format
        # Called when no key opens a field, before it is said to be damaged: the vault's
        # check that its passphrase was not changed elsewhere (``Vault._key_still_current``).
        self.stale: Callable[[], None] | None = None

    def _ad(self, table: str, column: str, row_id: int, bind: Binding) -> bytes:
        if self.format == LEGACY_FORMAT:
            return f"hearth:v1:{table}:{column}:{row_id}".encode()
        bound = ",".join(str(int(value)) for value in bind)
        return f"hearth:v{self.format}:{self.vault_id}:{table}:{column}:{row_id}:{bound}".encode()

    def _require(self) -> list[AESGCM]:
        if not self._keys:
            raise RuntimeError("the vault is locked")
        return self._keys

    def encrypt(self, plaintext: bytes, table: str, column: str, row_id: int, bind: Binding = ()) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._require()[0].encrypt(nonce, plaintext, self._ad(table, column, row_id, bind))
        return bytes([self.format]) + nonce + sealed

    def decrypt(self, blob: bytes, table: str, column: str, row_id: int, bind: Binding = ()) -> bytes:
        keys = self._require()
        # (SQLite keeps any type in any column: a number or a text put there is damage too.)
        if (not isinstance(blob, bytes | bytearray | memoryview) or not blob or blob[0] != self.format
                or len(blob) < 1 + NONCE_BYTES + 16):
            raise DamagedVault(translate(
                "storage.crypto", "{table}.{column} of row {row_id} is not a Hearth ciphertext of "
                "this vault").format(table=table, column=column, row_id=row_id))
        ad = self._ad(table, column, row_id, bind)
        for aead in keys:
            try:
                return aead.decrypt(blob[1 : 1 + NONCE_BYTES], blob[1 + NONCE_BYTES :], ad)
            except InvalidTag:
                continue
        if self.stale is not None:
            self.stale()  # KeyChangedElsewhere: every row is under a key this one lacks
        raise DamagedVault(translate(
            "storage.crypto", "{table}.{column} of row {row_id} was changed outside Hearth or is "
            "damaged").format(table=table, column=column, row_id=row_id))

    def sealing_key(self) -> int:
        """Which key a new ciphertext is sealed with now, as a number to compare (not the
        key): it changes when a passphrase change commits (``promote``)."""
        self._require()
        return self._epoch

    def writing_key_only(self) -> FieldCipher:
        """A cipher that reads and writes with this one's current key alone (a passphrase
        change reads the old rows with it: a row under any other key is not taken as old)."""
        copy = FieldCipher.__new__(FieldCipher)
        copy._keys, copy.vault_id, copy.format = self._require()[:1], self.vault_id, self.format
        copy._epoch = self._epoch
        copy.stale = None
        return copy

    def stage(self, next_key: bytes) -> None:
        """Also read with ``next_key`` (its ciphertexts are about to commit)."""
        self._require().append(AESGCM(next_key))

    def promote(self) -> None:
        """The staged key committed: write with it from now on. The previous key still
        reads, for the rest of this unlock: a read that fetched its rows before the commit
        decrypts them after it (an index being built, say). The next unlock has the new
        key alone. A cipher locked meanwhile stays locked."""
        self._keys = self._keys[-1:] + self._keys[:1]
        self._epoch += 1

    def unstage(self) -> None:
        """The change rolled back: the staged key goes."""
        self._keys = self._keys[:1]

    def forget(self) -> None:
        """Drop the key reference (Python cannot promise to wipe the bytes from memory)."""
        self._keys = []
