"""Retries of transient provider errors, Retry-After, non-retry of 4xx, timeouts, error status."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import anyio
import pytest
from runner_helpers import agent, make_suite

from agentgauge.errors import ProviderError
from agentgauge.io import iter_results
from agentgauge.providers import ModelRequest
from agentgauge.providers._retry import MAX_RETRY_AFTER_S, RetryPolicy, backoff_s, with_retries
from agentgauge.runner import RunConfig, run_suite
from agentgauge.testing import MockProvider


def run_retries(
    errors: list[BaseException], policy: RetryPolicy
) -> tuple[list[float], int, BaseException | None]:
    """Fail with ``errors`` one after the other, then succeed; returns waits, calls, error."""
    waits: list[float] = []
    calls = 0

    async def fake_sleep(s: float) -> None:
        waits.append(s)

    async def fn() -> str:
        nonlocal calls
        calls += 1
        if calls <= len(errors):
            raise errors[calls - 1]
        return "ok"

    async def main() -> BaseException | None:
        try:
            await with_retries(fn, policy, rng=random.Random(7), sleep=fake_sleep)
        except Exception as exc:
            return exc
        return None

    err = anyio.run(main)
    return waits, calls, err


def test_retry_after_is_honoured() -> None:
    waits, calls, err = run_retries(
        [ProviderError("slow down", status=429, retry_after=3.0)], RetryPolicy(retries=2)
    )
    assert (waits, calls, err) == ([3.0], 2, None)


def test_retry_after_is_capped() -> None:
    waits, _, _ = run_retries(
        [ProviderError("later", status=429, retry_after=10_000)], RetryPolicy(retries=1)
    )
    assert waits == [MAX_RETRY_AFTER_S]


def test_exponential_backoff_with_full_jitter() -> None:
    policy = RetryPolicy(retries=3, base_s=1.0, max_s=3.0)
    errors: list[BaseException] = [ProviderError("boom", status=503)] * 3
    waits, calls, err = run_retries(errors, policy)
    assert calls == 4
    assert err is None
    rng = random.Random(7)
    expected = [rng.uniform(0, cap) for cap in (1.0, 2.0, 3.0)]  # capped at max_s
    assert waits == pytest.approx(expected)
    assert backoff_s(10, policy, random.Random(0), ProviderError("x", status=500)) <= 3.0


def test_connection_errors_and_timeouts_are_transient() -> None:
    waits, calls, err = run_retries(
        [ConnectionResetError("reset"), TimeoutError()], RetryPolicy(retries=2, base_s=0.01)
    )
    assert (calls, err, len(waits)) == (3, None, 2)


def test_client_errors_are_not_retried() -> None:
    waits, calls, err = run_retries([ProviderError("bad request", status=400)], RetryPolicy())
    assert (waits, calls) == ([], 1)
    assert isinstance(err, ProviderError)
    assert err.attempts == 1  # type: ignore[attr-defined]


def test_gives_up_after_the_retries() -> None:
    errors: list[BaseException] = [ProviderError("down", status=502)] * 5
    waits, calls, err = run_retries(errors, RetryPolicy(retries=2, base_s=0.01))
    assert (calls, len(waits)) == (3, 2)
    assert err is not None
    assert err.attempts == 3  # type: ignore[attr-defined]


def suite_of(n: int = 1) -> Any:
    return make_suite([{"id": f"c{i}", "input": "hi"} for i in range(n)])


def test_transient_error_then_success_in_a_run(tmp_path: Path) -> None:
    provider = MockProvider(
        [ProviderError("rate limited", status=429, retry_after=0), "hello"], name="mock:t"
    )
    run_suite(suite_of(), RunConfig(cache=False, progress=False), tmp_path, provider=provider)
    [r] = list(iter_results(tmp_path))
    assert r.status == "passed"
    assert r.trace[0].attempts == 2
    assert provider.calls == 2


def test_provider_error_is_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    def fn(request: ModelRequest) -> Any:
        if request.messages[-1].content == "bad":
            raise ProviderError("invalid model parameter", status=400)
        return "fine"

    suite = make_suite([{"id": "a", "input": "bad"}, {"id": "b", "input": "good"}])
    provider = agent(fn)
    outcome = run_suite(
        suite,
        RunConfig(cache=False, progress=False, max_concurrency=1),
        tmp_path,
        provider=provider,
    )
    results = {r.case_id: r for r in iter_results(tmp_path)}
    assert results["a"].status == "error"
    assert results["a"].error == "provider error: invalid model parameter"
    assert results["a"].trace[0].error is not None
    assert results["b"].status == "passed"
    assert provider.calls == 2  # the 400 was not retried
    assert (outcome.passed, outcome.errors) == (1, 1)


def test_retries_exhausted_is_an_error_with_attempts(tmp_path: Path) -> None:
    provider = agent(ProviderError("upstream 503", status=503, retry_after=0))
    run_suite(
        suite_of(), RunConfig(cache=False, progress=False, retries=2), tmp_path, provider=provider
    )
    [r] = list(iter_results(tmp_path))
    assert r.status == "error"
    assert r.error == "provider error: upstream 503 (after 3 attempts)"
    assert provider.calls == 3


def test_case_timeout(tmp_path: Path) -> None:
    async def slow(request: ModelRequest) -> str:
        await anyio.sleep(30)
        return "late"

    cfg = RunConfig(cache=False, progress=False, timeout_s=0.05)
    run_suite(suite_of(2), cfg, tmp_path, provider=agent(slow))
    results = list(iter_results(tmp_path))
    assert [r.status for r in results] == ["error", "error"]
    assert {r.error for r in results} == {"timeout after 0.05s"}


def test_scorer_crash_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("bad matcher")

    monkeypatch.setattr("agentgauge.scoring.score_case", crash)
    run_suite(suite_of(), RunConfig(cache=False, progress=False), tmp_path, provider=agent("hi"))
    [r] = list(iter_results(tmp_path))
    assert r.status == "error"
    assert r.error == "scorer crashed: ValueError: bad matcher"
    assert r.text == "hi"
