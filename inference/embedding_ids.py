"""The name an intranet engine's embedding model goes by (#43), where a local model's
sha256 goes: the collection's recorded model, each passage's row, the question's
``Embed``. Read by the embedder's profile (``inference.embedder``) and the engine's
embedder (``inference.remote_embed``) alike.
"""

from __future__ import annotations

import json

from i18n import translate

PREFIX = "intranet:"



def identity(engine: str, model_id: str, where: str) -> str:
    """The name an engine's embedding model goes by where a local model's sha256 would:
    the engine's name, the model's id and ``where`` (a digest of the engine's address and
    trust, ``core.remote_embedding``), as JSON after the prefix, so that no name or id
    can be read as another (both may hold any printable character)."""
    return PREFIX + json.dumps([engine, model_id, where], ensure_ascii=False)


def is_remote(model: str) -> bool:
    return model.startswith(PREFIX)


def parts(model: str) -> tuple[str, str, str] | None:
    """The engine's name, the model's id and the digest an identity holds; None if it is
    not one."""
    if not is_remote(model):
        return None
    try:
        found = json.loads(model[len(PREFIX):])
    except ValueError:
        return None
    if not (isinstance(found, list) and len(found) == 3 and all(isinstance(x, str) for x in found)):
        return None
    return found[0], found[1], found[2]


def shown(model: str) -> str:
    """An identity as the user reads it: "model id on engine" (a sha256's first twelve)."""
    found = parts(model)
    if found is None:
        return model[:12] + "…"
    return translate("inference.remote_embed", "{model} on {engine}").format(model=found[1], engine=found[0])
