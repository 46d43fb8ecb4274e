from __future__ import annotations

import pytest

from storage.crypto import (
    DEFAULT_KDF,
    BadPassphrase,
    DamagedVault,
    Envelope,
    FieldCipher,
    KdfParams,
    WrongPassphrase,
    new_data_key,
    new_envelope,
    open_envelope,
)

FAST = KdfParams(memory_kib=64, iterations=1, lanes=1)


def test_default_kdf_meets_rfc_9106_second_recommendation() -> None:
    assert DEFAULT_KDF.memory_kib >= 64 * 1024
    assert DEFAULT_KDF.iterations >= 3
    assert DEFAULT_KDF.lanes >= 4


def test_envelope_round_trip_and_wrong_passphrase() -> None:
    key = new_data_key()
    envelope = Envelope.from_json(new_envelope("right", key, FAST).to_json())
    assert open_envelope("right", envelope) == key
    with pytest.raises(WrongPassphrase):
        open_envelope("wrong", envelope)


def test_each_envelope_gets_its_own_salt_and_nonce() -> None:
    key = new_data_key()
    a, b = new_envelope("p", key, FAST), new_envelope("p", key, FAST)
    assert a.kdf.salt != b.kdf.salt and a.nonce != b.nonce and len(a.kdf.salt) == 16


def test_a_damaged_key_record_is_not_mistaken_for_a_wrong_passphrase() -> None:
    text = new_envelope("p", new_data_key(), FAST).to_json()
    damaged = text.replace('"iterations\\": 1', '"iterations\\": 2')
    assert damaged != text
    with pytest.raises(DamagedVault):
        Envelope.from_json(damaged)
    with pytest.raises(DamagedVault):
        Envelope.from_json(text[: len(text) // 2])


@pytest.mark.parametrize("passphrase", ["", "x" * 5000])
def test_unusable_passphrases_are_refused(passphrase: str) -> None:
    with pytest.raises(BadPassphrase):
        new_envelope(passphrase, new_data_key(), FAST)


def test_fields_are_bound_to_their_place() -> None:
    cipher = FieldCipher(new_data_key())
    blob = cipher.encrypt(b"secret", "messages", "payload", 7)
    assert cipher.decrypt(blob, "messages", "payload", 7) == b"secret"
    for place in [("messages", "payload", 8), ("chats", "payload", 7), ("messages", "title", 7)]:
        with pytest.raises(DamagedVault):
            cipher.decrypt(blob, *place)


def test_every_encryption_uses_a_fresh_nonce() -> None:
    cipher = FieldCipher(new_data_key())
    blobs = {cipher.encrypt(b"same", "t", "c", 1) for _ in range(100)}
    assert len(blobs) == 100
    assert len({b[1:13] for b in blobs}) == 100


def test_a_flipped_bit_is_detected() -> None:
    cipher = FieldCipher(new_data_key())
    blob = bytearray(cipher.encrypt(b"secret", "t", "c", 1))
    blob[20] ^= 1
    with pytest.raises(DamagedVault):
        cipher.decrypt(bytes(blob), "t", "c", 1)


def test_a_forgotten_key_cannot_be_used() -> None:
    cipher = FieldCipher(new_data_key())
    cipher.forget()
    with pytest.raises(RuntimeError, match="locked"):
        cipher.encrypt(b"x", "t", "c", 1)
