"""The vault's tables (SQLAlchemy Core).

What stays in the clear is only what SQLite needs to find and order rows: row ids, the
chat a message belongs to, a message's position in its chat, the collection and
document of a chunk, the schema version and the key record (KDF parameters, salt,
wrapped key, the vault's random id and format). Those plaintext columns are bound into
each row's ciphertext (``SEALED``): edited without the key, the row no longer decrypts.
(While a chat import is unfinished, ``vault_meta`` also holds its record, unbound: a
random token and the chat id its chats come after, ``storage.chat_bulk``. Edited, it can
only hide or remove an import's chats, which deleting their rows does as well.) Everything a person wrote or that
describes them (titles, text, timestamps, model names, settings, states) is inside an
encrypted ``payload``. Ids use AUTOINCREMENT, so a deleted row's id (and with it the
associated data its ciphertext is bound to) is never given to a new row.
"""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Index, Integer, LargeBinary, MetaData, Table, Text

metadata = MetaData()

vault_meta = Table(
    "vault_meta",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
)

chats = Table(
    "chats",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("payload", LargeBinary, nullable=False),
    sqlite_autoincrement=True,
)

messages = Table(
    "messages",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("chat_id", Integer, ForeignKey("chats.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Index("ix_messages_chat_position", "chat_id", "position"),
    sqlite_autoincrement=True,
)

# The model library: name, file, hash, facts, settings and probe verdict, all encrypted.
models = Table(
    "models",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("payload", LargeBinary, nullable=False),
    sqlite_autoincrement=True,
)

# One row (id 1): the user's preferences that are private (the default model, say).
preferences = Table(
    "preferences",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("payload", LargeBinary, nullable=False),
)

# Documents for question answering. In the clear: which collection and document a
# chunk belongs to (to delete and filter without decrypting). Encrypted: names, paths,
# sizes, dates, states, chunk text, pages, headings, offsets and the vectors.
collections = Table(
    "collections",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("payload", LargeBinary, nullable=False),
    sqlite_autoincrement=True,
)

documents = Table(
    "documents",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("collection_id", Integer, ForeignKey("collections.id", ondelete="CASCADE"), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    sqlite_autoincrement=True,
)

chunks = Table(
    "chunks",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("collection_id", Integer, nullable=False),
    Column("document_id", Integer, ForeignKey("documents.id", ondelete="CASCADE"), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Column("vector", LargeBinary, nullable=False),
    sqlite_autoincrement=True,
)

# The versions of the documents' rows, in shards of ``storage.versions.SHARD_ROWS``
# documents each (the root record in the preferences table lists the shards' versions).
versions = Table(
    "versions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("payload", LargeBinary, nullable=False),
)


# Every encrypted column, and the plaintext columns bound into its associated data (in
# this order): what a passphrase change re-encrypts, and what a format migration rebinds.
SEALED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "chats": (("payload",), ()),
    "messages": (("payload",), ("chat_id", "position")),
    "models": (("payload",), ()),
    "preferences": (("payload",), ()),
    "collections": (("payload",), ()),
    "documents": (("payload",), ("collection_id",)),
    "chunks": (("payload", "vector"), ("collection_id", "document_id")),
    "versions": (("payload",), ()),
}
