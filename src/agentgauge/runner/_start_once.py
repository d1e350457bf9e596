"""Starting an executor's workers once, on the first pair that needs them.

Pairs arrive concurrently; the first one starts the workers (processes or Ray actors) under a
lock and the others wait for it. A start that fails with a :class:`UserError` is remembered, so
every later pair raises the same error instead of trying again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from ..errors import UserError

__all__ = ["StartOnce"]


class StartOnce:
    """``await once(start)`` runs ``start`` the first time only (also for concurrent callers)."""

    def __init__(self) -> None:
        self._lock = anyio.Lock()
        self.started = False
        #: why the start failed (every later call raises it again)
        self.failure: UserError | None = None

    async def __call__(self, start: Callable[[], Awaitable[None]]) -> None:
        if self.started:
            return
        async with self._lock:
            if self.failure is not None:
                raise self.failure
            if self.started:
                return
            try:
                await start()
            except UserError as err:
                self.failure = err
                raise
            self.started = True
