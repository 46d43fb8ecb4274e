"""Speech to text (#41): the real-time factor of the bundled Whisper base model on this
machine (seconds of sound recognised per second), in the isolated child, for English made
by espeak-ng (about 30 s), and the time from a 10-second phrase's end to its text (what
dictation would wait). The child's start and the model's load are part of the second
figure, as they would be for one dictation."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median

SENTENCES = ("The spare heater fuse is kept in the blue tin on the top shelf of the potting shed.",
             "Replace it only with the heater switched off at the wall.",
             "The thermostat is set to twelve degrees in winter and the vents open by themselves.",
             "Water the tomatoes twice a day in summer and once a day in spring.",
             "The key to the shed hangs on the hook beside the kitchen door.")


# Mandarin by espeak-ng, for speed only: Whisper does not understand it (docs/performance.md),
# so this times the work, not the words.
ZH_SENTENCES = ("备用的加热器保险丝放在花园小屋顶层架子上的蓝色铁盒里。", "只有在墙上的开关关掉以后才能更换它。",
                "冬天恒温器设在十二度，通风口会自己打开。", "夏天每天给西红柿浇两次水，春天每天浇一次。",
                "小屋的钥匙挂在厨房门旁边的钩子上。")


def child_peak_mb(child: object) -> float:
    """The isolated child's resident peak so far, from /proc (0 where there is none)."""
    from benchmarks.common import process_status

    process = getattr(child, "_process", None)
    pid = getattr(process, "pid", None)
    return process_status(pid).get("VmHWM", 0) / 1024 if pid else 0.0


def run(quick: bool = False) -> list[Figure]:
    if shutil.which("espeak-ng") is None:
        return [Figure("speech: espeak-ng is missing (the test command installs it)", 0.0, "-")]
    from core import speech
    from storage.documents.isolation import IsolatedParser

    rounds = 1 if quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        long_wav, short_wav = Path(tmp) / "long.wav", Path(tmp) / "short.wav"
        zh_wav = Path(tmp) / "zh.wav"
        subprocess.run(["espeak-ng", "-w", str(long_wav), " ".join(SENTENCES * (1 if quick else 2))], check=True)
        subprocess.run(["espeak-ng", "-v", "cmn", "-w", str(zh_wav), "".join(ZH_SENTENCES * (1 if quick else 2))],
                       check=True)
        subprocess.run(["espeak-ng", "-w", str(short_wav), " ".join(SENTENCES[:2])], check=True)
        speech.speech_model()  # placed before anything is timed
        factors, waits, zh_factors = [], [], []
        peak_mb = 0.0
        with IsolatedParser(timeout=speech.SPEECH_TIMEOUT, memory_limit=speech.SPEECH_MEMORY_LIMIT) as child:
            speech.transcribe(short_wav, "en", parser=child)  # the child started once
            for _ in range(rounds):
                began = time.perf_counter()
                heard = speech.transcribe(long_wav, "en", parser=child)
                peak_mb = max(peak_mb, child_peak_mb(child))
                factors.append(heard.seconds / (time.perf_counter() - began))
                began = time.perf_counter()
                heard_zh = speech.transcribe(zh_wav, "zh", parser=child)
                zh_factors.append(heard_zh.seconds / (time.perf_counter() - began))
        for _ in range(rounds):
            began = time.perf_counter()
            short = speech.transcribe(short_wav, "en")  # a fresh child, as one dictation's
            waits.append(time.perf_counter() - began)
    return [Figure(f"speech recognised per second, English ({heard.seconds:.0f} s of sound)", median(factors),
                   "× real time", "", {"rounds": factors}),
            Figure(f"speech recognised per second, Mandarin by espeak-ng ({heard_zh.seconds:.0f} s of sound; speed "
                   "only, Whisper does not understand this voice)", median(zh_factors), "× real time", "",
                   {"rounds": zh_factors}),
            Figure("the recognising child's memory peak (VmHWM), Whisper base int8", peak_mb, "MB", "",
                   {"limit_mb": speech.SPEECH_MEMORY_LIMIT >> 20}),
            Figure(f"from a {short.seconds:.0f}-second phrase's end to its text, a fresh child", median(waits), "s",
                   "target < 3 s", {"rounds": waits})]
