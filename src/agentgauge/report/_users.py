"""What every report says of a run's simulated users (docs/users.md): the user-error rate next
to the agent's rates, and the users' own turns, tokens, cost and time, apart from the agent's."""

from __future__ import annotations

from ..metrics import Summary
from ._fmt import one_line, rate

#: a value of the users' table is one line of at most this many characters (the simulator
#: spec and the endings come from run.json and results.jsonl: a run directory is untrusted)
VALUE_WIDTH = 100
#: the most frequent endings shown; the others are counted in one "+N more"
ENDINGS_SHOWN = 6

__all__ = [
    "pass_hat_curve",
    "pass_k_label",
    "seeded_users_note",
    "user_error_line",
    "user_rows",
    "users_html",
]


def user_error_line(summary: Summary) -> str | None:
    """``user errors 1/4 (25.0%): the simulated user broke its instructions`` (None: no user)."""
    if summary.users is None:
        return None
    return f"user errors {rate(summary.overall.user_error_rate)} (left out of the agent's rates)"


def seeded_users_note(summary: Summary) -> str:
    """`` (a freshly seeded model user per trial)`` when model users played the trials."""
    users = summary.users
    if users is not None and users.simulator and users.simulator.startswith("model"):
        return " (a freshly seeded model user per trial)"
    return ""


def pass_k_label(summary: Summary, k: str) -> str:
    """``pass@k / pass^k``, saying when each trial had its own model user (τ²-bench's pass^k)."""
    return f"pass@{k} / pass^{k}" + seeded_users_note(summary)


def pass_hat_curve(summary: Summary) -> str | None:
    """``pass^1 75.0% · pass^2 58.3% · pass^4 50.0%``: how the share of cases the agent gets
    right every time falls as k grows, as τ²-bench reports it (None: one trial, or no
    simulated user — then the pass^k line alone is shown)."""
    t = summary.trials
    if summary.users is None or t.trials < 2 or len(t.pass_hat_k) < 2:
        return None
    ks = sorted(t.pass_hat_k, key=int)
    return " · ".join(f"pass^{k} {t.pass_hat_k[k] * 100:.1f}%" for k in ks)


def user_rows(summary: Summary) -> list[tuple[str, str]]:
    """The simulated users' table: who they were, how the conversations ended, their cost."""
    u = summary.users
    if u is None:
        return []
    rows = [
        ("simulated users", one_line(u.simulator or "(not recorded)", VALUE_WIDTH)),
        ("conversations", f"{u.results} ({u.turns_mean or 0:.1f} user turns each on average)"),
        ("ended by", _endings(u.ended_by)),
        ("user errors", f"{u.user_errors}"),
    ]
    if u.model_calls or u.input_tokens or u.output_tokens:
        rows.append(("user model calls", str(u.model_calls)))
        rows.append(("user tokens in / out", f"{u.input_tokens:,} / {u.output_tokens:,}"))
    if u.cost_usd is not None:
        rows.append(("user cost (total)", f"${u.cost_usd:.4f}"))
    rows.append(("user time (total)", f"{u.latency_ms / 1000:.2f} s"))
    return rows


def _endings(ended_by: dict[str, int]) -> str:
    """``stop 3, max_turns 1``: the most frequent endings first, each one line, the whole at
    most :data:`VALUE_WIDTH` characters and :data:`ENDINGS_SHOWN` endings (``+N more``)."""
    ranked = sorted(ended_by.items(), key=lambda kv: -kv[1])
    shown = ", ".join(f"{one_line(k, 40)} {n}" for k, n in ranked[:ENDINGS_SHOWN])
    rest = len(ranked) - ENDINGS_SHOWN
    more = f" (+{rest} more)" if rest > 0 else ""
    return one_line(shown, VALUE_WIDTH - len(more)) + more


def users_html(summary: Summary) -> str:
    """The HTML report's *Simulated users* section ("" without one)."""
    from ._html_charts import _section, _table, esc

    rows = user_rows(summary)
    if not rows:
        return ""
    body = _table(["", "value"], [[esc(k), esc(v)] for k, v in rows])
    note = (
        "The simulated users' own turns, tokens, cost and time: none of it is in the agent's "
        "figures. A user error (the user broke its instructions) is in no rate of the agent's."
    )
    return _section("users", "Simulated users", body, esc(note))
