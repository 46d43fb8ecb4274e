"""Speech to text (#41, first step): the bundled Whisper base model joined from its two
packages and checked, speech made for the tests with espeak-ng (as WAV, MP3 and Ogg Opus)
recognised in the isolated child with a word error rate under a bound measured here, and
the bad inputs (not audio, cut off, silent, too long) bounded with a message. The terminal's
``transcribe`` too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from core import speech
from core.speech import ParseError, as_srt, clock, speech_model, transcribe
from storage.documents.isolation import IsolatedParser

pytestmark = [pytest.mark.model, pytest.mark.skipif(shutil.which("espeak-ng") is None, reason=(
    "espeak-ng makes the test speech: the test command installs it on Debian-like systems as root"))]

SAID = "The spare heater fuse is kept in the blue tin on the top shelf of the potting shed."
# Whisper base on espeak-ng's English: 3 errors in these 17 words here ("blue tin" heard as
# "boot", "of" as "on"), 5 in a CI run under load ("heater fuse" as "heat of use"): every
# test bounds the error rate rather than asking for one word. The bound leaves room for
# another voice build or thread timing, not for a broken path.
MAX_WER = 0.45  # the CI run above: 0.33


def words(text: str) -> list[str]:
    return "".join(c.lower() if c.isalnum() or c.isspace() else " " for c in text).split()


def wer(said: str, heard: str) -> float:
    a, b = words(said), words(heard)
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1] / max(len(a), 1)


def encode(source: Path, target: Path, codec: str) -> Path:
    """``source`` (a WAV) re-encoded with PyAV, as another app would have saved it."""
    import av

    with av.open(str(source)) as inp, av.open(str(target), "w") as out:
        stream = out.add_stream(codec, rate=48000 if codec == "libopus" else 22050)
        stream.layout = "mono"
        resampler = av.AudioResampler(format=stream.format.name, layout="mono", rate=stream.rate)
        for frame in inp.decode(audio=0):
            for piece in resampler.resample(frame):
                out.mux(stream.encode(piece))
        for piece in resampler.resample(None):
            out.mux(stream.encode(piece))
        out.mux(stream.encode(None))
    return target


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("speech")
    wav = folder / "shed.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), SAID], check=True, capture_output=True, timeout=60)
    return {"wav": wav, "mp3": encode(wav, folder / "shed.mp3", "libmp3lame"),
            "ogg": encode(wav, folder / "shed.ogg", "libopus")}


@pytest.fixture(scope="module")
def child():
    with IsolatedParser(timeout=speech.SPEECH_TIMEOUT, memory_limit=speech.SPEECH_MEMORY_LIMIT) as parser:
        yield parser


def test_the_model_is_joined_from_its_packages_and_checked(data_dir: Path) -> None:
    folder = speech_model()
    assert (folder / "model.bin").stat().st_size == 145_217_532 and (folder / "tokenizer.json").is_file()
    assert speech_model() == folder  # placed once


@pytest.mark.parametrize("kind", ["wav", "mp3", "ogg"])
def test_speech_is_recognised_in_the_child_with_its_time(data_dir: Path, recordings: dict[str, Path], child,
                                                         kind: str) -> None:
    heard = transcribe(recordings[kind], "en", parser=child)
    assert heard.language == "en" and 3.5 < heard.seconds < 6
    assert wer(SAID, heard.text) <= MAX_WER, heard.text
    assert heard.segments[0].start < 1.0 and heard.segments[-1].end <= heard.seconds + 1


@pytest.mark.parametrize("case", ["not audio", "cut off", "silent", "too long"])
def test_bad_recordings_are_bounded_with_a_message(data_dir: Path, recordings: dict[str, Path], child,
                                                   tmp_path: Path, case: str, monkeypatch) -> None:
    if case == "not audio":
        path = tmp_path / "letter.wav"
        path.write_text("Dear sir, this is no recording.")
        with pytest.raises(ParseError, match="not a recording Hearth reads"):
            transcribe(path, parser=child)
    elif case == "cut off":  # what could be decoded is transcribed
        path = tmp_path / "cut.mp3"
        data = recordings["mp3"].read_bytes()
        path.write_bytes(data[: len(data) // 2])
        heard = transcribe(path, "en", parser=child)
        assert 1 < heard.seconds < 4.5
    elif case == "silent":
        import wave

        path = tmp_path / "silence.wav"
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(16000)
            out.writeframes(bytes(2 * 16000 * 3))
        assert transcribe(path, parser=child).segments == ()
    else:  # past the bound, whatever the header says: the child decodes and counts
        path = tmp_path / "long.wav"
        import wave

        with wave.open(str(path), "wb") as out:
            out.setnchannels(8)
            out.setsampwidth(2)
            out.setframerate(96000)
            out.writeframes(bytes(2 * 8 * 96000 * 4))  # 4 s of 96 kHz, 8 channels
        with pytest.raises(ParseError, match="longer than"):
            transcribe(path, parser=child, max_seconds=2)  # a bound lowered for the test, as an hour would be


def test_the_terminal_prints_a_transcript_or_subtitles(data_dir: Path, recordings: dict[str, Path]) -> None:
    from tests.tools.test_cli_tools import hearth

    done = hearth(data_dir, "transcribe", str(recordings["wav"]), "--language", "en")
    assert done.returncode == 0 and done.stdout.startswith("[0:00] "), done.stderr
    assert wer(SAID, done.stdout.removeprefix("[0:00] ")) <= MAX_WER, done.stdout
    srt = hearth(data_dir, "transcribe", str(recordings["wav"]), "--srt")
    assert srt.returncode == 0 and srt.stdout.startswith("1\n00:00:00,000 --> 00:00:0")
    bad = hearth(data_dir, "transcribe", str(Path(__file__)))
    assert bad.returncode == 1 and "cannot be transcribed" in bad.stderr


def test_times_are_written_as_people_read_them() -> None:
    assert clock(754.5) == "12:34" and clock(3723.2) == "1:02:03" and clock(1.234, srt=True) == "00:00:01,234"
    assert as_srt(speech.Transcript((speech.Segment(0, 1.5, "Hi"),), "en", 1.5)) == "1\n00:00:00,000 --> 00:00:01,500\nHi\n"


def test_a_recording_in_a_collection_is_found_by_a_question_and_cited_by_its_time(
        recordings: dict[str, Path], tmp_path: Path, embedding_model_path: Path, data_dir: Path) -> None:
    from concurrent.futures import Future

    from core.document_progress import label
    from inference.embedder import LlamaEmbedder
    from inference.llama_engine import LlamaEngine
    from inference.protocol import Embed, LoadEmbedder
    from inference.worker import InferenceWorker
    from storage.vault import Vault
    from tests.core.test_document_import import BUNDLED, PROMPT
    from tests.core.test_document_service import Service
    from tests.storage.conftest import FAST_KDF

    folder = tmp_path / "recordings"
    folder.mkdir()
    shutil.copy(recordings["mp3"], folder / "shed-note.mp3")
    (folder / "memo.md").write_text("The budget for the greenhouse is 400 euros.")
    worker = InferenceWorker(LlamaEngine, lambda _event: None, embedder_factory=LlamaEmbedder)
    worker.start()
    worker.submit(LoadEmbedder(embedding_model_path, BUNDLED))
    vault = Vault.create(tmp_path / "vault" / "vault.db", "speech passphrase", FAST_KDF)
    service = Service(vault, worker.submit, BUNDLED)
    try:
        collection = service.create("garden")
        report = service.add(collection.id, [folder]).result(timeout=PROMPT * 4)
        assert sorted(Path(p).name for p in report.indexed) == ["memo.md", "shed-note.mp3"], report
        question = "Where is the spare heater fuse?"
        vector: Future = Future()
        worker.submit(Embed((question,), vector, BUNDLED))
        hits = service.search(question, {BUNDLED: vector.result(timeout=60)[0]}, [collection.id])
        assert label(hits[0].chunk) == "shed-note.mp3, 0:00" and wer(SAID, hits[0].chunk.text) <= MAX_WER
    finally:
        service.service.close(5.0)
        vault.close()
        worker.shutdown(5.0)


def test_a_recording_attached_to_a_question_is_read_as_its_speech(recordings: dict[str, Path], data_dir: Path) -> None:
    from core.attachments import read_all

    (recording,) = read_all([recordings["ogg"]])
    assert recording.sections[0].heading == "0:00" and wer(SAID, recording.sections[0].text) <= MAX_WER, \
        recording.sections[0].text
    assert any("recognised here" in note for note in recording.notes)


def test_a_recording_damaged_midway_is_read_as_far_as_it_goes_and_says_so(data_dir: Path,
                                                                          recordings: dict[str, Path], child,
                                                                          tmp_path: Path) -> None:
    """Two MP3s of different rates joined byte for byte: FFmpeg's decoder gives up at the
    seam. What came before is heard, and the transcript says it was cut."""
    slow = encode(recordings["wav"], tmp_path / "slow.mp3", "libmp3lame")  # 22.05 kHz
    import av

    fast = tmp_path / "fast.mp3"
    with av.open(str(recordings["wav"])) as inp, av.open(str(fast), "w") as out:
        stream = out.add_stream("libmp3lame", rate=44100)
        stream.layout = "stereo"
        resampler = av.AudioResampler(format=stream.format.name, layout="stereo", rate=44100)
        for frame in inp.decode(audio=0):
            for piece in resampler.resample(frame):
                out.mux(stream.encode(piece))
        out.mux(stream.encode(None))
    joined = tmp_path / "joined.mp3"
    joined.write_bytes(slow.read_bytes() + fast.read_bytes())
    heard = transcribe(joined, "en", parser=child)
    assert heard.cut and 3.5 < heard.seconds < 6 and wer(SAID, heard.text) <= MAX_WER, heard


def test_a_readers_segments_are_believed_only_in_their_honest_shape() -> None:
    import json as json_module

    from storage.documents.parser_replies import Malformed, checked

    good = {"status": "ok", "peak": 1, "segments": [[0.0, 1.0, "Hello"]], "language": "en", "seconds": 1.0}
    assert checked(json_module.dumps(good).encode(), "transcribe")["segments"]
    for wrong in ({"segments": [[2.0, 1.0, "backwards"]]}, {"segments": [[0, 1, "   "]]},
                  {"segments": [[True, 1, "x"]]}, {"seconds": 10 ** 9}, {"cut": "yes"}):
        with pytest.raises(Malformed):
            checked(json_module.dumps({**good, **wrong}).encode(), "transcribe")


def test_a_recording_held_in_memory_is_recognised_without_any_file(data_dir: Path, recordings: dict[str, Path],
                                                                   monkeypatch, tmp_path: Path) -> None:
    """Dictation's path: the WAV's bytes go to the isolated child through the pipe; nothing
    audible is written anywhere, on any system (a private file in the temporary folder, on
    macOS and Windows, was the way before)."""
    import tempfile

    from core import attachments

    def no_file(*_args, **_kwargs):
        raise AssertionError("a recording was about to be written to a file")

    speech.speech_model()  # placed first: joining the model's halves writes aside, as it should
    monkeypatch.setattr(attachments, "private_folder", no_file)
    monkeypatch.setattr(attachments, "write_private", no_file)
    monkeypatch.setattr(tempfile, "mkstemp", no_file)
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", no_file)
    before = set(Path(tempfile.gettempdir()).iterdir())
    heard = speech.recognise_recording(recordings["wav"].read_bytes(), "en")
    assert wer(SAID, heard.text) <= MAX_WER, heard.text
    assert set(Path(tempfile.gettempdir()).iterdir()) - before <= {p for p in Path(tempfile.gettempdir()).iterdir()
                                                                   if p.name.startswith("pytest-")}
    with pytest.raises(ParseError, match="too long"):
        speech.recognise_recording(b"\0" * ((64 << 20) + 1))


def test_the_terminal_says_a_recording_was_cut_short(data_dir: Path, recordings: dict[str, Path],
                                                     tmp_path: Path) -> None:
    """What came before the damage is printed, and stderr says that is all there is."""
    from tests.tools.test_cli_tools import hearth

    whole = encode(recordings["wav"], tmp_path / "shed.flac", "flac").read_bytes()
    (tmp_path / "cut.flac").write_bytes(whole[: len(whole) // 2])
    cut = hearth(data_dir, "transcribe", str(tmp_path / "cut.flac"), "--language", "en")
    assert cut.returncode == 0 and cut.stdout.startswith("[0:00] "), cut.stderr
    assert "damaged midway" in cut.stderr and "what came before" in cut.stderr, cut.stderr
    untouched = hearth(data_dir, "transcribe", str(tmp_path / "shed.flac"), "--language", "en")
    assert untouched.returncode == 0 and "damaged" not in untouched.stderr, untouched.stderr


def test_the_terminal_follows_a_link_it_was_named_to_a_file_only(data_dir: Path, recordings: dict[str, Path],
                                                                 tmp_path: Path) -> None:
    """As attaching and ``docs add`` do: the user chose the link, so its file is read (the
    child then opens that very file, without following links); a link to something that is
    not a file is refused in words."""
    from tests.tools.test_cli_tools import hearth

    (tmp_path / "shed link.wav").symlink_to(recordings["wav"])
    linked = hearth(data_dir, "transcribe", str(tmp_path / "shed link.wav"), "--language", "en")
    assert linked.returncode == 0 and wer(SAID, linked.stdout.removeprefix("[0:00] ")) <= MAX_WER, linked.stderr
    (tmp_path / "zero.wav").symlink_to("/dev/zero")
    device = hearth(data_dir, "transcribe", str(tmp_path / "zero.wav"))
    assert device.returncode == 1 and "zero.wav cannot be transcribed: it is not a file" in device.stderr, device.stderr
