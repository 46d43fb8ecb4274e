"""Envelope encryption for the vault.

A random 256-bit data key encrypts every protected field with AES-256-GCM. The data key
is stored only wrapped (AES-256-GCM again) by a key-encryption key that Argon2id derives
from the passphrase, so changing the passphrase re-wraps 32 bytes and touches no data.

Each field's associated data names its place (format version, table, column, row id):
a ciphertext moved to another row or column no longer decrypts.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from dataclasses import asdict, dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id

FORMAT_VERSION = 1
NONCE_BYTES = 12
KEY_BYTES = 32
SALT_BYTES = 16
# Passphrases longer than this are refused: Argon2id would take them, but nobody types
# 4 KiB, and a bound keeps a pasted file from becoming the passphrase by accident.
MAX_PASSPHRASE_BYTES = 4096


class WrongPassphrase(Exception):
    def __init__(self) -> None:
        super().__init__("Wrong passphrase.")


class DamagedVault(Exception):
    """The vault's files were changed outside Hearth or damaged. The message is for the user."""


class BadPassphrase(ValueError):
    """A passphrase that cannot be used (empty, too long). The message is for the user."""


@dataclass(frozen=True)
class KdfParams:
    """Argon2id parameters, stored in the clear beside the wrapped key."""

    memory_kib: int = 65536  # RFC 9106 second recommendation: 64 MiB,
    iterations: int = 3  # 3 passes,
    lanes: int = 4  # 4 lanes.
    salt: bytes = b""

    def with_new_salt(self) -> KdfParams:
        return KdfParams(self.memory_kib, self.iterations, self.lanes, os.urandom(SALT_BYTES))


DEFAULT_KDF = KdfParams()


def check_passphrase(passphrase: str) -> bytes:
    if not passphrase:
        raise BadPassphrase("The passphrase cannot be empty.")
    encoded = passphrase.encode("utf-8")
    if len(encoded) > MAX_PASSPHRASE_BYTES:
        raise BadPassphrase(f"The passphrase is longer than {MAX_PASSPHRASE_BYTES} bytes.")
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
            kdf = data["kdf"]
            params = KdfParams(
                int(kdf["memory_kib"]), int(kdf["iterations"]), int(kdf["lanes"]),
                base64.b64decode(kdf["salt"]),
            )
            return cls(params, base64.b64decode(data["nonce"]), base64.b64decode(data["wrapped_key"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise DamagedVault(f"the key record is damaged ({exc})") from exc


WRAP_AD = b"hearth:key:v1"


def new_envelope(passphrase: str, data_key: bytes, params: KdfParams = DEFAULT_KDF) -> Envelope:
    salted = params.with_new_salt()
    kek = derive_kek(passphrase, salted)
    nonce = os.urandom(NONCE_BYTES)
    return Envelope(salted, nonce, AESGCM(kek).encrypt(nonce, data_key, WRAP_AD))


def open_envelope(passphrase: str, envelope: Envelope) -> bytes:
    kek = derive_kek(passphrase, envelope.kdf)
    try:
        return AESGCM(kek).decrypt(envelope.nonce, envelope.wrapped_key, WRAP_AD)
    except InvalidTag:
        raise WrongPassphrase() from None


def new_data_key() -> bytes:
    return AESGCM.generate_key(bit_length=256)


class FieldCipher:
    """Encrypts and decrypts one field at one place. Holds the data key while unlocked."""

    def __init__(self, data_key: bytes) -> None:
        self._aead: AESGCM | None = AESGCM(data_key)

    @staticmethod
    def _ad(table: str, column: str, row_id: int) -> bytes:
        return f"hearth:v{FORMAT_VERSION}:{table}:{column}:{row_id}".encode()

    def _require(self) -> AESGCM:
        if self._aead is None:
            raise RuntimeError("the vault is locked")
        return self._aead

    def encrypt(self, plaintext: bytes, table: str, column: str, row_id: int) -> bytes:
        nonce = os.urandom(NONCE_BYTES)
        sealed = self._require().encrypt(nonce, plaintext, self._ad(table, column, row_id))
        return bytes([FORMAT_VERSION]) + nonce + sealed

    def decrypt(self, blob: bytes, table: str, column: str, row_id: int) -> bytes:
        aead = self._require()
        if not blob or blob[0] != FORMAT_VERSION or len(blob) < 1 + NONCE_BYTES + 16:
            raise DamagedVault(f"{table}.{column} of row {row_id} is not a Hearth ciphertext")
        try:
            return aead.decrypt(blob[1 : 1 + NONCE_BYTES], blob[1 + NONCE_BYTES :],
                                self._ad(table, column, row_id))
        except InvalidTag:
            raise DamagedVault(
                f"{table}.{column} of row {row_id} was changed outside Hearth or is damaged"
            ) from None

    def forget(self) -> None:
        """Drop the key reference (Python cannot promise to wipe the bytes from memory)."""
        self._aead = None
