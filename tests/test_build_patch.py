"""The one change Hearth makes to llama.cpp's source before every build
(``SOURCE_PATCHES`` in packaging/bootstrap.py). That the built library has it is shown by
its logits (tests/inference/test_llama_engine.py); here, how the patch is applied."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "packaging"))
from common import SOURCE_PATCHES, apply_patches  # noqa: E402

SGEMM = SOURCE_PATCHES[0][0]


def test_the_sgemm_threshold_moves_from_two_tokens_to_four(tmp_path: Path) -> None:
    path = tmp_path / SGEMM
    path.parent.mkdir(parents=True)
    path.write_bytes(b"    // only enable sgemm for prompt processing\n#if !defined(__MMA__)\n"
                     b"    if (n < 2)\n        return false;\n#endif\n")
    apply_patches(tmp_path)
    patched = path.read_bytes()
    assert b"    if (n < 4)\n        return false;" in patched and b"n < 2" not in patched
    assert b"\r" not in patched  # the file's own line ends, on Windows too


@pytest.mark.parametrize("content", [None, "    if (n < 3)\n        return false;\n",
                                     "    if (n < 2)\n        return false;\n" * 2])
def test_a_source_without_exactly_that_code_stops_the_build(tmp_path: Path, content: str | None) -> None:
    """A newer llama.cpp that moved or changed the line must not be built without the
    change (drafting would then change answers): the build stops and says what to review."""
    if content is not None:
        path = tmp_path / SGEMM
        path.parent.mkdir(parents=True)
        path.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit, match="SOURCE_PATCHES"):
        apply_patches(tmp_path)
