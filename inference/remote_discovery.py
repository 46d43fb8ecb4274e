"""Which kind of intranet engine answers at an address, its models and their context
windows (``discover``), for ``inference.remote``."""

from __future__ import annotations

from dataclasses import dataclass

from i18n import translate
from inference.intranet import Abort, Client, EngineError, one_line

MAX_MODELS = 200


@dataclass(frozen=True)
class RemoteModel:
    id: str
    n_ctx: int = 0  # 0: the engine did not say
    vision: bool = False  # the engine says it sees pictures (llama-server's /props; others do not say)


@dataclass(frozen=True)
class EngineInfo:
    kind: str  # "vllm" | "sglang" | "llama.cpp" | "openai" (any other compatible server)
    models: tuple[RemoteModel, ...]


def positive(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10**8 else 0


def discover(client: Client, abort: Abort | None = None) -> EngineInfo:
    """Which kind of server this is, its models and their context windows. ``abort``
    stops it from another thread (its request's connection closed): Aborted."""
    data = client.get_json(client.endpoint.path + "/models", abort)
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise EngineError(translate("inference.remote", "The engine {name} did not list its models: "
                                    "is the URL an OpenAI-compatible API (…/v1)?").format(name=client.name))
    models: list[RemoteModel] = []
    owners = set()
    for item in items[:MAX_MODELS]:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            continue
        model_id = one_line(item["id"], 200)
        if not model_id:
            continue
        owners.add(str(item.get("owned_by", "")).lower())
        meta = item.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        models.append(RemoteModel(model_id, positive(item.get("max_model_len")) or positive(meta.get("n_ctx_train"))))
    kind = ("vllm" if "vllm" in owners else "sglang" if "sglang" in owners
            else "llama.cpp" if "llamacpp" in owners else "openai")
    if kind == "llama.cpp":
        # /v1/models gives the training length; the server's window (per parallel slot) is in
        # /props, and whether its model sees pictures (a projector loaded with --mmproj).
        try:
            props = client.get_json(client.endpoint.root + "/props", abort)
        except EngineError:
            props = {}
        props = props if isinstance(props, dict) else {}
        settings = props.get("default_generation_settings")
        n_ctx = positive(settings.get("n_ctx")) if isinstance(settings, dict) else 0
        modalities = props.get("modalities")
        vision = isinstance(modalities, dict) and modalities.get("vision") is True
        models = [RemoteModel(m.id, n_ctx or m.n_ctx, vision) for m in models]
    if not models:
        raise EngineError(translate("inference.remote", "The engine {name} answers but offers no "
                                    "model.").format(name=client.name))
    return EngineInfo(kind, tuple(models))


