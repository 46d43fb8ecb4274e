"""``ask`` and ``chat``: answers in the terminal, from the local model or an intranet
engine; ``ask`` answers from a collection, with its sources, and ``chat --attach`` from
the files attached to its first question (``core.attachments``). Nothing here is stored."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from cli.common import (
    JOB_TIMEOUT,
    CommandError,
    local_spec,
    notice,
    opened,
    say_embedded_there,
    show,
    stream_answer,
    terminal_safe,
    use_engine,
)
from cli.headless import unlocked
from cli.tool_chat import answer_with_tools
from core.answers import extract, extract_markdown, weakness, weakness_text
from core.attachments import Attachment, AttachmentRefused, first_turn, passages, read_all
from core.client import Answer, ClientError, WorkerClient
from core.history import SYSTEM_PROMPT
from core.models import resolve_embedding_model
from core.protocol import (
    ChatMessage,
    InferenceError,
    Passages,
    SamplingParams,
    invented,
    weak_languages,
)
from core.tool_steps import Toolbox
from core.tools import ToolError
from core.tools.toolbox import make_toolbox
from i18n import translate


def ask(name: str, question: str, max_tokens: int, engine: str = "", model: str = "") -> int:
    with opened(chat=True, engine=engine, read_only=True, model="" if engine else model) as (documents, client):
        collection = documents.collection(name)
        messages = (ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", question))
        say_embedded_there(collection)
        found = documents.wait(documents.service.retrieve(question, [collection.id],
                                                          [collection.embedding_model], timeout=JOB_TIMEOUT))
        retrieval = Passages(tuple(found))
        answer = _answer(client, messages, SamplingParams(max_tokens=max_tokens, temperature=0.2, seed=1),
                         retrieval, engine, model)
        print()
        sources = [p.as_dict() for p in answer.passages]
        if found := invented(answer.text, sources):
            print("\n" + translate("cli.commands", "Not a source (the model wrote citations that "
                                    "point at no passage it was given): {citations}").format(
                citations=", ".join(terminal_safe(f.text) for f in found)))
        weak = client.model is not None and not engine and \
            weakness(question, sources, weak_languages(client.model.path))
        if weak:
            print("\n" + weakness_text(weak) + "\n\n"
                  + terminal_safe(extract_markdown(extract(question, sources), markdown=False)))
        if answer.passages:
            print("\n" + translate("cli.commands", "Sources:"))
            for p in answer.passages:
                print(f"[{p.number}] {p.label} — {p.path}")
        else:
            print("\n" + translate("cli.commands",
                                   "(No passage in the collection matched this question.)"))
    return 0


def _answer(client: WorkerClient, messages: tuple[ChatMessage, ...], params: SamplingParams,
            retrieval: Passages | None = None, engine: str = "", model: str = "") -> Answer:
    """Stream one answer to the terminal."""
    try:
        answer = client.generate(messages, params, retrieval, on_chunk=show,
                                 engine=engine, model=model, on_notice=notice)
    except ClientError as exc:
        raise CommandError(str(exc)) from exc
    if answer.interrupted:
        notice(translate("cli.commands", "{reason} The answer above is incomplete.").format(
            reason=answer.interrupted))
    return answer


def terminal_chat(engine: str = "", model: str = "", tools: bool = False,
                  servers: Sequence[str] = (), attach: Sequence[str] = ()) -> int:
    """Chat in the terminal with the starter model (or the local one ``model`` names), or
    an intranet engine's; with ``tools`` (and the tool ``servers`` of the vault), Hearth's
    tools; with ``attach``, those files read for the first question. Not stored."""
    if attach:
        if engine or tools or servers:
            raise CommandError(translate("cli.commands", "--attach works with the local model, without "
                                         "--engine and tools, for now."))
        try:
            attachments = read_all([Path(a) for a in attach])
        except AttachmentRefused as exc:
            raise CommandError(str(exc)) from exc
        for attachment in attachments:
            for note in attachment.notes:
                notice(translate("cli.commands", "{name}: {note}").format(name=attachment.name, note=note))
        return _local_chat(model, attachments=attachments)
    if tools or servers:
        if engine:
            raise CommandError(translate("cli.tools", "Tools work with the local model for now, not "
                                         "with an intranet engine."))
        with contextlib.ExitStack() as stack:
            host = stack.enter_context(unlocked(read_only=True)).tools if servers else None
            try:
                toolbox = make_toolbox(host, servers)
            except ToolError as exc:
                raise CommandError(str(exc)) from exc
            return _local_chat(model, toolbox)
    if not engine:
        return _local_chat(model)
    with unlocked(read_only=True) as session, WorkerClient(with_embedder=False) as client:  # the engines are in the vault
        try:
            name = use_engine(client, session, engine, documents=False)
        except InferenceError as exc:
            raise CommandError(str(exc)) from exc
        return _chat_loop(client, model or name, engine, model)


def _local_chat(model: str, toolbox: Toolbox | None = None, attachments: Sequence[Attachment] = ()) -> int:
    spec = local_spec(model)
    with WorkerClient(with_embedder=bool(attachments)) as client:
        try:
            loaded = client.load(spec)
            embedder = client.load_embedder(resolve_embedding_model()).model if attachments else ""
        except (InferenceError, ClientError) as exc:
            raise CommandError(str(exc)) from exc
        return _chat_loop(client, loaded.name, toolbox=toolbox, attachments=attachments, embedder=embedder)


def _attached_answer(client: WorkerClient, history: list[ChatMessage], attachments: Sequence[Attachment],
                     embedder: str, params: SamplingParams) -> Answer:
    """The first question's answer, from its attachments' passages (the question then
    keeps them, as the model saw it, for the questions after it); their sources after."""
    question = history[-1].content
    pictures = tuple(a.picture for a in attachments if a.picture is not None)  # for a model that sees them
    history[-1] = replace(history[-1], pictures=pictures)
    found = passages(attachments, question, client.embed, embedder)
    answer = client.generate(tuple(history), params, Passages(tuple(found)), on_chunk=show, on_notice=notice)
    history[-1] = replace(first_turn(question, answer.passages), pictures=pictures)
    if answer.passages:
        print("\n\n" + translate("cli.commands", "Sources:"))
        for p in answer.passages:
            print(f"[{p.number}] {terminal_safe(p.label)}")
    return answer


def _chat_loop(client: WorkerClient, title: str, engine: str = "", model: str = "",
               toolbox: Toolbox | None = None, attachments: Sequence[Attachment] = (), embedder: str = "") -> int:
    print(translate("cli.commands", "{model}. Empty line or Ctrl+D to leave. This terminal chat "
                    "is not saved.").format(model=title))
    history = [ChatMessage("system", SYSTEM_PROMPT)]
    while True:
        try:
            line = input(translate("cli.commands", "you> ")).strip()
        except EOFError:
            break
        if not line:
            break
        history.append(ChatMessage("user", line))
        print(translate("cli.commands", "model> "), end="", flush=True)
        try:
            params = SamplingParams(max_tokens=512)
            first = attachments and len(history) == 2
            answer = (_attached_answer(client, history, attachments, embedder, params) if first
                      else answer_with_tools(client, tuple(history), params, toolbox) if toolbox is not None
                      else stream_answer(client, tuple(history), params, engine, model))
        except ClientError as exc:
            print("\n" + translate("cli.commands", "(error: {message})").format(message=exc))
            continue
        print()
        if answer.interrupted:
            notice(answer.interrupted)
        history.append(ChatMessage("assistant", answer.text))
    return 0
