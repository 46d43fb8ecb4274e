"""Tools (#44): what the sandbox and the tool steps cost.

``sandbox``: from the user's approval to the tool's first result for a stdio MCP server
that is not running yet (start, handshake, list, call), in Hearth's sandbox (the
launcher, Landlock, seccomp, limits; Hearth's bounded transport) ÷ the same server
started plainly by the official SDK's own stdio client. Interleaved. Target ≤ 1.2.

``answer``: a chat answer's decode speed (tokens per second of the answer itself) with
Hearth's tools on ÷ off, the real starter model through the real turn machine; and what
the tool choice before the answer adds to the time to the first token. Target ≥ 0.97.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median, spread

SERVER = Path(__file__).resolve().parent.parent / "tests" / "tools" / "calm_server.py"


def _sdk_plain() -> float:
    """The SDK's own stdio client, no sandbox: start to the first result."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def run() -> float:
        started = time.perf_counter()
        params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                await session.call_tool("add", {"a": 1, "b": 2})
                return time.perf_counter() - started

    return anyio.run(run)


def sandbox(rounds: int) -> list[Figure]:
    from core.tools.host import ToolHost
    from core.tools.servers import ToolServerRecord

    class One:
        def __init__(self, record: ToolServerRecord) -> None:
            self.record = record

        def require(self, _name: str) -> ToolServerRecord:
            return self.record

    record = ToolServerRecord("calm", sys.executable, (str(SERVER),))
    boxed, plain = [], []
    for i in range(rounds):
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            if side:
                plain.append(_sdk_plain())
                continue
            host = ToolHost(One(record))  # type: ignore[arg-type]  # one server, no vault
            try:
                started = time.perf_counter()
                host.call("calm", "add", {"a": 1, "b": 2})
                boxed.append(time.perf_counter() - started)
            finally:
                host.close()
    return [Figure("tool server, approval to first result: sandboxed ÷ plain SDK start", median(boxed) / median(plain),
                   "ratio", "target ≤ 1.2", spread(boxed, plain, sandboxed_s=median(boxed), plain_s=median(plain)))]


def answer(rounds: int) -> list[Figure]:
    from core.models import resolve_model
    from core.tools.toolbox import make_toolbox
    from core.turns import TurnMachine
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadModel, ModelSpec, SamplingParams
    from inference.supervisor import SupervisedWorker
    from storage.chats import ChatStore
    from storage.crypto import KdfParams
    from storage.vault import Vault

    class Listener:
        def __getattr__(self, _name):
            return lambda *args: None

    with tempfile.TemporaryDirectory() as tmp:
        store = ChatStore(Vault.create(Path(tmp) / "vault.db", "benchmark passphrase",
                                       KdfParams(memory_kib=64, iterations=1, lanes=1)))
        events: queue.Queue = queue.Queue()
        worker = SupervisedWorker(LlamaEngine, events.put, flush_interval=0.0)
        worker.start()
        turns = TurnMachine(Listener(), worker.submit, worker.cancel)
        turns.store = store
        worker.submit(LoadModel(ModelSpec(resolve_model(), n_ctx=2048, n_threads=2, n_batch=256)))
        toolbox = make_toolbox(None)
        params = SamplingParams(max_tokens=64, temperature=0.0, seed=1, repeat_penalty=1.0, ignore_eos=True)
        rates: dict[bool, list[float]] = {True: [], False: []}
        ttft: dict[bool, list[float]] = {True: [], False: []}

        def turn(tools: bool, question: str) -> None:
            turns.tools_for = (lambda _chat: toolbox) if tools else None
            chat = store.create_chat()
            started = time.monotonic()
            assert turns.save_user_message(chat.id, question) is not None
            assert turns.start(chat.id, params, None)
            deadline = started + 600
            while turns.busy:
                if time.monotonic() > deadline:
                    raise TimeoutError("a benchmark turn took over 600 s")
                with contextlib.suppress(queue.Empty):
                    turns.on_event(events.get(timeout=0.05))
            stats = store.messages(chat.id)[-1].stats
            rates[tools].append(float(stats["tokens_per_second"]))
            choice = sum(float(s.get("seconds", 0)) for s in stats["steps"] if s["kind"] != "generate")
            ttft[tools].append(choice + float(stats["ttft_seconds"]))

        try:
            questions = ["Write a short poem about the sea.", "Name three rivers in Europe.",
                         "Describe a quiet morning.", "What makes a good cup of tea?"]
            for i in range(rounds):
                for tools in ((True, False) if i % 2 == 0 else (False, True)):
                    turn(tools, questions[i % len(questions)])
        finally:
            worker.shutdown(5)
            store.close()
    return [Figure("chat answer decode tokens/s, tools on ÷ off (starter model)", median(rates[True]) / median(rates[False]),
                   "ratio", "target ≥ 0.97", spread(rates[True], rates[False])),
            Figure("chat answer time to first token, tools on ÷ off (the choice first)",
                   median(ttft[True]) / median(ttft[False]), "ratio", "",
                   spread(ttft[True], ttft[False], on_s=median(ttft[True]), off_s=median(ttft[False])))]


def run(quick: bool = False) -> list[Figure]:
    return sandbox(2 if quick else 10) + answer(1 if quick else 6)  # --quick: a smoke run
