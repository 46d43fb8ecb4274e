"""A day of use in compressed time (#43): the real window, driven through a day's mix.

    python -m benchmarks.soak [--minutes 30 | --hours H] [--import-files N] [--out FILE] [--chart FILE]

The real window on a real vault, with the real starter model and embedding model
(llama.cpp), offscreen, answers of at most 96 tokens. Each round: a new chat and a question; regenerate (a second
version) and the first version shown again; the question edited where it stands; an answer
stopped midway and continued; and in turn a document question (a folder imported once,
then its collection switched on in a new chat), a language and a theme switch, a lock and
unlock, a model switch. The local API answers a light load meanwhile: one request a round
from another thread. Every modal dialog is recorded (``tests.modal_guard``: nobody answers
it), and is a failure; so is an exception that reaches ``sys.excepthook`` (a slot's, which
the app would show as its internal-error dialog).

With ``--import-files N``, a folder of N files is imported into a collection of its own in the
background from the start, through every round, its locks and its model loads (a lock stops
the import, the unlock's catch-up resumes it); at the end the run waits for it (at most a
quarter of the run's time) and the check counts each file indexed once, with its passage.

After each round: resident memory, open file descriptors and threads, the stall of the
event loop (how late a 10 ms timer ran, p99) and the files of the import indexed so far. At the end the vault is closed, opened again
and checked (``storage.checkup.problems``, what check-vault runs). The report (JSON) gives
the samples, the growth of each between the second quarter of the run and the last (goal:
under 5 % once warm), the stall p99, the failures and the check; the chart (PNG) draws the
three over time. Exit status 1 when a step failed, a dialog opened or the check found a
problem; timings are reported, never asserted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.common import percentile, process_status, wait_in_event_loop

PASSPHRASE = "a day of use in compressed time"
ANSWER_TOKENS = 96
STEP_S = 120  # the longest any one step may take before it counts as failed
SOAK_COLLECTION = "Soak documents"
ARCHIVE_WORDS = ("harbour", "ledger", "witness", "tide", "invoice", "clause", "berth", "permit", "cargo", "hearing",
                 "statement", "exhibit", "mooring", "schedule", "signature", "deposit", "notice", "lease")
QUESTIONS = ("Name three things a harbour master does.", "What is a good way to store seeds over winter?",
             "租金一般怎么支付？", "Give two reasons to keep a backup of your files.")


def _process() -> dict[str, float]:
    status = process_status()
    return {"fds": float(len(os.listdir("/proc/self/fd"))), "rss_mb": status.get("VmRSS", 0) / 1024,
            "threads": float(status.get("Threads", 0))}


def growth(samples: list[dict[str, float]], key: str) -> float | None:
    """The mean of the last quarter of the run over that of the second, less one."""
    quarter = len(samples) // 4
    if quarter < 1:
        return None
    second = statistics.mean(s[key] for s in samples[quarter:2 * quarter])
    last = statistics.mean(s[key] for s in samples[-quarter:])
    return last / second - 1 if second else None


class Soak:
    def __init__(self, folder: Path, import_files: int = 0) -> None:
        os.environ["HEARTH_DATA_DIR"] = str(folder / "data")
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from PySide6.QtWidgets import QApplication

        from app.chat.controller import ChatController, default_model_spec
        from app.shell.main_window import MainWindow
        from inference.bundled import embedding_model, provision, starter_model
        from inference.embedder import LlamaEmbedder
        from inference.llama_engine import LlamaEngine
        from inference.protocol import LoadEmbedder
        from storage.crypto import KdfParams
        from tests.modal_guard import ModalGuard

        self.app = QApplication.instance() or QApplication([])
        self.guard = ModalGuard()
        self.guard.install(lambda cls, name, value: setattr(cls, name, value))
        # An exception no step caught (a slot's, on the event loop): the app would show its
        # internal-error dialog (app.shell.startup), so the soak counts it as a failure.
        sys.excepthook = self._unhandled
        self.folder = folder
        models = folder / "models"
        self.model = provision(starter_model(), models)
        self.spec = default_model_spec
        controller = ChatController(engine_factory=LlamaEngine, embedder_factory=LlamaEmbedder)
        # Answers of at most 96 tokens (a user's setting): more rounds in the time, every
        # step still a real answer.
        controller.params = replace(controller.params, max_tokens=ANSWER_TOKENS)
        controller.worker.submit(LoadEmbedder(provision(embedding_model(), models)))
        self.window = MainWindow(controller, kdf=KdfParams(memory_kib=64, iterations=1, lanes=1))
        self.window.show()
        self.controller = controller
        self.finished = 0
        self.unlocked = 0
        self.imports = 0
        self.updates = 0
        controller.answer_finished.connect(self._answered)
        controller.answer_updated.connect(self._updated)
        self.window.vault.unlocked.connect(self._opened)
        self.window.documents.finished.connect(self._imported)
        self.stalls: list[float] = []
        self.failures: list[str] = []
        self.api_statuses: list[int] = []
        self.took: dict[str, list[float]] = {}  # seconds each step took, by name
        self.collection: Any = None
        self.import_files = import_files
        self.archive: Any = None  # the collection the long import fills
        self.counted: dict[str, int] = {}  # the archive as the vault holds it at the end

    def _unhandled(self, kind: type[BaseException], value: BaseException, tb: Any) -> None:
        text = "".join(traceback.format_exception(kind, value, tb, limit=6))
        print(text, file=sys.stderr)
        self.failures.append(f"unhandled, an error dialog in the app: {kind.__name__}: {value}\n{text}")

    # Signals ------------------------------------------------------------------------
    def _answered(self, _message: object) -> None:
        self.finished += 1

    def _updated(self, _message_id: int, _text: str) -> None:
        self.updates += 1

    def _opened(self) -> None:
        self.unlocked += 1

    def _imported(self, _report: object) -> None:
        self.imports += 1

    def wait(self, condition: Any, what: str) -> None:
        try:
            wait_in_event_loop(condition, STEP_S, self.stalls)
        except TimeoutError:
            raise TimeoutError(f"{what}: not done within {STEP_S} s") from None

    def step(self, name: str, action: Any) -> None:
        started = time.monotonic()
        try:
            action()
        except Exception as exc:  # a soak reports every failure and goes on
            self.failures.append(f"{name}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}")
        self.took.setdefault(name, []).append(time.monotonic() - started)

    # Actions ------------------------------------------------------------------------
    def load_model(self) -> None:
        self.controller.model.load(self.spec(self.model))
        self.wait(lambda: self.controller.model.ready, "the model loads")

    def create_vault(self) -> None:
        screen = self.window.lock_screen
        screen.passphrase.setText(PASSPHRASE)
        screen.confirm.setText(PASSPHRASE)
        before = self.unlocked
        screen.submit.click()
        self.wait(lambda: self.unlocked > before or screen.error.isVisible(), "the vault is created")
        assert self.unlocked > before, screen.error.text()

    def ask(self, text: str) -> None:
        before = self.finished
        self.window.input.setPlainText(text)
        self.window.send_button.click()
        self.wait(lambda: self.finished > before, "an answer")

    def new_chat_question(self, text: str) -> None:
        self.window.new_chat_button.click()
        self.ask(text)

    def regenerate_and_back(self) -> None:
        before = self.finished
        self.window.regenerate_button.click()
        self.wait(lambda: self.finished > before, "a regenerated answer")
        answer = self.window.conversation.message_widgets()[-1]
        answer.previous_button.click()  # the first version shown again
        self.app.processEvents()

    def edit_question(self, text: str) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        question = self.window.conversation.message_widgets()[0]
        before = self.finished
        question.edit_button.click()
        question.editor.text.setPlainText(text)
        QTest.keyClick(question.editor.text, Qt.Key.Key_Return)
        self.wait(lambda: self.finished > before, "the answer to an edited question")

    def stop_and_continue(self) -> None:
        before, updates = self.finished, self.updates
        self.window.input.setPlainText("Write a long story about a lighthouse keeper and the sea.")
        self.window.send_button.click()
        self.wait(lambda: self.updates > updates or self.finished > before, "an answer's first words")
        self.window.stop_button.click()
        self.wait(lambda: self.finished > before, "a stopped answer")
        answer = self.window.conversation.message_widgets()[-1]
        if answer.continue_button.isVisible():
            before = self.finished
            answer.continue_button.click()
            self.wait(lambda: self.finished > before, "a continued answer")

    def soak_collection(self) -> None:
        """The small collection the document questions ask about, imported once."""
        documents = self.window.documents
        self.wait(lambda: documents.ready, "the documents service")
        if self.collection is None:
            folder = self.folder / "corpus"
            folder.mkdir(exist_ok=True)
            (folder / "harbour.md").write_text("# Harbour\n\nThe harbour master assigns berths, collects "
                                               "mooring fees and keeps the tide tables.\n", encoding="utf-8")
            (folder / "seeds.md").write_text("# Seeds\n\nKeep seeds dry and cool over winter, in paper "
                                             "envelopes inside a closed tin.\n", encoding="utf-8")
            (folder / "租房.md").write_text("# 租房\n\n租金按月支付，押金为两个月租金。\n", encoding="utf-8")
            made: list[Any] = []
            assert documents.create(SOAK_COLLECTION, then=made.append)
            self.wait(lambda: bool(made), "a collection is made")
            self.collection = made[0]
            before = self.imports
            assert documents.add(self.collection, [folder])
            self.wait(lambda: self.imports > before, "the folder is imported")
            self.wait(lambda: not documents.busy, "the import ends")

    def documents(self, round_: int) -> None:
        self.soak_collection()
        self.window.new_chat_button.click()
        self.window.header.refresh_documents_menu()
        next(a for a in self.window.documents_menu.actions() if a.text() == SOAK_COLLECTION).setChecked(True)
        self.ask("Who collects the mooring fees?" if round_ % 2 else "押金是多少？")

    def start_archive(self) -> None:
        """The long import: ``import_files`` files of one passage each, in the background."""
        folder = self.folder / "archive"
        folder.mkdir()
        for n in range(self.import_files):
            words = " ".join(ARCHIVE_WORDS[(n * 7 + i * 3) % len(ARCHIVE_WORDS)] for i in range(60))
            (folder / f"note-{n:05d}.txt").write_text(f"Note {n} of the archive. {words}.\n", encoding="utf-8")
        made: list[Any] = []
        assert self.window.documents.create("Soak archive", then=made.append)
        self.wait(lambda: bool(made), "the archive's collection is made")
        self.archive = made[0]
        assert self.window.documents.add(self.archive, [folder])

    def archived(self) -> int:
        """The archive's files indexed so far, as the window knows them."""
        if self.archive is None:
            return 0
        return sum(d.status == "indexed" for d in self.window.documents.documents_of(self.archive.id))

    def archive_done(self, seconds: float) -> None:
        try:
            wait_in_event_loop(lambda: self.archived() >= self.import_files, seconds, self.stalls)
        except TimeoutError:
            raise TimeoutError(f"the archive's import: {self.archived()} of {self.import_files} files "
                               f"within {seconds:.0f} s") from None

    def search(self, words: str) -> None:
        """Type in the search box (as a user comes to it) and clear it again."""
        from PySide6.QtCore import QEvent, Qt
        from PySide6.QtGui import QFocusEvent

        box = self.window.search
        self.app.sendEvent(box, QFocusEvent(QEvent.Type.FocusIn, Qt.FocusReason.MouseFocusReason))
        box.setText(words)
        self.wait(lambda: self.window.chat_list.count() > 0, "the search's list")
        box.clear()

    def language_and_theme(self, round_: int) -> None:
        settings = self.window.vault.settings
        settings.language = "zh_CN" if round_ % 2 else "en"
        self.window.appearance.apply_language()
        theme = ("dark", "light", "system")[round_ % 3]
        next(a for a in self.window.theme_actions if a.data() == theme).trigger()
        self.app.processEvents()

    def lock_and_unlock(self) -> None:
        """A lock, and the unlock until the window lists the collections again (the
        document service reports them after the unlock: until then the sample's count of
        files indexed read 0)."""
        listed = len(self.window.documents.collections())
        self.window.vault.lock()
        self.wait(lambda: self.controller.locked, "the lock")
        screen = self.window.lock_screen
        screen.passphrase.setText(PASSPHRASE)
        before = self.unlocked
        screen.submit.click()
        self.wait(lambda: self.unlocked > before, "the unlock")
        self.wait(lambda: len(self.window.documents.collections()) >= listed, "the collections after the unlock")

    def start_api(self) -> None:
        api = self.window.vault.api
        api.settings.api_enabled = True
        api.settings.api_port = 0  # any free port
        problem = api.start()
        assert problem is None, problem

    def api_request(self, text: str) -> threading.Thread:
        server = self.window.vault.api.server

        def post() -> None:
            try:
                connection = http.client.HTTPConnection(server.host, server.port, timeout=STEP_S)
                connection.request("POST", "/v1/chat/completions",
                                   body=json.dumps({"messages": [{"role": "user", "content": text}],
                                                    "max_tokens": 16}).encode(),
                                   headers={"Authorization": f"Bearer {server.token}",
                                            "Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                connection.close()
                self.api_statuses.append(response.status)
            except OSError as exc:
                self.api_statuses.append(0)
                self.failures.append(f"local API: {type(exc).__name__}: {exc}")

        thread = threading.Thread(target=post, name="soak-api-client", daemon=True)
        thread.start()
        return thread

    def check(self) -> list[str]:
        """The vault closed by a lock, then opened again and checked as check-vault does."""
        from storage.chats import ChatStore
        from storage.checkup import problems
        from storage.paths import vault_path
        from storage.vault import Vault

        self.window.vault.lock()
        self.wait(lambda: self.controller.locked, "the last lock")
        store = ChatStore(Vault.open(vault_path(), PASSPHRASE))
        try:
            found = problems(store)
            if self.archive is not None:
                self.counted = archive_counts(store, self.archive.id)
                counted = self.counted
                if counted["documents"] != counted["paths"] or counted["passages"] != counted["chunked"]:
                    found.append(f"a file of the archive was indexed twice: {counted}")
            return found
        finally:
            store.close()


def archive_counts(store: Any, collection_id: int) -> dict[str, int]:
    """The archive as stored: its documents, their distinct paths, those indexed, its
    passages and the documents they belong to (one passage a file: all equal when every
    file was indexed once)."""
    from storage.documents.store import DocumentStore

    documents = DocumentStore(store.vault)
    listed = documents.documents(collection_id)
    owners = [chunk.document_id for chunk, _vector in documents.iter_chunks([collection_id])]
    return {"documents": len(listed), "paths": len({d.path for d in listed}),
            "indexed": sum(d.status == "indexed" for d in listed), "passages": len(owners),
            "chunked": len(set(owners))}


def run(seconds: float, out: Path | None, chart: Path | None, import_files: int = 0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        soak = Soak(Path(tmp), import_files)
        soak.step("load the model", soak.load_model)
        soak.step("create the vault", soak.create_vault)
        soak.step("start the local API", soak.start_api)
        if import_files:  # (the small collection first: its import would queue behind the long one)
            soak.step("the small collection", soak.soak_collection)
            soak.step("start the archive's import", soak.start_archive)
        started = time.monotonic()
        samples: list[dict[str, float]] = []
        round_ = 0
        while time.monotonic() - started < seconds and soak.window.vault.api.server is not None:
            stalls_before = len(soak.stalls)
            client = soak.api_request(f"Round {round_}: say hello.")
            question = QUESTIONS[round_ % len(QUESTIONS)]
            soak.step("a question in a new chat", lambda q=question: soak.new_chat_question(q))
            soak.step("regenerate, then the first version", soak.regenerate_and_back)
            soak.step("edit the question", lambda r=round_: soak.edit_question(f"Round {r}: one more time, briefly."))
            soak.step("stop and continue", soak.stop_and_continue)
            soak.step("search the chats", lambda q=question: soak.search(q.split()[0]))
            # Answered before a lock or a model load (which would refuse a request in flight).
            soak.step("the local API's answer", lambda c=client: soak.wait(lambda: not c.is_alive(), "the API"))
            kind = round_ % 4
            if kind == 0:
                soak.step("a document question", lambda r=round_: soak.documents(r))
            elif kind == 1:
                soak.step("language and theme", lambda r=round_: soak.language_and_theme(r))
            elif kind == 2:
                soak.step("lock and unlock", soak.lock_and_unlock)
            else:
                soak.step("the model again", soak.load_model)
            cycle = soak.stalls[stalls_before:]
            samples.append({"t_s": time.monotonic() - started, **_process(),
                            "stall_p99_ms": percentile(cycle, 99) if cycle else 0.0,
                            "files_indexed": float(soak.archived())})
            round_ += 1
        if soak.window.vault.api.server is None:
            soak.failures.append("the local API stopped serving")
        if import_files:
            soak.step("the archive's import ends", lambda: soak.archive_done(max(STEP_S, seconds / 4)))
        problems: list[str] = []
        soak.step("check the vault", lambda: problems.extend(soak.check()))
        report = {
            "rounds": round_, "seconds": time.monotonic() - started, "samples": samples,
            "growth": {key: growth(samples, key) for key in ("rss_mb", "fds", "threads")},
            "stall_p99_ms": percentile(soak.stalls, 99) if soak.stalls else 0.0,
            "api_statuses": soak.api_statuses, "failures": soak.failures,
            "step_median_s": {name: statistics.median(times) for name, times in soak.took.items()},
            "dialogs": [item.what for item in soak.guard.opened], "check": problems,
            "archive": {"files": import_files, **soak.counted} if import_files else None,
        }
        if chart is not None and samples:
            draw(samples, chart)
        soak.window.close()
    if out is not None:
        out.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    return report


def draw(samples: list[dict[str, float]], path: Path) -> None:
    """Memory, descriptors and threads against the minutes of the run, one chart each."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from app.engines.chart import LineChart, Series

    page = QWidget()
    layout = QVBoxLayout(page)
    for key, title, unit in (("rss_mb", "Resident memory", "MB"), ("fds", "Open file descriptors", ""),
                             ("threads", "Threads", "")):
        chart = LineChart(title, unit, x_label="minutes")
        chart.set_series([Series(title, tuple((int(s["t_s"] // 60), s[key]) for s in samples))])
        layout.addWidget(chart)
    page.resize(640, 900)
    page.grab().save(str(path))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--hours", type=float, help="instead of --minutes, for longer runs")
    parser.add_argument("--import-files", type=int, default=0,
                        help="import a folder of this many files in the background throughout")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/soak.json"))
    parser.add_argument("--chart", type=Path, default=Path("benchmarks/soak.png"))
    args = parser.parse_args(argv)
    seconds = args.hours * 3600 if args.hours else args.minutes * 60
    report = run(seconds, args.out, args.chart, args.import_files)
    print(json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=2, ensure_ascii=False))
    failed = bool(report["failures"] or report["dialogs"] or report["check"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
