"""The driver side of the Ray executor (``--executor ray``, ``ray:auto``, ``ray://ADDRESS``).

The driver keeps everything that decides what runs and what is kept: the plan, the resume
scan, whole-result replay from the cache and the journal (``results.jsonl``, of which it is the
only writer). Each (case, trial) that must be driven is sent to one of the run's worker actors
(:class:`._ray_worker.CaseWorker`); the reply comes back as the case's result and is written the
moment it arrives, exactly as a local run writes it.

- Concurrency: ``--max-concurrency`` pairs are in flight overall (the driver's workers each
  wait for one reply); each actor takes its share at once (its ``max_concurrency``).
- A provider limit (``provider_concurrency`` tighter than that, ``rate_limit_per_s``) is one
  named limiter actor that every worker asks before each model call: for a slot, then for its
  start time (starts spaced by the actor's clock across every worker).
- A worker process that dies is restarted by Ray and its pairs sent again (up to
  :data:`TASK_RETRIES` times); a pair that still fails is recorded as an error on that case.
- Connecting (and starting a local Ray instance) happens on the first pair to drive: a resume
  with nothing left, or a run replayed whole from the cache, never starts Ray.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import signal
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

import anyio

from ..errors import MissingExtraError, UserError
from ..schema import Case, CaseResult
from ._case import CaseContext
from ._executor_spec import ExecutorSpec, ExecutorStartError
from ._loop import RunStats
from ._ray_worker import CaseWorker, SharedLimiter, WorkerReply, WorkerSetup
from ._start_once import StartOnce
from ._workers import Drive, EncodedResult, error_result

__all__ = ["TASK_RETRIES", "import_ray", "ray_drive"]

_log = logging.getLogger("agentgauge.runner.ray")

#: times a pair is sent again after its worker process died
TASK_RETRIES = 2
#: seconds a limiter slot outlives the case timeout before it is taken back from a dead worker
_LEASE_MARGIN_S = 30.0


def import_ray() -> ModuleType:
    """The ``ray`` module, or a MissingExtraError naming ``agentgauge[ray]``."""
    try:
        import ray
    except ImportError:
        raise MissingExtraError("ray", "ray") from None
    return ray


def _first_line(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None)  # a RayTaskError carries the worker's own exception
    if isinstance(cause, BaseException):
        exc = cause
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


#: seconds the pre-flight waits for the cluster's port to accept a connection
_PROBE_TIMEOUT_S = 3.0
_AUTH_HELP = (
    "the Ray cluster asks for an authentication token and this process gives none it accepts "
    "(recent Ray versions turn token authentication on by default): set RAY_AUTH_MODE=token and "
    "RAY_AUTH_TOKEN to the cluster's token (`ray get-auth-token` on its head node prints it), or "
    "RAY_AUTH_TOKEN_PATH to a file holding it (ray:auto also finds ~/.ray/auth_token by itself); "
    "a cluster started with RAY_AUTH_MODE=disabled needs none"
)


def _split_host_port(address: str) -> tuple[str, int] | None:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def _cluster_address(spec: ExecutorSpec) -> str | None:
    """``HOST:PORT`` of the cluster's GCS that ``spec`` names (``auto``: the cluster this
    machine last started, or ``RAY_ADDRESS``); None for a local instance or a Ray client."""
    address = spec.address
    if address is None or address.startswith("ray://"):
        return None
    if address != "auto":
        return address
    from ray._private.services import get_ray_address_from_environment

    found = get_ray_address_from_environment("auto", None)
    if found is None:
        raise ExecutorStartError(
            f"--executor {spec}: no Ray cluster runs on this machine (start one with "
            "`ray start --head`, or name its address: --executor ray:HOST:PORT)"
        )
    return str(found)


def _preflight(spec: ExecutorSpec) -> None:
    """Before ``ray.init`` joins a cluster: a port where nothing listens, or a cluster that
    refuses this process's token, is one line within seconds (``ray.init`` retries for 20-40 s,
    logging every attempt, then says only that it could not connect)."""
    import socket

    address = _cluster_address(spec)
    target = address or (spec.address or "")[len("ray://") :]
    where = _split_host_port(target) if target else None
    if where is None:
        return
    try:
        socket.create_connection(where, timeout=_PROBE_TIMEOUT_S).close()
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise ExecutorStartError(
            f"--executor {spec}: no Ray cluster answers at {target} ({reason}): start one "
            "(`ray start --head`) or check the address"
        ) from None
    if address is None:
        return
    import importlib

    from ray.exceptions import AuthenticationError

    raylet: Any = importlib.import_module("ray._raylet")  # compiled: no type information
    if spec.address == "auto":  # as ray.init: a cluster found by itself uses a token file
        setup: Any = importlib.import_module(
            "ray._private.authentication.authentication_token_setup"
        )
        setup.maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
    try:  # connecting checks the token: a refused one fails here within a second
        raylet.GcsClient(address=address)
    except AuthenticationError:
        raise ExecutorStartError(f"--executor {spec}: {_AUTH_HELP}") from None
    except Exception:  # anything else: ray.init says it
        return


def _connect(ray: ModuleType, spec: ExecutorSpec) -> bool:
    """Join the cluster ``spec`` names; True when this call started Ray (and must stop it)."""
    if ray.is_initialized():
        return False
    try:
        with _sigterm_kept():
            if spec.address is None:
                # a local instance started for the run reports no usage statistics to the
                # internet (a user's own RAY_USAGE_STATS_ENABLED wins)
                os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
                ray.init(include_dashboard=False, logging_level=logging.WARNING)
            else:
                ray.init(address=spec.address, logging_level=logging.WARNING)
    except Exception as exc:  # no cluster there, a version mismatch, a refused connection
        text = _first_line(exc)
        if type(exc).__name__ == "AuthenticationError" or "InvalidAuthToken" in text:
            raise ExecutorStartError(f"--executor {spec}: {_AUTH_HELP}") from None
        raise ExecutorStartError(
            f"--executor {spec}: cannot join the Ray cluster: {text}"
        ) from None
    return True


@contextlib.contextmanager
def _sigterm_kept() -> Iterator[None]:
    """Keep this process's SIGTERM handler across ``ray.init``.

    ``ray.init`` sets a SIGTERM handler of its own (``sys.exit(15)``), and the core worker it
    starts takes SIGTERM at the C level too (a stack in the log, then death). A command that
    stops cleanly on SIGTERM (``load``'s event-loop receiver, the other commands'
    ``cli._interrupt``) then exited 15 at once and wrote nothing (no ``load.json``, no word of
    ``--resume``). The handler that was there is installed again afterwards, which puts it in
    front at the C level as well. Only a handler Python code installed is put back (not the
    default action, nor one set outside Python, where Ray's exit is kept), and only in the main
    thread, the only one that may set handlers."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main else None
    try:
        yield
    finally:
        if callable(previous):
            signal.signal(signal.SIGTERM, previous)


class _RayDrive:
    """The run's worker actors, started on first use; each call drives one pair on one."""

    def __init__(self, spec: ExecutorSpec, setup: WorkerSetup, ctx: CaseContext, slots: int):
        self._spec = spec
        self._setup = setup
        self._ctx = ctx
        self._slots = max(1, slots)
        self._ray: ModuleType | None = None
        self._started_ray = False
        self._actors: list[Any] = []
        self._limiter: Any = None
        self._start_once = StartOnce()

    @property
    def failure(self) -> UserError | None:
        """Why the workers could not start (every later pair raises it again)."""
        return self._start_once.failure

    async def _start(self) -> None:
        try:
            await self._start_workers()
        except (ExecutorStartError, MissingExtraError):
            raise
        except UserError as err:  # the run drove nothing: its new run folder goes too
            raise ExecutorStartError(str(err)) from None

    async def _start_workers(self) -> None:
        t0 = time.perf_counter()
        ray = import_ray()
        if not ray.is_initialized():
            with anyio.fail_after(self._spec.start_timeout_s + 5):
                await anyio.to_thread.run_sync(_preflight, self._spec, abandon_on_cancel=True)
        self._started_ray = _connect(ray, self._spec)
        self._ray = ray
        setup = self._setup
        if self._ctx.limiter is not None:
            config = setup.config
            limit = config.provider_concurrency
            slots = bool(limit and limit < config.max_concurrency)
            name = f"agentgauge-limiter-{uuid.uuid4().hex[:12]}"
            lease = self._ctx.timeout_s + _LEASE_MARGIN_S
            self._limiter = (
                ray.remote(SharedLimiter)
                .options(name=name, namespace=setup.namespace, num_cpus=0, max_concurrency=10_000)
                .remote(limit or 1, lease, config.rate_limit_per_s)
            )
            setup = _with_limiter(setup, name, slots, bool(config.rate_limit_per_s))
        count = self._worker_count(ray)
        share = math.ceil(self._slots / count)
        worker = ray.remote(CaseWorker).options(
            num_cpus=self._spec.cpus,
            max_concurrency=share,
            max_restarts=-1,
            max_task_retries=TASK_RETRIES,
        )
        try:
            self._actors = [worker.remote(setup) for _ in range(count)]
        except Exception as exc:  # a provider object or scorer that does not pickle
            raise UserError(
                f"--executor {self._spec}: the run cannot be sent to Ray workers "
                f"({_first_line(exc)}): a provider object or extra scorer given from Python must "
                "pickle (or give the agent as a spec)"
            ) from None
        try:  # a worker that cannot build its context fails the run here, once
            with anyio.fail_after(self._spec.start_timeout_s):
                for actor in self._actors:
                    await actor.ready.remote()
        except TimeoutError:
            cpus = ray.cluster_resources().get("CPU", 0)
            raise UserError(
                f"--executor {self._spec}: the Ray workers were not ready after "
                f"{self._spec.start_timeout_s:g} s ({count} worker(s) asking "
                f"{self._spec.cpus:g} CPU each; the cluster has {cpus:g} CPU): lower ?cpus= or "
                "?workers=, or wait longer with ?start_timeout=SECONDS"
            ) from None
        except Exception as exc:
            raise UserError(
                f"--executor {self._spec}: a Ray worker could not start: {_first_line(exc)}"
            ) from None
        # debug: how long joining Ray and starting the workers took (benchmarks/bench_ray.py)
        _log.debug("ray workers ready: %d in %.3f s", len(self._actors), time.perf_counter() - t0)

    def _worker_count(self, ray: ModuleType) -> int:
        if self._spec.workers is not None:
            return max(1, min(self._spec.workers, self._slots))
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        per = self._spec.cpus
        fits = int(cpus // per) if per > 0 else int(cpus)
        return max(1, min(fits, self._slots))

    async def __call__(self, case: Case, trial: int, slot: int) -> CaseResult | EncodedResult:
        await self._start_once(self._start)
        actor = self._actors[slot % len(self._actors)]
        try:
            reply: WorkerReply = await actor.run.remote(case, trial)
        except Exception as exc:  # the worker died on every attempt, or Ray lost the reply
            return _lost(case, trial, exc)
        stats: RunStats = self._ctx.stats
        stats.provider_calls += reply.provider_calls
        stats.cache_hits += reply.cache_hits
        return reply.result

    async def close(self) -> None:
        ray = self._ray
        if ray is None:
            return
        try:
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                # each worker commits its cache and closes its sessions, then goes
                with anyio.move_on_after(30):
                    for actor in self._actors:
                        with contextlib.suppress(Exception):
                            await actor.close.remote()
            for actor in [*self._actors, self._limiter]:
                if actor is not None:
                    with contextlib.suppress(Exception):
                        ray.kill(actor)
        finally:
            self._actors = []
            if self._started_ray:
                ray.shutdown()


def _with_limiter(setup: WorkerSetup, name: str, slots: bool, rate: bool) -> WorkerSetup:
    from dataclasses import replace

    return replace(setup, limiter=name, limiter_slots=slots, limiter_rate=rate)


def _lost(case: Case, trial: int, exc: BaseException) -> CaseResult:
    reason = (
        f"ray worker failed: {type(exc).__name__}: {_first_line(exc)} "
        f"(after {TASK_RETRIES + 1} attempts)"
    )
    return error_result(case, trial, reason)


@contextlib.asynccontextmanager
async def ray_drive(
    spec: ExecutorSpec, setup: WorkerSetup, ctx: CaseContext, slots: int
) -> AsyncIterator[Drive]:
    """A :data:`Drive` that runs pairs on Ray workers; the actors go when the block ends."""
    drive = _RayDrive(spec, setup, ctx, slots)
    try:
        yield drive
    except BaseExceptionGroup:
        # the workers' task group wraps what they raised: a failed start is one UserError
        if drive.failure is not None:
            raise drive.failure from None
        raise
    finally:
        await drive.close()
