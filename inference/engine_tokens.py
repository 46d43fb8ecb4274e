"""The spellings an intranet engine's tokenizer turns into control tokens, asked of the engine.

The server renders the chat template and tokenizes the result with special tokens parsed,
so a passage or an earlier answer that spells one of the model's control tokens could
close the turn and open one of its own (a system turn, say). ``remote``'s fixed list of
the common families is the floor; this adds what the engine itself says, so a family the
list does not know (EXAONE's ``[|endofturn|]``, Seed-OSS's ``<seed:eos>``, MiniMax's
``]~b]``) is defused too.

How it is asked, once per engine and model (a new model on the engine is a new
``RemoteEngine``, so it is asked again):

- llama-server: ``/apply-template`` renders a probe conversation; ``/tokenize`` with
  special parsing and ``with_pieces`` splits it; a piece is a control token when the same
  text tokenized *without* special parsing is not that one token.
- vLLM and SGLang: ``/tokenize`` with the probe's ``messages`` and ``return_token_strs``
  gives the template's tokens; one is a control token when its text tokenized alone is
  that one token again (a byte-level BPE piece such as ``Ġuser`` is not).

Only pieces that look like markup are asked about (a letter and a sign, at least three
characters, not from the probe's own words), at most ``MAX_ASKED`` of them: a server
cannot make Hearth send it thousands of requests. An engine that answers none of this
keeps the floor, and the log says so.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from guard.egress import log_tag
from inference.intranet import Abort, Aborted, Client, EngineError

log = logging.getLogger(__name__)

PROBE_WORDS = ("Lorem", "ipsum", "dolor", "amet")
# Some templates refuse a system turn (Mistral's older ones): then without it.
PROBES = (
    tuple({"role": role, "content": f"{PROBE_WORDS[i]} {i}"}
          for i, role in enumerate(("system", "user", "assistant", "user"))),
    tuple({"role": role, "content": f"{PROBE_WORDS[i]} {i}"}
          for i, role in enumerate(("user", "assistant", "user"))),
)
MAX_ASKED = 48
LEARNING_SECONDS = 20.0  # then the questions stop and the fixed list has to do
MAX_LENGTH = 64

# Control-token spellings of the common chat templates. The server renders the template
# and tokenizes the result with special tokens parsed, so a document or an earlier answer
# that spells one could end a turn and write its own; a word joiner after the first
# character keeps the text readable and makes it ordinary text.
_CONTROL = re.compile(
    r"<\|[^|<>\n]{1,40}\|>"  # ChatML, Llama 3, Phi: <|im_end|>, <|eot_id|>, <|end|>
    r"|<\uff5c[^\uff5c<>\n]{1,40}\uff5c>"  # DeepSeek's full-width bars: <｜User｜>
    r"|\[/?[A-Z][A-Z_]{2,30}\]"  # Mistral and Llama 2: [INST], [SYSTEM_PROMPT], [TOOL_CALLS]
    r"|<</?SYS>>|</?s>|<(?:bos|eos|pad|unk|mask)>|</?(?:start|end)_of_turn>"  # Llama 2, Gemma
    r"|<\|?(?:im_start|im_end|endoftext|eot_id)\|?>", re.IGNORECASE)


def escape_control_text(text: str) -> str:
    return _CONTROL.sub(lambda m: m[0][0] + "\u2060" + m[0][1:], text)


def looks_like_markup(piece: str) -> bool:
    """A piece worth asking about: a letter and a sign, 3 to 64 characters, none of the
    probe's own words."""
    text = piece.strip()
    return (3 <= len(text) <= MAX_LENGTH and any(c.isalpha() for c in text)
            and any(not (c.isalnum() or c.isspace()) for c in text)
            and not any(word in text for word in PROBE_WORDS))


def _pieces(data: Any, kind: str) -> list[tuple[int, str]]:
    """(token id, its text) of a /tokenize answer, in either engine's shape."""
    if not isinstance(data, dict):
        return []
    tokens = data.get("tokens")
    if not isinstance(tokens, list):
        return []
    if kind == "llama.cpp":
        return [(t["id"], t["piece"]) for t in tokens
                if isinstance(t, dict) and isinstance(t.get("id"), int) and isinstance(t.get("piece"), str)]
    texts = data.get("token_strs")
    if not isinstance(texts, list) or len(texts) != len(tokens):
        return []
    return [(t, s) for t, s in zip(tokens, texts, strict=True) if isinstance(t, int) and isinstance(s, str)]


def _ids(data: Any) -> list[Any]:
    tokens = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(tokens, list):
        return []
    return [t.get("id") if isinstance(t, dict) else t for t in tokens]


class _Asker:
    def __init__(self, client: Client, kind: str, model: str, abort: Abort | None, seconds: float) -> None:
        self.client, self.kind, self.model, self.abort = client, kind, model, abort
        self.root = client.endpoint.root
        self.deadline = time.monotonic() + seconds

    def post(self, path: str, body: dict[str, Any]) -> Any:
        if time.monotonic() > self.deadline:  # a slow engine: the fixed list has to do
            raise EngineError("out of time")
        return self.client.post_json(self.root + path, body, self.abort)

    def template_pieces(self) -> list[tuple[int, str]]:
        for probe in PROBES:
            try:
                if self.kind == "llama.cpp":
                    rendered = self.post("/apply-template", {"messages": list(probe)})
                    prompt = rendered.get("prompt") if isinstance(rendered, dict) else None
                    if not isinstance(prompt, str):
                        continue
                    data = self.post("/tokenize", {"content": prompt, "add_special": False,
                                                   "parse_special": True, "with_pieces": True})
                else:
                    data = self.post("/tokenize", {"model": self.model, "messages": list(probe),
                                                   "add_generation_prompt": True, "return_token_strs": True})
            except EngineError:
                continue
            found = _pieces(data, self.kind)
            if found:
                return found
        return []

    def is_control(self, token: int, piece: str) -> bool:
        if self.kind == "llama.cpp":
            plain = self.post("/tokenize", {"content": piece, "add_special": False, "parse_special": False})
            return _ids(plain) != [token]
        alone = self.post("/tokenize", {"model": self.model, "prompt": piece, "add_special_tokens": False})
        return _ids(alone) == [token]


def control_spellings(client: Client, kind: str, model: str, abort: Abort | None = None,
                      seconds: float = LEARNING_SECONDS) -> frozenset[str]:
    """The spellings of the control tokens the engine's template uses (empty where the
    engine cannot say, or not within ``seconds``). Aborted propagates; anything else the
    engine does wrong is logged and gives nothing: the fixed list still holds."""
    if kind not in ("llama.cpp", "vllm", "sglang"):
        return frozenset()
    asker = _Asker(client, kind, model, abort, seconds)
    found: set[str] = set()
    try:
        asked: set[str] = set()
        for token, piece in asker.template_pieces():
            if piece in asked or not looks_like_markup(piece):
                continue
            if len(asked) >= MAX_ASKED:
                break
            asked.add(piece)
            if asker.is_control(token, piece):
                found.add(piece)
    except Aborted:
        raise
    except Exception as exc:  # a broken or hostile answer: never a failed request for it
        log.info("%s did not say which spellings are control tokens (%s): the common ones are defused",
                 log_tag(client.name), type(exc).__name__)
        return frozenset()
    if not found:
        log.info("%s named no control tokens of its template: the common ones are defused", log_tag(client.name))
    return frozenset(found)

