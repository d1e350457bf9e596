"""The worker side of the multi-process local executor (``--workers N``): one child process of
the run that drives the (case, trial) pairs the parent sends it and answers each with its
journal line.

The child speaks to the parent over its own stdin and stdout, moved out of the way first (the
agent's or a tool's ``print`` goes to stderr, never into the protocol). Every message is a frame:
a 4-byte big-endian length and a pickle. The parent sends the :class:`WorkerSetup` (the same one
a Ray worker gets: the agent spec, the run's options, the suite without its cases and the
suite-code policy the parent decided), then ``(seq, case, trial)`` requests (the case as its
JSON, or pickled when it carries tool specs); the child answers ``("ready", pid)`` (or
``("failed", reason)``) and then ``(seq, WorkerReply)`` for each pair (``(seq, reason)`` when it
could not be driven at all), in the order they finish. An empty request (``None``) asks it to
commit its cache, close its sessions and exit; so does the end of its stdin (the parent went
away).

The cases run in one event loop, as many at once as the parent sends (its share of the run's
concurrency), through :class:`._ray_worker.CaseWorker`: the agent loop, tools, faults, worlds,
scoring and judges are exactly those of a run in one process. A setup of another kind brings
its own worker (``setup.make_worker()``: ``agentgauge score --workers``, whose requests are
batches of recorded responses: ``_recorded_procs.py``).
"""

from __future__ import annotations

import asyncio
import gc
import os
import pickle
import signal
import struct
import sys
from typing import Any

__all__ = ["BOOTSTRAP", "FRAME", "PATH_VARIABLE", "encode_frame", "main"]

#: the frame header: payload length, 4 bytes big-endian
FRAME = struct.Struct(">I")

#: the variable that carries the parent's ``sys.path`` (JSON) to the child
PATH_VARIABLE = "AGENTGAUGE_WORKER_SYS_PATH"
#: the child's program (``python -c``): the parent's ``sys.path`` first, so the child imports
#: agentgauge, the suite's code and a ``python:`` agent from where the parent does
BOOTSTRAP = (
    f"import json, os, sys; sys.path[:] = json.loads(os.environ.pop({PATH_VARIABLE!r})); "
    "from agentgauge.runner._proc_worker import main; main()"
)


def encode_frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return FRAME.pack(len(data)) + data


async def _read_frame(reader: asyncio.StreamReader) -> Any:
    """The next message, or None at the end of the stream."""
    try:
        head = await reader.readexactly(FRAME.size)
        (size,) = FRAME.unpack(head)
        return pickle.loads(await reader.readexactly(size))
    except asyncio.IncompleteReadError:
        return None


async def _pipes(fd_in: int, fd_out: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**31 - 1)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd_in, "rb", buffering=0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(fd_out, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer


async def _serve(fd_in: int, fd_out: int) -> None:
    from ..schema import Case
    from ._gc import call_phase_gc
    from ._ray_worker import CaseWorker, WorkerSetup

    reader, writer = await _pipes(fd_in, fd_out)
    setup = await _read_frame(reader)
    worker: Any
    if isinstance(setup, WorkerSetup):
        worker = CaseWorker(setup)
    elif callable(getattr(setup, "make_worker", None)):  # another job (runner/_recorded_procs)
        worker = setup.make_worker()
    else:
        return
    try:
        await worker.ready()
    except Exception as exc:  # a setup error is the parent's to report, once
        writer.write(encode_frame(("failed", f"{type(exc).__name__}: {exc}")))
        await writer.drain()
        return
    gc.freeze()
    gc.enable()
    writer.write(encode_frame(("ready", os.getpid())))
    await writer.drain()
    tasks: set[asyncio.Task[None]] = set()
    outbox = _Outbox(writer)

    async def answer(seq: int, case: Any, trial: int) -> None:
        reply: object
        try:
            if isinstance(case, bytes):  # the case's JSON (runner/_procs.py: _wire_case)
                case = Case.model_validate_json(case)
            reply = await worker.run(case, trial)
        except Exception as exc:  # never silent: the parent records it on the case
            reply = f"internal error in a worker process: {type(exc).__name__}: {exc}"
        outbox.put(encode_frame((seq, reply)))

    try:
        with call_phase_gc():  # the child's whole life is a call phase
            while (request := await _read_frame(reader)) is not None:
                task = asyncio.get_running_loop().create_task(answer(*request))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
        for task in list(tasks):  # told to stop: nothing is in flight unless the parent died
            task.cancel()
    finally:
        await worker.close()
    outbox.put(encode_frame(("closed", os.getpid())))
    await asyncio.sleep(0)  # the outbox's flush
    await writer.drain()


class _Outbox:
    """Replies finished in the same turn of the event loop leave in one write: each write
    wakes the parent, and at a few thousand pairs a second those wake-ups are the cost."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._frames: list[bytes] = []

    def put(self, frame: bytes) -> None:
        if not self._frames:
            asyncio.get_running_loop().call_soon(self._flush)
        self._frames.append(frame)

    def _flush(self) -> None:
        data = b"".join(self._frames)
        self._frames.clear()
        self._writer.write(data)


def main() -> None:
    """The child's entry point (see :data:`BOOTSTRAP`)."""
    # the collector is off while agentgauge imports, the setup is unpickled and the worker is
    # built (a large suite's objects, which live to the end: collections walking them again
    # and again cost more than the unpickling); it never walks them afterwards (_serve)
    gc.disable()
    from .. import _codecache

    _codecache.install()  # the classes the setup builds: code objects the parent cached
    # Ctrl-C reaches every process of the terminal's group, and a CI runner's SIGTERM often the
    # whole group too: the parent decides what stops (it closes our stdin; a parent killed
    # outright closes it as well, and we leave)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    fd_in, fd_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)  # print() of an agent or a tool goes to stderr, not into the protocol
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    from .. import _secrets

    _secrets.register_env()  # what the child writes on stderr is scrubbed like the parent's
    sys.stderr = _secrets.ScrubbingStream(sys.stderr)
    sys.stdout = _secrets.ScrubbingStream(sys.stdout)
    asyncio.run(_serve(fd_in, fd_out))
