"""What the Documents dialog says of an import: how far it is while it runs (files,
passages, pages of a scan, time left, the file being read) and what it did once it ends."""

from __future__ import annotations

from PySide6.QtCore import QLocale

from core.document_progress import Progress, Report
from i18n import translate


def progress_text(state: Progress, left: float | None) -> str:
    """The import's line while it runs; ``left``: the estimate of seconds left, as shown."""
    total, chunks = state.files_total, state.chunks_done
    files = translate("documents.dialog", "{done} of %n files", None, total).format(
        done=state.files_done)
    passages = translate("documents.dialog", "%n passages", None, chunks)
    if state.pages_total:  # a scan, read page by page: what takes the time now
        pages = state.pages_total
        passages += " · " + translate("documents.dialog", "reading page {page} of %n (text "
                                      "recognition)", None, pages).format(page=state.pages_done + 1)
    if left:
        seconds = QLocale().toString(max(1, round(left)))
        text = translate("documents.dialog", "{files} · {passages} · about {seconds} s left · "
                         "{current}").format(files=files, passages=passages, seconds=seconds,
                                             current=state.current)
    else:
        text = translate("documents.dialog", "{files} · {passages} · {current}").format(
            files=files, passages=passages, current=state.current)
    if state.reembedding:
        text = translate("documents.dialog", "Re-indexing for the new embedding model: "
                         "{progress}").format(progress=text)
    return text


def finished_text(report: Report) -> str:
    """The import's line once it ends: how many files were indexed, skipped and failed."""
    if report.cancelled:
        text = translate("documents.dialog", "{indexed} indexed, {skipped} skipped, {failed} "
                         "failed (cancelled; add the same files again to resume).")
    else:
        text = translate("documents.dialog", "{indexed} indexed, {skipped} skipped, {failed} "
                         "failed.")
    return text.format(indexed=len(report.indexed), skipped=len(report.skipped),
                       failed=len(report.failed))
