"""The model library as the window uses it: import, check, remove, switch, settings.

Validation of the header happens at once; copying, hashing and the probe process run
in the background and report back on the UI thread. A model is only offered for chat
once its probe passed with this version of Hearth, of llama.cpp and of the CPU build.
"""

from __future__ import annotations

import logging
import sys
import threading
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from app.chat.controller import ChatController
from app.shell.background import run_in_background
from core.models import (
    Cancelled,
    ModelChanged,
    check_projector,
    copy_with_hash,
    file_signature,
    hash_file,
    projector_beside,
    projector_of,
    verify_reference,
)
from core.protocol import (
    FitReport,
    InvalidGGUF,
    ModelInfo,
    ModelSettings,
    ProbeCancelled,
    available_memory,
    cpu_variant,
    embedding_model,
    fit,
    probe,
    read_info,
    starter_model,
)
from core.records import BUNDLED, COPY, REFERENCE, LibraryEntry, ModelLibrary
from core.session import Session
from core.vault import models_dir, trouble
from i18n import translate

log = logging.getLogger(__name__)
LOAD_FIELDS = ("n_ctx", "n_gpu_layers", "n_threads", "n_batch", "chat_format")
SIGNATURE = "file_signature"  # in a referenced entry's info: size and mtime when last hashed


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def probe_key() -> str:
    """What a probe verdict depends on: a new Hearth, llama.cpp or CPU build means a new probe."""
    variant = cpu_variant.build_name()
    return f"hearth {_version('hearth')}|llama-cpp-python {_version('llama-cpp-python')}|{variant}"


def gpu_offload() -> bool:
    """Whether the llama.cpp build can offload to a GPU. Only asked once llama_cpp is loaded:
    importing it earlier would fix the CPU build before inference.cpu_variant chose one."""
    if "llama_cpp" not in sys.modules:
        return False
    import llama_cpp

    return bool(llama_cpp.llama_supports_gpu_offload())


class ModelsController(QObject):
    library_changed = Signal()
    imported = Signal(object)  # LibraryEntry (probe still running)
    import_failed = Signal(str)
    probed = Signal(object)  # LibraryEntry with its verdict
    refused = Signal(str)  # a model was not loaded, and why (a referenced file that changed)
    embedding_model_chosen = Signal(object, str)  # path, sha256: documents use this model

    def __init__(self, chat: ChatController) -> None:
        super().__init__(chat)
        self.chat = chat
        self.library: ModelLibrary | None = None
        self.pending: set[str] = set()  # sha256 of imports, probes and re-hashes under way
        self._verifying: set[int] = set()  # referenced entries being hashed again
        self._wanted: int | None = None  # the entry last asked for: loaded once verified
        # Set at lock and quit: copies, hashes and probes under way stop at once.
        self._cancel = threading.Event()

    # Vault life cycle -------------------------------------------------------------
    def attach(self, session: Session) -> None:
        self.library = session.library
        self._ensure_bundled()
        from core import quantize

        quantize.sweep(models_dir())  # what a quantizer killed with Hearth left half-written
        preferences = self.library.preferences()  # one decryption of the row at unlock
        embedder = self.library.get(preferences.get("embedding_model") or -1)
        if embedder is not None and embedder.usable and Path(embedder.path).is_file():
            self.embedding_model_chosen.emit(Path(embedder.path), embedder.sha256)
        chosen = preferences.get("default_model")
        entry = self.library.get(chosen) if chosen is not None else None
        if entry is not None and entry.usable and not self._is_loaded(entry):
            self.switch(entry.id)
        elif (current := self.current()) is not None:
            if current.usable and self._loaded_otherwise(current):
                # Loaded before the unlock with the defaults (the library was still locked):
                # the model's own load settings (its context, threads, GPU layers) apply now.
                self.switch(current.id)
            else:
                self.chat.params = ModelSettings.from_dict(current.settings).sampling()
        self.library_changed.emit()

    def detach(self, _timeout: float = 0.0) -> None:
        """Cancel copies and probes; the session's job step then waits for them."""
        self.cancel_jobs()
        self.pending.clear()
        self._verifying.clear()
        self._wanted = None
        self.library = None
        self.library_changed.emit()

    def cancel_jobs(self) -> None:
        """Stop imports and probes under way (their partial files go); new ones start afresh."""
        self._cancel.set()
        self._cancel = threading.Event()

    def _ensure_bundled(self) -> None:
        assert self.library is not None
        for model in (starter_model(), embedding_model()):
            path = models_dir() / model.file
            if not path.is_file() or self.library.find_sha256(model.sha256) is not None:
                continue
            try:
                info = read_info(path).as_dict()
            except InvalidGGUF:
                log.error("a bundled model fails validation")
                continue
            entry = self.library.add(model.name, str(path), BUNDLED, model.sha256, info,
                                     ModelSettings.for_model(info.get("context_length")).as_dict())
            # Verified by its hash (and the starter by the CPU-build probe): trusted.
            self.library.save(replace(entry, probe={"ok": True, "reason": "", "key": probe_key()}))

    # Reading ----------------------------------------------------------------------
    def entries(self) -> list[LibraryEntry]:
        return self.library.entries() if self.library else []

    def _is_loaded(self, entry: LibraryEntry) -> bool:
        return self.chat.model.path is not None and Path(entry.path) == Path(self.chat.model.path)

    def _loaded_otherwise(self, entry: LibraryEntry) -> bool:
        """Whether the model loaded (or loading) is ``entry``'s file with other load settings
        than ``entry``'s own."""
        loaded = self.chat.model.spec
        wanted = ModelSettings.from_dict(entry.settings).spec(Path(entry.path), "", projector_of(entry))
        return loaded is None or replace(loaded, display_name="") != wanted

    def current(self) -> LibraryEntry | None:
        return next((e for e in self.entries() if self._is_loaded(e)), None)

    def fit_report(self, entry: LibraryEntry, settings: ModelSettings | None = None) -> FitReport:
        settings = settings or ModelSettings.from_dict(entry.settings)
        info = ModelInfo.from_dict(entry.info)
        return fit(info, settings.n_ctx, available_memory(), gpu_offload=gpu_offload())

    def fit_report_for(self, info: ModelInfo, like: LibraryEntry) -> FitReport:
        """How a model not in the library yet (a smaller copy of ``like``) fits here, with
        ``like``'s settings."""
        settings = ModelSettings.from_dict(like.settings)
        return fit(info, settings.n_ctx, available_memory(), gpu_offload=gpu_offload())

    def keep_quantized(self, path: Path, kind: str, original: LibraryEntry, sha: str) -> LibraryEntry | None:
        """A smaller copy made of ``original`` (``core.quantize``), in the library beside it
        and checked like an import."""
        if self.library is None:
            path.unlink(missing_ok=True)
            return None
        from core import quantize

        entry = quantize.keep(self.library, path, kind, original, sha)
        assert isinstance(entry, LibraryEntry)
        self.check(entry.id)
        self.imported.emit(entry)
        self.library_changed.emit()
        return entry

    # Import -----------------------------------------------------------------------
    def import_file(self, source: Path, mode: str) -> bool:
        """Validate now; copy or reference, hash and probe in the background."""
        if self.library is None:
            self.import_failed.emit(
                translate("models.controller", "Unlock Hearth before importing models."))
            return False
        source = Path(source)
        try:
            info = read_info(source)
        except InvalidGGUF as exc:
            self.import_failed.emit(
                translate("models.controller", "{file} cannot be imported: {problem}.")
                .format(file=source.name, problem=exc))
            return False
        folder, cancel = models_dir(), self._cancel
        projector, projector_problem = projector_beside(source, info.embedding_length)

        def work() -> tuple[Path, str, dict[str, int] | None, dict[str, Any]]:
            seeing: dict[str, Any] = {"projector_problem": projector_problem} if projector_problem else {}
            if mode == COPY:
                if projector is not None:
                    kept, projector_sha = copy_with_hash(projector, folder, cancel)
                    seeing = {"projector": str(kept), "projector_sha256": projector_sha, "projector_copied": True}
                return (*copy_with_hash(source, folder, cancel), None, seeing)
            signature = file_signature(source)  # before hashing: a change during it shows later
            if projector is not None:
                seeing = {"projector": str(projector.resolve()), "projector_sha256": hash_file(projector, cancel)}
            return source.resolve(), hash_file(source, cancel), signature, seeing

        key = str(source.resolve())
        self.pending.add(key)
        run_in_background(work, self, lambda result: self._stored(key, source, mode, info, result),
                          lambda exc: self._import_error(key, source, exc), name="model-import")
        return True

    def _stored(self, key: str, source: Path, mode: str, info: ModelInfo,
                result: tuple[Path, str, dict[str, int] | None, dict[str, Any]]) -> None:
        self.pending.discard(key)
        path, sha, signature, seeing = result
        if self.library is None:
            return
        existing = self.library.find_sha256(sha)
        if existing is not None:
            self.import_failed.emit(
                translate("models.controller", "{file} is already in your library as “{name}”.")
                .format(file=source.name, name=existing.name))
            return
        settings = ModelSettings.for_model(info.context_length)
        facts = {**info.as_dict(), **seeing} if signature is None else {**info.as_dict(), **seeing,
                                                                        SIGNATURE: signature}
        entry = self.library.add(info.name, str(path), mode, sha, facts, settings.as_dict())
        self.check(entry.id)  # first: whoever is told of the new entry sees it being checked
        self.imported.emit(entry)
        self.library_changed.emit()

    @Slot(object)
    def _import_error(self, key: str, source: Path, exc: Exception) -> None:
        self.pending.discard(key)
        if isinstance(exc, Cancelled):
            return  # locked or quitting: nothing to say, nothing left behind
        found = trouble(exc)
        if found is not None:
            self.import_failed.emit(found.message(
                translate("models.controller", "{file} was not imported; nothing was left behind.")
                .format(file=source.name)))
            return
        log.error("import failed", exc_info=exc)
        self.import_failed.emit(
            translate("models.controller", "{file} could not be imported: {problem}.")
            .format(file=source.name, problem=exc))

    # Probe ------------------------------------------------------------------------
    def check(self, entry_id: int) -> None:
        """Load the model once in a separate process; keep the verdict with the entry."""
        entry = self.library.get(entry_id) if self.library else None
        if entry is None:
            return
        settings = ModelSettings.from_dict(entry.settings)
        path, n_ctx, key, cancel = Path(entry.path), min(settings.n_ctx, 2048), probe_key(), self._cancel
        self.pending.add(entry.sha256)
        run_in_background(lambda: probe(path, n_ctx=n_ctx, cancel=cancel),
                          self, lambda result: self._probed(entry.id, key, result),
                          lambda exc: self._probed(entry.id, key, exc), name="probe")

    def _probed(self, entry_id: int, key: str, result) -> None:
        if isinstance(result, ProbeCancelled):
            return  # locked or quitting: checked again the next time it is chosen
        entry = self.library.get(entry_id) if self.library else None
        if entry is None:
            return
        self.pending.discard(entry.sha256)
        if isinstance(result, Exception):
            reason = translate("models.controller", "The check could not run ({problem}).").format(
                problem=result)
            verdict = {"ok": False, "reason": reason, "key": key}
        else:
            verdict = {"ok": result.ok, "reason": result.reason, "key": key,
                       "memory": result.model_bytes, "n_ctx": result.n_ctx}
        entry = replace(entry, probe=verdict)
        assert self.library is not None
        self.library.save(entry)
        self.probed.emit(entry)
        self.library_changed.emit()

    # Switching, settings, removal -------------------------------------------------
    def use_for_documents(self, entry_id: int) -> str | None:
        """Make an embedding model the one that indexes documents (collections re-embed)."""
        entry = self.library.get(entry_id) if self.library else None
        if entry is None:
            return translate("models.controller", "That model is no longer in the library.")
        if entry.info.get("role") != "embedding":
            return translate("models.controller", "“{name}” is a chat model, not an embedding "
                             "model.").format(name=entry.name)
        if not entry.usable:
            return entry.probe.get("reason") or translate(
                "models.controller", "“{name}” has not been checked yet.").format(name=entry.name)
        assert self.library is not None
        self.library.set_preference("embedding_model", entry.id)
        self.embedding_model_chosen.emit(Path(entry.path), entry.sha256)
        self.library_changed.emit()
        return None

    def switch(self, entry_id: int) -> str | None:
        """Load another model; returns a reason when it cannot be used."""
        entry = self.library.get(entry_id) if self.library else None
        if entry is None:
            return translate("models.controller", "That model is no longer in the library.")
        if entry.info.get("role") == "embedding":
            return translate("models.controller", "“{name}” is an embedding model: use it for "
                             "documents, not for chat.").format(name=entry.name)
        if not Path(entry.path).is_file():
            return (translate("models.controller", "The file of “{name}” is missing: {path}.")
                    .format(name=entry.name, path=entry.path))
        if not entry.usable:
            return entry.probe.get("reason") or translate(
                "models.controller", "“{name}” has not been checked yet.").format(name=entry.name)
        if entry.probe.get("key") != probe_key() and entry.stored != BUNDLED:
            self.check(entry.id)
            return translate("models.controller", "“{name}” is being checked again after an "
                             "update. Try again in a moment.").format(name=entry.name)
        self._wanted = entry.id
        if entry.stored == REFERENCE and self._changed_on_disk(entry):
            self._verify(entry)
            return translate("models.controller", "“{name}” changed on disk since it was last "
                             "checked: Hearth is making sure it is still the same model, and loads "
                             "it if it is.").format(name=entry.name)
        settings = ModelSettings.from_dict(entry.settings)
        self.chat.model.load(settings.spec(Path(entry.path), entry.name, projector_of(entry)))
        self.chat.params = settings.sampling()
        assert self.library is not None
        self.library.set_preference("default_model", entry.id)
        self.library_changed.emit()
        return None

    # A referenced model that changed on disk ----------------------------------------
    def _changed_on_disk(self, entry: LibraryEntry) -> bool:
        """Size or mtime differ from those recorded when it was last hashed (or none were)."""
        try:
            return file_signature(Path(entry.path)) != entry.info.get(SIGNATURE)
        except OSError:
            return True

    def _verify(self, entry: LibraryEntry) -> None:
        """Hash the file again in the background (cancelled at lock and quit)."""
        if entry.id in self._verifying:
            return
        self._verifying.add(entry.id)
        self.pending.add(entry.sha256)
        self.library_changed.emit()
        path, sha, name, cancel = Path(entry.path), entry.sha256, entry.name, self._cancel
        run_in_background(lambda: verify_reference(path, sha, name, cancel), self,
                          lambda signature: self._verified(entry.id, signature),
                          lambda exc: self._verify_failed(entry.id, name, exc), name="model-verify")

    def _verified(self, entry_id: int, signature: dict[str, int]) -> None:
        self._verifying.discard(entry_id)
        entry = self.library.get(entry_id) if self.library else None
        if entry is None:
            return
        self.pending.discard(entry.sha256)
        assert self.library is not None
        self.library.save(replace(entry, info={**entry.info, SIGNATURE: signature}))
        self.library_changed.emit()
        if self._wanted == entry_id:  # still the one asked for: load it now
            problem = self.switch(entry_id)
            if problem:
                self.refused.emit(problem)

    def _verify_failed(self, entry_id: int, name: str, exc: Exception) -> None:
        self._verifying.discard(entry_id)
        entry = self.library.get(entry_id) if self.library else None
        if entry is not None:
            self.pending.discard(entry.sha256)
        if isinstance(exc, Cancelled) or self.library is None:
            return  # locked or quitting: checked again the next time it is chosen
        if self._wanted == entry_id:
            self._wanted = None
        if isinstance(exc, ModelChanged):
            log.warning("a referenced model changed on disk; not loaded")
            self.refused.emit(str(exc))
        elif (found := trouble(exc)) is not None:
            self.refused.emit(found.message(
                translate("models.controller", "“{name}” was not loaded.").format(name=name)))
        else:
            log.error("checking a referenced model failed", exc_info=exc)
            self.refused.emit(translate("models.controller",
                                        "“{name}” could not be read, so it was not loaded.")
                              .format(name=name))
        self.library_changed.emit()

    def save_settings(self, entry_id: int, settings: ModelSettings) -> None:
        entry = self.library.get(entry_id) if self.library else None
        if entry is None:
            return
        before = ModelSettings.from_dict(entry.settings)
        assert self.library is not None
        self.library.save(replace(entry, settings=settings.as_dict()))
        if self._is_loaded(entry):
            if any(getattr(before, f) != getattr(settings, f) for f in LOAD_FIELDS):
                if entry.stored == REFERENCE and self._changed_on_disk(entry):
                    self._wanted = entry.id
                    self._verify(entry)  # reloaded with the saved settings once verified
                else:
                    self.chat.model.load(settings.spec(Path(entry.path), entry.name, projector_of(entry)))
            self.chat.params = settings.sampling()
        self.library_changed.emit()

    def set_projector(self, entry_id: int, path: Path) -> str | None:
        """Give a model the projector the user chose (used where it is, checked first);
        the reason, in words, when it is not one for this model."""
        entry = self.library.get(entry_id) if self.library else None
        if entry is None:
            return translate("models.controller", "That model is no longer in the library.")
        try:
            check_projector(Path(path), int(entry.info.get("embedding_length") or 0))
        except (InvalidGGUF, OSError) as exc:
            return translate("models.controller", "{file} was not kept: {problem}.").format(
                file=Path(path).name, problem=exc)
        info = {k: v for k, v in entry.info.items()
                if k not in ("projector_problem", "projector_copied", "projector_sha256")}
        assert self.library is not None
        self.library.save(replace(entry, info={**info, "projector": str(Path(path).resolve())}))
        self.library_changed.emit()
        return None

    def remove(self, entry_id: int) -> str | None:
        entry = self.library.get(entry_id) if self.library else None
        if entry is None:
            return None
        if entry.stored == BUNDLED:
            return translate("models.controller", "The bundled starter model stays: Hearth needs "
                             "one model that always works.")
        if self._is_loaded(entry):
            return translate("models.controller",
                             "This model is in use. Switch to another model first.")
        assert self.library is not None
        self.library.remove(entry.id)
        if entry.stored == COPY:
            Path(entry.path).unlink(missing_ok=True)
            if entry.info.get("projector") and entry.info.get("projector_copied") is True:
                Path(str(entry.info["projector"])).unlink(missing_ok=True)  # Hearth's copy, not a chosen file
        self.library_changed.emit()
        return None

