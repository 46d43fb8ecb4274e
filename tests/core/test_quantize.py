"""A smaller copy of a model, made by llama.cpp's real quantizer in a child process and
measured against its original (#42): from an F16 GGUF made here out of the starter
model's own weights (``tests/precise_model.py``), to Q8_0 and Q4_K_M; Cancel and a full
disk leave nothing behind; the terminal keeps the copy in the library."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from core import quantize
from inference.modelinfo import read_info
from tests.app.test_cli_engines import hearth

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.mark.timeout(600)
def test_q8_0_costs_less_than_q4_k_m_and_both_are_smaller(f16_model: Path, tmp_path: Path) -> None:
    measured = {}
    for kind in ("Q8_0", "Q4_K_M"):
        seen: list[tuple[int, int]] = []
        target = quantize.target_for(f16_model, kind, tmp_path)
        # A review: the copy was named after the user's file, in a folder that is not encrypted.
        assert target.name.startswith("copy-") and target.name.endswith(f".{kind}.gguf")
        assert "SmolLM2" not in target.name
        made = quantize.quantize(f16_model, "F16", kind, target, progress=lambda done, total, seen=seen:
                                 seen.append((done, total)))
        assert made == target and read_info(made).quantization == kind
        assert seen[-1][0] == seen[-1][1] > 100  # every tensor, counted as llama.cpp went
        assert not list(tmp_path.glob("*.partial"))
        measured[kind] = quantize.measure(f16_model, made)
    q8, q4 = measured["Q8_0"], measured["Q4_K_M"]
    assert 0 <= q8.kl_mean < q4.kl_mean and q8.top1_agreement > q4.top1_agreement
    assert q8.top1_agreement > 0.8 and q8.tokens > 200
    assert q4.size_quantized < q8.size_quantized < q8.size_original
    assert q8.perplexity_original == pytest.approx(q4.perplexity_original, rel=1e-6)  # the same original, read alike
    assert any("Next-token agreement" in line for line in q8.lines())


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(600)
def test_a_copy_weighed_by_the_users_text_stays_closer_to_the_original_on_other_text_like_it(
        f16_model: Path, tmp_path: Path) -> None:
    """The importance matrix (inference/importance.py) from one of Hearth's documents;
    measured on another (never read for the matrix): the weighed Q4_K_M copy's KL divergence
    from the original is below the plain copy's."""
    weigh_by = (ROOT / "docs" / "documents.md").read_text(encoding="utf-8")[:16_000]
    measure_on = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")[:6_000]
    steps: list[tuple[int, int]] = []
    plain = quantize.quantize(f16_model, "F16", "Q4_K_M", tmp_path / "plain.gguf")
    weighed = quantize.quantize(f16_model, "F16", "Q4_K_M", tmp_path / "weighed.gguf", importance=weigh_by,
                                reading=lambda done, total: steps.append((done, total)))
    assert steps and steps[-1][0] == steps[-1][1] >= 3  # read in steps of 512 tokens, each said
    assert read_info(weighed).quantization == "Q4_K_M" and weighed.read_bytes() != plain.read_bytes()
    before, after = quantize.measure(f16_model, plain, measure_on), quantize.measure(f16_model, weighed, measure_on)
    assert after.kl_mean < 0.9 * before.kl_mean  # measured: 0.6 of it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain.gguf", "weighed.gguf"]


def test_a_text_too_short_or_a_type_with_no_use_for_one_is_refused_in_words(f16_model: Path,
                                                                            tmp_path: Path) -> None:
    with pytest.raises(quantize.QuantizeError, match="too short"):
        quantize.quantize(f16_model, "F16", "Q4_K_M", tmp_path / "copy.gguf", importance="Too short.")
    with pytest.raises(quantize.QuantizeError, match="Q8_0 has no use for a text"):
        quantize.quantize(f16_model, "F16", "Q8_0", tmp_path / "copy.gguf", importance="Any text at all. " * 50)
    assert list(tmp_path.iterdir()) == []


def test_cancel_while_the_original_reads_the_text_leaves_nothing(f16_model: Path, tmp_path: Path) -> None:
    cancel = threading.Event()
    text = (ROOT / "docs" / "documents.md").read_text(encoding="utf-8")[:16_000]
    with pytest.raises(quantize.QuantizeCancelled):
        quantize.quantize(f16_model, "F16", "Q4_K_M", tmp_path / "copy.gguf", cancel=cancel, importance=text,
                          reading=lambda _done, _steps: cancel.set())
    assert list(tmp_path.iterdir()) == []


def test_what_is_already_small_or_not_smaller_is_refused_in_words(starter_model_path: Path) -> None:
    assert "already quantized (Q4_1)" in str(quantize.refusal("Q4_1", "Q4_K_M"))
    assert "would not be smaller" in str(quantize.refusal("Q8_0", "Q8_0"))
    assert quantize.refusal("BF16", "Q6_K") is None
    with pytest.raises(quantize.QuantizeError, match="already quantized"):
        quantize.quantize(starter_model_path, read_info(starter_model_path).quantization, "Q4_K_M",
                          starter_model_path.with_name("x.gguf"))


def test_cancel_stops_the_child_and_leaves_nothing(f16_model: Path, tmp_path: Path) -> None:
    cancel = threading.Event()
    target = tmp_path / "copy.Q8_0.gguf"

    def heard(done: int, _total: int) -> None:
        if done >= 3:
            cancel.set()

    with pytest.raises(quantize.QuantizeCancelled):
        quantize.quantize(f16_model, "F16", "Q8_0", target, cancel=cancel, progress=heard)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_before_or_during_gets_the_full_disk_message(f16_model: Path, make_small_disk,
                                                                  monkeypatch) -> None:
    disk = make_small_disk(100)
    with pytest.raises(quantize.QuantizeError, match="The disk is full") as refused:
        quantize.quantize(f16_model, "F16", "Q8_0", disk.path / "copy.Q8_0.gguf")
    assert "nothing was written" in str(refused.value)
    # An estimate that was wrong: the disk fills while llama.cpp writes.
    monkeypatch.setattr(quantize, "expected_size", lambda *_a: 0)
    with pytest.raises(quantize.QuantizeError, match="The disk is full"):
        quantize.quantize(f16_model, "F16", "Q8_0", disk.path / "copy.Q8_0.gguf")
    assert list(disk.path.iterdir()) == []


@pytest.mark.timeout(600)
def test_the_terminal_quantizes_measures_and_keeps_the_copy(data_dir: Path, f16_model: Path, tmp_path: Path,
                                                            starter_model_path: Path) -> None:
    text = tmp_path / "sample.txt"
    text.write_text("The parties agree that the notice period is three months. " * 20, encoding="utf-8")
    done = hearth(data_dir, "models", "quantize", str(f16_model), "--type", "Q8_0", "--measure", str(text))
    assert done.returncode == 0, done.stderr
    assert "Next-token agreement with the original" in done.stdout and "KL divergence" in done.stdout
    kept = re.search(r"Kept in the library as “(.+ \(Q8_0\))”", done.stdout)
    assert kept, done.stdout
    listed = hearth(data_dir, "models", "list")
    assert kept.group(1) in listed.stdout and " Q8_0 " in listed.stdout
    again = hearth(data_dir, "models", "quantize", kept.group(1), "--type", "Q4_K_M", "--importance", str(text),
                   "--discard")
    assert again.returncode == 0, again.stderr  # a Q8_0 model is a source too, here named from the library
    assert "The original is reading sample.txt: part 1 of 1" in again.stderr  # weighed by the text
    assert "The copy was deleted (--discard)." in again.stdout
    assert "(Q4_K_M)" not in hearth(data_dir, "models", "list").stdout
    copies = sorted(p.name for p in (data_dir / "models").glob("*.gguf") if not p.name.startswith("SmolLM2"))
    assert len(copies) == 1 and re.fullmatch(r"[0-9a-f]{64}\.gguf", copies[0])  # named as imports are
    twice = hearth(data_dir, "models", "quantize", str(f16_model), "--type", "Q8_0")  # its copy is there
    assert twice.returncode == 0, twice.stderr
    assert f"Kept in the library as “{kept.group(1)}”" in twice.stdout  # the same bytes: the one entry
    assert sorted(p.name for p in (data_dir / "models").glob("*.gguf") if not p.name.startswith("SmolLM2")) \
        == copies  # the kept copy was not touched, and no second one stays
    refused = hearth(data_dir, "models", "quantize", str(starter_model_path))
    assert refused.returncode == 1 and "already quantized (Q4_1)" in refused.stderr
    unread = hearth(data_dir, "models", "quantize", str(f16_model), "--type", "Q4_K_M", "--importance",
                    str(tmp_path / "gone.txt"))
    assert unread.returncode == 1 and "gone.txt could not be read: it is no longer there (it was moved, renamed or " \
        "deleted)." in unread.stderr and "No such file" not in unread.stderr
    unused = hearth(data_dir, "models", "quantize", str(f16_model), "--type", "Q8_0", "--importance",
                    str(tmp_path / "gone.txt"))  # refused for the type before the file is looked at
    assert unused.returncode == 1 and "Q8_0 has no use for a text" in unused.stderr, unused.stderr


def test_a_copy_the_library_cannot_take_is_left_where_its_maker_removes_it(
        starter_model_path: Path, tmp_path: Path) -> None:
    """A review of the change: the copy was renamed to its sha256 before the library took
    it; when the library refused it (a full disk), the maker removed the old name, and a
    copy of gigabytes stayed, outside the library, in the models folder."""
    import shutil

    made = tmp_path / quantize.target_for(starter_model_path, "Q8_0", tmp_path).name
    shutil.copyfile(starter_model_path, made)

    class FullLibrary:
        def find_sha256(self, _sha: str) -> None:
            return None

        def add(self, *_args: object) -> None:
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        quantize.keep(FullLibrary(), made, "Q8_0", None, "ab" * 32)
    assert [p.name for p in tmp_path.iterdir()] == [made.name]  # the maker's name: it removes it
