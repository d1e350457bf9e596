"""The retail suite's back-end: Northwind Goods' order system, as a Python world.

agentgauge builds ``Store(state)`` afresh for every case and trial from ``store.yaml`` (plus the
case's own ``world.patch``). Each public method answers the tool of its name; what it returns
is the tool result the agent sees, and a ``StoreError`` it raises is an error result
(``StoreError: order W1006 is shipped ...``). The state graded by ``expect.state`` is the
instance's public attributes: ``customers``, ``orders``, ``products``, ``returns`` and
``exchanges``.

The back-end enforces what an order database would: an order's status (only a pending order is
cancelled or re-addressed, only a delivered one returned or exchanged), an item returned once,
stock, payment methods on file. It does **not** enforce the shop's policy — the 30-day return
window, asking the user to confirm, acting only on the user's own orders: like a real support
console, it lets a support agent do what the policy forbids, and keeping the policy is the
agent's job. That is what the suite grades.
"""

from __future__ import annotations

from typing import Any

Record = dict[str, Any]

#: the day the conversations take place (the suite's system prompt says so too)
TODAY = "2026-03-02"


class StoreError(Exception):
    """A request the order system refuses; the agent sees its message as the error."""


class Store:
    """Customers, orders, products, and the returns and exchanges filed."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.customers: dict[str, Record] = state["customers"]
        self.orders: dict[str, Record] = state["orders"]
        self.products: dict[str, Record] = state["products"]
        self.returns: dict[str, Record] = state.get("returns", {})
        self.exchanges: dict[str, Record] = state.get("exchanges", {})

    # ------------------------------------------------------------------ reading

    def find_customer(self, email: str) -> Record:
        """The customer whose account has this email."""
        wanted = email.strip().lower()
        for customer_id, customer in self.customers.items():
            if customer["email"].lower() == wanted:
                return {"customer_id": customer_id, "name": customer["name"]}
        raise StoreError(f"no customer with email '{email}'")

    def get_customer(self, customer_id: str) -> Record:
        """A customer's profile: default address, payment methods and orders."""
        customer = self._customer(customer_id)
        orders = [
            {"order_id": oid, "status": o["status"], "placed": o["placed"]}
            for oid, o in self.orders.items()
            if o["customer_id"] == customer_id
        ]
        return {"customer_id": customer_id, **customer, "orders": orders}

    def get_order(self, order_id: str) -> Record:
        """An order: status, dates, items with their prices, payment method, address."""
        return {"order_id": order_id, **self._order(order_id)}

    def get_product(self, product_id: str) -> Record:
        """A product's variants, with price and stock."""
        if product_id not in self.products:
            raise StoreError(f"no product '{product_id}'")
        return {"product_id": product_id, **self.products[product_id]}

    # ------------------------------------------------------------------ writing

    def cancel_order(self, order_id: str, reason: str) -> Record:
        """Cancel a pending order; the total is refunded to the payment method it was paid with."""
        order = self._order(order_id, status="pending", doing="cancelled")
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        order["refund"] = {"amount": order["total"], "to": order["payment_method"]}
        return {"order_id": order_id, "status": "cancelled", "refund": order["refund"]}

    def modify_order_address(self, order_id: str, address: Record) -> Record:
        """Ship a pending order to another address."""
        order = self._order(order_id, status="pending", doing="re-addressed")
        order["address"] = _address(address)
        return {"order_id": order_id, "address": order["address"]}

    def update_default_address(self, customer_id: str, address: Record) -> Record:
        """Change a customer's default address (orders already placed keep theirs)."""
        customer = self._customer(customer_id)
        customer["default_address"] = _address(address)
        return {"customer_id": customer_id, "default_address": customer["default_address"]}

    def return_items(self, order_id: str, item_ids: list[str], refund_to: str) -> Record:
        """File a return of items of a delivered order, refunded to ``refund_to``: the order's
        payment method or a gift card of the customer."""
        order = self._order(order_id, status="delivered", doing="returned")
        items = self._items(order_id, order, item_ids)
        methods = self.customers[order["customer_id"]]["payment_methods"]
        gift_card = methods.get(refund_to, {}).get("type") == "gift_card"
        if refund_to != order["payment_method"] and not gift_card:
            raise StoreError(
                f"refund_to '{refund_to}' must be the order's payment method "
                f"({order['payment_method']}) or one of the customer's gift cards"
            )
        amount = round(sum(item["price"] for item in items), 2)
        for item in items:
            item["status"] = "return_requested"
        return_id = f"RT-{1001 + len(self.returns)}"
        self.returns[return_id] = {
            "order_id": order_id,
            "item_ids": list(item_ids),
            "amount": amount,
            "refund_to": refund_to,
            "requested": TODAY,
        }
        return {"return_id": return_id, **self.returns[return_id]}

    def exchange_items(
        self, order_id: str, item_ids: list[str], new_variant_ids: list[str], payment_method: str
    ) -> Record:
        """Exchange items of a delivered order for other variants of the same products (in
        stock); the price difference is charged to, or refunded to, ``payment_method``."""
        order = self._order(order_id, status="delivered", doing="exchanged")
        items = self._items(order_id, order, item_ids)
        if len(new_variant_ids) != len(items):
            raise StoreError("give one new variant for each item exchanged")
        if payment_method not in self.customers[order["customer_id"]]["payment_methods"]:
            raise StoreError(f"payment method '{payment_method}' is not on the customer's file")
        variants = [
            self._variant(item, new) for item, new in zip(items, new_variant_ids, strict=True)
        ]
        difference = round(sum(v["price"] for v in variants) - sum(i["price"] for i in items), 2)
        for item, variant in zip(items, variants, strict=True):
            item["status"] = "exchange_requested"
            variant["stock"] -= 1
        exchange_id = f"EX-{1001 + len(self.exchanges)}"
        self.exchanges[exchange_id] = {
            "order_id": order_id,
            "item_ids": list(item_ids),
            "new_variant_ids": list(new_variant_ids),
            "price_difference": difference,
            "payment_method": payment_method,
            "requested": TODAY,
        }
        return {"exchange_id": exchange_id, **self.exchanges[exchange_id]}

    # ------------------------------------------------------------------ helpers

    def _customer(self, customer_id: str) -> Record:
        if customer_id not in self.customers:
            raise StoreError(f"no customer '{customer_id}'")
        return self.customers[customer_id]

    def _order(self, order_id: str, *, status: str | None = None, doing: str = "") -> Record:
        if order_id not in self.orders:
            raise StoreError(f"no order '{order_id}'")
        order = self.orders[order_id]
        if status is not None and order["status"] != status:
            raise StoreError(
                f"order {order_id} is {order['status']}; only a {status} order can be {doing}"
            )
        return order

    def _items(self, order_id: str, order: Record, item_ids: list[str]) -> list[Record]:
        if not item_ids:
            raise StoreError("give at least one item_id")
        if len(set(item_ids)) != len(item_ids):
            raise StoreError("an item_id is given twice")
        by_id = {item["item_id"]: item for item in order["items"]}
        items = []
        for item_id in item_ids:
            item = by_id.get(item_id)
            if item is None:
                raise StoreError(f"order {order_id} has no item '{item_id}'")
            if item["status"] != "ordered":
                raise StoreError(f"item {item_id} of order {order_id} is {item['status']}")
            items.append(item)
        return items

    def _variant(self, item: Record, variant_id: str) -> Record:
        variants = self.products[item["product_id"]]["variants"]
        if variant_id not in variants:
            raise StoreError(f"'{variant_id}' is not a variant of {item['product_id']}")
        if variant_id == item["variant_id"]:
            raise StoreError(f"item {item['item_id']} already is {variant_id}")
        variant: Record = variants[variant_id]
        if variant["stock"] < 1:
            raise StoreError(f"{variant_id} is out of stock")
        return variant


def _address(address: Record) -> Record:
    missing = [f for f in ("line1", "city", "state", "zip") if not address.get(f)]
    if missing:
        raise StoreError(f"the address has no {', '.join(missing)}")
    fields = ("line1", "line2", "city", "state", "zip")
    return {f: str(address[f]).strip() for f in fields if address.get(f)}
