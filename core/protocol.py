"""The inference worker's commands, events and errors, and the model facts the window and
the terminal show (#37: app/ and cli/ import core, never inference). Re-exports only."""

from __future__ import annotations

from inference import chat_formats, cpu_variant
from inference.bundled import embedding_model, manifests, starter_model, weak_languages
from inference.citations import invented
from inference.embedder import LlamaEmbedder
from inference.errors import InferenceError
from inference.fit import MIB, FitReport, available_memory, estimate, fit
from inference.gguf import InvalidGGUF
from inference.hardware import physical_cores
from inference.intranet import Aborted, EngineError, Trust, one_line
from inference.modelinfo import ModelInfo, read_info
from inference.probe import ProbeCancelled, probe
from inference.protocol import (
           SEARCHING,
           ChatMessage,
           CountTokens,
           Embed,
           Event,
           Forget,
           Generate,
           LoadEmbedder,
           LoadModel,
           ModelFailed,
           ModelLoaded,
           ModelLoading,
           ModelSpec,
           Passages,
           SamplingParams,
           Stats,
           WorkerDied,
)
from inference.remote import RemoteEngine
from inference.settings import ModelSettings
from inference.worker import InferenceWorker

__all__ = ["Aborted", "ChatMessage", "CountTokens", "Embed", "EngineError", "Event", "FitReport", "Forget",
           "Generate", "InferenceError", "InferenceWorker", "InvalidGGUF", "LlamaEmbedder",
           "LoadEmbedder", "LoadModel", "MIB", "ModelFailed", "ModelInfo", "ModelLoaded",
           "ModelLoading", "ModelSettings", "ModelSpec", "Passages", "ProbeCancelled",
           "RemoteEngine", "SEARCHING", "SamplingParams", "Stats", "Trust", "WorkerDied",
           "available_memory", "chat_formats", "cpu_variant", "embedding_model", "estimate", "fit",
           "invented", "manifests", "one_line", "physical_cores", "probe", "read_info",
           "starter_model", "weak_languages"]
