"""Where the module metrics find what the agent did (a suite's ``modules:``).

Retrieval precision / recall read the items an agent retrieved from its retrieval tool's
results (``retrieval``); degradation-trigger accuracy reads whether it fell back from a call to
a hand-off tool or a safe-default reply (``fallback``). An agent that reports these itself, as
``labels.knowledge`` / ``labels.fallback`` in its reply, needs none of it (docs/metrics.md).
"""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from .._factories import new_list
from ._base import Model

__all__ = ["FallbackSettings", "ModuleSettings", "RetrievalSettings", "parse_ids_path"]

_PART = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def parse_ids_path(path: str) -> list[str]:
    """``hits[].id`` -> ``["hits", "[]", "id"]``: keys, and ``[]`` for every element of a list.

    Raises ``ValueError`` naming what is wrong (a suite's ``modules.retrieval.ids``).
    """
    out: list[str] = []
    text = path.strip()
    if not text:
        raise ValueError("the path is empty (e.g. 'id', 'hits[].id', '[].doc_id')")
    for raw in text.split("."):
        key, brackets = raw, 0
        while key.endswith("[]"):
            key, brackets = key[:-2], brackets + 1
        if key and not _PART.match(key):
            raise ValueError(
                f"'{raw}' in '{path}' is not a key (letters, digits, _ and -) with optional []"
            )
        if not key and not brackets:
            raise ValueError(f"'{path}' has an empty part")
        if key:
            out.append(key)
        out.extend(["[]"] * brackets)
    return out


class RetrievalSettings(Model):
    """The retrieval tool(s) whose results hold the retrieved items, and where their ids are."""

    #: tool names whose results are the retrieved items (each call's, in call order)
    tools: list[str] = Field(min_length=1)
    #: the path of an item id in a tool result: ``id`` (the result is one item or a list of
    #: items), ``hits[].id``, ``documents[].metadata.source``; ``[]`` is every element of a list
    ids: str = "id"
    #: precision and recall are of the first ``k`` retrieved items (None: all of them)
    k: int | None = Field(default=None, ge=1)

    @field_validator("ids")
    @classmethod
    def _ids_path(cls, value: str) -> str:
        parse_ids_path(value)
        return value


class FallbackSettings(Model):
    """What counts as the agent falling back (when it does not report ``labels.fallback``)."""

    #: calling one of these tools is a fallback (``handoff_to_human``, ``create_ticket``)
    tools: list[str] = Field(default_factory=new_list)
    #: a final reply containing one of these texts (case-insensitive) is a fallback
    replies: list[str] = Field(default_factory=new_list)

    @field_validator("replies")
    @classmethod
    def _no_empty_reply(cls, value: list[str]) -> list[str]:
        if any(not v.strip() for v in value):
            raise ValueError("an empty reply text would match every reply")
        return value


class ModuleSettings(Model):
    """A suite's ``modules:`` (docs/metrics.md#module-metrics)."""

    retrieval: RetrievalSettings | None = None
    fallback: FallbackSettings | None = None
    #: user feedback at or above this share of its scale counts as satisfied (4 of 1–5: 0.75)
    satisfied_at: float = Field(default=0.75, gt=0, le=1)
