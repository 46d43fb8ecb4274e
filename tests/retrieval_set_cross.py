"""A small cross-lingual retrieval set: Chinese questions about the English corpus of
``tests/retrieval_set.py`` and English questions about the Chinese corpus of
``tests/retrieval_set_zh.py``, each asked of the other language's collection only.

The questions share no word with their answer (no codes, no digits written the same way),
so keywords cannot find it: only an embedding model that places both languages in one
space can. A hit is right when it is the named file and its passage holds ``contains``
(the answer itself, not only its file: the English corpus's files have several pages or
sections).
"""

from __future__ import annotations

from dataclasses import dataclass

EN, ZH = "en", "zh"  # the corpus a question is asked of


@dataclass(frozen=True)
class Question:
    text: str
    corpus: str
    file: str
    contains: str


QUESTIONS = [
    # Chinese questions, English passages (tests/retrieval_set.py's corpus).
    Question("系泊费每米多少钱？", EN, "harbor.pdf", "mooring fee"),
    Question("访客在实验室里需要戴护目镜吗？", EN, "lab.pdf", "goggles"),
    Question("员工每年有多少天带薪假期？", EN, "handbook.docx", "paid vacation"),
    Question("酸面包应该用多少度烘烤？", EN, "recipe.txt", "Bake at"),
    Question("出国出差时每天的餐费补贴是多少？", EN, "travel.rst", "allowance for meals"),
    # English questions, Chinese passages (tests/retrieval_set_zh.py's corpus).
    Question("How many times can a library book be renewed?", ZH, "图书馆借阅.md", "续借两次"),
    Question("How often does the coffee machine have to be descaled?", ZH, "咖啡机说明.txt", "除垢"),
    Question("Which barrel does waste liquid with heavy metals go into?", ZH, "实验室安全.docx", "黄色桶"),
    Question("What time does the community garden open in the morning?", ZH, "社区花园.html", "七点"),
    Question("How long is parental leave?", ZH, "员工手册.md", "育儿假"),
]


def evaluate(search) -> dict[str, float]:
    """search(question) -> ranked (file name, passage text); recall@1, recall@5 and MRR of
    the first hit that is the right file and holds the answer."""
    r1 = r5 = rr = 0.0
    for question in QUESTIONS:
        ranked = search(question)[:5]
        hits = [i for i, (name, text) in enumerate(ranked)
                if name == question.file and question.contains in text]
        if hits:
            rr += 1.0 / (hits[0] + 1)
            r5 += 1
            r1 += hits[0] == 0
    n = len(QUESTIONS)
    return {"recall@1": r1 / n, "recall@5": r5 / n, "mrr": rr / n}
