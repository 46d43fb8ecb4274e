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
    new_vault_id,
    open_envelope,
)

FAST = KdfParams(memory_kib=64, iterations=1, lanes=1)
VID = new_vault_id()


def test_default_kdf_meets_rfc_9106_second_recommendation() -> None:
    assert DEFAULT_KDF.memory_kib >= 64 * 1024
    assert DEFAULT_KDF.iterations >= 3
    assert DEFAULT_KDF.lanes >= 4


def test_envelope_round_trip_and_wrong_passphrase() -> None:
    key = new_data_key()
    envelope = Envelope.from_json(new_envelope("right", key, VID, FAST).to_json())
    assert open_envelope("right", envelope) == key
    with pytest.raises(WrongPassphrase):
        open_envelope("wrong", envelope)


def test_each_envelope_gets_its_own_salt_and_nonce() -> None:
    key = new_data_key()
    a, b = new_envelope("p", key, VID, FAST), new_envelope("p", key, VID, FAST)
    assert a.kdf.salt != b.kdf.salt and a.nonce != b.nonce and len(a.kdf.salt) == 16


def test_a_damaged_key_record_is_not_mistaken_for_a_wrong_passphrase() -> None:
    text = new_envelope("p", new_data_key(), VID, FAST).to_json()
    damaged = text.replace('"iterations\\": 1', '"iterations\\": 2')
    assert damaged != text
    with pytest.raises(DamagedVault):
        Envelope.from_json(damaged)
    with pytest.raises(DamagedVault):
        Envelope.from_json(text[: len(text) // 2])


@pytest.mark.parametrize("passphrase", ["", "x" * 5000])
def test_unusable_passphrases_are_refused(passphrase: str) -> None:
    with pytest.raises(BadPassphrase):
        new_envelope(passphrase, new_data_key(), VID, FAST)


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


@pytest.mark.parametrize("field, value", [("memory_kib", 1 << 30), ("iterations", 10**9), ("lanes", 0),
                                          ("memory_kib", -1)])
def test_a_key_record_asking_for_absurd_kdf_work_is_damage_not_a_hang(field, value) -> None:
    """A vault file from a stranger must not make the unlock derive with 1 TiB or forever."""
    import hashlib
    import json

    from storage.crypto import DamagedVault

    outer = json.loads(new_envelope("p", new_data_key(), VID, FAST).to_json())
    body = json.loads(outer["envelope"])
    body["kdf"][field] = value
    text = json.dumps(body, sort_keys=True)
    forged = json.dumps({"envelope": text, "sha256": hashlib.sha256(text.encode()).hexdigest()})
    with pytest.raises(DamagedVault, match="^the key record is damaged$") as raised:
        Envelope.from_json(forged)
    assert "out of bounds" in str(raised.value.__cause__)  # the parser's words: the log's, not the user's


def test_the_vault_id_and_format_are_bound_into_the_key_wrapping() -> None:
    import dataclasses

    from storage.crypto import LEGACY_FORMAT, WrongPassphrase

    key = new_data_key()
    envelope = new_envelope("p", key, VID, FAST)
    for forged in (dataclasses.replace(envelope, vault_id=new_vault_id()),
                   dataclasses.replace(envelope, format=LEGACY_FORMAT, vault_id="")):
        with pytest.raises(WrongPassphrase):
            open_envelope("p", forged)
    assert open_envelope("p", envelope) == key


def test_a_field_is_bound_to_its_rows_meaning_and_its_vault() -> None:
    from storage.crypto import LEGACY_FORMAT

    key = new_data_key()
    cipher = FieldCipher(key, VID)
    blob = cipher.encrypt(b"secret", "messages", "payload", 7, (3, 2))
    assert cipher.decrypt(blob, "messages", "payload", 7, (3, 2)) == b"secret"
    for bind in ((4, 2), (3, 1), ()):  # another chat, another position
        with pytest.raises(DamagedVault):
            cipher.decrypt(blob, "messages", "payload", 7, bind)
    with pytest.raises(DamagedVault):  # the same key in another vault (a copy's id differs)
        FieldCipher(key, new_vault_id()).decrypt(blob, "messages", "payload", 7, (3, 2))
    legacy = FieldCipher(key, format=LEGACY_FORMAT).encrypt(b"old", "messages", "payload", 7)
    with pytest.raises(DamagedVault, match="not a Hearth ciphertext of this vault"):
        cipher.decrypt(legacy, "messages", "payload", 7)  # no splicing of unbound old rows


def test_a_staged_key_reads_during_the_commit_and_writes_after_it() -> None:
    old, new = new_data_key(), new_data_key()
    cipher = FieldCipher(old, VID)
    written_old = cipher.encrypt(b"a", "chats", "payload", 1)
    written_new = FieldCipher(new, VID).encrypt(b"b", "chats", "payload", 1)
    cipher.stage(new)
    assert cipher.decrypt(written_old, "chats", "payload", 1) == b"a"
    assert cipher.decrypt(written_new, "chats", "payload", 1) == b"b"
    cipher.promote()
    assert cipher.decrypt(written_new, "chats", "payload", 1) == b"b"
    assert cipher.decrypt(written_old, "chats", "payload", 1) == b"a"  # a read that overlapped
    with pytest.raises(DamagedVault):  # the next unlock has the new key alone
        FieldCipher(new, VID).decrypt(written_old, "chats", "payload", 1)
    assert FieldCipher(new, VID).decrypt(cipher.encrypt(b"c", "chats", "payload", 1), "chats", "payload", 1) == b"c"
