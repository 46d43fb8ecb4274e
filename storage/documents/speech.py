"""Speech to text in the isolated child (#41): Whisper through faster-whisper (CTranslate2),
the audio decoded by PyAV, there and nowhere else.

A recording is a stranger's file like any document: it is opened in the child, under the
child's memory and time limits, with no network. Its audio is decoded frame by frame,
resampled to 16 kHz mono, and counted as it comes: past ``MAX_SECONDS`` the reading stops
and the file is refused, whatever its header claimed (a header may say one minute over
twenty hours of sound; 96 kHz, eight channels or a large cover picture cost nothing
more). Silence is skipped by the voice-activity filter, so it costs nothing to
transcribe. What leaves the child is the segments: start, end, text, bounded.
"""

from __future__ import annotations

import json
from typing import Any

from storage.documents.reading import AUDIO_TOO_LONG, NO_SPEECH_MODEL, NOT_AUDIO, refused

MAX_SECONDS = 1800.0  # half an hour of sound a file
WINDOW_SECONDS = 600.0  # recognised ten minutes at a time: Whisper's features for a window, not the whole file
MAX_TEXT = 400_000  # characters of transcript a file
MAX_SEGMENTS = 20_000
RATE = 16_000


class _Enough(Exception):
    """As much sound as was asked for (``_pcm``'s ``stop``)."""


def _pcm(source: Any, limit: float = MAX_SECONDS, stop: bool = False) -> tuple[Any, bool]:
    """The first audio stream of ``source`` (an open file) as 16 kHz mono float32, decoded
    as it comes and bounded by ``limit`` seconds of output, and whether it was cut short
    (damaged midway: what came before is kept); ParseError for what is not audio, or too
    long (``stop``: the first ``limit`` seconds instead, a longer file being no fault). A
    change of rate or channels midway (joined files) starts a new resampler."""
    import av
    import numpy as np

    try:
        container = av.open(source, metadata_errors="ignore")
    except (av.error.FFmpegError, OSError, ValueError, UnicodeDecodeError) as exc:
        raise refused(NOT_AUDIO, error=type(exc).__name__) from None
    chunks: list[Any] = []
    total, cut = 0, False

    def keep(frames: Any) -> None:
        nonlocal total
        for out in frames:
            data = out.to_ndarray().reshape(-1)
            total += data.shape[0]
            if total > limit * RATE:
                if stop:
                    chunks.append(data[:max(0, data.shape[0] - (total - int(limit * RATE)))])
                    raise _Enough()
                raise refused(AUDIO_TOO_LONG, minutes=round(limit / 60, 2))
            chunks.append(data)

    try:
        if not container.streams.audio:
            raise refused(NOT_AUDIO, error="no audio stream")
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
        for frame in container.decode(stream):
            try:
                keep(resampler.resample(frame))
            except ValueError:  # the frame's format changed: flush, and go on with a new resampler
                keep(resampler.resample(None))
                resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
                keep(resampler.resample(frame))
        keep(resampler.resample(None))
    except _Enough:
        pass
    except (av.error.FFmpegError, ValueError, MemoryError) as exc:
        if not chunks:
            raise refused(NOT_AUDIO, error=type(exc).__name__) from None
        cut = True  # a file cut off midway: what could be decoded is transcribed, and it is said
    finally:
        container.close()
    if not chunks:
        return np.zeros(0, dtype=np.float32), cut
    return np.concatenate(chunks).astype(np.float32) / 32768.0, cut


LISTEN_SECONDS = 60.0  # of a recording played from a cited moment, at a time


def listen(source: Any, options: str) -> dict[str, Any]:
    """``LISTEN_SECONDS`` of a recording from ``start`` (seconds), as 16 kHz mono 16-bit
    samples, base64: the window plays these and never decodes the stranger's file itself."""
    import base64

    import numpy as np

    asked = json.loads(options or "{}")
    start = min(max(float(asked.get("start", 0.0)), 0.0), MAX_SECONDS)
    seconds = min(max(float(asked.get("seconds", LISTEN_SECONDS)), 0.0), LISTEN_SECONDS)
    audio, _cut = _pcm(source, start + seconds, stop=True)
    part = audio[int(start * RATE):int((start + seconds) * RATE)]
    samples = (np.clip(part, -1.0, 1.0) * 32767).astype("<i2")
    return {"rate": RATE, "start": start, "pcm": base64.b64encode(samples.tobytes()).decode("ascii")}


def transcribe(source: Any, options: str) -> dict[str, Any]:
    """{"segments": [[start, end, text], ...], "language", "seconds", "cut"} of ``source``
    (an open file); ``options`` is JSON: {"model": the model's folder, "language": "en" |
    "zh" | "", and "max_seconds", which may lower MAX_SECONDS, never raise it}."""
    try:
        wanted = json.loads(options) if options else {}
    except ValueError:
        wanted = {}
    try:
        limit = min(MAX_SECONDS, float(wanted.get("max_seconds") or MAX_SECONDS))
    except (TypeError, ValueError):
        limit = MAX_SECONDS
    try:
        import av  # noqa: F401 - both or neither: without them there is no speech recognition here
        from faster_whisper import WhisperModel
    except ImportError:
        raise refused(NO_SPEECH_MODEL) from None
    audio, cut = _pcm(source, limit)
    seconds = float(audio.shape[0]) / RATE
    if seconds < 0.1:
        return {"segments": [], "language": "", "seconds": seconds, "cut": cut}
    model_dir = str(wanted.get("model") or "")
    try:
        model = WhisperModel(model_dir, device="cpu", compute_type="int8", cpu_threads=2)
    except (RuntimeError, OSError, ValueError):
        raise refused(NO_SPEECH_MODEL) from None
    language = wanted.get("language") if wanted.get("language") in ("en", "zh") else None
    found: list[list[Any]] = []
    size, heard = 0, ""
    window = int(WINDOW_SECONDS * RATE)
    for offset in range(0, audio.shape[0], window):
        segments, info = model.transcribe(audio[offset:offset + window], language=language, vad_filter=True,
                                          beam_size=1, condition_on_previous_text=False)
        heard = heard or str(info.language or "")
        shift = offset / RATE
        for segment in segments:
            text = " ".join(str(segment.text).split())
            if not text:
                continue
            size += len(text)
            if size > MAX_TEXT or len(found) >= MAX_SEGMENTS:
                break
            start = round(float(segment.start) + shift, 2)
            found.append([start, max(start, round(float(segment.end) + shift, 2)), text])
    return {"segments": found, "language": heard, "seconds": round(seconds, 2), "cut": cut}
