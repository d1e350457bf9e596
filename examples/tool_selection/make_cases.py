# ruff: noqa: E501  (data tables: long strings read better unbroken)
"""Write the tool-selection suite's cases (cases.jsonl) and the oracle's plan (oracle_plan.json).

    python examples/tool_selection/make_cases.py

The five kinds of expected behaviour, one category each: tool_call, no_tool (a direct answer),
clarify, error_handling (invalid input the tool rejects) and not_supported. Deterministic.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
Json = dict[str, Any]
CASES: list[Json] = []
PLAN: dict[str, list[Json]] = {}


def D(day: str) -> Json:
    return {"value": day, "date": True}


def ci(text: str) -> Json:
    return {"value": text, "ignore_case": True}


def add(case: Json, text: str, moves: list[Json]) -> None:
    assert text not in PLAN, text
    PLAN[text] = moves
    case["id"] = (
        f"{case['category'].replace('_', '-')}-{sum(c['category'] == case['category'] for c in CASES) + 1:02d}"
    )
    case["input"] = text
    CASES.append(case)


# ------------------------------------------------------------------ tool_call (40)
# (request, tool, expected arguments as matchers, the same as plain values, reply after the result)
T: list[tuple[str, str, Json, Json]] = [
    ("What's the weather in Lisbon right now?", "get_weather", {"city": "Lisbon"}, {}),
    ("Is it raining in Seattle?", "get_weather", {"city": "Seattle"}, {}),
    ("Weather forecast for Cape Town please", "get_weather", {"city": "Cape Town"}, {}),
    (
        "How cold is it in Oslo in fahrenheit?",
        "get_weather",
        {"city": "Oslo", "unit": "fahrenheit"},
        {},
    ),
    ("What time is it in Tokyo?", "get_time", {"location": "Tokyo"}, {}),
    ("Current time in Buenos Aires?", "get_time", {"location": "Buenos Aires"}, {}),
    ("What's the local time in Nairobi at the moment?", "get_time", {"location": "Nairobi"}, {}),
    (
        "Convert 120 euros to US dollars.",
        "convert_currency",
        {"amount": 120, "from_currency": "EUR", "to_currency": "USD"},
        {},
    ),
    (
        "How many yen is 75 Canadian dollars?",
        "convert_currency",
        {"amount": 75, "from_currency": "CAD", "to_currency": "JPY"},
        {},
    ),
    (
        "What's 2,500 Mexican pesos in British pounds?",
        "convert_currency",
        {"amount": 2500, "from_currency": "MXN", "to_currency": "GBP"},
        {},
    ),
    (
        "Convert 10 miles to kilometers.",
        "convert_units",
        {"value": 10, "from_unit": "miles", "to_unit": "kilometers"},
        {},
    ),
    (
        "How many cups are in 2 liters?",
        "convert_units",
        {"value": 2, "from_unit": "liters", "to_unit": "cups"},
        {},
    ),
    (
        "350 fahrenheit in celsius?",
        "convert_units",
        {"value": 350, "from_unit": "fahrenheit", "to_unit": "celsius"},
        {},
    ),
    (
        "Calculate 17.5% of 2,340.",
        "calculate",
        {
            "expression": {
                "regex": r"\s*(0?\.175\s*\*\s*2,?340|2,?340\s*\*\s*0?\.175|17\.5\s*%\s*(of|\*)\s*2,?340|2,?340\s*\*\s*17\.5\s*/\s*100|17\.5\s*/\s*100\s*\*\s*2,?340)\s*"
            }
        },
        {"expression": "0.175 * 2340"},
    ),
    (
        "What is 48 times 365?",
        "calculate",
        {"expression": {"regex": r"\s*(48\s*[*x×]\s*365|365\s*[*x×]\s*48)\s*"}},
        {"expression": "48 * 365"},
    ),
    (
        "Work out (1200 - 350) / 5 for me.",
        "calculate",
        {"expression": {"regex": r"\s*\(\s*1200\s*-\s*350\s*\)\s*/\s*5\s*"}},
        {"expression": "(1200 - 350) / 5"},
    ),
    ("Set a timer for 12 minutes.", "set_timer", {"minutes": 12}, {}),
    ("Start a 45 minute timer", "set_timer", {"minutes": 45}, {}),
    (
        "Timer, 3 minutes, for the eggs.",
        "set_timer",
        {"minutes": 3, "label": {"any": True, "optional": True}},
        {"minutes": 3, "label": "eggs"},
    ),
    (
        "Wake me up at 6:30 tomorrow.",
        "set_alarm",
        {
            "time": {"regex": "0?6:30"},
            "date": {"value": "2026-03-03", "date": True, "optional": True},
        },
        {"time": "06:30", "date": "2026-03-03"},
    ),
    ("Set an alarm for 7:15 am.", "set_alarm", {"time": {"regex": "0?7:15"}}, {"time": "07:15"}),
    (
        "Remind me to call the dentist on March 9 at 10:00.",
        "create_reminder",
        {"text": {"regex": "(?i).*dentist.*"}, "when": {"regex": "2026-03-09[T ]10:00(:00)?"}},
        {"text": "Call the dentist", "when": "2026-03-09T10:00"},
    ),
    (
        "Remind me on 2026-03-15 at 18:00 to water the plants.",
        "create_reminder",
        {
            "text": {"regex": "(?i).*water.*plants.*"},
            "when": {"regex": "2026-03-15[T ]18:00(:00)?"},
        },
        {"text": "Water the plants", "when": "2026-03-15T18:00"},
    ),
    (
        "Email priya@example.com with the subject 'Slides' and say 'Attached are the slides for Thursday.'",
        "send_email",
        {
            "to": "priya@example.com",
            "subject": "Slides",
            "body": {"regex": "(?i).*attached are the slides for thursday.*"},
        },
        {
            "to": "priya@example.com",
            "subject": "Slides",
            "body": "Attached are the slides for Thursday.",
        },
    ),
    (
        "Send an email to ops@example.com, subject 'Server down', body 'The build server is down again.'",
        "send_email",
        {
            "to": "ops@example.com",
            "subject": "Server down",
            "body": {"regex": "(?i).*build server is down again.*"},
        },
        {
            "to": "ops@example.com",
            "subject": "Server down",
            "body": "The build server is down again.",
        },
    ),
    (
        "Put 'Quarterly review' on my calendar for March 12 at 14:00.",
        "add_calendar_event",
        {"title": ci("Quarterly review"), "date": D("2026-03-12"), "time": "14:00"},
        {},
    ),
    (
        "Add a calendar event 'Mum's birthday' on April 3.",
        "add_calendar_event",
        {"title": ci("Mum's birthday"), "date": D("2026-04-03")},
        {},
    ),
    (
        "Search the web for the best hiking trails near Denver.",
        "search_web",
        {"query": {"regex": "(?i).*hiking trails.*denver.*"}},
        {"query": "best hiking trails near Denver"},
    ),
    (
        "Look up reviews of the Fairphone 5.",
        "search_web",
        {"query": {"regex": "(?i).*fairphone 5.*review.*|.*review.*fairphone 5.*"}},
        {"query": "Fairphone 5 reviews"},
    ),
    (
        "Translate 'Where is the train station?' into German.",
        "translate",
        {
            "text": ci("Where is the train station?"),
            "target_language": {"one_of": ["German", "de"], "ignore_case": True},
        },
        {"text": "Where is the train station?", "target_language": "German"},
    ),
    (
        "How do you say 'thank you very much' in Japanese?",
        "translate",
        {
            "text": ci("thank you very much"),
            "target_language": {"one_of": ["Japanese", "ja"], "ignore_case": True},
        },
        {"text": "thank you very much", "target_language": "Japanese"},
    ),
    (
        "Translate 'the meeting is postponed' to Spanish.",
        "translate",
        {
            "text": ci("the meeting is postponed"),
            "target_language": {"one_of": ["Spanish", "es"], "ignore_case": True},
        },
        {"text": "the meeting is postponed", "target_language": "Spanish"},
    ),
    (
        "What's the latest news on electric cars?",
        "get_news",
        {"topic": {"regex": "(?i).*electric (cars|vehicles).*|.*\\bevs?\\b.*"}},
        {"topic": "electric cars"},
    ),
    (
        "Any headlines about the World Cup today?",
        "get_news",
        {"topic": {"regex": "(?i).*world cup.*"}},
        {"topic": "World Cup"},
    ),
    (
        "Play some Miles Davis.",
        "play_music",
        {"query": {"regex": "(?i).*miles davis.*"}},
        {"query": "Miles Davis"},
    ),
    (
        "Put on a lo-fi study playlist.",
        "play_music",
        {"query": {"regex": "(?i).*lo-?fi.*"}},
        {"query": "lo-fi study playlist"},
    ),
    (
        "Directions from Union Station to the Art Institute of Chicago on foot.",
        "get_directions",
        {
            "origin": ci("Union Station"),
            "destination": ci("Art Institute of Chicago"),
            "mode": "walking",
        },
        {},
    ),
    (
        "How do I drive from Sacramento to Lake Tahoe?",
        "get_directions",
        {
            "origin": ci("Sacramento"),
            "destination": ci("Lake Tahoe"),
            "mode": {"value": "driving", "optional": True},
        },
        {"origin": "Sacramento", "destination": "Lake Tahoe", "mode": "driving"},
    ),
    (
        "Transit directions from Brooklyn Bridge to Central Park, please.",
        "get_directions",
        {"origin": ci("Brooklyn Bridge"), "destination": ci("Central Park"), "mode": "transit"},
        {},
    ),
    ("Set a timer for an hour and a half.", "set_timer", {"minutes": 90}, {}),
]
#: what each simulated tool returns (suite.yaml's simulations hold the same)
RESULTS = {
    "get_weather": {"temperature": 14, "unit": "celsius", "conditions": "light rain"},
    "get_time": {"time": "16:42", "timezone": "local"},
    "convert_currency": {"converted": 131.4, "rate": 1.095},
    "convert_units": {"result": 16.09},
    "calculate": {"result": 409.5},
    "set_timer": {"status": "running"},
    "set_alarm": {"status": "set"},
    "create_reminder": {"status": "created"},
    "send_email": {"status": "sent"},
    "add_calendar_event": {"status": "created", "event_id": "EV-311"},
    "search_web": {"results": [{"title": "Top results", "url": "https://example.org/r"}]},
    "translate": {"translation": "(translated text)"},
    "get_news": {"headlines": ["Headline one", "Headline two"]},
    "play_music": {"status": "playing"},
    "get_directions": {"summary": "about 25 minutes", "steps": 7},
}
for text, tool, matchers, plain in T:
    args = plain or {k: (v["value"] if isinstance(v, dict) else v) for k, v in matchers.items()}
    add(
        {
            "category": "tool_call",
            "tags": [tool],
            "labels": {"intents": [tool]},
            "expect": {"tool_calls": [{"name": tool, "arguments": matchers}]},
        },
        text,
        [{"calls": [{"name": tool, "arguments": args}]}, {"text": "Done."}],
    )

# ------------------------------------------------------------------ no_tool: answer directly (20)
A = [
    ("What's the capital of Australia?", "Canberra", "The capital of Australia is Canberra."),
    ("How many days are in a leap year?", "366", "A leap year has 366 days."),
    ("Who wrote 'Pride and Prejudice'?", "Austen", "Jane Austen wrote Pride and Prejudice."),
    (
        "What does CPU stand for?",
        "central processing unit",
        "CPU stands for central processing unit.",
    ),
    ("Thanks, that's all for now!", None, "You're welcome, have a good day!"),
    ("Hi there, how are you?", None, "Hi! I'm doing well, thanks for asking."),
    ("What's the chemical symbol for gold?", "Au", "The chemical symbol for gold is Au."),
    ("How many minutes are in three hours?", "180", "Three hours is 180 minutes."),
    (
        "Is a tomato a fruit or a vegetable?",
        "fruit",
        "Botanically a tomato is a fruit, though it is cooked like a vegetable.",
    ),
    (
        "What's the boiling point of water at sea level in celsius?",
        "100",
        "Water boils at 100 degrees Celsius at sea level.",
    ),
    ("Spell 'necessary' for me.", "n-e-c-e-s-s-a-r-y", "It is spelled n-e-c-e-s-s-a-r-y."),
    ("What's a synonym for 'happy'?", None, "Joyful, cheerful or content are synonyms for happy."),
    ("Which planet is closest to the sun?", "Mercury", "Mercury is the planet closest to the sun."),
    ("What's 7 plus 5?", "12", "7 plus 5 is 12."),
    (
        "Can you tell me a short joke?",
        None,
        "Here is one: I told my computer a joke about UDP, but it did not get it.",
    ),
    ("How many continents are there?", "seven", "There are seven continents."),
    (
        "What language is spoken in Brazil?",
        "Portuguese",
        "The official language of Brazil is Portuguese.",
    ),
    ("What's the plural of 'mouse'?", "mice", "The plural of mouse is mice."),
    ("Good morning!", None, "Good morning! How can I help today?"),
    ("In which year did the Berlin Wall fall?", "1989", "The Berlin Wall fell in 1989."),
]
for text, fact, reply in A:
    exp: Json = {"behavior": "answer", "reference": reply}
    if fact:
        exp["response_contains"] = [fact]
    add(
        {
            "category": "no_tool",
            "tags": ["direct-answer"],
            "labels": {"intents": ["chit_chat" if not fact else "general_knowledge"]},
            "expect": exp,
        },
        text,
        [{"text": reply}],
    )

# ------------------------------------------------------------------ clarify (15)
C = [
    ("Set an alarm.", "What time should the alarm go off?"),
    ("Send an email to Maria.", "What is Maria's email address, and what should the email say?"),
    ("What's the weather like?", "Which city would you like the weather for?"),
    ("Convert 50 dollars.", "Which currency should I convert the 50 dollars to?"),
    ("Remind me about the thing.", "What should I remind you about, and when?"),
    ("Translate this for me.", "What text would you like translated, and into which language?"),
    ("Add a meeting to my calendar.", "What's the meeting called, and on which date and time?"),
    ("Give me directions.", "Where are you starting from, and where do you want to go?"),
    ("Set a timer.", "How long should the timer run?"),
    ("What time is it over there?", "Which city or time zone do you mean?"),
    ("Play that song I like.", "Which song or artist would you like to hear?"),
    ("Convert 30 degrees.", "From which unit to which: celsius to fahrenheit, or the other way?"),
    ("Email the team the update.", "Which address should I send it to, and what's the update?"),
    (
        "What's the weather in Springfield?",
        "Which Springfield do you mean, for example Illinois, Missouri or Massachusetts?",
    ),
    ("Directions to the airport.", "Which airport, and where are you starting from?"),
]
for text, question in C:
    add(
        {
            "category": "clarify",
            "tags": ["missing-info"],
            "expect": {"behavior": "clarify", "reference": question},
        },
        text,
        [{"text": question}],
    )

# ------------------------------------------------------------------ error_handling: invalid input (15)
E: list[tuple[str, str, Json, str, str]] = [
    (
        "Convert 100 zorkmids to US dollars.",
        "convert_currency",
        {"amount": 100, "from_currency": {"any": True}, "to_currency": "USD"},
        "unknown currency 'zorkmids'",
        "The currency service failed: it doesn't know 'zorkmids'. Which real currency did you mean?",
    ),
    (
        "What's the weather in Atlantis?",
        "get_weather",
        {"city": "Atlantis"},
        "city not found: Atlantis",
        "The weather lookup failed: Atlantis isn't a city the service knows.",
    ),
    (
        "Set a timer for -5 minutes.",
        "set_timer",
        {"minutes": -5},
        "minutes must be a positive number",
        "That didn't work: a timer needs a positive number of minutes.",
    ),
    (
        "Set an alarm for 25:99.",
        "set_alarm",
        {"time": "25:99"},
        "invalid time '25:99'",
        "The alarm could not be set: 25:99 is not a valid time. What time did you mean?",
    ),
    (
        "Calculate 10 divided by 0.",
        "calculate",
        {"expression": {"regex": r"\s*10\s*/\s*0\s*"}},
        "division by zero",
        "That calculation failed: dividing by zero is undefined.",
    ),
    (
        "Email bob-at-example with subject 'Hi' and body 'See you soon'.",
        "send_email",
        {"to": "bob-at-example", "subject": "Hi", "body": {"regex": "(?i).*see you soon.*"}},
        "invalid email address 'bob-at-example'",
        "The email could not be sent: 'bob-at-example' is not a valid address.",
    ),
    (
        "Convert 5 kilograms to hours.",
        "convert_units",
        {"value": 5, "from_unit": "kilograms", "to_unit": "hours"},
        "cannot convert mass to time",
        "That conversion failed: kilograms measure mass and hours measure time.",
    ),
    (
        "Put 'Launch' on my calendar for February 30.",
        "add_calendar_event",
        {"title": ci("Launch"), "date": {"regex": "2026-02-30|February 30"}},
        "invalid date 2026-02-30",
        "I couldn't add it: February 30 does not exist. Did you mean March 2?",
    ),
    (
        "Translate 'good night' into Klingonese.",
        "translate",
        {"text": ci("good night"), "target_language": {"any": True}},
        "unsupported language 'Klingonese'",
        "The translation failed: Klingonese isn't a supported language.",
    ),
    (
        "Directions from my house to my house by teleport.",
        "get_directions",
        {
            "origin": {"any": True},
            "destination": {"any": True},
            "mode": {"any": True, "optional": True},
        },
        "unsupported mode 'teleport'",
        "The directions service failed: teleport isn't a travel mode it supports.",
    ),
    (
        "Remind me yesterday at noon to submit the form.",
        "create_reminder",
        {"text": {"regex": "(?i).*form.*"}, "when": {"regex": "2026-03-01[T ]12:00(:00)?"}},
        "reminder time is in the past",
        "I couldn't create it: that time is already in the past.",
    ),
    (
        "What time is it in Narnia?",
        "get_time",
        {"location": "Narnia"},
        "unknown location: Narnia",
        "The time lookup failed: Narnia isn't a known place.",
    ),
    (
        "Convert one billion trillion euros to dollars.",
        "convert_currency",
        {"amount": {"any": True}, "from_currency": "EUR", "to_currency": "USD"},
        "amount out of range",
        "That conversion failed: the amount is out of the service's range.",
    ),
    (
        "Set a timer for 3000 hours.",
        "set_timer",
        {"minutes": 180000},
        "timers can run at most 24 hours",
        "The timer failed: timers can run for at most 24 hours.",
    ),
    (
        "Get news about ''.",
        "get_news",
        {"topic": {"any": True}},
        "topic must not be empty",
        "The news search failed: it needs a topic. What would you like news about?",
    ),
]
for text, tool, matchers, error, reply in E:
    args = {k: (v.get("value", "x") if isinstance(v, dict) else v) for k, v in matchers.items()}
    for k, v in matchers.items():
        if isinstance(v, dict) and "regex" in v:
            args[k] = {
                "expression": "10 / 0",
                "date": "2026-02-30",
                "body": "See you soon",
                "text": "Submit the form",
                "when": "2026-03-01T12:00",
            }[k]
        if isinstance(v, dict) and v.get("any"):
            args[k] = {
                "from_currency": "ZRK",
                "target_language": "Klingonese",
                "origin": "home",
                "destination": "home",
                "mode": "teleport",
                "amount": 1e21,
                "topic": "",
            }[k]
    add(
        {
            "category": "error_handling",
            "tags": [tool, "invalid-input"],
            "tool_results": {tool: {"error": error}},
            "expect": {
                "behavior": "recover",
                "max_calls": 2,
                "reference": reply,
                "tool_calls": [{"name": tool, "arguments": matchers}],
            },
        },
        text,
        [{"calls": [{"name": tool, "arguments": args}]}, {"text": reply}],
    )

# ------------------------------------------------------------------ not_supported (15)
N = [
    "Book me an Uber to the airport.",
    "Order a large pepperoni pizza.",
    "Transfer $500 to my savings account.",
    "Turn off the lights in the living room.",
    "Buy two tickets for the Taylor Swift concert.",
    "Call my mom.",
    "Post this photo to Instagram.",
    "Unlock my front door.",
    "Order more printer ink on Amazon.",
    "Pay my electricity bill.",
    "Text Jake that I'm running late.",
    "Start the car so it warms up.",
    "Change my Netflix password.",
    "Book a table for two at Nopa tonight.",
    "Scan this document and fax it.",
]
for text in N:
    reply = (
        "Sorry, I can't do that: none of my tools can "
        + text[0].lower()
        + text[1:].rstrip(".")
        + "."
    )
    add(
        {
            "category": "not_supported",
            "tags": ["out-of-scope"],
            "labels": {"intents": ["unsupported"]},
            "expect": {
                "behavior": "refuse",
                "reference": "Sorry, I can't do that with the tools I have.",
            },
        },
        text,
        [{"text": reply}],
    )


# a seeded sample, five cases per category, tagged for quick runs of slow agents (--filter sample)
_rng = random.Random(14)
for _category in ("tool_call", "no_tool", "clarify", "error_handling", "not_supported"):
    for _case in _rng.sample([c for c in CASES if c["category"] == _category], 5):
        _case["tags"] = [*_case.get("tags", []), "sample"]

if __name__ == "__main__":
    with (HERE / "cases.jsonl").open("w", encoding="utf-8") as f:
        for c in CASES:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    (HERE / "oracle_plan.json").write_text(
        json.dumps(PLAN, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c["category"]] = counts.get(c["category"], 0) + 1
    print(len(CASES), "cases", counts)
