"""Pictures for a vision model: llama.cpp's multimodal library (libmtmd) on the worker's
thread, beside the text engine (``inference.llama_engine``).

A GGUF vision model is its text model plus a projector (``mmproj``) file. The projector
turns a picture's pixels into embeddings that take the place of tokens in the prompt.
``Projector.tokenize`` cuts a rendered prompt at its picture markers into chunks (text,
then a picture's tokens, then text…) and gives the engine a token list in which a
picture's positions hold placeholders: negative numbers, which no real token is, made
from the picture's digest. The engine's prefix reuse compares those like any token, so a
follow-up question about the same picture finds it already in the context and the picture
is not encoded again. ``Projector.evaluate`` evaluates what is not in the context yet:
text with the engine's own ``decode``, a picture through libmtmd.

Pixels come decoded (RGB, 8 bits a channel) from the isolated child that read the file
(``storage.documents.pixels``): nothing here opens an image file. The marker that
stands for a picture in the prompt is libmtmd's; the engine breaks it in any text that is
not the template's own, as it does control tokens, so a message cannot ask for a picture
that is not there.
"""

from __future__ import annotations

import ctypes
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from i18n import translate
from inference.errors import InferenceError, ModelLoadError
from inference.protocol import Picture

log = logging.getLogger(__name__)

MARKER = "<__media__>"  # libmtmd's default marker, which the projector is told to use
PLACEHOLDER_SPACE = 2**31 - 2


def placeholders(key: str, count: int) -> list[int]:
    """The token list's stand-ins for a picture's ``count`` positions: negative, never a
    real token, and the same for the same picture."""
    base = int(key[:15], 16)
    return [-1 - (base + i) % PLACEHOLDER_SPACE for i in range(count)]


@dataclass
class Prompt:
    """A prompt cut at its pictures: ``tokens`` with placeholders, and for each chunk its
    span in that list (the picture chunks are evaluated by libmtmd)."""

    tokens: list[int]
    spans: list[tuple[int, int, bool]]  # start, end, is a picture
    chunks: Any  # mtmd_input_chunks_p, freed with the prompt
    pictures: int

    def picture_start(self, position: int) -> int:
        """``position``, or the start of the picture it falls inside."""
        for start, end, picture in self.spans:
            if picture and start < position < end:
                return start
        return position


class Projector:
    """A loaded projector, tied to one loaded text model."""

    def __init__(self, path: Path, llm: Any, threads: int, use_gpu: bool) -> None:
        from llama_cpp import _logger, mtmd_cpp

        self._m = mtmd_cpp
        # libmtmd's messages go where llama.cpp's go: dropped below errors unless verbose
        # (they name no content, but "decoding image batch" on every picture is noise).
        mtmd_cpp.mtmd_helper_log_set(_logger.llama_log_callback, None)
        params = mtmd_cpp.mtmd_context_params_default()
        params.use_gpu = use_gpu
        params.n_threads = threads
        params.print_timings = False
        params.warmup = False  # its first picture does the work instead of every load
        params.media_marker = MARKER.encode()
        self._ctx = mtmd_cpp.mtmd_init_from_file(str(path).encode(), llm._model.model, params)
        if not self._ctx:
            raise ModelLoadError(translate(
                "inference.vision", "llama.cpp could not use {name} as the picture reader (projector) of "
                "this model: it is damaged, made for another model, or of a kind this version does not "
                "know.").format(name=path.name))
        if not mtmd_cpp.mtmd_support_vision(self._ctx):
            self.close()
            raise ModelLoadError(translate("inference.vision", "{name} reads sound, not pictures.").format(
                name=path.name))
        if mtmd_cpp.mtmd_decode_use_mrope(self._ctx):
            self.close()
            raise ModelLoadError(translate(
                "inference.vision", "{name} places pictures in a way Hearth does not support yet (M-RoPE, "
                "as Qwen's vision models do).").format(name=path.name))
        self.name = path.name
        self.encoded = 0  # pictures encoded since loading (a cached one is not)
        self.seconds = 0.0  # spent encoding them and putting them in the context

    def tokenize(self, text: str, pictures: list[Picture]) -> Prompt:
        """``text`` (the rendered prompt, one marker per picture, in order) in chunks."""
        m = self._m
        bitmaps = []
        chunks = m.mtmd_input_chunks_init()
        try:
            for picture in pictures:
                data = (ctypes.c_uint8 * len(picture.rgb)).from_buffer_copy(picture.rgb)
                bitmap = m.mtmd_bitmap_init(picture.width, picture.height, data)  # copied
                if not bitmap:
                    raise InferenceError(translate("inference.vision", "A picture could not be given to "
                                                   "the model."))
                bitmaps.append(bitmap)
                m.mtmd_bitmap_set_id(bitmap, picture.key[:32].encode())
            encoded = text.encode("utf-8")
            given = m.mtmd_input_text(encoded, len(encoded), False, True)
            array = (m.mtmd_bitmap_p_ctypes * max(1, len(bitmaps)))(*bitmaps)
            result = m.mtmd_tokenize(self._ctx, chunks, ctypes.byref(given), array, len(bitmaps))
            if result != 0:
                raise InferenceError(translate("inference.vision", "The pictures could not be placed in the "
                                               "prompt (libmtmd said {code}).").format(code=result))
            prompt = self._spans(chunks, pictures)
        except BaseException:
            m.mtmd_input_chunks_free(chunks)
            raise
        finally:
            for bitmap in bitmaps:
                m.mtmd_bitmap_free(bitmap)
        return prompt

    def _spans(self, chunks: Any, pictures: list[Picture]) -> Prompt:
        m = self._m
        tokens: list[int] = []
        spans: list[tuple[int, int, bool]] = []
        seen = 0
        for index in range(m.mtmd_input_chunks_size(chunks)):
            chunk = m.mtmd_input_chunks_get(chunks, index)
            start = len(tokens)
            if m.mtmd_input_chunk_get_type(chunk) == m.MTMD_INPUT_CHUNK_TYPE_TEXT:
                count = ctypes.c_size_t(0)
                pointer = m.mtmd_input_chunk_get_tokens_text(chunk, ctypes.byref(count))
                tokens += [int(pointer[i]) for i in range(count.value)]
                spans.append((start, len(tokens), False))
                continue
            if m.mtmd_input_chunk_get_type(chunk) != m.MTMD_INPUT_CHUNK_TYPE_IMAGE or seen >= len(pictures):
                raise InferenceError(translate("inference.vision", "The model's prompt held something other "
                                               "than text and the pictures given."))
            n_tokens, n_pos = m.mtmd_input_chunk_get_n_tokens(chunk), m.mtmd_input_chunk_get_n_pos(chunk)
            if n_tokens != n_pos:  # positions and tokens must agree for the engine's bookkeeping
                raise InferenceError("a picture's positions differ from its tokens")
            tokens += placeholders(pictures[seen].key, int(n_tokens))
            spans.append((start, len(tokens), True))
            seen += 1
        return Prompt(tokens, spans, chunks, seen)

    def evaluate(self, llm: Any, prompt: Prompt, common: int, should_stop: Any, decode: Any) -> bool:
        """Evaluate all but the prompt's last token after the ``common`` ones already in the
        context (``common`` never inside a picture: see ``Prompt.picture_start``); False
        when stopped. Text goes through ``decode`` (the engine's, which keeps the token
        history), a picture through libmtmd, its placeholders then written in the history."""
        m = self._m
        last = len(prompt.tokens) - 1
        for index, (start, end, picture) in enumerate(prompt.spans):
            end = min(end, last)
            if end <= common or start >= last:
                continue
            if should_stop():
                return False
            if not picture:
                step = max(1, min(int(llm.n_batch), 64))
                for at in range(max(start, common), end, step):
                    if should_stop():
                        return False
                    decode(llm, prompt.tokens[at:min(at + step, end)], False)
                continue
            llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
            chunk = m.mtmd_input_chunks_get(prompt.chunks, index)
            reached = llm.n_tokens
            after = _pos(reached)  # libmtmd sets it for a picture (adds to it for text)
            began = time.perf_counter()
            result = m.mtmd_helper_eval_chunk_single(self._ctx, llm._ctx.ctx, chunk, reached, 0,
                                                     int(llm.n_batch), False, ctypes.byref(after))
            self.seconds += time.perf_counter() - began
            if result != 0:
                raise InferenceError(translate("inference.vision", "The model could not take in a picture "
                                               "(libmtmd said {code}).").format(code=result))
            self.encoded += 1
            llm.input_ids[start:end] = prompt.tokens[start:end]
            llm.n_tokens = end
            llm._requires_eval = False
        return not should_stop()

    def free(self, prompt: Prompt | None) -> None:
        if prompt is not None and prompt.chunks:
            self._m.mtmd_input_chunks_free(prompt.chunks)
            prompt.chunks = None

    def close(self) -> None:
        if self._ctx:
            self._m.mtmd_free(self._ctx)
            self._ctx = None


def _pos(value: int) -> Any:
    from llama_cpp import llama_cpp

    return llama_cpp.llama_pos(value)
