"""A labelled set of hard PDFs for page citations: what real documents have and our plain
generated ones lacked, with 58 questions (32 English, 26 Chinese), each labelled with the
file and the page (1-based index, as ``docs search`` cites it) where its answer is.

Six documents, written at test time by ``tests.pdf_layout`` (fpdf2; Chinese with a font
built on the spot, so no system CJK font is needed):

- port_manual.pdf: a cover, a table of contents with dot leaders and a summary that names
  every topic and permit code, numbered i-iii (PDF page labels), so printed page 1 is index
  4; running headers with the chapter; tables; a figure caption; a heading at the bottom of
  a page whose body is on the next; an index of terms with printed pages at the end.
- sediment_study.pdf: a journal article: an abstract that repeats the key terms, two-column
  text, a results table, a figure caption with a fact, references; journal page numbers
  (112-116) printed but no page labels.
- staff_handbook.pdf: front matter i-iv with a table of contents over two pages and an
  "about" page naming the most asked-about topics; long pages with several facts; a chapter
  heading at a page's bottom; a two-page index.
- harbor_manual_zh.pdf, staff_handbook_zh.pdf (two-column), lurra_study_zh.pdf: the same
  kinds in Chinese (目录, 内容提要, 摘要, 索引, 表, 图, 第 N 页).

The measure (``evaluate``): page accuracy, the share of questions whose first hit from the
right file carries the right page, ±1 (a question whose file has no hit counts as wrong),
and file recall@5.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.pdf_layout import (
    Doc,
    captions,
    cols,
    figure,
    h1,
    h2,
    index,
    p,
    printed,
    small,
    table,
    title,
    toc,
)
from tests.pdf_layout import write_pdfs as _write

PORT = Doc(
    "port_manual.pdf", "en", "Port of Valmora - Harbor Operations Manual", front=4,
    index_terms=("anchorage E1", "ballast water", "breakwater", "channel 14", "dangerous goods",
                 "deep-draft vessels", "eastern channel", "explosives", "fire boat", "fresh water",
                 "fuel dock", "garbage", "hazardous cargo", "HRB-7731", "HRB-7732", "HRB-7733",
                 "inner basin", "mooring fee", "night", "oil booms", "oily waste", "outer buoy",
                 "outer roads", "pilot", "shore power", "speed limit", "tugs", "western channel"),
    pages=(
        (title("Port of Valmora"), title("Harbor Operations Manual"),
         p("Edition 7, March 2024"),
         p("Issued by the Harbor Master's Office, Valmora Port Authority, Quay Road 1, Valmora."),
         p("This manual replaces Edition 6 (2021). It applies to all commercial and leisure "
           "vessels using the port, its channels and its anchorages.")),
        (h1("Contents"), toc()),
        (h1("Tables and figures"), captions(),
         h1("Changes in Edition 7"),
         table("Revision history", ("Section", "Change"),
               ("1.3", "New pilotage charges for vessels over 100 meters"),
               ("2.1", "Permit HRB-7731 for hazardous cargo now applied for through the agent"),
               ("3.2", "Fuel dock opening hours extended"),
               ("4.2", "Permit HRB-7732: application now 72 hours ahead"),
               ("4.4", "Tug requirements for long vessels revised"),
               ("5.1", "Permit HRB-7733 introduced"),
               ("7.2", "Oil booms moved to a new store"))),
        (h1("Summary of key rules"),
         p("This manual sets out the rules that apply to every vessel using the Port of Valmora, "
           "from the outer buoy to the inner basin. It is written for masters, agents and yacht "
           "skippers, and for the shore staff who serve them."),
         p("Chapter 1 explains compulsory pilotage for large vessels, where pilots board and how a "
           "pilot is requested. Chapter 2 covers dangerous goods: the permit required for hazardous "
           "cargo, the berths for each class and the restrictions in the inner basin. Chapter 3 "
           "lists mooring fees, fuel dock hours, the speed limit inside the breakwater and the "
           "charges for shore power and fresh water."),
         p("Chapter 4 deals with deep-draft vessels, the western channel and tug assistance, and "
           "Chapter 5 with night arrivals and anchoring at the outer roads. Chapter 6 covers "
           "garbage, oily waste and ballast water, and Chapter 7 emergencies: fire, oil spills and "
           "the contacts of harbor control."),
         p("Three permits are issued by the port authority: HRB-7731 for hazardous cargo, HRB-7732 "
           "for deep-draft vessels and HRB-7733 for night arrivals. Each is explained in the "
           "chapter where it applies, and each must be shown on arrival. Masters should read the "
           "chapters that concern their vessel before arrival; the index at the end lists every "
           "term with its page.")),
        (h1("1 Pilotage"),
         p("Valmora is approached through a buoyed fairway of about four nautical miles with strong "
           "cross currents on the ebb. Local knowledge is therefore required for larger vessels, "
           "and the port authority keeps a pilot service around the clock."),
         h2("1.1 When a pilot is required"),
         p("Pilotage is compulsory for vessels longer than 40 meters and for any vessel carrying "
           "dangerous goods, whatever its length. Masters must request a harbor pilot at least six "
           "hours before the expected time of arrival, stating the vessel's name, length, draft "
           "and destination berth. Vessels that regularly call at Valmora may apply for a "
           "pilotage exemption after ten supervised entries."),
         p("Vessels arriving between midnight and 05:00 also need permit HRB-7733 (see 5.1), and "
           "vessels with a draft of more than 9 meters need permit HRB-7732 (see 4.2); the pilot "
           "checks both on boarding."),
         h2("1.2 Boarding"),
         p("Pilots board at the outer buoy, Valmora Fairway (VF), from the pilot launch Gaviota. "
           "The vessel must provide a pilot ladder on the lee side, 1.5 meters above the water, "
           "lit at night. In winds above 30 knots boarding moves to the shelter of Punta Negra, "
           "two miles to the east."),
         h2("1.3 Requests and charges"),
         p("Requests go to the pilot station on VHF channel 14, or by e-mail through the vessel's "
           "agent. A confirmed request may be changed free of charge up to two hours before the "
           "boarding time. Pilotage is charged at 310 euros per movement for vessels up to 100 "
           "meters, and at 2.10 euros per meter for longer vessels; a movement cancelled without "
           "notice costs half the charge.")),
        (h1("2 Dangerous goods"),
         p("Dangerous goods are classified according to the IMDG Code. The port authority must "
           "know of any such cargo before a vessel enters the fairway, and some classes may only "
           "be handled at designated berths."),
         h2("2.1 Permits for hazardous cargo"),
         p("Hazardous cargo requires permit HRB-7731, issued by the port authority. The agent "
           "applies for it at least 48 hours before arrival, with the dangerous goods manifest "
           "and the emergency schedule. The permit must be shown on arrival to the boarding pilot "
           "and kept on the bridge until departure. Tankers with a draft of more than 9 meters "
           "need permit HRB-7732 as well (see 4.2)."),
         h2("2.2 Berths by class"),
         table("Table 1: Designated berths for dangerous goods",
               ("IMDG class", "Cargo", "Berth"), ("Class 2", "Gases", "Berth 12"),
               ("Class 3", "Flammable liquids", "Berth 11"),
               ("Class 8", "Corrosive substances", "Berth 9"),
               ("Class 9", "Miscellaneous dangerous goods", "any cargo berth")),
         h2("2.3 Inner basin"),
         p("Explosives (Class 1) are never allowed inside the inner basin. Vessels with Class 1 "
           "cargo are handled at the explosives anchorage E1 only, under the supervision of the "
           "harbor master. Hot work, such as welding, is forbidden on any vessel carrying "
           "dangerous goods while it is alongside.")),
        (h1("3 Fees and services"),
         p("All fees are set each year by the port authority and are paid at the harbormaster's "
           "office on the ground floor of the port building, or online through the agent. Prices "
           "in this chapter include VAT; pilotage and tug charges are in 1.3 and 4.4."),
         h2("3.1 Mooring fees"),
         p("The mooring fee is charged per meter of overall length and per day or part of a day, "
           "according to the table below. Leisure vessels staying longer than 30 days receive a "
           "discount of 20 percent."),
         table("Table 2: Mooring fees per meter per day",
               ("Length overall", "Fee per meter per day"), ("up to 20 m", "9 euros"),
               ("20 m to 40 m", "12 euros"), ("over 40 m", "15 euros")),
         h2("3.2 Fuel dock"),
         p("The fuel dock at the head of pontoon F sells diesel and petrol. It is open from 06:00 "
           "to 22:00 every day, also on public holidays; outside these hours fuel can be "
           "delivered by tanker truck with 24 hours' notice."),
         h2("3.3 Speed limit"),
         p("Inside the breakwater the speed limit is 5 knots, and no vessel may make a wash that "
           "disturbs moored craft. Jet skis and water skiing are not allowed anywhere in the port."),
         h2("3.4 Shore power and fresh water")),
        (p("Shore power is available at pontoons A to D and at the commercial quay. It is charged "
           "at 0.38 euros per kWh, read from the meter on the pedestal when the vessel leaves. "
           "Fresh water costs 4 euros per cubic meter; the hoses at each pontoon are for drinking "
           "water only and must not be used to wash down the deck of a commercial vessel."),
         h1("4 Deep-draft vessels"),
         p("In this manual a deep-draft vessel is one with a draft of more than 9 meters. Such a "
           "vessel needs a permit, uses the western channel, enters within a tidal window, and in "
           "most cases needs tug assistance; this chapter explains each of these in turn, and the "
           "berths at the bulk terminal that serve them."),
         h2("4.1 Channels"),
         p("The port has two entrance channels. The eastern channel serves ferries and smaller "
           "craft; the western channel was deepened in 2022 for bulk carriers and tankers, and "
           "deep-draft vessels use it only."),
         figure("Figure 1: Channel depths. The western channel is dredged to 14.5 meters below "
                "chart datum; the eastern channel is maintained at 8 meters.")),
        (h2("4.2 Permit for deep-draft vessels"),
         p("Permit HRB-7732 is required for vessels with a draft of more than 9 meters. The agent "
           "applies for it at least 72 hours before arrival, with the vessel's stability booklet. "
           "Such vessels must report to harbor control when passing buoy W3. The permit must be "
           "shown on arrival, like the other permits of the port."),
         h2("4.3 Tidal windows"),
         p("Deep-draft vessels may enter or leave only within two hours either side of high "
           "water, unless their draft leaves a clearance of at least 10 percent at low water. The "
           "tide tables of the port are published by harbor control each December for the "
           "following year. Night arrivals of deep-draft vessels are not possible, whatever the "
           "tide."),
         p("Harbor control may close the western channel for dredging or for a survey. Closures "
           "are announced on VHF channel 16 and by notice to mariners at least three days in "
           "advance, except in an emergency.")),
        (h2("4.4 Tug assistance"),
         p("Vessels longer than 200 meters need two tugs for berthing and unberthing; vessels "
           "between 120 and 200 meters need one. Tugs are ordered from Valmora Towage on VHF "
           "channel 12 at least three hours in advance. In winds above 25 knots the harbor master "
           "may require an additional tug."),
         h2("4.5 Berthing"),
         p("Deep-draft vessels berth at the bulk terminal, berths 20 to 24, where the depth "
           "alongside is 15 meters. Mooring lines are handled by the port's linesmen, who are "
           "booked together with the tugs."),
         h1("5 Night arrivals")),
        (p("The port is open around the clock, but traffic between midnight and dawn is limited "
           "because the pilot service works with a reduced crew."),
         h2("5.1 Permit for night arrivals"),
         p("Permit HRB-7733 is required for arrivals between midnight and 05:00. The permit must "
           "be shown on arrival. Vessels arriving at night anchor at the outer roads first and "
           "wait for the pilot there; they enter in the order in which they anchored."),
         h2("5.2 Lights and signals"),
         p("The leading lights of the western channel are synchronized and show white, flashing "
           "every 4 seconds. A red flashing light on the breakwater head means that the entrance "
           "is closed to all traffic; vessels must then stay outside until it goes out.")),
        (h1("6 Waste and ballast water"),
         h2("6.1 Garbage"),
         p("Garbage is collected daily at 08:00 from the quay in front of each berth. It must be "
           "sorted into food waste, plastics and other waste, in the bags supplied by the port. "
           "Leisure craft use the waste containers at the head of each pontoon."),
         h2("6.2 Oily waste"),
         p("Oily waste (MARPOL Annex I) and sewage are collected by the barge Limpia on request, "
           "with 24 hours' notice through the agent. The cost is included in the port dues for up "
           "to 5 cubic meters per call."),
         h2("6.3 Ballast water"),
         p("Ballast water exchange is forbidden within 12 nautical miles of the coast. Vessels "
           "must keep a ballast water record book and show it to the port state control officer "
           "on request.")),
        (h1("7 Emergencies"),
         h2("7.1 Fire"),
         p("In case of fire on board, call harbor control on VHF channel 16 and dial 112. The fire "
           "boat Salamandra is stationed at the inner basin and can reach any berth within ten "
           "minutes. Crews must keep the fire plan posted at the gangway."),
         h2("7.2 Oil spills"),
         p("Every spill, however small, is reported to harbor control at once. Oil booms are "
           "stored at Berth 3 and are laid by the port's environmental team; the polluter pays "
           "for the response."),
         h2("7.3 Contacts"),
         table("Table 3: Emergency contacts", ("Service", "Contact"),
               ("Harbor control", "VHF 16, +34 971 555 010"),
               ("Pilot station", "VHF 14, +34 971 555 014"),
               ("Valmora Towage", "VHF 12, +34 971 555 012"),
               ("Port doctor", "+34 971 555 030"))),
        (h1("Index"), index()),
    ))

STUDY = Doc(
    "sediment_study.pdf", "en", "Journal of Estuarine Studies 41 (2024) 112-116",
    running_right="E. Okafor et al.", printed_start=112, page_labels=False, footer="{label}",
    header_from=1,
    pages=(
        (title("Accretion and grain size on the Lurra tidal flats, 2019 to 2023"),
         small("Esther Okafor, Mikael Lindqvist and Aiko Tanabe. Department of Coastal Science, "
               "University of Harlow."),
         h2("Abstract"),
         p("Tidal flats can keep pace with sea level rise only if they trap enough sediment. We "
           "measured sediment accretion, median grain size and pore-water salinity at twelve "
           "stations on the Lurra tidal flats between 2019 and 2023, using marker horizons, "
           "sediment cores and laser diffraction. Accretion was highest near the saltmarsh edge "
           "and lowest on the exposed lower flat, and grain size fined landward along all three "
           "transects. A storm surge in 2021 deposited a distinct layer across the upper flat and "
           "lowered pore-water salinity for several months. We discuss what these results mean "
           "for the managed realignment planned at Lurra."),
         small("Keywords: tidal flats; accretion; grain size; salinity; storm surge; managed "
               "realignment"),
         cols([h2("1 Introduction"),
               p("Tidal flats protect the coast by dissipating wave energy before it reaches the "
                 "saltmarsh and the sea wall behind it. Whether they survive sea level rise "
                 "depends on the balance between sediment supply and erosion, which varies from "
                 "one estuary to the next.")],
              [p("The Lurra estuary lost about 30 percent of its saltmarsh area between 1950 and "
                 "2000. Earlier surveys covered only the northern transect and a single year. This "
                 "study adds five years of measurements on three transects, before the sea wall "
                 "is breached for managed realignment in 2026.")])),
        (cols([h2("2 Study area and methods"),
               p("The Lurra tidal flats cover 14 square kilometers on the east side of the "
                 "estuary, between the saltmarsh edge and the low water line. Twelve stations, L-1 "
                 "to L-12, were laid out along three shore-normal transects of four stations each, "
                 "from the lower flat to the saltmarsh edge."),
               p("Each station was surveyed twice a year, in April and October, from 2019 to "
                 "2023, on foot at low water or from the university boat at high water.")],
              [p("Sediment cores were taken at each survey with a 50 mm Perspex corer. Median "
                 "grain size was measured by laser diffraction on a Malvern Mastersizer 3000, "
                 "after organic matter had been removed with hydrogen peroxide."),
               p("Accretion was measured against marker horizons of white feldspar clay, laid in "
                 "April 2019 in plots of one by one meter next to each station and read from "
                 "cores at each survey. Pore-water salinity was measured with a refractometer on "
                 "water drawn from 10 cm below the surface.")]),),
        (h2("3 Results"),
         p("Accretion and grain size differed strongly between the upper and the lower flat "
           "(Table 1). Grain size fined landward on all three transects."),
         table("Table 1: Median grain size, mean accretion rate and mean pore-water salinity per "
               "station, 2019 to 2023",
               ("Station", "Median grain size (um)", "Accretion (mm per year)", "Salinity (PSU)"),
               ("L-1", "212", "3.1", "31"), ("L-2", "188", "4.0", "30"), ("L-3", "164", "6.2", "29"),
               ("L-4", "141", "7.5", "27"), ("L-5", "205", "2.9", "31"), ("L-6", "176", "5.1", "29"),
               ("L-7", "98", "14.2", "22"), ("L-8", "120", "9.8", "24"), ("L-9", "199", "3.4", "30"),
               ("L-10", "170", "4.8", "29"), ("L-11", "133", "8.1", "26"),
               ("L-12", "105", "11.6", "23")),
         cols([p("Station L-7, at the saltmarsh edge of the central transect, had the highest "
                 "accretion, 14.2 mm per year, nearly five times that of the seaward stations. "
                 "The lowest rates were found on the lower flat of the southern transect.")],
              [figure("Figure 2: Pore-water salinity at the upper stations fell from 31 PSU to 18 "
                      "PSU after the storm of February 2021 and had recovered by August.")])),
        (cols([h2("4 Discussion"),
               p("The storm surge of 11 February 2021 deposited a layer of fine sand 9 cm thick "
                 "at station L-3, the thickest storm deposit recorded on the flats. Smaller "
                 "deposits of 1 to 3 cm were found at the other upper stations."),
               p("The landward fining and the high rates at the saltmarsh edge agree with "
                 "settling of fine sediment in the slack water at high tide.")],
              [p("If the present rates continue, the upper flat will keep pace with a sea level "
                 "rise of up to 8 mm per year, but the lower flat will not."),
               h2("5 Conclusions"),
               p("Accretion on the Lurra tidal flats is concentrated at the saltmarsh edge. "
                 "Managed realignment should keep the breach away from the stations with the "
                 "highest rates, so that the sediment supply to the new marsh is not cut off.")]),),
        (h2("Acknowledgements"),
         p("This study was funded by the Lurra Estuary Trust under grant LET-2019-44. We thank the "
           "crew of the university boat and the volunteers who carried the cores."),
         h2("References"),
         small("Allen, J. R. L. (2000). Morphodynamics of Holocene salt marshes. Quaternary "
               "Science Reviews 19, 1155-1231."),
         small("French, J. R. (2006). Tidal marsh sedimentation and resilience to environmental "
               "change. Marine Geology 235, 119-136."),
         small("Hale, P. (1998). A survey of the northern Lurra flats. Harlow Coastal Reports 12."),
         small("Mariotti, G. and Fagherazzi, S. (2013). Critical width of tidal flats triggers "
               "marsh collapse. PNAS 110, 5353-5356.")),
    ))

HANDBOOK = Doc(
    "staff_handbook.pdf", "en", "Northwind Logistics - Staff Handbook", front=4,
    index_terms=("accidents", "allowance", "annual leave", "assembly point", "bicycle", "core hours",
                 "data protection", "doctor's certificate", "EXP-4410", "flexitime", "forklift",
                 "gifts", "laptop", "notice period", "overtime", "parental leave", "passwords",
                 "pension plan", "probation", "reference letter", "remote work", "salary",
                 "sick", "special leave", "TRIPWISE", "unpaid leave", "whistleblowing"),
    pages=(
        (title("Northwind Logistics"), title("Staff Handbook"), p("Valid from 1 January 2024"),
         p("Human Resources, Northwind Logistics GmbH, Hafenstrasse 12, Bremen")),
        (h1("Contents"), toc(0, 20)),
        (toc(20),),
        (h1("About this handbook"),
         p("This handbook describes how we work together at Northwind Logistics: working time "
           "and remote work, leave, pay and benefits, travel and expenses, equipment and IT, "
           "health and safety, conduct, and leaving the company. It applies to all employees in "
           "Germany; drivers have additional rules in the Fleet Manual."),
         p("Where the handbook and your employment contract differ, the contract applies. "
           "Questions go to your team lead or to Human Resources. The most asked-about topics are "
           "overtime, annual leave and sick leave, the pension plan, the meal allowance for "
           "business trips, and what to do when a laptop is lost or stolen; each has its own "
           "section, listed in the contents and in the index."),
         h2("What is new in 2024"),
         p("Overtime can now be taken as time off instead of being paid. The employer's "
           "contribution to the pension plan rises. The meal allowance for trips abroad and the "
           "hotel limits are higher. Lost or stolen laptops must be reported faster, and the "
           "notice periods after probation are the same for both sides.")),
        (h1("1 Working time"),
         h2("1.1 Working hours"),
         p("The normal working week has 39 hours. Core hours are 10:00 to 15:00 from Monday to "
           "Thursday and 10:00 to 13:00 on Friday; outside core hours you may start and finish "
           "when it suits you and your team. Time is recorded in the TimeBook app."),
         p("Your flexitime account may hold up to 40 hours in credit and 10 hours in debit. Hours "
           "above the credit limit at the end of a month are lost unless your team lead approved "
           "them as overtime."),
         h2("1.2 Overtime"),
         p("Overtime must be approved in advance by your team lead. It is paid at 125 percent of "
           "the hourly rate, or taken as time off within three months, as you choose. Work on "
           "Sundays and public holidays is paid at 150 percent."),
         h2("1.3 Remote work"),
         p("Staff may work from home up to three days per week after agreeing it with their team "
           "lead. Northwind pays a home office allowance of 30 euros per month with the salary, "
           "and lends a monitor and a headset on request. Working from abroad needs the approval "
           "of Human Resources and is limited to 20 days a year.")),
        (h1("2 Leave"),
         p("This chapter covers annual leave, sick leave, parental leave, special leave for "
           "particular occasions such as a wedding, a birth or a move (Table 1 in 2.4), and "
           "unpaid leave. All leave is requested and recorded in TimeBook."),
         h2("2.1 Annual leave"),
         p("Every employee receives 27 days of paid leave per calendar year; part-time staff "
           "receive the same share of their working days. Leave is requested in TimeBook at "
           "least two weeks ahead for periods longer than three days. Unused days may be carried "
           "over until March 31 of the following year."),
         h2("2.2 Sick leave"),
         p("If you are ill, tell your team lead before 09:00 on the first day. A doctor's "
           "certificate is needed from the fourth day of illness, and earlier if your team lead "
           "asks for it. Illness during annual leave does not count as leave if you send a "
           "certificate."),
         h2("2.3 Parental leave"),
         p("Parental leave lasts 16 weeks at full pay, for every parent, and can be taken in up to "
           "three blocks before the child's third birthday.")),
        (h2("2.4 Special leave"),
         p("Special leave is paid and does not reduce your annual leave. It is taken at the time "
           "of the occasion, not later, and is requested in TimeBook like other leave."),
         table("Table 1: Special leave", ("Occasion", "Paid leave"), ("Moving house", "1 day"),
               ("Own wedding", "3 days"), ("Birth of your child", "2 days"),
               ("Death of a close relative", "3 days"), ("Blood donation", "half a day")),
         h2("2.5 Unpaid leave"),
         p("Unpaid leave of up to three months can be agreed with your team lead and Human "
           "Resources once every five years, for example for a long journey or to care for a "
           "relative. Your job is kept for you.")),
        (h1("3 Pay and benefits"),
         h2("3.1 Salary"),
         p("Salaries are paid on the 25th of each month, for the current month. A thirteenth "
           "salary is paid with the November salary to everyone employed on 1 November. Pay slips "
           "are in the HR portal, never sent by e-mail."),
         h2("3.2 Pension plan"),
         p("After the probation period Northwind contributes 6 percent of your gross salary to the "
           "Northwind pension plan; you may add up to 4 percent of your own, which the company "
           "matches by half. Contributions stay yours if you leave."),
         h2("3.3 Bicycle leasing"),
         p("Up to two bicycles or e-bikes per employee can be leased through the salary, for 36 "
           "months. Northwind pays the insurance, and the bicycle may be used privately."),
         h1("4 Travel and expenses"),
         p("Business trips are booked and paid by the company; the allowances and the way to "
           "claim costs are set out in this chapter.")),
        (h2("4.1 Booking"),
         p("All trips are booked through the TRIPWISE portal, never directly with airlines or "
           "hotels. Book economy class for flights shorter than six hours; longer flights may be "
           "booked in premium economy. Trains are booked in second class, or first class for "
           "journeys longer than four hours."),
         h2("4.2 Allowances"),
         p("Daily allowances cover meals and small expenses on a business trip. They are paid "
           "with the next salary after the claim, according to Table 2 on the next page. Meals "
           "paid by a customer or included in the hotel price are deducted."),
         h2("4.3 Hotels"),
         p("Hotels are booked through the portal as well. Choose a hotel close to where you work "
           "on the trip; a more expensive hotel needs the approval of your team lead.")),
        (table("Table 2: Travel allowances", ("Item", "Allowance"),
               ("Meals, domestic trip", "28 euros per day"), ("Meals, trip abroad", "62 euros per day"),
               ("Hotel, Europe", "up to 140 euros per night"),
               ("Hotel, rest of the world", "up to 190 euros per night"),
               ("Private car", "0.30 euros per km")),
         h2("4.4 Claims"),
         p("Travel costs are claimed under expense code EXP-4410 within 30 days of the trip, with "
           "the receipts scanned in the expense app. Claims made later than three months after "
           "the trip are not paid.")),
        (h1("5 Equipment and IT"),
         h2("5.1 Laptops and phones"),
         p("Every office employee gets a laptop, replaced every four years, and a phone if the role "
           "needs one. Devices remain Northwind property and are returned when you leave."),
         h2("5.2 Lost or stolen devices"),
         p("Report a lost or stolen device to the IT service desk within two hours, on extension "
           "4357 or at servicedesk@northwind.example, so that it can be locked and wiped "
           "remotely. Theft must also be reported to the police; send the report number to the "
           "service desk."),
         h2("5.3 Passwords"),
         p("Passwords have at least 14 characters and are kept in the company password manager. "
           "Two-factor authentication is required for e-mail and the HR portal."),
         h2("5.4 Personal use"),
         p("Occasional personal use of e-mail and the internet is allowed, provided it does not "
           "disturb work. Private software may not be installed.")),
        (h1("6 Health and safety"),
         h2("6.1 Fire"),
         p("The fire assembly point for the Bremen office and warehouse is car park P2, next to "
           "the main gate. Fire drills take place twice a year; fire wardens wear yellow vests."),
         h2("6.2 Warehouse"),
         p("Only staff with a valid forklift licence (FLT-2 card) may drive forklifts. Safety "
           "shoes and high-visibility vests are required in the warehouse at all times, for "
           "visitors too."),
         h2("6.3 Accidents"),
         p("Report every accident, even one without injury, in the SafeTrack system within 24 "
           "hours. First aiders are listed on the notice board of each floor.")),
        (h1("7 Conduct"),
         h2("7.1 Gifts"),
         p("Gifts and invitations from customers or suppliers with a value of up to 35 euros may "
           "be accepted; anything of higher value must be declined or reported to Compliance "
           "within a week."),
         h2("7.2 Whistleblowing"),
         p("Suspected wrongdoing can be reported to the whistleblowing hotline, 0800 555 0199, "
           "anonymously if you wish. Reports are handled by an external ombudsperson."),
         h2("7.3 Data protection"),
         p("Customer and staff data are processed only for the purpose for which they were "
           "collected. Data protection incidents are reported to the data protection officer at "
           "once.")),
        (h1("8 Leaving Northwind"),
         h2("8.1 Notice periods"),
         p("During the probation period of six months either side may give two weeks' notice. "
           "After probation the notice period is three months to the end of a month, for both "
           "sides."),
         h2("8.2 Last working day"),
         p("Return your laptop, phone, badge and keys on your last working day. A reference letter "
           "is sent within two weeks of leaving.")),
        (h1("Glossary"),
         p("Assembly point: the place outside the building where everyone gathers when the fire "
           "alarm sounds."),
         p("Compliance: the team that checks that Northwind follows the law and its own rules, "
           "including the rules on gifts and invitations."),
         p("Core hours: the part of the working day when everyone is expected to be at work."),
         p("Daily allowance: a fixed amount for each day of a business trip, for meals and small "
           "expenses."),
         p("Doctor's certificate: a note from a doctor saying that you are unable to work, and "
           "for how long."),
         p("Flexitime account: the record of the hours you worked above or below the normal "
           "working week."),
         p("Notice period: the time between giving notice and the last working day."),
         p("Overtime: hours worked above the normal working week at the request of your team "
           "lead."),
         p("Pension plan: the company's retirement savings plan, to which Northwind and you "
           "contribute."),
         p("Service desk: the IT team that helps with laptops, phones, passwords and accounts."),
         p("Special leave: paid days off for particular occasions in your life.")),
        (h1("Index"), index(0, 16)),
        (index(16),),
    ))

HARBOR_ZH = Doc(
    "harbor_manual_zh.pdf", "zh", "瓦尔莫拉港港务操作手册", front=4, footer="第 {label} 页",
    index_terms=("爆炸物", "垃圾", "岸电", "淡水", "航速", "拖轮", "系泊费", "加油码头", "危险货物",
                 "西航道", "东航道", "外锚地", "外浮标", "引航站", "HRB-7731", "HRB-7732",
                 "HRB-7733", "围油栏", "消防船", "内港池", "含油废物", "夜间抵港", "深吃水船舶"),
    pages=(
        (title("瓦尔莫拉港"), title("港务操作手册"), p("第七版　二〇二四年三月"),
         p("瓦尔莫拉港务局港务长办公室发布。本手册取代二〇二一年第六版，适用于使用本港及其航道和锚地的"
           "所有商船和游艇。")),
        (h1("目录"), toc()),
        (h1("表格和插图"), captions(),
         h1("第七版修订记录"),
         table("修订记录", ("章节", "修订内容"), ("1.3", "船长一百米以上船舶的引航收费调整"),
               ("2.1", "危险货物许可证 HRB-7731 改由代理申请"), ("3.2", "加油码头开放时间延长"),
               ("4.2", "深吃水船舶许可证 HRB-7732 的申请时间调整"), ("4.4", "拖轮要求修订"),
               ("5.1", "新设许可证 HRB-7733"), ("6.4", "围油栏改存新仓库"))),
        (h1("内容提要"),
         p("本手册规定了从外浮标到内港池使用瓦尔莫拉港的所有船舶必须遵守的规则，供船长、代理和游艇船主"
           "以及岸上工作人员使用。"),
         p("第一章说明大型船舶的强制引航、引航员登船地点和申请方式。第二章介绍危险货物：运输危险货物所需"
           "的许可证、各类货物的指定泊位以及内港池的限制。第三章列出系泊费、加油码头开放时间、防波堤内的"
           "航速限制以及岸电和淡水的收费。"),
         p("第四章涉及深吃水船舶、西航道和拖轮，第五章涉及夜间抵港和外锚地抛锚，第六章涉及垃圾、含油废物"
           "和紧急情况。港务局签发三种许可证：危险货物许可证 HRB-7731、深吃水船舶许可证 HRB-7732 和夜间"
           "抵港许可证 HRB-7733，抵港时都必须出示。书末的索引列出了所有术语及其页码。")),
        (h1("第一章　引航"),
         p("瓦尔莫拉港的进港航道长约四海里，落潮时横流很强，因此较大的船舶需要熟悉当地情况的引航员。"
           "港务局全天候提供引航服务。"),
         h2("1.1 强制引航"),
         p("船长超过四十米的船舶以及运载危险货物的船舶必须接受引航。船长必须在预计抵港时间前至少六小时"
           "申请引航员，并说明船名、船长、吃水和目的泊位。经常靠泊本港的船舶在完成十次有监督的进港后，"
           "可以申请免除引航。"),
         p("午夜至凌晨五点之间抵港的船舶还需要许可证 HRB-7733（见5.1），吃水超过九米的船舶还需要许可证 "
           "HRB-7732（见4.2），引航员登船时会检查。"),
         h2("1.2 登船地点"),
         p("引航员在外浮标（瓦尔莫拉航道浮标）处从引航艇“海鸥号”登船。船舶必须在背风舷放置引航梯，高出"
           "水面一点五米，夜间须有照明。风力超过三十节时，登船地点改在以东两海里的黑角避风处。"),
         h2("1.3 申请与收费"),
         p("引航申请请通过甚高频十四频道联系引航站，也可以通过船舶代理发送电子邮件。已确认的申请最迟可在"
           "登船前两小时免费更改。船长一百米以下的船舶每次引航收费三百一十欧元。")),
        (h1("第二章　危险货物"),
         p("危险货物按照《国际海运危险货物规则》分类。船舶进入航道之前，港务局必须知道船上的危险货物，"
           "某些类别只能在指定泊位装卸。"),
         h2("2.1 危险货物许可证"),
         p("运输危险货物需要港务局签发的许可证 HRB-7731。代理须在抵港前至少四十八小时提交申请，并附上"
           "危险货物舱单和应急计划。许可证必须在抵港时向登船的引航员出示，并在离港前一直保存在驾驶台。"
           "吃水超过九米的油轮还需要许可证 HRB-7732（见4.2）。"),
         h2("2.2 指定泊位"),
         table("表1　危险货物指定泊位", ("类别", "货物", "泊位"), ("第2类", "气体", "12号泊位"),
               ("第3类", "易燃液体", "11号泊位"), ("第8类", "腐蚀性物质", "9号泊位"),
               ("第9类", "杂项危险物质", "任何货物泊位")),
         h2("2.3 内港池"),
         p("内港池严禁爆炸物（第1类）进入。载有第1类货物的船舶只能在港务长监督下于爆炸物锚地E1作业。"
           "载有危险货物的船舶靠泊期间禁止进行焊接等明火作业。")),
        (h1("第三章　费用与服务"),
         p("所有费用由港务局每年确定，在港务大楼一楼的港务长办公室缴纳，或通过代理在线支付。本章价格均"
           "含增值税；引航费和拖轮费见1.3和4.4。"),
         h2("3.1 系泊费"),
         p("系泊费按船舶总长每米每天计算，不足一天按一天计。游艇停泊超过三十天可享受八折优惠。"),
         table("表2　系泊费（每米每天）", ("船舶总长", "每米每天费用"), ("二十米以下", "九欧元"),
               ("二十米至四十米", "十二欧元"), ("四十米以上", "十五欧元")),
         h2("3.2 加油码头"),
         p("加油码头位于F浮码头顶端，供应柴油和汽油，每天早上六点到晚上十点开放，节假日照常营业；其他"
           "时间可提前二十四小时预约油罐车送油。"),
         h2("3.3 航速限制"),
         p("防波堤内限速五节，任何船舶不得产生影响系泊船只的航行波。港内禁止驾驶水上摩托和滑水。"),
         h2("3.4 岸电与淡水")),
        (p("A至D浮码头和商业码头提供岸电，按每千瓦时零点三八欧元收费，离港时按电桩上的电表读数结算。"
           "淡水每立方米四欧元；各浮码头的水管只供饮用水，不得用于冲洗商船甲板。"),
         h1("第四章　深吃水船舶"),
         p("本手册所称深吃水船舶是指吃水超过九米的船舶。这类船舶需要许可证，只能使用西航道，须在乘潮"
           "窗口内进出港，大多还需要拖轮协助；本章依次说明这些要求以及散货码头的泊位。"),
         h2("4.1 航道"),
         p("本港有两条进港航道。东航道供渡轮和小型船舶使用；西航道于二〇二二年加深，供散货船和油轮使用，"
           "深吃水船舶只能走西航道。"),
         figure("图1　航道水深：西航道疏浚至海图基准面以下十四点五米，东航道维持在八米。")),
        (h2("4.2 深吃水船舶许可证"),
         p("吃水超过九米的船舶需要许可证 HRB-7732。代理须在抵港前至少七十二小时提交申请，并附上船舶稳性"
           "资料。这类船舶须在经过W3号浮标时向港口调度报告。与本港其他许可证一样，抵港时必须出示。"),
         h2("4.3 乘潮窗口"),
         p("深吃水船舶只能在高潮前后两小时内进出港，除非低潮时富余水深不少于吃水的百分之十。港口调度每年"
           "十二月公布下一年的潮汐表。深吃水船舶无论潮汐如何都不能夜间抵港。"),
         p("港口调度可因疏浚或测量关闭西航道。关闭通知至少提前三天通过甚高频十六频道和航海通告发布，"
           "紧急情况除外。")),
        (h2("4.4 拖轮"),
         p("船长超过二百米的船舶靠离泊时需要两艘拖轮，船长一百二十米至二百米的船舶需要一艘。拖轮须至少"
           "提前三小时通过甚高频十二频道向瓦尔莫拉拖轮公司预订。风力超过二十五节时，港务长可以要求增加"
           "一艘拖轮。"),
         h2("4.5 靠泊"),
         p("深吃水船舶在散货码头20至24号泊位靠泊，码头前沿水深十五米。系缆由港口带缆工负责，与拖轮一起"
           "预订。"),
         h1("第五章　夜间抵港")),
        (p("本港全天开放，但由于引航站夜间人手减少，午夜至黎明之间的交通受到限制。"),
         h2("5.1 夜间抵港许可证"),
         p("午夜至凌晨五点之间抵港需要许可证 HRB-7733，抵港时必须出示。夜间抵港的船舶须先在外锚地抛锚，"
           "在那里等候引航员，并按抛锚的先后顺序进港。"),
         h2("5.2 灯光与信号"),
         p("西航道的导航灯同步闪烁白光，每四秒一次。防波堤头的红色闪光灯表示港口入口对所有船舶关闭，船舶"
           "必须在港外等候，直到红灯熄灭。")),
        (h1("第六章　废弃物与紧急情况"),
         h2("6.1 垃圾"),
         p("每天早上八点在各泊位前的码头收集垃圾，须分为厨余、塑料和其他垃圾，装入港口提供的袋子。游艇"
           "使用各浮码头顶端的垃圾箱。"),
         h2("6.2 含油废物"),
         p("含油废物和生活污水由“清洁号”驳船收集，须通过代理提前二十四小时预约。"),
         h2("6.3 火灾"),
         p("船上发生火灾时，请通过甚高频十六频道呼叫港口调度并拨打112。消防船“火蜥蜴号”停靠在内港池，"
           "十分钟内可到达任何泊位。"),
         h2("6.4 油污"),
         p("任何溢油，无论多少，都必须立即报告港口调度。围油栏存放在3号泊位，由港口环保队布放，费用由"
           "污染者承担。")),
        (h1("索引"), index()),
    ))

HANDBOOK_ZH = Doc(
    "staff_handbook_zh.pdf", "zh", "北风物流员工手册", front=3, footer="— {label} —", leader="…",
    index_terms=("TRIPWISE", "EXP-4410", "病假", "补贴", "笔记本电脑", "加班", "核心工作时间", "礼品",
                 "年假", "特别假", "消防集合点", "养老金", "育儿假", "远程办公", "自行车", "工资"),
    pages=(
        (title("北风物流"), title("员工手册"), p("二〇二四年一月一日起施行"), p("北风物流有限公司人力资源部")),
        (h1("目录"), toc()),
        (h1("使用说明"),
         p("本手册介绍北风物流的工作方式：工作时间与远程办公、假期、薪酬与福利、差旅与报销、设备与安全。"
           "本手册适用于在德国工作的全体员工，司机另有《车队手册》。"),
         p("本手册与劳动合同不一致时，以劳动合同为准。有疑问请联系团队负责人或人力资源部。员工最常询问的"
           "是加班费、年假和病假、养老金、出差餐费补贴以及笔记本电脑丢失怎么办，这些内容都有单独的章节，"
           "可以在目录和索引中找到。"),
         h2("本版新增"),
         p("加班现在可以选择调休。公司的养老金缴费比例提高。国外出差餐费补贴和酒店标准提高。笔记本电脑"
           "丢失或被盗须更快报告。")),
        (cols([h1("第一章　工作时间"), h2("1.1 工作时间"),
               p("正常每周工作三十九小时。周一至周四的核心工作时间为上午十点到下午三点，周五为上午十点到"
                 "下午一点；核心时间以外，可以根据自己和团队的情况安排上下班时间。工作时间在 TimeBook "
                 "应用中记录。"),
               p("弹性工作时间账户最多可累积四十小时盈余和十小时欠时。月底超过上限的小时数作废，除非团队"
                 "负责人批准为加班。")],
              [h2("1.2 加班"),
               p("加班须事先由团队负责人批准。加班按小时工资的百分之一百二十五支付，也可以在三个月内调休，"
                 "由员工选择。周日和法定节假日工作按百分之一百五十支付。"),
               h2("1.3 远程办公"),
               p("与团队负责人商定后，员工每周最多可以在家办公三天。公司随工资每月发放三十欧元居家办公补贴，"
                 "并可应要求借用显示器和耳机。在国外远程办公须经人力资源部批准，每年最多二十天。")]),),
        (cols([h1("第二章　假期"),
               p("本章介绍年假、病假、育儿假以及结婚、子女出生、搬家等特定事由的特别假（见2.4表1）。"),
               h2("2.1 年假"),
               p("每位员工每个日历年享有二十七天带薪年假，非全职员工按工作日比例享有。连续休假超过三天的，"
                 "须至少提前两周在 TimeBook 中申请。未休完的年假可以保留到次年三月三十一日。"),
               h2("2.2 病假"),
               p("生病时请在第一天上午九点前通知团队负责人。病假从第四天起需要医生证明，团队负责人要求时须"
                 "更早提供。年假期间生病并提交证明的，不计入年假。")],
              [h2("2.3 育儿假"),
               p("每位父母都可以享受十六周全薪育儿假，可在孩子三岁前分最多三段休完。"),
               h2("2.4 特别假"),
               table("表1　特别假", ("事由", "带薪假期"), ("搬家", "一天"), ("本人结婚", "三天"),
                     ("子女出生", "两天"), ("直系亲属去世", "三天"), ("献血", "半天")),
               h1("第三章　薪酬与福利")]),),
        (cols([h2("3.1 工资"),
               p("工资于每月二十五日发放当月工资。十一月一日在职的员工随十一月工资领取第十三个月工资。"
                 "工资单在人力资源门户中查看，不通过电子邮件发送。"),
               h2("3.2 养老金"),
               p("试用期结束后，公司按税前工资的百分之六向北风养老金计划缴费；员工本人最多可再缴纳百分之四，"
                 "公司按其一半配缴。离职时缴费仍归员工所有。")],
              [h2("3.3 自行车租赁"),
               p("每位员工最多可以通过工资租赁两辆自行车或电动自行车，租期三十六个月，保险由公司承担，"
                 "自行车也可以私人使用。"),
               p("租赁合同在人力资源门户中签订，租期结束后可以按残值买下自行车。")]),),
        (cols([h1("第四章　差旅与报销"), h2("4.1 预订"),
               p("所有出差均通过 TRIPWISE 平台预订，不得直接向航空公司或酒店预订。飞行时间少于六小时的"
                 "航班预订经济舱，更长的航班可以预订超级经济舱。"),
               h2("4.2 差旅补贴"),
               p("每日补贴用于餐费和零星开支，报销后随下一次工资发放，标准见下表。")],
              [table("表2　差旅补贴", ("项目", "标准"), ("国内出差餐费", "每天二十八欧元"),
                     ("国外出差餐费", "每天六十二欧元"), ("欧洲酒店", "每晚最多一百四十欧元"),
                     ("其他地区酒店", "每晚最多一百九十欧元"), ("私家车", "每公里零点三欧元")),
               h2("4.3 报销"),
               p("差旅费用在出差结束后三十天内通过报销应用提交，报销代码为 EXP-4410，并附上扫描的票据。"
                 "出差结束三个月后提交的报销不予支付。")]),),
        (cols([h1("第五章　设备与安全"), h2("5.1 笔记本电脑"),
               p("每位办公室员工配备一台笔记本电脑，每四年更换一次。设备归公司所有，离职时须归还。"),
               h2("5.2 设备丢失或被盗"),
               p("设备丢失或被盗，须在两小时内报告信息技术服务台（分机 4357），以便远程锁定和清除数据。"
                 "被盗还须向警方报案，并将报案编号发给服务台。")],
              [h2("5.3 消防"),
               p("不来梅办公室和仓库的消防集合点在大门旁的 P2 停车场。每年进行两次消防演习，消防员身穿"
                 "黄色背心。"),
               h2("5.4 礼品"),
               p("可以接受客户或供应商价值不超过三十五欧元的礼品和邀请；价值更高的必须拒绝，或在一周内报告"
                 "合规部。")]),),
        (h1("术语表"),
         p("核心工作时间：每个工作日中所有员工都应在岗的时段。"),
         p("加班：应团队负责人要求，在正常每周工作时间之外工作的小时数。"),
         p("医生证明：医生出具的、说明员工不能工作及其期限的证明。"),
         p("特别假：因个人生活中的特定事由而享有的带薪假期。"),
         p("养老金计划：公司和员工共同缴费的退休储蓄计划。"),
         p("每日补贴：出差期间每天按固定标准发放的餐费和零星开支补贴。"),
         p("服务台：负责笔记本电脑、手机、密码和账户问题的信息技术团队。"),
         p("消防集合点：火警响起时所有人在楼外集合的地点。"),
         p("礼品：客户或供应商赠送的物品或邀请。")),
        (h1("索引"), index()),
    ))

STUDY_ZH = Doc(
    "lurra_study_zh.pdf", "zh", "河口研究学报　第41卷（2024年）第112—115页", running_right="奥卡福等",
    printed_start=112, page_labels=False, footer="{label}", header_from=1,
    pages=(
        (title("卢拉潮滩的沉积速率与粒径（2019—2023年）"),
         small("奥卡福、林德奎斯特、田边爱子　哈洛大学海岸科学系"),
         h2("摘要"),
         p("潮滩只有捕获足够的沉积物才能跟上海平面上升。我们在2019年至2023年间用标志层、沉积物岩芯和"
           "激光衍射方法，测量了卢拉潮滩十二个站位的沉积速率、中值粒径和孔隙水盐度。沉积速率在盐沼边缘"
           "最高，在暴露的下部潮滩最低；三条断面上的粒径都向陆方向变细。2021年的一次风暴潮在上部潮滩留下"
           "了明显的沉积层，并使孔隙水盐度在几个月内下降。我们讨论了这些结果对卢拉计划中的有控退堤工程的"
           "意义。"),
         small("关键词：潮滩；沉积速率；粒径；盐度；风暴潮；有控退堤"),
         cols([h2("1 引言"),
               p("潮滩在波浪到达盐沼和海堤之前消耗波能，从而保护海岸。潮滩能否在海平面上升中保存下来，"
                 "取决于沉积物供应与侵蚀之间的平衡。")],
              [p("1950年至2000年间，卢拉河口的盐沼面积减少了约百分之三十。以往的调查只覆盖北部断面和"
                 "一年时间。本研究在2026年海堤开口之前，补充了三条断面上五年的测量。")])),
        (cols([h2("2 研究区域与方法"),
               p("卢拉潮滩位于河口东侧，面积十四平方千米。沿三条垂直于岸线的断面布设了十二个站位（L-1至"
                 "L-12），每条断面四个站位，从下部潮滩一直到盐沼边缘。"),
               p("每年四月和十月各调查一次，低潮时步行，高潮时乘大学的船只。")],
              [p("每次调查用直径五十毫米的有机玻璃取样管采集沉积物岩芯。用过氧化氢去除有机质后，在马尔文"
                 " Mastersizer 3000 激光粒度仪上测量中值粒径。"),
               p("沉积速率以白色长石黏土标志层为基准测量。标志层于2019年4月铺设在每个站位旁一米见方的样方"
                 "中，每次调查时从岩芯中读取。孔隙水盐度用折射仪测量。")]),),
        (h2("3 结果"),
         p("上部和下部潮滩的沉积速率和粒径差异很大（表1），三条断面上的粒径都向陆方向变细。"),
         table("表1　各站位中值粒径、平均沉积速率和平均孔隙水盐度（2019—2023年）",
               ("站位", "中值粒径（微米）", "沉积速率（毫米/年）", "盐度（PSU）"),
               ("L-1", "212", "3.1", "31"), ("L-2", "188", "4.0", "30"), ("L-3", "164", "6.2", "29"),
               ("L-4", "141", "7.5", "27"), ("L-5", "205", "2.9", "31"), ("L-6", "176", "5.1", "29"),
               ("L-7", "98", "14.2", "22"), ("L-8", "120", "9.8", "24")),
         p("中部断面盐沼边缘的L-7站沉积速率最高，每年14.2毫米，接近向海站位的五倍。南部断面的下部潮滩"
           "沉积速率最低。"),
         figure("图2　2021年2月风暴后，上部站位的孔隙水盐度从31 PSU降至18 PSU，到8月已经恢复。")),
        (cols([h2("4 讨论"),
               p("2021年2月11日的风暴潮在L-3站留下了一层九厘米厚的细砂，是潮滩上记录到的最厚的风暴沉积"
                 "层。其他上部站位的沉积厚度为一至三厘米。"),
               h2("5 结论"),
               p("卢拉潮滩的沉积集中在盐沼边缘。有控退堤的开口应避开沉积速率最高的站位，以免切断新盐沼的"
                 "沉积物供应。")],
              [h2("致谢"),
               p("本研究由卢拉河口基金会资助（项目编号 LET-2019-44）。感谢大学船只的船员和帮助搬运岩芯的"
                 "志愿者。"),
               h2("参考文献"),
               small("艾伦（2000）全新世盐沼的形态动力学。第四纪科学评论 19：1155—1231。"),
               small("弗伦奇（2006）潮汐盐沼的沉积作用与对环境变化的适应能力。海洋地质 235：119—136。")]),),
    ))

DOCS = (PORT, STUDY, HANDBOOK, HARBOR_ZH, HANDBOOK_ZH, STUDY_ZH)
BY_FILE = {doc.file: doc for doc in DOCS}


@dataclass(frozen=True)
class Question:
    text: str
    file: str
    page: int  # 1-based index of the page that holds the answer
    answer: str  # words on that page (and on no other page of the file) that answer it
    traps: tuple[str, ...] = field(default=())  # what else in the file looks like an answer

    @property
    def lang(self) -> str:
        return BY_FILE[self.file].lang

    @property
    def printed(self) -> str:
        """The page number printed on the answer's page (what a reader of the PDF sees)."""
        return printed(BY_FILE[self.file], self.page)


Q = Question
QUESTIONS = [
    # port_manual.pdf: i cover, ii contents, iii tables and figures with the revision history,
    # iv summary; 1-9 body (index 5-13); 10 index (14)
    Q("How long before arrival must a vessel longer than 40 meters request a harbor pilot?",
      "port_manual.pdf", 5, "at least six hours before", ("contents", "summary")),
    Q("Which VHF channel do I use to reach the pilot station?", "port_manual.pdf", 5,
      "VHF channel 14", ("index", "contacts table", "other VHF channels")),
    Q("Which permit is needed for hazardous cargo?", "port_manual.pdf", 6,
      "Hazardous cargo requires permit HRB-7731", ("contents", "revision history", "summary", "index")),
    Q("At which berth are flammable liquids handled?", "port_manual.pdf", 6, "Flammable liquids",
      ("table",)),
    Q("What is the mooring fee per meter per day for a 30 meter yacht?", "port_manual.pdf", 7,
      "20 m to 40 m 12 euros", ("table", "list of tables", "contents", "summary")),
    Q("What are the opening hours of the fuel dock?", "port_manual.pdf", 7, "open from 06:00",
      ("contents", "revision history", "summary", "index")),
    Q("What is the speed limit inside the breakwater?", "port_manual.pdf", 7,
      "speed limit is 5 knots", ("contents", "summary", "index")),
    Q("How much does shore power cost per kWh?", "port_manual.pdf", 8, "0.38 euros per kWh",
      ("heading at the bottom of the page before", "contents", "summary")),
    Q("How deep is the western channel dredged?", "port_manual.pdf", 8, "dredged to 14.5 meters",
      ("figure caption", "list of figures", "summary")),
    Q("What is permit HRB-7732 required for?", "port_manual.pdf", 9,
      "Permit HRB-7732 is required for vessels with a draft", ("cross-references", "revision history",
                                                              "summary", "index")),
    Q("How many tugs does a ship over 200 meters need for berthing?", "port_manual.pdf", 10,
      "need two tugs", ("chapter introduction two pages before", "revision history", "summary")),
    Q("When do I need permit HRB-7733?", "port_manual.pdf", 11, "arrivals between midnight and 05:00",
      ("chapter heading at the bottom of the page before", "cross-reference", "revision history",
       "summary", "index")),
    Q("At what time is garbage collected from the quay?", "port_manual.pdf", 12,
      "collected daily at 08:00", ("contents", "summary", "index")),
    Q("Where are the oil booms kept for a spill?", "port_manual.pdf", 13,
      "Oil booms are stored at Berth 3", ("revision history", "contents", "index")),
    # sediment_study.pdf: journal pages 112-116 printed, no page labels; two columns
    Q("Which instrument was used to measure grain size?", "sediment_study.pdf", 2,
      "Malvern Mastersizer 3000", ("abstract",)),
    Q("What were the marker horizons made of?", "sediment_study.pdf", 2, "white feldspar clay",
      ("abstract",)),
    Q("Which station had the highest accretion rate?", "sediment_study.pdf", 3,
      "had the highest accretion, 14.2 mm per year", ("abstract", "table")),
    Q("What was the median grain size at station L-4?", "sediment_study.pdf", 3, "L-4 141 7.5 27",
      ("table", "abstract")),
    Q("How far did pore-water salinity drop after the 2021 storm?", "sediment_study.pdf", 3,
      "fell from 31 PSU to 18 PSU", ("figure caption", "abstract")),
    Q("How thick was the sand layer left by the February 2021 storm surge at L-3?",
      "sediment_study.pdf", 4, "9 cm thick", ("abstract",)),
    Q("Which grant funded the Lurra study?", "sediment_study.pdf", 5, "grant LET-2019-44",
      ("abstract", "references")),
    # staff_handbook.pdf: i cover, ii-iii contents, iv about and what is new; 1-11 body and
    # glossary (index 5-15); 12-13 index (16-17)
    Q("What are the core working hours?", "staff_handbook.pdf", 5, "Core hours are 10:00 to 15:00",
      ("glossary", "index")),
    Q("How is overtime paid?", "staff_handbook.pdf", 5, "paid at 125 percent",
      ("about", "what is new", "glossary", "contents", "index")),
    Q("How many days of leave do I get for my own wedding?", "staff_handbook.pdf", 7,
      "Own wedding 3 days", ("table", "chapter introduction", "glossary", "contents")),
    Q("From which day of sick leave do I need a doctor's certificate?", "staff_handbook.pdf", 6,
      "from the fourth day of illness", ("about", "glossary", "contents", "index")),
    Q("How much does Northwind pay into the pension plan?", "staff_handbook.pdf", 8,
      "contributes 6 percent of your gross salary", ("about", "what is new", "glossary", "index")),
    Q("What is the daily meal allowance on a trip abroad?", "staff_handbook.pdf", 10,
      "62 euros per day", ("table", "allowances section on the page before", "about", "what is new",
                           "glossary")),
    Q("Where do I book business trips?", "staff_handbook.pdf", 9, "booked through the TRIPWISE portal",
      ("chapter introduction on the page before", "about", "contents")),
    Q("My laptop was stolen, who do I tell?", "staff_handbook.pdf", 11, "on extension 4357",
      ("about", "what is new", "glossary", "contents")),
    Q("Where is the fire assembly point?", "staff_handbook.pdf", 12, "car park P2",
      ("glossary", "index")),
    Q("Up to what value may I accept a gift from a supplier?", "staff_handbook.pdf", 13,
      "value of up to 35 euros", ("glossary", "contents", "index")),
    Q("What is the notice period after probation?", "staff_handbook.pdf", 14,
      "notice period is three months", ("what is new", "glossary", "contents", "index")),
    # harbor_manual_zh.pdf: i 封面, ii 目录, iii 表格和插图 与修订记录, iv 内容提要;
    # 1-8 body (index 5-12); 9 索引 (13)
    Q("船长超过四十米的船舶要提前多久申请引航员？", "harbor_manual_zh.pdf", 5, "至少六小时申请引航员",
      ("内容提要", "目录")),
    Q("引航站用哪个频道联系？", "harbor_manual_zh.pdf", 5, "甚高频十四频道", ("索引", "目录", "其他频道")),
    Q("运输危险货物需要什么许可证？", "harbor_manual_zh.pdf", 6, "需要港务局签发的许可证 HRB-7731",
      ("内容提要", "修订记录", "目录", "索引")),
    Q("易燃液体在哪个泊位装卸？", "harbor_manual_zh.pdf", 6, "易燃液体", ("表格", "表格目录")),
    Q("三十米长的游艇系泊费每米每天多少钱？", "harbor_manual_zh.pdf", 7, "二十米至四十米 十二欧元",
      ("表格", "表格目录", "内容提要", "目录")),
    Q("加油码头几点开门？", "harbor_manual_zh.pdf", 7, "每天早上六点到晚上十点开放",
      ("内容提要", "修订记录", "目录", "索引")),
    Q("防波堤内的航速限制是多少？", "harbor_manual_zh.pdf", 7, "防波堤内限速五节",
      ("内容提要", "目录", "索引")),
    Q("岸电怎么收费？", "harbor_manual_zh.pdf", 8, "每千瓦时零点三八欧元",
      ("上一页底部的标题", "内容提要", "目录")),
    Q("西航道有多深？", "harbor_manual_zh.pdf", 8, "疏浚至海图基准面以下十四点五米",
      ("图注", "插图目录", "内容提要")),
    Q("HRB-7732 许可证适用于什么船？", "harbor_manual_zh.pdf", 9, "吃水超过九米的船舶需要许可证 HRB-7732",
      ("交叉引用", "修订记录", "内容提要", "索引")),
    Q("船长超过二百米的船舶靠泊需要几艘拖轮？", "harbor_manual_zh.pdf", 10, "需要两艘拖轮",
      ("两页前的章引言", "修订记录", "内容提要")),
    Q("夜间几点到几点抵港需要许可证？", "harbor_manual_zh.pdf", 11, "午夜至凌晨五点之间抵港需要许可证",
      ("上一页底部的章标题", "交叉引用", "修订记录", "内容提要")),
    Q("码头的垃圾每天几点收？", "harbor_manual_zh.pdf", 12, "每天早上八点在各泊位前的码头收集垃圾",
      ("内容提要", "目录", "索引")),
    Q("溢油时用的围油栏放在哪里？", "harbor_manual_zh.pdf", 12, "围油栏存放在3号泊位",
      ("修订记录", "索引")),
    # staff_handbook_zh.pdf: i 封面, ii 目录, iii 使用说明 与本版新增; 1-6 body in two columns
    # and 术语表 (index 4-9); 7 索引 (10)
    Q("核心工作时间是几点到几点？", "staff_handbook_zh.pdf", 4, "核心工作时间为上午十点到下午三点",
      ("术语表", "索引")),
    Q("加班费怎么算？", "staff_handbook_zh.pdf", 4, "百分之一百二十五",
      ("使用说明", "本版新增", "术语表", "目录", "索引")),
    Q("本人结婚可以休几天假？", "staff_handbook_zh.pdf", 5, "本人结婚 三天", ("表格", "章引言", "目录")),
    Q("请病假从第几天开始需要医生证明？", "staff_handbook_zh.pdf", 5, "病假从第四天起需要医生证明",
      ("使用说明", "术语表", "目录", "索引")),
    Q("公司给养老金缴纳多少？", "staff_handbook_zh.pdf", 6, "按税前工资的百分之六",
      ("使用说明", "本版新增", "术语表", "上一页底部的章标题")),
    Q("国外出差每天的餐费补贴是多少？", "staff_handbook_zh.pdf", 7, "每天六十二欧元",
      ("表格", "使用说明", "本版新增", "术语表", "索引")),
    Q("笔记本电脑丢了要怎么办？", "staff_handbook_zh.pdf", 8, "在两小时内报告信息技术服务台",
      ("使用说明", "本版新增", "术语表", "目录", "索引")),
    Q("消防集合点在哪里？", "staff_handbook_zh.pdf", 8, "P2 停车场", ("术语表", "索引")),
    # lurra_study_zh.pdf: journal pages 112-115 printed, no page labels
    Q("粒径是用什么仪器测量的？", "lurra_study_zh.pdf", 2, "Mastersizer 3000 激光粒度仪", ("摘要",)),
    Q("哪个站位的沉积速率最高？", "lurra_study_zh.pdf", 3, "L-7站沉积速率最高", ("摘要", "表格")),
    Q("风暴潮在L-3站留下的沉积层有多厚？", "lurra_study_zh.pdf", 4, "九厘米厚的细砂", ("摘要",)),
    Q("这项研究由哪个基金会资助？", "lurra_study_zh.pdf", 4, "卢拉河口基金会资助", ("摘要",)),
]


def write_corpus(folder: Path) -> list[Path]:
    """The six PDFs, written into ``folder``."""
    return _write(list(DOCS), folder)


Ranked = Sequence[tuple[str, int | None]]  # (path, page) of each hit, best first


def first_page_from_file(question: Question, ranked: Ranked) -> int | None:
    return next((page for path, page in ranked if Path(path).name == question.file), None)


def evaluate(search: Callable[[Question], Ranked], questions: Sequence[Question] = QUESTIONS,
             slack: int = 1) -> dict[str, float]:
    """search(question) -> the ranked hits. Page accuracy (±``slack``) and file recall@5,
    over all questions and per language."""
    found: dict[str, list[tuple[bool, bool]]] = {"all": [], "en": [], "zh": []}
    for question in questions:
        ranked = list(search(question))
        page = first_page_from_file(question, ranked)
        right = page is not None and abs(page - question.page) <= slack
        in_file = any(Path(path).name == question.file for path, _ in ranked[:5])
        for key in ("all", question.lang):
            found[key].append((right, in_file))
    scores = {}
    for key, rows in found.items():
        if rows:
            scores[f"page_accuracy_{key}"] = sum(r for r, _ in rows) / len(rows)
            scores[f"file_recall@5_{key}"] = sum(f for _, f in rows) / len(rows)
    return scores
