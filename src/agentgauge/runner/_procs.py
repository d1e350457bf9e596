"""The parent side of the multi-process local executor (``--workers N``): N child processes of
this machine drive the run's pairs; this process stays the only writer of the run directory.

It plugs into the runner exactly where the Ray executor does (a :data:`._workers.Drive`): the
plan, the resume scan, whole-result replay, the journal, progress and the tally stay here; each
(case, trial) that must be driven is sent to the child that serves the asking worker's slot, and
its journal line comes back and is written the moment it arrives. The children are the Ray
executor's :class:`._ray_worker.CaseWorker` in a plain process (``_proc_worker.py``), so a pair
runs exactly as in one process, with the suite-code policy the parent decided.

- A child that dies (killed, out of memory, a crash in native code) fails the pairs it had in
  flight; each is sent again to another child (a new process takes the dead one's place), up to
  :data:`TASK_RETRIES` times, then recorded as an error on its case. A result is written only
  when its whole reply has arrived, so no pair is lost or written twice.
- The children start together on the first pair to drive (their imports run side by side): a
  resume with nothing left or a run replayed whole from the cache starts none.
"""

from __future__ import annotations

import contextlib
import copyreg
import io
import logging
import os
import pickle
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream

from ..errors import UserError
from ..schema import Case, CaseResult, ToolSpec
from ._case import CaseContext
from ._executor_spec import ExecutorStartError, available_cores
from ._proc_worker import BOOTSTRAP, FRAME, PATH_VARIABLE, encode_frame
from ._ray_worker import WorkerReply, WorkerSetup
from ._start_once import StartOnce
from ._workers import Drive, EncodedResult, error_result

__all__ = [
    "START_TIMEOUT_S",
    "TASK_RETRIES",
    "available_cores",
    "died_reason",
    "process_drive",
    "process_pool",
    "read_only",
    "worker_setups",
]

_log = logging.getLogger("agentgauge.runner.procs")

#: times a pair is sent again after the child driving it died
TASK_RETRIES = 2
#: seconds a child may take to import agentgauge and build its agent before the run stops
START_TIMEOUT_S = 120.0
#: seconds the children get to commit their caches and close their sessions at the end
_CLOSE_TIMEOUT_S = 30.0


class _Died(Exception):
    """The child driving a pair went away before its reply arrived."""


@dataclass(eq=False)
class _Waiter:
    done: anyio.Event = field(default_factory=anyio.Event)
    #: the reply, or why the child could not drive the pair at all
    reply: Any = None


class _Child:
    """One child process: requests written to its stdin, replies read from its stdout."""

    def __init__(self, index: int, setup: bytes) -> None:
        self.index = index
        self._setup = setup
        self.process: anyio.abc.Process | None = None
        self.alive = False
        self.pid: int | None = None
        self._waiting: dict[int, _Waiter] = {}
        self._seq = 0
        #: frames to send, written together by the sender task (one wake-up of the child each)
        self._out: list[bytes] = []
        self._wake = anyio.Event()
        self._closed = anyio.Event()
        self.exit_reason = "exited"

    async def start(self, tg: anyio.abc.TaskGroup) -> None:
        """Start the process and wait until it is ready; a UserError when it cannot be."""
        env = {**os.environ, PATH_VARIABLE: _json_path()}
        self.process = await anyio.open_process(
            [sys.executable, "-c", BOOTSTRAP],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # the child's warnings reach the terminal (scrubbed by the child)
            env=env,
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        await self.process.stdin.send(self._setup)
        replies = BufferedByteReceiveStream(self.process.stdout)
        first = await _receive(replies)
        if not (isinstance(first, tuple) and first and first[0] == "ready"):
            reason = first[1] if isinstance(first, tuple) and len(first) == 2 else "it exited"
            await self.kill()
            raise UserError(f"--workers: a worker process could not start: {reason}")
        self.pid = int(first[1])
        self.alive = True
        tg.start_soon(self._read, replies)
        tg.start_soon(self._send)

    def _put(self, frame: bytes) -> None:
        self._out.append(frame)
        self._wake.set()

    async def _send(self) -> None:
        assert self.process is not None
        assert self.process.stdin is not None
        while self.alive:
            await self._wake.wait()
            self._wake = anyio.Event()
            data = b"".join(self._out)
            self._out.clear()
            try:
                await self.process.stdin.send(data)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                return  # the child is gone: its reader fails the pairs it had

    async def _read(self, replies: BufferedByteReceiveStream) -> None:
        try:
            while (message := await _receive(replies)) is not None:
                if isinstance(message, tuple) and message and message[0] == "closed":
                    break
                seq, reply = message
                waiter = self._waiting.pop(seq, None)
                if waiter is not None:
                    waiter.reply = reply
                    waiter.done.set()
        except Exception as exc:  # a torn frame: the child died while writing it
            self.exit_reason = f"{type(exc).__name__}: {exc}"
        finally:
            self.alive = False
            self._wake.set()  # the sender task ends too
            await self._reap()
            for waiter in self._waiting.values():  # each is sent again by its caller
                waiter.done.set()
            self._waiting.clear()
            self._closed.set()

    async def _reap(self) -> None:
        if self.process is None:
            return
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            code = await self.process.wait()
            if code:
                self.exit_reason = f"exit status {code}"
            if code is not None and code < 0:
                self.exit_reason = f"killed by signal {-code}"

    async def ask(self, payload: object, trial: int) -> Any:
        """The child's worker's reply to ``run(payload, trial)`` (``_Died``: it went away)."""
        if not self.alive or self.process is None or self.process.stdin is None:
            raise _Died(self.exit_reason)
        self._seq += 1
        seq = self._seq
        waiter = _Waiter()
        self._waiting[seq] = waiter
        self._put(encode_frame((seq, payload, trial)))
        await waiter.done.wait()
        if waiter.reply is None:
            raise _Died(self.exit_reason)
        return waiter.reply

    async def close(self) -> None:
        """Ask the child to commit its cache and go; killed when it does not within the time."""
        if self.process is None:
            return
        with anyio.CancelScope(shield=True):
            if self.alive and self.process.stdin is not None:
                self._put(encode_frame(None))
                with anyio.move_on_after(_CLOSE_TIMEOUT_S):
                    await self._closed.wait()
            await self.kill()

    async def kill(self) -> None:
        if self.process is None:
            return
        with anyio.CancelScope(shield=True):
            if self.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
            with anyio.move_on_after(5):
                await self.process.wait()
            await self.process.aclose()


def _wire_case(case: Case) -> bytes | Case:
    """A case as it crosses to a child: its JSON as given (the fields set, so validators that
    count given fields see the same input), which the child validates back into the same case
    at less than half the cost of unpickling a model (the child's CPU is the point); pickled
    whole when it carries tool specs, whose ``exclude``d fields JSON would drop."""
    if case.tools and any(isinstance(t, ToolSpec) for t in case.tools):
        return case
    return case.model_dump_json(by_alias=True, exclude_unset=True).encode()


async def _receive(stream: BufferedByteReceiveStream) -> Any:
    """The next message of a child, or None at the end of its stdout."""
    try:
        head = await stream.receive_exactly(FRAME.size)
    except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
        return None
    (size,) = FRAME.unpack(head)
    return pickle.loads(await stream.receive_exactly(size))


def _json_path() -> str:
    import json

    return json.dumps([os.path.abspath(p) if p else os.getcwd() for p in sys.path])


def worker_setups(setup: WorkerSetup, count: int, slots: int) -> list[WorkerSetup]:
    """One setup per child: each takes its share of the run's concurrency and of its provider
    limits (``provider_concurrency`` split so the shares add up to it; ``rate_limit_per_s``
    divided evenly), so together they never exceed them."""
    config = setup.config
    out: list[WorkerSetup] = []
    provider = config.provider_concurrency
    for i in range(count):
        share = slots // count + (1 if i < slots % count else 0)
        changes: dict[str, Any] = {"max_concurrency": max(1, share)}
        if provider and provider < config.max_concurrency:
            changes["provider_concurrency"] = max(1, provider // count + (i < provider % count))
        if config.rate_limit_per_s:
            changes["rate_limit_per_s"] = config.rate_limit_per_s / count
        out.append(replace(setup, config=replace(config, **changes)))
    return out


class _ProcessDrive:
    """The run's child processes, started on first use; each call drives one pair on one."""

    def __init__(
        self, frames: list[bytes], ctx: CaseContext | None, tg: anyio.abc.TaskGroup
    ) -> None:
        self._ctx = ctx
        self._tg = tg
        self._frames = frames
        self._children: list[_Child | None] = [None] * len(frames)
        self._starting: dict[int, anyio.Event] = {}
        self._start_once = StartOnce()
        self.restarts = 0

    @property
    def failure(self) -> UserError | None:
        """Why the children could not start (every later pair raises it again)."""
        return self._start_once.failure

    async def _start_all(self) -> None:
        t0 = time.perf_counter()
        try:
            with anyio.fail_after(START_TIMEOUT_S):
                async with anyio.create_task_group() as tg:
                    for i in range(len(self._children)):
                        tg.start_soon(self._start_one, i)
        except TimeoutError:
            raise ExecutorStartError(
                f"--workers: the worker processes were not ready after {START_TIMEOUT_S:g} s"
            ) from None
        except BaseExceptionGroup as group:
            first = group.exceptions[0]
            raise ExecutorStartError(str(first)) from None
        _log.debug(
            "worker processes ready: %d in %.3f s", len(self._children), time.perf_counter() - t0
        )

    async def _start_one(self, index: int) -> None:
        child = _Child(index, self._frames[index])
        try:
            await child.start(self._tg)
        except BaseException:
            await child.kill()
            raise
        self._children[index] = child

    async def _child(self, index: int) -> _Child:
        """The live child of ``index``; a new process in place of a dead one."""
        await self._start_once(self._start_all)
        child = self._children[index]
        if child is not None and child.alive:
            return child
        event = self._starting.get(index)
        if event is not None:  # another pair is already restarting it
            await event.wait()
            return await self._child(index)
        self._starting[index] = event = anyio.Event()
        try:
            self.restarts += 1
            with anyio.fail_after(START_TIMEOUT_S):
                await self._start_one(index)
        finally:
            del self._starting[index]
            event.set()
        found = self._children[index]
        assert found is not None
        return found

    async def ask(
        self, payload: object, slot: int, *, trial: int = 0, attempts: int = TASK_RETRIES + 1
    ) -> tuple[Any, str]:
        """The reply of the child of ``slot`` to ``(payload, trial)`` and "", or (None, why the
        last child died) after ``attempts`` children died with it. A request sent again goes
        to another child: one that kills its process every time takes a different one down
        each time, not the same slot's requests again and again."""
        count = len(self._children)
        reason = "exited"
        for attempt in range(attempts):
            child = await self._child((slot + attempt) % count)
            try:
                return await child.ask(payload, trial), ""
            except _Died as died:
                reason = str(died)
        return None, reason

    async def __call__(self, case: Case, trial: int, slot: int) -> CaseResult | EncodedResult:
        reply, reason = await self.ask(_wire_case(case), slot, trial=trial)
        if reply is None:
            return error_result(case, trial, died_reason(reason, TASK_RETRIES + 1))
        if isinstance(reply, str):
            return error_result(case, trial, reply)
        assert isinstance(reply, WorkerReply)
        assert self._ctx is not None
        stats = self._ctx.stats
        stats.provider_calls += reply.provider_calls
        stats.cache_hits += reply.cache_hits
        return reply.result

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tg:
                for child in self._children:
                    if child is not None:
                        tg.start_soon(child.close)


def read_only(data: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    """A read-only mapping again, in the child (how :func:`_pickled` sends one)."""
    return MappingProxyType(data)


def _reduce_proxy(proxy: MappingProxyType[Any, Any]) -> tuple[Any, tuple[dict[Any, Any]]]:
    return read_only, (dict(proxy),)


def _pickled(setup: object) -> bytes:
    """The setup frame of a child. Read-only mappings (the scoring weights) go as their
    contents (as Ray's cloudpickle sends them), through this pickler's own table only."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_proxy}
    try:
        pickler.dump(setup)
        data = buffer.getvalue()
        return FRAME.pack(len(data)) + data
    except Exception as exc:  # a provider object or scorer that does not pickle
        raise ExecutorStartError(
            f"--workers: the run cannot be sent to worker processes ({type(exc).__name__}: "
            f"{exc}): a provider object or extra scorer given from Python must pickle (or give "
            "the agent as a spec, or run with --workers 1)"
        ) from None


def died_reason(reason: str, attempts: int) -> str:
    """The error recorded on a pair whose every attempt killed its worker process."""
    return f"worker process died: {reason} (after {attempts} attempts, each in another process)"


@contextlib.asynccontextmanager
async def process_drive(
    setup: WorkerSetup, ctx: CaseContext, *, count: int, slots: int
) -> AsyncIterator[Drive]:
    """A :data:`Drive` that runs pairs in ``count`` child processes sharing ``slots`` pairs in
    flight; the processes go when the block ends."""
    async with process_pool(worker_setups(setup, count, max(slots, count)), ctx) as drive:
        yield drive


@contextlib.asynccontextmanager
async def process_pool(
    setups: Sequence[object], ctx: CaseContext | None = None
) -> AsyncIterator[_ProcessDrive]:
    """One child process per setup (a :class:`WorkerSetup`, or any setup whose
    ``make_worker()`` builds the child's worker: ``ready()``, ``run(payload, trial)``,
    ``close()``), started on the first request; they go when the block ends."""
    pickled: dict[int, bytes] = {}  # the same setup for every child: pickled once
    for s in setups:
        if id(s) not in pickled:
            pickled[id(s)] = _pickled(s)
    frames = [pickled[id(s)] for s in setups]
    async with anyio.create_task_group() as tg:
        drive = _ProcessDrive(frames, ctx, tg)
        try:
            yield drive
        except BaseExceptionGroup:
            # the workers' task group wraps what they raised: a failed start is one UserError
            if drive.failure is not None:
                raise drive.failure from None
            raise
        finally:
            await drive.close()
            tg.cancel_scope.cancel()
