"""A vision model's projector file (mmproj): found beside the model, checked before it is
kept, as the model file is, by the bounded GGUF reader (``inference.gguf``).

LM Studio keeps a vision model's projector in the model's folder (``mmproj-….gguf``),
and so do the model pages that offer one; Hearth looks there when a model is imported.
A projector is kept only if the reader finds a well-formed GGUF of llama.cpp's "clip"
kind that has a vision encoder and projects into the width of the model it is for; what
is wrong is said in words. llama.cpp loads it later (``inference.vision``).
"""

from __future__ import annotations

from pathlib import Path

from i18n import translate
from inference.gguf import InvalidGGUF, read_header
from inference.modelinfo import label

MAX_CANDIDATES = 64  # files in the folder looked at, at most


def find_projector(model: Path) -> Path | None:
    """The projector beside ``model``: the folder's one ``*mmproj*.gguf`` file, or of
    several the one whose name shares the most with the model's; None when there is none
    (or no way to choose)."""
    try:
        found = [p for _, p in zip(range(MAX_CANDIDATES), sorted(model.parent.iterdir()), strict=False)
                 if p.suffix.lower() == ".gguf" and "mmproj" in p.name.lower() and p != model and p.is_file()]
    except OSError:
        return None
    if len(found) <= 1:
        return found[0] if found else None
    words = _words(model.stem)
    scored = sorted(((len(words & _words(p.stem)), p) for p in found), key=lambda s: -s[0])
    return scored[0][1] if scored[0][0] > scored[1][0] else None


def _words(name: str) -> set[str]:
    return {w for w in name.lower().replace("_", "-").replace(".", "-").split("-") if w and w != "mmproj"}


def check_projector(path: Path, text_width: int) -> None:
    """InvalidGGUF, in words, unless ``path`` is a projector of pictures for a model
    ``text_width`` wide (0: not known, not checked)."""
    header = read_header(path)
    if header.architecture != "clip":
        raise InvalidGGUF(translate("inference.projectors", "{name} is not a picture reader (projector): it is "
                                    "a {kind} file").format(name=path.name, kind=label(header.architecture)))
    if not header.get("clip.has_vision_encoder"):
        raise InvalidGGUF(translate("inference.projectors", "{name} reads no pictures (it has no vision "
                                    "encoder)").format(name=path.name))
    width = header.get("clip.vision.projection_dim")
    if text_width and isinstance(width, int) and width != text_width:
        raise InvalidGGUF(translate("inference.projectors", "{name} is made for another model (it gives "
                                    "{width} values a token, this model takes {expected})").format(
                                        name=path.name, width=width, expected=text_width))
