"""A labelled Chinese retrieval set: Chinese documents in four formats, one English one,
and questions as people ask them (with 「是什么」「多少」「怎么」 and the like).

About half the questions reuse the documents' words, the rest paraphrase them; a few mix
in Latin-script codes and commands, and a few are English questions whose codes appear in
a Chinese document. Each names the file that answers it (the measure is the share of
questions whose right file is among the first five hits: as the issue measures it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HANDBOOK = """# 年假
每位员工每个日历年享有二十七天带薪年假。未休完的年假可以保留到次年三月三十一日。

# 远程办公
与团队负责人商定后，员工每周最多可以在家办公三天。

# 报销
差旅费用在出差结束后三十天内报销，报销代码为 EXP-4410。培训课程费用的报销代码为 EXP-4420。

# 试用期
新员工的试用期为六个月，入职三个月后进行一次评估。

# 育儿假
每位父母都可以享受十六周全薪育儿假。
"""

HARBOR = """引航
船长超过四十米的船舶必须在抵港前至少六小时申请引航员。引航员在外浮标处登船，申请请通过十四频道联系引航站。

危险货物
运输危险货物需要港务局签发的许可证 HRB-7731，抵港时必须出示。内港池严禁爆炸物进入。

费用与服务
系泊费为每米每天十二欧元，在港务长办公室缴纳。加油码头的开放时间为早上六点到晚上十点。防波堤内限速五节。

夜间抵港
午夜至凌晨五点之间抵港需要许可证 HRB-7733，夜间抵港的船舶须先在外锚地抛锚。
"""

LAB = [
    ("个人防护", "所有实验室房间都必须佩戴护目镜，访客也不例外。必须穿着封闭的鞋子和长裤。"),
    ("紧急情况", "走廊沿线每隔十米设有一个洗眼器。化学品泄漏应急箱放在 B2 门旁边的红色柜子里。"
                "通风橱的风速必须保持在每秒零点五米。"),
    ("废弃物", "有机溶剂废液倒入蓝色桶，含重金属的废液倒入黄色桶，每周五由安全员统一收走。"),
]

GARDEN = """<html><head><script>track()</script></head><body>
<h1>开放时间</h1><p>社区花园每天早上七点开放，日落时关闭。</p>
<h1>地块费用</h1><p>每块地每季四十五欧元，交给财务玛格丽特。</p>
<h1>堆肥</h1><p>堆肥箱里只能放生的蔬菜残渣，不能放肉类或面包。</p>
<h1>工具棚</h1><p>工具棚的门锁密码是 2468，铁锹用完后请放回原处。</p>
<h1>浇水</h1><p>喷灌系统每周二和周五运行，傍晚可以随时手工浇水。</p>
</body></html>"""

SERVER = """# 部署
在发布分支上运行 `make ship`，它会构建容器并完成上线。

# 网络
服务在负载均衡器之后监听 8443 端口。

# 备份
数据库每晚两点自动备份到 NAS-03，备份保留三十天。

# 日志
应用日志保存九十天，之后自动删除。
"""

COFFEE = """清洁
咖啡机每周需要用除垢剂清洗一次，奶泡管每天使用后要用清水冲洗。

故障代码
屏幕显示 E17 表示水箱没水了，显示 E23 表示豆仓需要加咖啡豆。
"""

LIBRARY = """# 借期
每本书的借期为三周，期刊只能借一周。

# 续借
每本书最多可以续借两次，可以在网上或者到服务台办理。

# 逾期
逾期归还的图书每天罚款五角，最高罚款二十元。
"""

TRAVEL_EN = """# Hotels
Hotel costs are capped at 150 euros per night in every city.

# Trains
Train travel is booked in second class; first class needs approval from finance.
"""


@dataclass(frozen=True)
class Question:
    text: str
    file: str


QUESTIONS = [
    # The documents' own words.
    Question("年假有多少天？", "员工手册.md"),
    Question("未休完的年假可以保留到什么时候？", "员工手册.md"),
    Question("每周可以在家办公几天？", "员工手册.md"),
    Question("EXP-4410 是什么报销代码？", "员工手册.md"),
    Question("新员工的试用期是多久？", "员工手册.md"),
    Question("育儿假有几周？", "员工手册.md"),
    Question("什么船舶需要申请引航员？", "港口规定.txt"),
    Question("危险货物需要什么许可证？", "港口规定.txt"),
    Question("系泊费是多少？", "港口规定.txt"),
    Question("加油码头几点开放？", "港口规定.txt"),
    Question("实验室里必须佩戴什么？", "实验室安全.docx"),
    Question("化学品泄漏应急箱放在哪里？", "实验室安全.docx"),
    Question("含重金属的废液倒入什么颜色的桶？", "实验室安全.docx"),
    Question("社区花园几点开放？", "社区花园.html"),
    Question("工具棚的密码是多少？", "社区花园.html"),
    Question("堆肥箱里能放什么？", "社区花园.html"),
    Question("make ship 是做什么的？", "服务器部署.md"),
    Question("服务监听哪个端口？", "服务器部署.md"),
    Question("数据库备份到哪里？", "服务器部署.md"),
    Question("E17 是什么意思？", "咖啡机说明.txt"),
    Question("咖啡机多久除垢一次？", "咖啡机说明.txt"),
    Question("书可以续借几次？", "图书馆借阅.md"),
    Question("逾期罚款是多少？", "图书馆借阅.md"),
    # Paraphrased: fewer shared words.
    Question("一年能休几天带薪假？", "员工手册.md"),
    Question("培训课程的费用怎么报？", "员工手册.md"),
    Question("半夜进港要办什么手续？", "港口规定.txt"),
    Question("港内船速限制是多少？", "港口规定.txt"),
    Question("眼睛溅到化学品怎么办，洗眼的设备在哪？", "实验室安全.docx"),
    Question("花园的地每个季度要交多少钱？", "社区花园.html"),
    Question("什么时候给花园浇水？", "社区花园.html"),
    Question("日志会保留多久？", "服务器部署.md"),
    Question("屏幕上出现 E23 该怎么处理？", "咖啡机说明.txt"),
    Question("杂志能借多长时间？", "图书馆借阅.md"),
    # Latin words inside Chinese, and English questions.
    Question("HRB-7733 许可证用于什么情况？", "港口规定.txt"),
    Question("NAS-03 上的备份保留几天？", "服务器部署.md"),
    Question("出差住酒店每晚最多报销多少钱？ hotel", "travel_policy.md"),
    Question("What is expense code EXP-4420 for?", "员工手册.md"),
    Question("hotel costs per night", "travel_policy.md"),
]


def write_corpus(folder: Path) -> Path:
    """Write the corpus into ``folder`` (created) and return it."""
    from docx import Document

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "员工手册.md").write_text(HANDBOOK, encoding="utf-8")
    (folder / "港口规定.txt").write_text(HARBOR, encoding="utf-8")
    document = Document()
    for heading, text in LAB:
        document.add_heading(heading, level=1)
        document.add_paragraph(text)
    document.save(str(folder / "实验室安全.docx"))
    (folder / "社区花园.html").write_text(GARDEN, encoding="utf-8")
    (folder / "服务器部署.md").write_text(SERVER, encoding="utf-8")
    (folder / "咖啡机说明.txt").write_text(COFFEE, encoding="utf-8")
    (folder / "图书馆借阅.md").write_text(LIBRARY, encoding="utf-8")
    (folder / "travel_policy.md").write_text(TRAVEL_EN, encoding="utf-8")
    return folder


def evaluate(search) -> dict[str, float]:
    """search(question_text) -> ranked file names; the right file's recall@1, @5 and MRR."""
    r1 = r5 = rr = 0.0
    for question in QUESTIONS:
        ranked = search(question.text)[:5]
        if question.file in ranked:
            rank = ranked.index(question.file)
            rr += 1.0 / (rank + 1)
            r5 += 1
            r1 += rank == 0
    n = len(QUESTIONS)
    return {"recall@1": r1 / n, "recall@5": r5 / n, "mrr": rr / n}
