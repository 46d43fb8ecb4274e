"""``chat --tools``: the terminal chat with tools. The same steps as a turn in the window
(``core.tools.choice``: the model chooses under the grammar, the user approves, the tool
runs, the answer comes with what the tools gave), driven one after another here. Every
call is shown whole, arguments and all, and waits for the user's word unless it is one of
Hearth's own tools (pure arithmetic, dates, units) or one the user allowed always."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout

from cli.common import notice, stream_answer, terminal_safe
from core.client import Answer, WorkerClient
from core.protocol import ChatMessage, SamplingParams
from core.tool_steps import ALWAYS, ONCE, REFUSE, Toolbox
from core.tools.choice import Exchange, ToolCall, answer_request, choice_request, next_call, refusal
from core.tools.results import CALL_SECONDS, START_SECONDS
from i18n import translate

Approve = Callable[[ToolCall], str]


def ask_in_terminal(call: ToolCall) -> str:
    """The user's word on ``call``: once, always (in this chat) or refuse (also at the end
    of input)."""
    arguments = json.dumps(call.arguments, ensure_ascii=False, indent=2)
    print(terminal_safe(translate("cli.tools", "The model wants to run {server} › {tool} with:\n{arguments}")
                        .format(server=call.server, tool=call.name, arguments=arguments)))
    try:
        answer = input(translate("cli.tools", "Run it? [o]nce, [a]lways in this chat, [r]efuse: ")).strip().lower()
    except EOFError:
        return REFUSE
    return {"o": ONCE, "once": ONCE, "a": ALWAYS, "always": ALWAYS}.get(answer, REFUSE)


def answer_with_tools(client: WorkerClient, history: tuple[ChatMessage, ...], params: SamplingParams,
                      toolbox: Toolbox, approve: Approve = ask_in_terminal) -> Answer:
    exchanges: list[Exchange] = []
    while True:
        asked, choosing, choice = choice_request(history, toolbox.specs, exchanges, params)
        call = next_call(client.generate(asked, choosing, choice=choice).text, toolbox.specs, exchanges,
                         toolbox.limit)
        if call is None:
            break
        decision = ONCE if toolbox.unasked(call) else approve(call)
        if decision == REFUSE:
            exchanges.append(refusal(call))
            notice(translate("cli.tools", "{tool}: refused").format(tool=call.name))
            continue
        if decision == ALWAYS:
            toolbox.remember(call)
        try:
            text, is_error = toolbox.run(call).result(START_SECONDS + CALL_SECONDS + 10)
        except FutureTimeout:  # a server that neither answers nor is stopped in time
            text, is_error = translate("cli.tools", "The tool did not answer in time."), True
        notice(translate("cli.tools", "{tool}: {result}").format(tool=call.name, result=text[:300]))
        exchanges.append(Exchange(call, text, is_error))
    return stream_answer(client, answer_request(history, exchanges), params)
