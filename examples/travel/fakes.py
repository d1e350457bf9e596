"""The simulated travel back-end: flight and hotel search, booking, payment.

Each function is a ``function:`` fake (docs/running.md, "Stateful fakes"). The runner calls it with
the agent's arguments and a per-case ``state`` dict shared by every tool of the case and kept
across turns, so the back-end behaves like one: a booking exists after it is made (``get_booking``
and ``list_bookings`` find it), and a declined payment leaves no booking behind (the next booking
of the case still gets ``BK-1001``).

Everything is deterministic: offers are computed from the route and date, so the case files can
name the offer ids an agent should book.
"""

from __future__ import annotations

import hashlib
from typing import Any

#: routes the back-end has no flights on (the "no results" cases)
NO_FLIGHTS = {("BOS", "ACK"), ("SEA", "PPT")}
#: (city, check-in) with no hotel rooms left
SOLD_OUT = {("Reykjavik", "2026-12-31"), ("Austin", "2026-03-13")}
#: saved payment methods; the Amex ending 1005 is always declined (a test card)
CARDS = {"visa-4242", "mc-5454", "amex-1005"}
DECLINED = {"amex-1005"}
#: the schedule is open this far ahead (dates after it return an error)
LAST_DATE = "2027-01-31"

Json = dict[str, Any]


def _n(text: str, mod: int) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % mod


def flight_offers(origin: str, destination: str, date: str, cabin: str = "economy") -> list[Json]:
    """The offers of a route and date (the same every time)."""
    key = f"{origin}{destination}-{date[5:7]}{date[8:10]}"
    factor = 3.2 if cabin == "business" else 1.0
    offers = []
    for k in (1, 2, 3):
        base = 140 + _n(f"{key}{k}", 380)
        hour = 6 + (k - 1) * 5 + _n(f"{key}h{k}", 3)
        offers.append(
            {
                "offer_id": f"{key}-{k}",
                "flight": f"AG{100 + _n(key, 800) + k}",
                "departs": f"{date}T{hour:02d}:{(k * 17) % 60:02d}",
                "cabin": cabin,
                "price_usd": round(base * factor),
            }
        )
    return sorted(offers, key=lambda o: o["price_usd"])


def hotel_offers(city: str, check_in: str, check_out: str) -> list[Json]:
    names = ["Harbor View Inn", "Grand Meridian", "Old Town Suites"]
    offers = []
    for k, name in enumerate(names, 1):
        nightly = 80 + _n(f"{city}{check_in}{k}", 260)
        offers.append(
            {
                "offer_id": f"HT-{city[:3].upper()}-{check_in[5:7]}{check_in[8:10]}-{k}",
                "hotel": f"{name} {city}",
                "nightly_usd": nightly,
            }
        )
    return sorted(offers, key=lambda o: o["nightly_usd"])


def search_flights(
    origin: str,
    destination: str,
    date: str,
    return_date: str | None = None,
    adults: int = 1,
    children: int = 0,
    infants: int = 0,
    cabin: str = "economy",
    state: Json | None = None,
) -> Json:
    state = state if state is not None else {}
    state["searches"] = state.get("searches", 0) + 1
    if date > LAST_DATE:
        return {"error": f"schedule not open yet: flights can be searched up to {LAST_DATE}"}
    if infants > adults:
        return {"error": "each infant must travel on an adult's lap: infants cannot exceed adults"}
    if (origin, destination) in NO_FLIGHTS:
        return {"offers": [], "count": 0}
    offers = flight_offers(origin, destination, date, cabin)
    expired = state.get("expired", [])
    for offer in offers:  # a fare that expired comes back re-priced under a new id
        if offer["offer_id"] in expired:
            offer["offer_id"] += "r"
            offer["price_usd"] += 23
    result: Json = {"offers": offers, "count": len(offers)}
    if return_date:
        result["return_offers"] = flight_offers(destination, origin, return_date, cabin)
    return result


def search_hotels(city: str, check_in: str, check_out: str, guests: int = 1) -> Json:
    if check_out <= check_in:
        return {"error": "check_out must be after check_in"}
    if (city, check_in) in SOLD_OUT:
        return {"offers": [], "count": 0}
    return {"offers": hotel_offers(city, check_in, check_out), "count": 3}


def _known_flight_offer(offer_id: str) -> bool:
    parts = offer_id.rstrip("r").split("-")
    return len(parts) == 3 and len(parts[0]) == 6 and len(parts[1]) == 4


def _pay(payment_method: str) -> Json | None:
    if payment_method not in CARDS:
        return {"error": f"unknown payment method {payment_method!r}; saved: {sorted(CARDS)}"}
    if payment_method in DECLINED:
        return {"error": "payment declined by the card issuer; nothing was booked"}
    return None


def _book(state: Json, kind: str, offer_id: str, names: list[str], payment_method: str) -> Json:
    bookings: list[Json] = state.setdefault("bookings", [])
    booking = {
        "booking_id": f"BK-{1001 + len(bookings)}",
        "kind": kind,
        "offer_id": offer_id,
        "travellers": names,
        "payment_method": payment_method,
        "status": "confirmed",
    }
    bookings.append(booking)
    return booking


def book_flight(
    offer_id: str, passenger_names: list[str], payment_method: str, state: Json | None = None
) -> Json:
    state = state if state is not None else {}
    if not _known_flight_offer(offer_id):
        return {"error": f"unknown offer {offer_id!r}: search first"}
    if offer_id in state.get("expired", []):
        return {"error": f"offer {offer_id} has expired; search again for a current fare"}
    declined = _pay(payment_method)
    return declined or _book(state, "flight", offer_id, passenger_names, payment_method)


def book_flight_expiring(
    offer_id: str, passenger_names: list[str], payment_method: str, state: Json | None = None
) -> Json:
    """``book_flight`` whose first offer booked has expired (fares change between search and
    booking): the error, then a re-search shows the fare under a new id that books."""
    state = state if state is not None else {}
    if not offer_id.endswith("r") and not state.get("expired"):
        state["expired"] = [offer_id]
        return {"error": f"offer {offer_id} has expired; search again for a current fare"}
    return book_flight(offer_id, passenger_names, payment_method, state)


def book_hotel(
    offer_id: str, guest_name: str, payment_method: str, state: Json | None = None
) -> Json:
    state = state if state is not None else {}
    if not offer_id.startswith("HT-"):
        return {"error": f"unknown offer {offer_id!r}: search first"}
    declined = _pay(payment_method)
    return declined or _book(state, "hotel", offer_id, [guest_name], payment_method)


def get_booking(booking_id: str, state: Json | None = None) -> Json:
    for booking in (state or {}).get("bookings", []):
        if booking["booking_id"] == booking_id:
            return dict(booking)
    return {"error": f"no booking {booking_id} in this account"}


def list_bookings(state: Json | None = None) -> Json:
    bookings = (state or {}).get("bookings", [])
    return {"bookings": bookings, "count": len(bookings)}


def cancel_booking(booking_id: str, state: Json | None = None) -> Json:
    for booking in (state or {}).get("bookings", []):
        if booking["booking_id"] == booking_id:
            booking["status"] = "cancelled"
            return dict(booking)
    return {"error": f"no booking {booking_id} in this account"}
