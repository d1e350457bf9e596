"""Suites the generate tests share: the quickstart, and a declarative world (a small shop)."""

from __future__ import annotations

import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"

SHOP = textwrap.dedent(
    """\
    name: shop
    tools:
      - name: get_order
        description: Look up an order
        parameters:
          type: object
          properties: {order_id: {type: string}}
          required: [order_id]
      - name: cancel_order
        description: Cancel a pending order
        parameters:
          type: object
          properties: {order_id: {type: string}}
          required: [order_id]
      - name: update_address
        description: Change the shipping address of an order
        parameters:
          type: object
          properties: {order_id: {type: string}, address: {type: string}}
          required: [order_id, address]
      - name: issue_refund
        description: Refund an amount on an order
        parameters:
          type: object
          properties: {order_id: {type: string}, amount: {type: number}}
          required: [order_id, amount]
    world:
      state:
        orders:
          A1: {customer: ann, status: pending, total: 30, address: 1 Elm St}
          A2: {customer: ann, status: shipped, total: 50, address: 1 Elm St}
          A3: {customer: bob, status: pending, total: 75, address: 9 Oak Ave}
        refunds: {}
      operations:
        get_order: {op: get, collection: orders, key: order_id}
        cancel_order: {op: update, collection: orders, key: order_id, fields: {},
                       set: {status: cancelled}, require: {status: pending}}
        update_address: {op: update, collection: orders, key: order_id,
                         require: {status: pending}}
        issue_refund: {op: insert, collection: refunds}
    cases: []
    """
)


def shop_suite(tmp_path: Path) -> Path:
    """The shop suite written in ``tmp_path/shop``."""
    folder = tmp_path / "shop"
    folder.mkdir()
    (folder / "suite.yaml").write_text(SHOP, encoding="utf-8")
    return folder
