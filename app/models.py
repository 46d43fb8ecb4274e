"""Which model the app opens, and the bundled starter model's first-launch placement."""

from __future__ import annotations

import logging
from pathlib import Path

from inference import cpu_variant
from inference.bundled import choose_model, embedding_model, provision, starter_model
from inference.errors import ModelLoadError
from storage.paths import data_dir, models_dir

log = logging.getLogger(__name__)


def resolve_model() -> Path:
    """The model to open. Places the bundled starter model first if it is missing.

    Raises ModelLoadError with a message for the user when there is no model at all.
    """
    folder = models_dir()
    try:
        starter = provision(starter_model(), folder)
        # The CPU-variant probe loads the starter model in a separate process.
        cpu_variant.configure(starter, data_dir() / "cpu-variant.json")
    except ModelLoadError as exc:
        log.warning("bundled model not provisioned: %s", exc)
        chosen = choose_model(folder)
        if chosen is None:
            raise
        return chosen
    chosen = choose_model(folder)
    if chosen is None:  # pragma: no cover - provision just placed one
        raise ModelLoadError(f"No model was found in {folder}.")
    return chosen


def resolve_embedding_model() -> Path:
    """The bundled embedding model, placed in the models folder. Raises ModelLoadError."""
    return provision(embedding_model(), models_dir())
