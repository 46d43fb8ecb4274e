"""UI event-loop stalls while a long answer streams into the conversation view.

A real ConversationView (offscreen) receives a 4,000-token answer of ordinary Markdown
(paragraphs, lists, code blocks, a table) through the slot the controller's
``answer_updated`` signal drives, one update every 33 ms (about 30 a second, as the
controller emits them), each carrying the tokens of that interval. A 1 ms QTimer probes
the event loop: each tick's lateness (gap since the previous tick minus the interval) is
a stall sample. The same run measures the old path, a full Markdown rendering of the
whole answer on every update, as the baseline. No model is needed.
"""

from __future__ import annotations

import os
import re
import time

from benchmarks.common import Figure, median, percentile

TOKENS = 4_000
QUICK_TOKENS = 1_500
UPDATE_MS = 33  # the controller emits about 30 updates a second
TOKENS_PER_SECOND = 240  # a fast GPU: the updates carry about 8 tokens each
PROBE_MS = 1

_TOPICS = ["harbor", "pilot", "vessel", "cargo", "mooring", "anchor", "channel", "tide", "crew",
           "ledger", "bridge", "station", "schedule", "permit", "lighthouse", "container"]


def answer_markdown(tokens: int) -> str:
    """A long answer in the shape models give: headings, prose, lists, code, a table."""
    parts: list[str] = []
    i = 0
    while len(re.findall(r"\s*\S+", "\n\n".join(parts))) < tokens * 0.75:  # ≈ 0.75 words a token
        topic = _TOPICS[i % len(_TOPICS)]
        kind = i % 6
        if kind == 0:
            parts.append(f"## Part {i // 6 + 1}: the {topic}")
        elif kind in (1, 4):
            parts.append(" ".join(
                f"The **{topic}** of section {i} keeps its `{topic}_{j}` records, and the crew "
                f"checks them *twice* before the {_TOPICS[(i + j) % len(_TOPICS)]} leaves." for j in range(4)))
        elif kind == 2:
            parts.append("\n".join(f"{n}. Check the {_TOPICS[(i + n) % len(_TOPICS)]} "
                                   f"and write it down ([notes](https://example.org/{topic}/{n}))."
                                   for n in range(1, 6)))
        elif kind == 3:
            body = "\n".join(f"    total_{n} = sum(entry.{topic} for entry in ledger[{n}:])\n"
                             f"    if total_{n} > limit:\n        return {n}" for n in range(6))
            parts.append(f"```python\ndef check_{topic}(ledger, limit):\n{body}\n    return None\n```")
        else:
            rows = "\n".join(f"| {_TOPICS[(i + n) % len(_TOPICS)]} | {n * 7} | ok |" for n in range(5))
            parts.append(f"| item | count | state |\n|---|---|---|\n{rows}")
        i += 1
    return "\n\n".join(parts) + "\n"


def updates(text: str, tokens: int) -> list[str]:
    """The text so far at each update, as the controller would emit it."""
    pieces = re.findall(r"\s*\S+", text)
    per_update = max(1, round(TOKENS_PER_SECOND * UPDATE_MS / 1000 / (tokens / len(pieces))))
    out: list[str] = []
    done = 0
    for start in range(0, len(pieces), per_update):
        done += sum(len(p) for p in pieces[start:start + per_update])
        out.append(text[:done])
    out[-1] = text
    return out


def _stream(app, texts: list[str], incremental: bool) -> dict:
    from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal

    from app.chat.conversation import ConversationView
    from storage.chats import COMPLETE, STREAMING, Message

    class Emitter(QObject):  # stands in for ChatController.answer_updated
        answer_updated = Signal(int, str)

    view = ConversationView()
    view.resize(900, 700)
    view.show()
    view.add(Message(1, 1, 0, "user", "Write me a long guide, with code.", COMPLETE))
    view.add(Message(2, 1, 1, "assistant", "", STREAMING))
    widget = view.widget_for(2)
    emitter = Emitter()
    if incremental:
        emitter.answer_updated.connect(view.update_text)
    else:
        def full_render(message_id: int, text: str) -> None:  # what update_text did before
            view._at_end = view._is_at_end()
            view.widget_for(message_id).set_text(text)

        emitter.answer_updated.connect(full_render)
    app.processEvents()

    stalls: list[float] = []
    handler_ms: list[float] = []
    last = [time.perf_counter()]
    loop = QEventLoop()
    probe = QTimer()
    probe.setTimerType(Qt.TimerType.PreciseTimer)
    probe.setInterval(PROBE_MS)

    def tick() -> None:
        now = time.perf_counter()
        stalls.append(max(0.0, (now - last[0]) * 1000 - PROBE_MS))
        last[0] = now

    probe.timeout.connect(tick)
    feed = QTimer()
    feed.setTimerType(Qt.TimerType.PreciseTimer)
    feed.setInterval(UPDATE_MS)
    position = [0]
    final_ms = [0.0]
    final_at = [0]  # the stall samples taken before the final rendering

    def step() -> None:
        if position[0] < len(texts):
            started = time.perf_counter()
            emitter.answer_updated.emit(2, texts[position[0]])
            handler_ms.append((time.perf_counter() - started) * 1000)
            position[0] += 1
            return
        feed.stop()
        final_at[0] = len(stalls)
        started = time.perf_counter()  # the answer is done: its one full rendering
        widget.show_message(Message(2, 1, 1, "assistant", texts[-1], COMPLETE, {"tokens": 1}))
        final_ms[0] = (time.perf_counter() - started) * 1000
        QTimer.singleShot(50, loop.quit)

    feed.timeout.connect(step)
    last[0] = time.perf_counter()
    probe.start()
    feed.start()
    started = time.perf_counter()
    loop.exec()
    seconds = time.perf_counter() - started
    probe.stop()
    assert widget.text() == texts[-1]
    view.close()
    view.deleteLater()
    app.processEvents()
    tenth = max(1, len(handler_ms) // 10)
    return {"stalls": stalls, "streaming_max_ms": max(stalls[:final_at[0]], default=0.0),
            "final_render_ms": final_ms[0], "seconds": seconds,
            "update_ms_first_tenth": median(handler_ms[:tenth]),
            "update_ms_last_tenth": median(handler_ms[-tenth:]), "updates": len(handler_ms)}


def run(quick: bool = False) -> list[Figure]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    tokens = QUICK_TOKENS if quick else TOKENS
    text = answer_markdown(tokens)
    texts = updates(text, tokens)
    new = _stream(app, texts, incremental=True)
    old = _stream(app, texts, incremental=False)
    shape = {"tokens": tokens, "characters": len(text), "updates": len(texts), "update_ms": UPDATE_MS}
    figures: list[Figure] = []
    for name, result, target in (("incremental", new, "target < 16 ms"), ("old: full render per update", old, "")):
        stalls = result["stalls"]
        detail = {k: v for k, v in result.items() if k != "stalls"} | shape | {"samples": len(stalls)}
        figures.append(Figure(f"stream stall p50, {name}", percentile(stalls, 50), "ms", "", detail))
        figures.append(Figure(f"stream stall p99, {name}", percentile(stalls, 99), "ms", target, detail))
        figures.append(Figure(f"stream stall max, {name}", result["streaming_max_ms"], "ms", "", detail))
        figures.append(Figure(f"finished answer's one full rendering, {name}", result["final_render_ms"],
                              "ms", "", detail))
    figures.append(Figure(f"stream stall p99, old ÷ incremental ({tokens:,}-token answer)",
                          percentile(old["stalls"], 99) / max(percentile(new["stalls"], 99), 1e-3), "ratio", "",
                          {"old_ms": percentile(old["stalls"], 99), "new_ms": percentile(new["stalls"], 99)}))
    figures.append(Figure("stream stall max, old ÷ incremental",
                          old["streaming_max_ms"] / max(new["streaming_max_ms"], 1e-3), "ratio", "",
                          {"old_ms": old["streaming_max_ms"], "new_ms": new["streaming_max_ms"]}))
    figures.append(Figure("time per update, last tenth ÷ first tenth, incremental",
                          new["update_ms_last_tenth"] / max(new["update_ms_first_tenth"], 1e-3), "ratio",
                          "≈ 1: independent of length",
                          {"old": old["update_ms_last_tenth"] / max(old["update_ms_first_tenth"], 1e-3)}))
    return figures
