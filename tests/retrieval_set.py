"""A labelled retrieval set: a mixed-format corpus written at test time, and 50 questions.

Half the questions reuse the documents' rare words (codes, names: BM25's strength), half
paraphrase them (the embedding's strength). Each names the file, and the page (PDF) or
section (DOCX, Markdown, HTML, reStructuredText) that answers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests import documents_corpus as corpus

HARBOR_PAGES = [
    "Pilotage. Vessels longer than 40 meters must request a harbor pilot at least six hours "
    "before arrival. Pilots board at the outer buoy. Requests go to the pilot station on channel 14.",
    "Dangerous goods. Hazardous cargo requires permit HRB-7731 from the port authority. The permit "
    "must be shown on arrival. Explosives are never allowed inside the inner basin.",
    "Fees and services. The mooring fee is 12 euros per meter per day, paid at the harbormaster's "
    "office. The fuel dock is open from 06:00 to 22:00. Inside the breakwater the speed limit is "
    "5 knots.",
    "Deep vessels. Permit HRB-7732 is required for vessels with a draft of more than 9 meters. The "
    "permit must be shown on arrival. Deep vessels use the western channel only.",
    "Night arrivals. Permit HRB-7733 is required for arrivals between midnight and 05:00. The "
    "permit must be shown on arrival. Night arrivals anchor at the outer roads first.",
]
LAB_PAGES = [
    "Personal protection. Safety goggles are mandatory in every laboratory room, including for "
    "visitors. Closed shoes and long trousers are required.",
    "Emergencies. An eyewash station is installed every 10 meters along the corridor. The chemical "
    "spill kit is kept in the red cabinet next to door B2. Fume hoods must keep an airflow of 0.5 m/s.",
]
HANDBOOK = [
    ("Vacation", "Every employee receives 27 days of paid vacation per calendar year. Unused days "
                 "may be carried over until March 31."),
    ("Remote work", "Staff may work from home up to three days per week after agreeing it with "
                    "their team lead."),
    ("Expenses", "Travel costs are claimed under expense code EXP-4410 within 30 days of the trip."),
    ("Training", "Course fees are claimed under expense code EXP-4420 within 30 days of the course."),
    ("Purchases", "Small purchases are claimed under expense code EXP-4430 within 30 days of buying."),
    ("Equipment", "Laptops are replaced every four years. Broken equipment is reported to the "
                  "service desk."),
    ("Family", "Parental leave lasts 16 weeks at full pay, for every parent."),
    ("Probation", "New hires have a probation period of six months with a review after three."),
]
GARDEN_HTML = """<html><head><script>track()</script></head><body>
<h1>Opening hours</h1><p>The community garden opens at 7 in the morning and closes at sunset.</p>
<h1>Plot fees</h1><p>A plot costs 45 euros per season, paid to the treasurer Marguerite Oyelaran.</p>
<h1>Compost</h1><p>Only raw vegetable scraps go in the compost bins, never meat or bread.</p>
<h1>Tool shed</h1><p>The tool shed lock code is 2468; return every spade after use.</p>
<h1>Committee</h1><p>The secretary Bartholomew Quayle handles applications for new plots.</p>
<h1>Watering</h1><p>Sprinklers run on Tuesdays and Fridays; hand watering is allowed any evening.</p>
</body></html>"""
SERVER_MD = """# Deployment
Run `make ship` from the release branch; it builds the container and rolls it out.

# Network
The service listens on port 8443 behind the load balancer.

# Backups
Database backups are kept for 35 days, then deleted automatically.

# On-call
The on-call rotation changes every Monday at 10:00.

# Logging
Set ORCHID_LOG_LEVEL to debug to see every request.

# Log format
Set ORCHID_LOG_FORMAT to json to get one machine-readable line per request.
"""
TRAVEL_RST = """Flights
=======

Book economy class for flights shorter than six hours; longer flights may be premium economy.

Allowances
----------

The daily allowance for meals is 62 euros abroad.

Booking
-------

All trips are booked through the TRIPWISE portal, never directly with airlines.
"""
RECIPE_TXT = (
    "Sourdough notes. Use a dough hydration of 78 percent. Feed the starter at a 1:5:5 ratio of "
    "starter, flour and water the night before. Bake at 240 degrees Celsius for 20 minutes with the "
    "lid on, then 25 minutes without it. Let the loaf cool for an hour before cutting."
)
CLIENT_PY = '''"""Client for the Orchid inventory service.

Requests are retried at most 7 times with exponential backoff, each with a timeout of
12 seconds. All calls go to the /v2/orchid path; authentication uses a bearer token
read from the ORCHID_TOKEN environment variable.
"""


def fetch(item_id):
    return item_id
'''


@dataclass(frozen=True)
class Question:
    text: str
    file: str
    page: int | None = None
    section: str | None = None


QUESTIONS = [
    # harbor.pdf
    Question("Which permit is needed for hazardous cargo, HRB-7731?", "harbor.pdf", page=2),
    Question("What is the mooring fee per meter?", "harbor.pdf", page=3),
    Question("How long before arriving must big boats ask for someone to guide them in?", "harbor.pdf", page=1),
    Question("How fast may I go near the port entrance wall?", "harbor.pdf", page=3),
    Question("When can I refuel my boat?", "harbor.pdf", page=3),
    Question("Are explosives allowed in the inner basin?", "harbor.pdf", page=2),
    Question("Which radio channel reaches the pilot station?", "harbor.pdf", page=1),
    Question("What is permit HRB-7732 required for?", "harbor.pdf", page=4),
    Question("When do I need HRB-7733?", "harbor.pdf", page=5),
    # lab.pdf
    Question("Do visitors have to wear eye protection in the labs?", "lab.pdf", page=1),
    Question("Where is the spill kit, red cabinet B2?", "lab.pdf", page=2),
    Question("How strong must the air suction of the fume hood be?", "lab.pdf", page=2),
    Question("Where can I rinse chemicals out of my eyes?", "lab.pdf", page=2),
    Question("What clothes are required to enter?", "lab.pdf", page=1),
    # handbook.docx
    Question("How many days off per year do staff get?", "handbook.docx", section="Vacation"),
    Question("Which code is EXP-4410 used for?", "handbook.docx", section="Expenses"),
    Question("What is claimed under EXP-4420?", "handbook.docx", section="Training"),
    Question("Can I work from my house?", "handbook.docx", section="Remote work"),
    Question("How often do we get a new computer?", "handbook.docx", section="Equipment"),
    Question("How long is time off after a baby is born?", "handbook.docx", section="Family"),
    Question("How long is the probation period for new hires?", "handbook.docx", section="Probation"),
    Question("Until when can unused vacation days be carried over?", "handbook.docx", section="Vacation"),
    # garden.html
    Question("What time does the garden open?", "garden.html", section="Opening hours"),
    Question("Who is the treasurer, Oyelaran?", "garden.html", section="Plot fees"),
    Question("What does Quayle do?", "garden.html", section="Committee"),
    Question("What is the lock code 2468 for?", "garden.html", section="Tool shed"),
    Question("Can I throw leftover meat into the compost?", "garden.html", section="Compost"),
    Question("On which days do the sprinklers run?", "garden.html", section="Watering"),
    Question("How much does it cost to rent a patch of land for growing?", "garden.html", section="Plot fees"),
    # server.md
    Question("Which port does the service listen on?", "server.md", section="Network"),
    Question("What does ORCHID_LOG_LEVEL do?", "server.md", section="Logging"),
    Question("What is ORCHID_LOG_FORMAT for?", "server.md", section="Log format"),
    Question("How long are database copies kept before removal?", "server.md", section="Backups"),
    Question("How do I release a new version to production?", "server.md", section="Deployment"),
    Question("When does the person responsible for night emergencies change?", "server.md", section="On-call"),
    # travel.rst
    Question("Can I fly business for a short trip?", "travel.rst", section="Flights"),
    Question("What is the per diem for food in another country?", "travel.rst", section="Allowances"),
    Question("Where do I book trips, TRIPWISE?", "travel.rst", section="Booking"),
    Question("Should I buy tickets directly from the airline?", "travel.rst", section="Booking"),
    # recipe.txt
    Question("How hot should the oven be for the bread?", "recipe.txt"),
    Question("What hydration does the sourdough dough use?", "recipe.txt"),
    Question("How should I feed the starter, 1:5:5?", "recipe.txt"),
    Question("How long should the loaf rest before slicing?", "recipe.txt"),
    # client.py
    Question("How many times are requests retried?", "client.py"),
    Question("What is the request timeout of the inventory client?", "client.py"),
    Question("Which environment variable holds ORCHID_TOKEN?", "client.py"),
    Question("Which URL path do the calls go to, /v2/orchid?", "client.py"),
    Question("How does the program wait longer between failed attempts?", "client.py"),
    Question("How is the client authenticated?", "client.py"),
]


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    corpus.pdf(folder / "harbor.pdf", HARBOR_PAGES)
    corpus.pdf(folder / "lab.pdf", LAB_PAGES)
    corpus.docx(folder / "handbook.docx", HANDBOOK)
    (folder / "garden.html").write_text(GARDEN_HTML)
    (folder / "server.md").write_text(SERVER_MD)
    (folder / "travel.rst").write_text(TRAVEL_RST)
    (folder / "recipe.txt").write_text(RECIPE_TXT)
    (folder / "client.py").write_text(CLIENT_PY)
    return folder


def correct(question: Question, path: str, page: int | None, heading: str | None) -> bool:
    if Path(path).name != question.file:
        return False
    if question.page is not None and page != question.page:
        return False
    return question.section is None or heading == question.section


def evaluate(search, mode: str) -> dict[str, float]:
    """search(question_text, mode) -> ranked list of (path, page, heading)."""
    r1 = r5 = rr = 0.0
    for question in QUESTIONS:
        ranked = search(question.text, mode)
        hits = [i for i, (p, pg, h) in enumerate(ranked[:5]) if correct(question, p, pg, h)]
        if hits:
            rr += 1.0 / (hits[0] + 1)
            r5 += 1
            r1 += hits[0] == 0
    n = len(QUESTIONS)
    return {"recall@1": r1 / n, "recall@5": r5 / n, "mrr": rr / n}
